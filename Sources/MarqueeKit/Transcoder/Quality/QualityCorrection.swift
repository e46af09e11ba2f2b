import Foundation

/// Decides, from what an encode of the top rendition already measured,
/// whether encoding it again at a lower CRF can bring it nearer
/// `video_target_ssim`, and at which CRF: the explicit step between the
/// first encode and `Transcoder.encodeTopRendition(_:crf:)`.
///
/// It looks at every picture of the last encode, in decode order
/// (`PictureQuality.encodedPictures`: packet bytes, libx264's frame QP,
/// the meter's SSIM), and replays the VBV buffer libx264 was given
/// (`RenditionPlan.maxRate`, `bufferSize`, `initialBufferOccupancy`): a
/// picture coded while that buffer held less than `heldFill` of its size
/// was held by the cap, since libx264's VBV raises the QP of a picture
/// whenever its lookahead sees the buffer fall under half full
/// (`clip_qscale` in x264's ratecontrol.c), and the buffer of a stream
/// under its cap fills up; a lower CRF buys such a picture nothing. The
/// log gives the mean QP libx264 reported for the held pictures and the
/// others (`Packet.encoderQP`). It then predicts the mean SSIM the next
/// CRF gains on the other pictures, at the slope the meter measured:
/// between the last two encodes, or before there are two, across the first
/// encode's pictures (`decibelsPerQP`; `QualityTarget.decibelsPerCRF` when
/// they do not say), for no more QP points than the cap leaves room for
/// (6 per doubling of the encode's average bit rate up to `usableShare`
/// of `maxRate`).
///
/// No correction when:
/// - the last encode reached the target;
/// - `QualityTarget.maxCorrections` corrections were made, or the CRF is at
///   its lowest;
/// - the cap holds: at least `heldShare` of the pictures were held by it,
///   or the average already reaches `usableShare` of `maxRate`;
/// - the gain predicted is under `minimumGain` (and under what the target
///   still needs: a correction predicted to close a smaller shortfall is
///   made).
///
/// Pure: no I/O, so the rule is tested alone (`QualityCorrectionTests`).
public struct QualityCorrection: Sendable, Equatable {
  /// The SSIM target and the CRF step rule (`QualityTarget.nextCRF`).
  public var target: QualityTarget
  /// The rendition's VBV, as libx264 was given it.
  public var cap: Cap
  /// Pictures per second of the rendition (the VBV fills at
  /// `cap.maxRate` / `frameRate` bits per picture).
  public var frameRate: Double
  /// The lowest CRF allowed (the job's less `QualityTarget.maxLowering`,
  /// at least `JobSettings.videoCRFRange`'s lower bound).
  public var lowest: Double

  /// A picture coded while the replayed VBV buffer held less than this
  /// share of its size was held by the cap. libx264's lookahead plans
  /// every picture so that the buffer is still half full at the end of
  /// the lookahead, saving up for the next IDR, so a capped stream's buffer
  /// stays between about 40 and 80 % and never fills (the grain of issue
  /// 26 at 720p: 0.40–0.79); content the cap does not hold fills it to the
  /// top between its I pictures.
  public static let heldFill = 0.9
  /// ... and the pictures of the second from a held one took at least this
  /// share of the bits `maxRate` brought in: the CRF 17 encode of issue
  /// 26's grain, held throughout, took 0.80–1.0 of it per second (357 of its
  /// 360 pictures counted held at 0.8).
  public static let heldRate = 0.8
  /// The share of `maxRate` a capped CRF encode can average: libx264's
  /// VBV keeps the buffer about half full, so an encode pinned to its cap
  /// averages under it (the CRF 17 encode of issue 26's grain, held
  /// throughout: 2.88 Mbit/s of 3 after the half-full start's bonus; its
  /// CRF 23 encode averaged 2.69, and CRF 17 gained it nothing).
  public static let usableShare = QualityTarget.heldToCapShare
  /// The cap holds the encode when at least this share of its pictures
  /// were held by it.
  public static let heldShare = 0.9
  /// Mean SSIM a correction must be predicted to gain (unless it is
  /// predicted to close a smaller shortfall): less is not worth one more
  /// encode of the top rendition (issue 26).
  public static let minimumGain = 0.002

  /// A rendition's VBV, in bits and bits per second.
  public struct Cap: Sendable, Equatable {
    public var maxRate: Double
    public var bufferSize: Double
    public var initialOccupancy: Double

    public init(maxRate: Double, bufferSize: Double, initialOccupancy: Double) {
      self.maxRate = maxRate
      self.bufferSize = bufferSize
      self.initialOccupancy = initialOccupancy
    }

    /// The VBV libx264 was given for `plan`.
    public init(_ plan: RenditionPlan) {
      self.init(maxRate: Double(plan.maxRate), bufferSize: Double(plan.bufferSize),
                initialOccupancy: Double(plan.initialBufferOccupancy))
    }
  }

  /// What to do after an encode, and why, in words for the log.
  public enum Decision: Sendable, Equatable {
    /// Keep the last encode. `reason` says why it is still short of the
    /// target; nil when it reached it.
    case keep(reason: String?)
    /// Encode the top rendition again at `crf`.
    case encodeAgain(crf: Double, reason: String)
  }

  public init(target: QualityTarget, cap: Cap, frameRate: Double, lowest: Double) {
    self.target = target
    self.cap = cap
    self.frameRate = frameRate
    self.lowest = lowest
  }

  /// The pictures the cap held, by replaying the VBV buffer in decode order.
  ///
  /// - Parameter pictures: the encode's pictures, in decode order.
  /// - Returns: for each picture, whether the buffer held less than
  ///   `heldFill` of its size when the picture was coded and for the
  ///   second of pictures after it (the buffer's length at `maxRate`), and
  ///   those pictures took at least `heldRate` of what `maxRate` brought
  ///   in meanwhile: a buffer that fills up within that second, or pictures
  ///   taking well under the cap (a short clip still rising from the
  ///   half-full start), were not held back.
  public func heldByCap(_ pictures: [EncodedPicture]) -> [Bool] {
    guard cap.bufferSize > 0, cap.maxRate > 0, frameRate > 0 else { return pictures.map { _ in false } }
    let perPicture = cap.maxRate / frameRate
    var fill = min(cap.initialOccupancy, cap.bufferSize)
    var fills: [Double] = []
    fills.reserveCapacity(pictures.count)
    for picture in pictures {
      fills.append(fill)
      fill = min(cap.bufferSize, fill - Double(picture.bytes * 8) + perPicture)
    }
    let window = max(1, Int((cap.bufferSize / cap.maxRate * frameRate).rounded()))
    let limit = Self.heldFill * cap.bufferSize
    var sums = [0]
    for picture in pictures { sums.append(sums[sums.count - 1] + picture.bytes * 8) }
    return fills.indices.map { i in
      let end = min(fills.count, i + window)
      let spent = Double(sums[end] - sums[i])
      return spent >= Self.heldRate * perPicture * Double(end - i) && fills[i..<end].allSatisfy { $0 < limit }
    }
  }

  /// The mean SSIM an encode at `crf` is predicted to gain over `last`
  /// (encoded at `lastCRF`): each picture not held by the cap gains
  /// `slope` decibels per CRF point (in `-10·log10(1 − SSIM)`), each held
  /// one nothing.
  public static func predictedGain(_ pictures: [EncodedPicture], held: [Bool], from lastCRF: Double,
                                   to crf: Double, slope: Double) -> Double {
    guard !pictures.isEmpty else { return 0 }
    let factor = 1 - pow(10, -max(0, slope) * max(0, lastCRF - crf) / 10)
    var gain = 0.0
    for (picture, isHeld) in zip(pictures, held) where !isHeld {
      gain += (1 - picture.ssim) * factor
    }
    return gain / Double(pictures.count)
  }

  /// Decides after the last of `trials`.
  ///
  /// - Parameters:
  ///   - trials: the encodes of the top rendition so far, in order.
  ///   - pictures: the last encode's pictures, in decode order; empty
  ///     when the meter recorded none (the cap is then judged by the
  ///     average alone: at least `usableShare` of `maxRate`).
  ///   - averageBitRate: the last encode's average video bit rate, bits/s.
  /// - Returns: the decision, with the figures behind it in `reason`.
  public func decide(after trials: [QualityTarget.Trial], pictures: [EncodedPicture],
                     averageBitRate: Double) -> Decision {
    guard let last = trials.last, last.ssim < target.ssim else { return .keep(reason: nil) }
    if trials.count > QualityTarget.maxCorrections {
      return .keep(reason: "after \(QualityTarget.maxCorrections) corrections")
    }
    let held = pictures.isEmpty ? [] : heldByCap(pictures)
    let heldCount = held.filter { $0 }.count
    // Held when most pictures were, or when the average already reaches
    // what a capped encode can average (`usableShare`).
    let capHolds = averageBitRate >= Self.usableShare * cap.maxRate
      || (!pictures.isEmpty && Double(heldCount) >= Self.heldShare * Double(pictures.count))
    let rateText = String(format: "%.0f of %.0f kbit/s", averageBitRate / 1000, cap.maxRate / 1000)
    let heldText = "\(heldCount) of \(pictures.count) pictures"
    let qp = Self.qpText(pictures, held: held)
    if capHolds {
      return .keep(reason: "held to its bit-rate cap: " + (pictures.isEmpty ? rateText : "\(heldText) held\(qp), \(rateText)"))
    }
    guard let crf = target.nextCRF(after: trials, lowest: lowest) else {
      return .keep(reason: String(format: "at the lowest CRF allowed, %.1f", lowest))
    }
    // The slope the meter measured: between the last two encodes, or
    // before a second encode across the first one's pictures (their SSIM
    // against the QP libx264 gave each); the model's when neither says.
    var slope = QualityTarget.decibelsPerCRF
    var slopeSource = "assumed"
    if trials.count >= 2, trials[trials.count - 2].crf > last.crf {
      let before = trials[trials.count - 2]
      slope = max(0, (QualityTarget.decibels(last.ssim) - QualityTarget.decibels(before.ssim)) / (before.crf - last.crf))
      slopeSource = "measured between the encodes"
    } else if let perQP = Self.decibelsPerQP(pictures) {
      slope = perQP
      slopeSource = "measured across the pictures"
    }
    // The QP points the cap leaves room for: bits about double for every
    // 6 QP lower (H.264's quantiser step doubles every 6), up to the rate
    // libx264's VBV lets a capped CRF encode average (`usableShare`).
    var lowering = last.crf - crf
    var roomText = ""
    if averageBitRate > 0 {
      let room = 6 * log2(max(1, Self.usableShare * cap.maxRate / averageBitRate))
      if room < lowering {
        lowering = room
        roomText = String(format: ", room under the cap for %.2f QP (%.0f of %.0f kbit/s)", room,
                          averageBitRate / 1000, cap.maxRate / 1000)
      }
    }
    let gain = pictures.isEmpty
      ? (1 - last.ssim) * (1 - pow(10, -slope * lowering / 10))
      : Self.predictedGain(pictures, held: held, from: last.crf, to: last.crf - lowering, slope: slope)
    let figures = String(format: "+%.4f predicted at CRF %.2f at %.2f dB per CRF point %@", gain, crf, slope, slopeSource)
      + roomText + ", " + (pictures.isEmpty ? "no pictures recorded" : heldText + " held to the cap" + qp)
    if gain < min(Self.minimumGain, target.ssim - last.ssim) {
      return .keep(reason: "a correction cannot help: " + figures
        + String(format: ", under %.3f", Self.minimumGain))
    }
    return .encodeAgain(crf: crf, reason: figures)
  }

  /// The SSIM decibels (`QualityTarget.decibels`) the pictures of one
  /// encode gain per QP point lower, from the least-squares line of their
  /// SSIM against the QP libx264 coded each at (its I, P and B pictures of
  /// the same content differ by several QP); nil when fewer than 10
  /// pictures report a QP or their QPs spread by less than 0.5 (standard
  /// deviation). At most `maxDecibelsPerQP`, at least 0.
  public static func decibelsPerQP(_ pictures: [EncodedPicture]) -> Double? {
    let points = pictures.compactMap { p in p.qp.map { ($0, QualityTarget.decibels(p.ssim)) } }
    guard points.count >= 10 else { return nil }
    let n = Double(points.count)
    let mx = points.reduce(0) { $0 + $1.0 } / n, my = points.reduce(0) { $0 + $1.1 } / n
    var sxx = 0.0, sxy = 0.0
    for (x, y) in points {
      sxx += (x - mx) * (x - mx)
      sxy += (x - mx) * (y - my)
    }
    guard sxx / n >= 0.25 else { return nil }
    return min(Self.maxDecibelsPerQP, max(0, -sxy / sxx))
  }

  /// The steepest slope `decibelsPerQP` gives, dB per QP point: above the
  /// 0.39–0.45 dB per CRF point measured on natural clips (BENCHMARKS.md).
  public static let maxDecibelsPerQP = 0.6

  /// " (QP 38.1 held, 24.0 not)": the mean QP libx264 reported for the
  /// held pictures and the others; empty when it reported none.
  private static func qpText(_ pictures: [EncodedPicture], held: [Bool]) -> String {
    func mean(_ wanted: Bool) -> Double? {
      let qps = zip(pictures, held).compactMap { $1 == wanted ? $0.qp : nil }
      return qps.isEmpty ? nil : qps.reduce(0, +) / Double(qps.count)
    }
    switch (mean(true), mean(false)) {
    case let (h?, n?): return String(format: " (QP %.1f held, %.1f not)", h, n)
    case let (h?, nil): return String(format: " (QP %.1f)", h)
    case let (nil, n?): return String(format: " (QP %.1f)", n)
    default: return ""
    }
  }
}
