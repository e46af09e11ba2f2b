import Foundation

/// Bit rates measured from a rendition's segments, as RFC 8216 §4.3.4.2
/// defines `BANDWIDTH` (the peak segment bit rate) and `AVERAGE-BANDWIDTH`.
public struct MeasuredBandwidth: Sendable, Equatable {
  /// The peak segment bit rate, bits per second: the highest bit rate of
  /// any run of consecutive segments lasting 0.5 to 1.5 times the target
  /// duration (RFC 8216 §4.3.4.2), so a short last segment (mostly its
  /// opening IDR frame) is measured together with the one before it.
  public var peak: Int
  /// Total bits / total duration, bits per second.
  public var average: Int
}

extension MeasuredBandwidth {
  /// Measures from segment sizes in bits and durations in seconds, in
  /// playlist order; `targetDuration` in seconds (`#EXT-X-TARGETDURATION`;
  /// nil: the longest segment, rounded up).
  public init(segments: [(bits: Double, seconds: Double)], targetDuration: Int?) {
    let bits = segments.reduce(0) { $0 + $1.bits }
    let seconds = segments.reduce(0) { $0 + $1.seconds }
    let target = Double(targetDuration ?? Int((segments.map(\.seconds).max() ?? 0).rounded(.up)))
    let peak = Self.peak(segments, shortest: 0.5 * target, longest: 1.5 * target)
      // A playlist shorter than half a target duration has no such run:
      // its one rate is the whole playlist's.
      ?? (seconds > 0 ? bits / seconds : 0)
    self.peak = Int(peak.rounded(.up))
    average = seconds > 0 ? Int((bits / seconds).rounded(.up)) : 0
  }

  /// The highest bit rate of a run of consecutive segments lasting
  /// `shortest` to `longest` seconds (bits per second); a segment longer
  /// than `longest` is measured on its own. Nil when the segments together
  /// last less than `shortest`.
  static func peak(_ segments: [(bits: Double, seconds: Double)], shortest: Double, longest: Double) -> Double? {
    // Rounding of #EXTINF: a run of exactly `shortest` or `longest` counts.
    let slack = 0.0005
    var peak = 0.0
    for i in segments.indices {
      var runBits = 0.0, runSeconds = 0.0
      for j in i..<segments.count {
        runBits += segments[j].bits
        runSeconds += segments[j].seconds
        if runSeconds > longest + slack { break }
        if runSeconds >= shortest - slack { peak = max(peak, runBits / runSeconds) }
      }
    }
    if peak == 0 {
      guard segments.reduce(0, { $0 + $1.seconds }) >= shortest - slack else { return nil }
      peak = segments.filter { $0.seconds > 0 }.map { $0.bits / $0.seconds }.max() ?? 0
    }
    return peak
  }
}
