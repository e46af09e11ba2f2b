internal import CFFmpeg

/// A rational number such as a time base (seconds per tick), a frame rate
/// (frames per second) or a sample aspect ratio. Mirrors `AVRational`.
public struct Rational: Sendable, Hashable, CustomStringConvertible {
  public var num: Int32
  public var den: Int32

  public init(_ num: Int32, _ den: Int32) {
    self.num = num
    self.den = den
  }

  init(_ r: AVRational) { self.init(r.num, r.den) }
  var av: AVRational { AVRational(num: num, den: den) }

  /// The value as a `Double`; 0 when the denominator is 0 (unknown).
  public var doubleValue: Double { den == 0 ? 0 : Double(num) / Double(den) }
  /// Whether both parts are positive (a usable rate or time base).
  public var isValid: Bool { num > 0 && den > 0 }
  public var description: String { "\(num)/\(den)" }

  /// Rescales `ticks` from time base `from` to `to`, rounding to nearest
  /// (`av_rescale_q_rnd` with `AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX`).
  public static func rescale(_ ticks: Int64, from: Rational, to: Rational) -> Int64 {
    av_rescale_q_rnd(ticks, from.av, to.av,
                     AVRounding(rawValue: AV_ROUND_NEAR_INF.rawValue | AV_ROUND_PASS_MINMAX.rawValue))
  }
}

/// A presentation or decoding timestamp: ticks in a time base.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// Ticks of `timeBase`.
  public var ticks: Int64
  /// Seconds per tick.
  public var timeBase: Rational

  public init(ticks: Int64, timeBase: Rational) {
    self.ticks = ticks
    self.timeBase = timeBase
  }

  /// The timestamp in seconds.
  public var seconds: Double { Double(ticks) * timeBase.doubleValue }

  /// The same instant in another time base, rounded to nearest.
  public func converted(to tb: Rational) -> Timestamp {
    Timestamp(ticks: Rational.rescale(ticks, from: timeBase, to: tb), timeBase: tb)
  }

  public static func < (a: Timestamp, b: Timestamp) -> Bool {
    av_compare_ts(a.ticks, a.timeBase.av, b.ticks, b.timeBase.av) < 0
  }
  public var description: String { String(format: "%.6fs", seconds) }
}
