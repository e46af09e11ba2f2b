/// Decides which output frames are IDR frames, and so where every HLS
/// segment starts: at the same timestamps in every rendition.
///
/// Segment 0 starts at 0 and lasts `firstSegmentDuration`; segment `k ≥ 1`
/// starts at `firstSegmentDuration + (k − 1) × segmentDuration`. The first
/// frame of each segment (frame `n` is at `n / frameRate` seconds) is forced
/// to IDR. Integer arithmetic only (milliseconds over the exact rational
/// rate), so 29.97 fps never drifts. The transcoder tells libavformat's HLS
/// muxer to cut at every keyframe, so these IDRs are the segment boundaries
/// (Apple HLS authoring spec 1.9: an IDR at least every two seconds; every
/// segment starts with one, so a player can switch renditions there).
///
/// A short first segment makes the bytes before the first picture fewer
/// (init section + first segment) without shortening every segment, which
/// would cost an IDR per second.
public struct KeyframePlanner: Sendable {
  let fpsNum: Int64
  let fpsDen: Int64
  /// Segment duration in milliseconds (segments after the first).
  let segmentMilliseconds: Int64
  /// Duration of the first segment in milliseconds.
  let firstSegmentMilliseconds: Int64
  private var lastSegment: Int64 = -1

  /// - Parameters:
  ///   - frameRate: output frames per second.
  ///   - segmentDuration: target segment duration in seconds (millisecond
  ///     precision).
  ///   - firstSegmentDuration: duration of the first segment in seconds;
  ///     nil (or anything not shorter) makes it `segmentDuration` long too.
  public init(frameRate: Rational, segmentDuration: Double, firstSegmentDuration: Double? = nil) {
    fpsNum = Int64(frameRate.num)
    fpsDen = Int64(frameRate.den)
    segmentMilliseconds = max(1, Int64((segmentDuration * 1000).rounded()))
    let first = firstSegmentDuration.map { max(1, Int64(($0 * 1000).rounded())) } ?? segmentMilliseconds
    firstSegmentMilliseconds = min(first, segmentMilliseconds)
  }

  /// The segment index a frame index falls in.
  public func segment(ofFrame n: Int64) -> Int64 {
    // t = n · den / num seconds; in milliseconds t·1000 = n·den·1000 / num.
    let scaled = n * fpsDen * 1000  // t in ms, times num
    let first = firstSegmentMilliseconds * fpsNum
    if scaled < first { return 0 }
    return 1 + (scaled - first) / (segmentMilliseconds * fpsNum)
  }

  /// Start of segment `k` in seconds.
  public func start(ofSegment k: Int64) -> Double {
    k <= 0 ? 0 : Double(firstSegmentMilliseconds + (k - 1) * segmentMilliseconds) / 1000
  }

  /// Whether frame `n` must be an IDR frame. Call once per frame, in order.
  public mutating func isIDR(frame n: Int64) -> Bool {
    let k = segment(ofFrame: n)
    if k > lastSegment {
      lastSegment = k
      return true
    }
    return false
  }

  /// The longest GOP in frames: one (longest) segment's worth plus one, so
  /// the encoder never adds a keyframe of its own between two forced ones.
  public var gopLength: Int {
    Int((segmentMilliseconds * fpsNum + fpsDen * 1000 - 1) / (fpsDen * 1000)) + 1
  }
}
