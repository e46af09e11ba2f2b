/// Decides which output frames are IDR frames so that every segment starts
/// with one, at the same timestamps in every rendition.
///
/// A frame with PTS `n` (ticks of 1/`frameRate`, i.e. the frame index) starts
/// segment `k = floor(n / frameRate / segmentDuration)`; the first frame of
/// each new `k` is forced to IDR. Integer arithmetic only, so 29.97 fps
/// never drifts. This mirrors the boundary rule of libavformat's HLS muxer,
/// which cuts at the first keyframe at or after each multiple of `hls_time`
/// (Apple HLS authoring spec 1.13, 7.4, 8.22).
public struct KeyframePlanner: Sendable {
  let fpsNum: Int64
  let fpsDen: Int64
  /// Segment duration in milliseconds.
  let segmentMilliseconds: Int64
  private var lastSegment: Int64 = -1

  /// - Parameters:
  ///   - frameRate: output frames per second.
  ///   - segmentDuration: target segment duration in seconds (millisecond
  ///     precision).
  public init(frameRate: Rational, segmentDuration: Double) {
    fpsNum = Int64(frameRate.num)
    fpsDen = Int64(frameRate.den)
    segmentMilliseconds = max(1, Int64((segmentDuration * 1000).rounded()))
  }

  /// The segment index a frame index falls in.
  public func segment(ofFrame n: Int64) -> Int64 {
    // t = n * den / num seconds; k = floor(t * 1000 / segMs)
    (n * fpsDen * 1000) / (fpsNum * segmentMilliseconds)
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

  /// The longest GOP in frames: one segment's worth plus one, so the encoder
  /// never adds a keyframe of its own between two forced ones.
  public var gopLength: Int {
    Int((segmentMilliseconds * fpsNum + fpsDen * 1000 - 1) / (fpsDen * 1000)) + 1
  }
}
