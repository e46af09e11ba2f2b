/// Puts a source's decoded timestamps on the output timeline, where the
/// first picture is at 0: pure arithmetic on `Timestamp`s, no frames.
///
/// - The origin is the first picture's presentation time (best-effort
///   timestamp, in the video stream's time base). Audio is rebased on the
///   same origin, so the source's A/V offset is kept.
/// - A picture without a timestamp is placed one nominal frame after the
///   previous one; one before any timestamp is known is dropped.
/// - The end of the pictures (`videoEnd`) is the largest rebased PTS plus
///   the picture's own duration (or one nominal frame): the filter graph is
///   closed there, so the last picture lasts as long as in the source, and
///   the audio is cut there (`AudioPath`).
///
/// Throws `MarqueeError.limitExceeded` as soon as a picture lies past
/// `maxDuration` seconds from the origin, before it is decoded further.
struct TimelineRebaser: Sendable {
  /// The video stream's time base.
  let videoTimeBase: Rational
  /// The output frame rate.
  let frameRate: Rational
  /// One output frame, in ticks of `videoTimeBase`, rounded.
  let nominalFrameTicks: Int64
  /// The max_duration limit, seconds.
  let maxDuration: Double

  /// The first picture's presentation time in the source, seconds; `nil`
  /// until a picture with a timestamp is seen.
  private(set) var origin: Double?
  private var lastVideoTicks: Int64?
  /// End of the last picture on the output timeline.
  private(set) var videoEnd: Timestamp

  init(videoTimeBase: Rational, frameRate: Rational, maxDuration: Double) {
    self.videoTimeBase = videoTimeBase
    self.maxDuration = maxDuration
    self.frameRate = frameRate
    nominalFrameTicks = Int64((1 / frameRate.doubleValue / videoTimeBase.doubleValue).rounded())
    videoEnd = Timestamp(ticks: 0, timeBase: videoTimeBase)
  }

  /// The output PTS of a picture whose source timestamp is `ticks`
  /// (ticks of `videoTimeBase`) and whose duration is `duration` ticks (0:
  /// unknown); `nil` when it has no timestamp and none came before.
  mutating func rebaseVideo(ticks: Int64?, duration: Int64) throws(MarqueeError) -> Int64? {
    var t = ticks
    if t == nil, let last = lastVideoTicks {
      // One output frame after the previous picture (truncated to ticks).
      t = last + Int64((1 / frameRate.doubleValue) / videoTimeBase.doubleValue)
    }
    guard let source = t else { return nil }
    lastVideoTicks = source
    let seconds = Double(source) * videoTimeBase.doubleValue
    if origin == nil { origin = seconds }
    if seconds - (origin ?? 0) > maxDuration {
      throw MarqueeError(.limitExceeded, String(format: "video runs past the max_duration limit of %.0f s", maxDuration))
    }
    let rebased = source - Int64(((origin ?? 0) / videoTimeBase.doubleValue).rounded())
    let shown = duration > 0 ? duration : nominalFrameTicks
    videoEnd.ticks = max(videoEnd.ticks, rebased + max(1, shown))
    return rebased
  }

  /// The output PTS of an audio frame at `ticks` of `timeBase` (its
  /// stream's), on the video's origin (0 before it is known).
  func rebaseAudio(ticks: Int64?, timeBase: Rational) -> Int64? {
    guard let ticks else { return nil }
    return ticks - Int64(((origin ?? 0) / timeBase.doubleValue).rounded())
  }
}
