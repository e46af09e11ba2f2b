/// The video of one transcode, on the item's thread: rebased pictures → the
/// shared filter chain (deinterlace, constant rate, tone mapping;
/// `VideoFilterDescription.headText`) → a reference to each resulting
/// picture for every rendition worker, which scales, rotates and encodes
/// its own rung (`RenditionWorker`, `VideoFilterDescription.tailText`).
///
/// The graphs are built on the first decoded picture, whose format,
/// colour tags and size they need. One thread per graph: filter threads
/// would compute outside the CPU permits. (The scaled rendition that once
/// differed between two runs under load was libx264's doing, not
/// libswscale's: `X264Capabilities`.)
final class VideoPath {
  private let stream: StreamInfo
  private let decoder: Decoder
  private let plan: VideoPlan
  private let fanOut: RenditionFanOut
  private let audio: AudioPath?
  private let progress: (@Sendable (TranscodeProgress) -> Void)?
  private let sourceDuration: Double?
  private var graph: FilterGraph?
  private let filtered: Frame
  /// The output frame duration, 1/frame rate: the encoders' time base.
  private let encoderTimeBase: Rational
  /// The end of the last picture handed to the renditions, on the output
  /// timeline (the encoders' time base): the picture count, as the output
  /// is constant-rate.
  private(set) var pictureEnd: Timestamp
  /// The dynamic range of the source, from its first picture's tags when
  /// the stream's are missing.
  private(set) var dynamicRange: DynamicRange

  init(stream: StreamInfo, decoder: Decoder, plan: VideoPlan, fanOut: RenditionFanOut, audio: AudioPath?,
       sourceDuration: Double?, progress: (@Sendable (TranscodeProgress) -> Void)?) throws {
    self.sourceDuration = sourceDuration
    self.stream = stream
    self.decoder = decoder
    self.plan = plan
    self.fanOut = fanOut
    self.audio = audio
    self.progress = progress
    filtered = try Frame()
    encoderTimeBase = Rational(plan.frameRate.den, plan.frameRate.num)
    pictureEnd = Timestamp(ticks: 0, timeBase: encoderTimeBase)
    dynamicRange = DynamicRange(transfer: stream.colorTransfer)
  }

  /// Whether a picture reached the filter graph.
  var hasPictures: Bool { graph != nil }

  /// A decoded picture whose `pts` is already on the output timeline.
  func push(_ decoded: Frame) throws {
    if graph == nil { try buildGraphs(for: decoded) }
    try graph?.push(decoded)
    try pull()
    try audio?.releasePassed()
  }

  /// Closes the graph at `end` (the last picture's end) and hands over the
  /// pictures it still held.
  func finish(end: Timestamp) throws {
    guard let g = graph else { return }
    try g.close(pts: end.ticks)
    try pull()
  }

  private func buildGraphs(for decoded: Frame) throws {
    let trc = decoded.colorTransferName
    if DynamicRange(transfer: trc) != .sdr { dynamicRange = DynamicRange(transfer: trc) }
    let desc = VideoFilterDescription(plan: plan, transform: stream.orientation, dynamicRange: dynamicRange,
                                      sourceMatrix: decoded.colorSpaceName, sourcePrimaries: decoded.colorPrimariesName,
                                      sourceIsFullRange: decoded.isFullRange, sourceHeight: decoded.height)
    let head = try FilterGraph(description: desc.headText,
                               inputs: [.videoSource(decoder.bufferSourceArguments(for: decoded))],
                               outputs: [.videoSink], threads: 1)
    graph = head
    try fanOut.setFilters { i in
      try FilterGraph(description: desc.tailText(rendition: i), inputs: [.videoSource(head.bufferSourceArguments())],
                      outputs: [.videoSink], threads: 1)
    }
  }

  /// Hands every picture the shared chain has ready to the renditions. The
  /// index n is the output frame's, the same in every rendition.
  private func pull() throws {
    guard let g = graph else { return }
    while try g.pull(filtered) == .produced {
      let n = filtered.pts ?? 0
      try fanOut.push(picture: filtered)
      pictureEnd.ticks = max(pictureEnd.ticks, n + 1)
      audio?.pictureEnds(at: Timestamp(ticks: n + 1, timeBase: encoderTimeBase))
      progress?(TranscodeProgress(encoded: Double(n + 1) * encoderTimeBase.doubleValue, sourceDuration: sourceDuration))
    }
  }
}
