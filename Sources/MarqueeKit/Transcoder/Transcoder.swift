import Foundation

/// What the transcoder is asked to make from one source.
public struct TranscodeRequest: Sendable {
  /// The local source file.
  public var source: URL
  /// The item's folder inside the staging bundle; created if missing.
  public var outputDirectory: URL
  /// Segment duration in seconds: an IDR starts every multiple of it.
  public var segmentDuration: Double
  public var ladder: [RenditionRequest]
  /// Cap on the renditions' short side in pixels.
  public var maxHeight: Int
  public var limits: InputLimits
  public var coverPolicy: CoverPolicy
  /// x264 threads per rendition (0 = libx264's choice).
  public var encoderThreads: Int
  /// Short side of the rendition muxed to MP4; nil = nearest 720.
  public var mp4Height: Int?
  /// The build's CPU permits. The calling thread must hold one; the
  /// rendition workers take their own, and FFmpeg's decoder and filter
  /// threads are sized from it (`CPUBudget.libraryThreads`).
  public var budget: CPUBudget
  /// Called on the transcoding thread with the seconds of the source
  /// handed to the encoders so far (output time, from 0), after each
  /// picture; the encoders trail it by at most a few pictures.
  public var progress: (@Sendable (Double) -> Void)?
  /// x264 constant rate factor of every rendition (the job's `video_crf`).
  public var crf: Double
  /// Length of the first HLS segment in seconds (the later ones last
  /// `segmentDuration`); nil: as long as the others.
  public var firstSegmentDuration: Double?

  /// The first segment's length by default, seconds: a 1 s first segment
  /// keeps the bytes before the first picture (init section + first
  /// segment) of a 2 Mbit/s start variant under 300 kB.
  public static let startupSegmentDuration = 1.0

  public init(source: URL, outputDirectory: URL, segmentDuration: Double, ladder: [RenditionRequest] = RenditionRequest.defaultLadder,
              maxHeight: Int, limits: InputLimits, coverPolicy: CoverPolicy, encoderThreads: Int = 0,
              mp4Height: Int? = nil, budget: CPUBudget = .unlimited, progress: (@Sendable (Double) -> Void)? = nil,
              crf: Double = JobSettings.default.videoCRF,
              firstSegmentDuration: Double? = TranscodeRequest.startupSegmentDuration) {
    self.crf = crf
    self.firstSegmentDuration = firstSegmentDuration
    self.budget = budget
    self.progress = progress
    self.source = source
    self.outputDirectory = outputDirectory
    self.segmentDuration = segmentDuration
    self.ladder = ladder
    self.maxHeight = maxHeight
    self.limits = limits
    self.coverPolicy = coverPolicy
    self.encoderThreads = encoderThreads
    self.mp4Height = mp4Height
  }
}

/// One encoded rendition as written.
public struct RenditionOutput: Sendable {
  public var plan: RenditionPlan
  /// Media playlist path relative to the item folder, e.g. `720p/index.m3u8`.
  public var playlistPath: String
  /// RFC 6381 codecs string: `avc1.PPCCLL` plus `mp4a.40.2` with audio.
  public var codecs: String
  /// H.264 profile_idc and level_idc read from the encoded SPS.
  public var profile: Int
  public var level: Int
}

/// What the transcoder produced for one source.
public struct TranscodeResult: Sendable {
  public var plan: VideoPlan
  public var renditions: [RenditionOutput]
  /// The MP4 path relative to the item folder.
  public var mp4Path: String
  public var hasAudio: Bool
  /// The frame the cover selector chose (the top rendition's size, RGBA
  /// sRGB), or why none could be: the cover stage decides what to do with
  /// it. `nil` when the request's cover is a poster (no frame is chosen).
  public var cover: Result<CoverPicture, CoverError>?
  /// Warnings for the user (no qualifying cover, dropped audio, …).
  public var warnings: [String]
  /// Source facts for logs.
  public var sourceCodec: String
  public var dynamicRange: DynamicRange
}

/// A cover picture taken from the video.
public struct CoverPicture: Sendable {
  /// RGBA sRGB, opaque, at the top rendition's size.
  public var image: RGBAImage
  /// Presentation time in seconds from the start of the output.
  public var time: Double
  /// The selector's warning (a flat last resort, a pinned time past the end).
  public var warning: String?
  /// Why the selector took it (`CoverChoice.basis`).
  public var basis: String = ""
}

/// Errors of the transcoder stage; the pipeline adds the item id.
public struct TranscodeError: Error, CustomStringConvertible, Sendable {
  public var reason: String
  public var cause: MediaIOError?
  public init(_ reason: String, cause: MediaIOError? = nil) {
    self.reason = reason
    self.cause = cause
  }
  public var description: String { reason }
}

/// Decodes a source once and encodes every rendition once, muxing each
/// encoded packet into both the HLS fMP4 media playlist and (for one
/// rendition) the fast-start MP4: one pass, no second decode or encode.
///
/// Pipeline per video frame: decode → timestamps rebased so the first
/// picture is at 0 → filter graph (deinterlace, CFR, tone map) → for each
/// rendition, on its worker thread (`RenditionWorker`): scale and rotate →
/// IDR forced at each segment boundary
/// (`KeyframePlanner`) → libx264 → HLS muxer + MP4 muxer. Audio: decode →
/// `aresample` → cut at the pictures' end → AAC-LC once → every muxer. The
/// cover selector sees the top rendition's frames (on its worker thread).
public struct Transcoder {
  /// The smallest picture side accepted, in pixels: below it there is no
  /// picture worth a banner, and H.264's 16×16 macroblocks have nothing to code.
  public static let minimumSide = 16

  public init() {}

  /// Runs the transcode.
  ///
  /// - Throws: `TranscodeError` for sources with no video, limits exceeded,
  ///   corrupt data beyond tolerance, or encoder and muxer failures; the
  ///   cause carries FFmpeg's reason.
  public func run(_ request: TranscodeRequest) throws(TranscodeError) -> TranscodeResult {
    do {
      return try runThrowing(request)
    } catch let e as TranscodeError {
      throw e
    } catch let e as MediaIOError {
      // The pipeline already names the item and its source: say only what
      // failed (and where, when it is not the source file itself).
      let file = request.source.lastPathComponent
      let reason = e.context.isEmpty || e.context == file ? e.reason : "\(e.context): \(e.reason)"
      throw TranscodeError(reason, cause: e)
    } catch {
      throw TranscodeError("\(error)")
    }
  }

  private func runThrowing(_ request: TranscodeRequest) throws -> TranscodeResult {
    let path = request.source.path
    let input = try InputContainer(path: path, allowedFormats: InputContainer.videoFormats, limits: request.limits)
    guard let video = input.bestStream(.video) else {
      throw TranscodeError("no video stream (found: \(input.streams.map { $0.codecName }.joined(separator: ", ")))")
    }
    var warnings: [String] = []
    var audio = input.bestStream(.audio)
    var audioDecoder: Decoder? = nil
    if let a = audio {
      do { audioDecoder = try Decoder(container: input, streamIndex: a.index, threads: 1) } catch {
        warnings.append("audio stream \(a.index) (\(a.codecName)) cannot be decoded (\(error.reason)); the output has no audio")
        audio = nil
      }
    }
    input.keepOnly(Set([video.index] + (audio.map { [$0.index] } ?? [])))
    let videoDecoder = try Decoder(container: input, streamIndex: video.index, threads: request.budget.libraryThreads)

    guard video.width >= Transcoder.minimumSide, video.height >= Transcoder.minimumSide else {
      throw TranscodeError("picture is \(video.width)x\(video.height), below the minimum of \(Transcoder.minimumSide)x\(Transcoder.minimumSide) pixels")
    }
    let plan = RenditionPlanner.plan(stream: video, requests: request.ladder, maxHeight: request.maxHeight,
                                     mp4Height: request.mp4Height)
    let fm = FileManager.default
    try? fm.createDirectory(at: request.outputDirectory, withIntermediateDirectories: true)
    let encoderTB = Rational(plan.frameRate.den, plan.frameRate.num)
    let planners = plan.renditions.map { _ in
      KeyframePlanner(frameRate: plan.frameRate, segmentDuration: request.segmentDuration,
                      firstSegmentDuration: request.firstSegmentDuration)
    }

    // Encoders: one per rendition, one for audio.
    let gop = planners[0].gopLength
    let videoEncoders = try plan.renditions.map { r in
      try Encoder(video: VideoEncoderSettings(width: r.width, height: r.height, frameRate: plan.frameRate,
                                              bitRate: r.bitRate, maxRate: r.maxRate, bufferSize: r.bufferSize,
                                              gopLength: gop, preset: EncoderEffort.preset, threads: request.encoderThreads,
                                              crf: request.crf, initialBufferOccupancy: r.initialBufferOccupancy,
                                              bFrames: EncoderEffort.bFrames, x264Options: EncoderEffort.x264Options))
    }
    let audioChannels = (audio?.channels ?? 2) == 1 ? 1 : 2
    let audioEncoder = try audio.map { _ in try Encoder(audio: AudioEncoderSettings(channels: audioChannels)) }

    // Muxers: HLS for every rendition, MP4 for one.
    var hls: [OutputContainer] = []
    var outputs: [RenditionOutput] = []
    let codecsAudio = audioEncoder == nil ? "" : ",mp4a.40.2"
    for (i, r) in plan.renditions.enumerated() {
      let dir = request.outputDirectory.appendingPathComponent(r.name)
      try fm.createDirectory(at: dir, withIntermediateDirectories: true)
      let playlist = dir.appendingPathComponent("index.m3u8").path
      let mux = try OutputContainer(path: playlist, format: "hls")
      _ = try mux.addStream(from: videoEncoders[i])
      if let a = audioEncoder { _ = try mux.addStream(from: a) }
      try mux.writeHeader(options: [
        // Cut at every keyframe: the muxer cuts at the first keyframe past
        // each multiple of hls_time, and the IDRs `KeyframePlanner` forces
        // are the only keyframes, so they alone place the segments.
        ("hls_time", "0.001"),
        ("hls_playlist_type", "vod"),
        ("hls_list_size", "0"),
        ("hls_segment_type", "fmp4"),
        ("hls_fmp4_init_filename", "init.mp4"),
        ("hls_segment_filename", dir.appendingPathComponent("segment_%05d.m4s").path),
        ("hls_flags", "independent_segments"),
      ] + OutputContainer.startAtZeroOptions(fragmented: true))
      hls.append(mux)
      let pl = videoEncoders[i].h264ProfileAndLevel ?? (100, 0, 31)
      outputs.append(RenditionOutput(
        plan: r, playlistPath: "\(r.name)/index.m3u8",
        codecs: String(format: "avc1.%02X%02X%02X", pl.profile, pl.constraints, pl.level) + codecsAudio,
        profile: Int(pl.profile), level: Int(pl.level)))
    }
    let mp4Name = "video.mp4"
    let mp4 = try OutputContainer(path: request.outputDirectory.appendingPathComponent(mp4Name).path, format: "mp4")
    _ = try mp4.addStream(from: videoEncoders[plan.mp4Rendition])
    if let a = audioEncoder { _ = try mp4.addStream(from: a) }
    try mp4.writeHeader(options: OutputContainer.startAtZeroOptions(fragmented: false))

    // Graphs are built on the first decoded frame, whose format they need.
    var videoGraph: FilterGraph? = nil
    var audioGraph: FilterGraph? = nil
    var originSeconds: Double? = nil
    var dynamicRange = DynamicRange(transfer: video.colorTransfer)
    var selector = CoverSelector<Frame>(policy: request.coverPolicy)
    let packet = try Packet()
    let decoded = try Frame()
    let filtered = try Frame()
    let encodedPacket = try Packet()
    var decodeErrors = 0
    let maxDecodeErrors = 25
    var lastVideoTicks: Int64? = nil
    // End of the last picture (rebased ticks), to close the graph after it.
    var videoEndTicks: Int64 = 0

    // One worker thread per rendition owns its encoder and muxers from here
    // until `join()`; this thread decodes, filters and encodes the audio.
    let audioStreamIndex = 1
    // The cover selector sees the top rendition's pictures where they are
    // made, on rendition 0's worker thread, before they are encoded; this
    // thread reads its choice after `join()` (the join's lock orders the
    // two). The same calls, on the same pictures, as when this thread
    // scaled rendition 0 itself.
    let coverObserver: (Frame) throws -> Void = { filtered in
      let n = filtered.pts ?? 0
      if !selector.isSatisfied && request.coverPolicy.posterSource == nil, let thumbs = filtered.yuvThumbnails() {
        let t = Double(n) * encoderTB.doubleValue
        let stats = PictureStatistics(y: thumbs.y, u: thumbs.u, v: thumbs.v)
        try selector.offer(time: t, statistics: stats) { try filtered.clone() }
      }
    }
    let workers = plan.renditions.indices.map { i in
      RenditionWorker(encoder: videoEncoders[i], hls: hls[i], mp4: i == plan.mp4Rendition ? mp4 : nil,
                      audioStream: audioStreamIndex, budget: request.budget, planner: planners[i],
                      observe: i == 0 ? coverObserver : nil)
    }
    for w in workers { w.start() }
    var workersJoined = false
    defer {
      // On an error path the workers still hold references: stop them
      // before the encoders and muxers are freed.
      if !workersJoined {
        for w in workers { try? w.push(.finish) }
        for w in workers { try? w.join() }
      }
    }
    func drainAudioEncoder() throws {
      guard let enc = audioEncoder else { return }
      while try enc.receive(encodedPacket) == .produced {
        for w in workers { try w.push(.audio(try encodedPacket.clone())) }
      }
    }
    // The item's graph ends with the picture every rendition shares
    // (deinterlaced, constant rate, tone-mapped); each worker scales its
    // own rendition from a reference to it (`RenditionWorker`,
    // `VideoFilterDescription.headText`). The index n is the output frame's,
    // the same in every rendition.
    func pullVideo() throws {
      guard let g = videoGraph else { return }
      while try g.pull(filtered) == .produced {
        let n = filtered.pts ?? 0
        for w in workers { try w.push(.source(try filtered.clone())) }
        if let enc = audioEncoder {
          videoEndSamples = max(videoEndSamples, Rational.rescale(n + 1, from: encoderTB, to: enc.timeBase))
        }
        if let report = request.progress { report(Double(n + 1) * encoderTB.doubleValue) }
      }
    }
    // Audio is cut where the pictures end, less the encoder delay (the
    // priming, `Encoder.encoderDelay`): a player that honours the audio
    // edit (AVPlayer, FFmpeg) ends the sound up to that delay (21.3 ms)
    // before the last picture ends, and one that plays the priming too
    // ends it with the last picture (plus the last AAC frame's padding).
    // So no player's media outlasts the #EXTINF sum or the MP4's video
    // track, and a source whose audio runs on past its pictures does not
    // make the MP4 longer than the HLS. Filtered audio waits here until the
    // pictures (output time) have passed its end; only the data decides
    // where it is cut, so the bytes stay repeatable.
    var pendingAudio: [Frame] = []
    var videoEndSamples: Int64 = 0
    func audioLimit() -> Int64 {
      let delay = Int64(audioEncoder?.encoderDelay ?? 0)
      let frameSize = Int64(max(1, audioEncoder?.frameSize ?? 1024))
      return videoEndSamples - delay >= frameSize ? videoEndSamples - delay : videoEndSamples
    }
    func releaseAudio(final: Bool) throws {
      guard let enc = audioEncoder else { return }
      let limit = audioLimit()
      while let f = pendingAudio.first {
        let start = f.pts ?? 0
        if start + Int64(f.sampleCount) > limit {
          guard final else { break }
          guard start < limit else {
            pendingAudio.removeAll()
            break
          }
          f.truncateSamples(to: Int(limit - start))
        }
        pendingAudio.removeFirst()
        _ = try enc.send(f)
        try drainAudioEncoder()
      }
    }
    func pullAudio() throws {
      guard let g = audioGraph, audioEncoder != nil else { return }
      while try g.pull(filtered) == .produced {
        pendingAudio.append(try filtered.clone())
      }
      try releaseAudio(final: false)
    }
    func handleVideoFrame() throws {
      let tb = video.timeBase
      var ticks = decoded.bestEffortTimestamp ?? decoded.pts
      if ticks == nil, let last = lastVideoTicks {
        ticks = last + Int64((1 / plan.frameRate.doubleValue) / tb.doubleValue)
      }
      guard let t = ticks else { return }
      lastVideoTicks = t
      let seconds = Double(t) * tb.doubleValue
      if originSeconds == nil { originSeconds = seconds }
      let rel = seconds - (originSeconds ?? 0)
      if rel > request.limits.maxDuration {
        throw TranscodeError(String(format: "video runs past the max_duration limit of %.0f s", request.limits.maxDuration))
      }
      decoded.pts = t - Int64(((originSeconds ?? 0) / tb.doubleValue).rounded())
      let nominal = Int64((1 / plan.frameRate.doubleValue / tb.doubleValue).rounded())
      let shown = decoded.duration > 0 ? decoded.duration : nominal
      videoEndTicks = max(videoEndTicks, (decoded.pts ?? 0) + max(1, shown))
      if videoGraph == nil {
        let trc = decoded.colorTransferName
        if DynamicRange(transfer: trc) != .sdr { dynamicRange = DynamicRange(transfer: trc) }
        let desc = VideoFilterDescription(plan: plan, transform: video.orientation, dynamicRange: dynamicRange,
                                          sourceMatrix: decoded.colorSpaceName, sourcePrimaries: decoded.colorPrimariesName,
                                          sourceIsFullRange: decoded.isFullRange, sourceHeight: decoded.height)
        // One thread per graph always: filter threads would compute
        // outside the CPU permits. (The scaled rendition that once differed
        // between two runs under load was libx264's doing, not
        // libswscale's: `X264Capabilities`.)
        let graph = try FilterGraph(description: desc.headText,
                                    inputs: [.videoSource(videoDecoder.bufferSourceArguments(for: decoded))],
                                    outputs: [.videoSink], threads: 1)
        videoGraph = graph
        for (i, w) in workers.enumerated() {
          try w.push(.filter(FilterGraph(description: desc.tailText(rendition: i),
                                         inputs: [.videoSource(graph.bufferSourceArguments())],
                                         outputs: [.videoSink], threads: 1)))
        }
      }
      try videoGraph?.push(decoded)
      try pullVideo()
      if !pendingAudio.isEmpty { try releaseAudio(final: false) }
    }
    func handleAudioFrame(_ dec: Decoder) throws {
      guard originSeconds != nil || true else { return }
      let tb = dec.stream.timeBase
      if let t = decoded.bestEffortTimestamp ?? decoded.pts {
        // Audio is rebased on the video's origin, keeping A/V offsets.
        let origin = originSeconds ?? 0
        decoded.pts = t - Int64((origin / tb.doubleValue).rounded())
      }
      if audioGraph == nil {
        audioGraph = try FilterGraph(description: audioFilterDescription(channels: audioChannels),
                                     inputs: [.audioSource(dec.bufferSourceArguments(for: decoded))],
                                     outputs: [.audioSink(frameSize: audioEncoder?.frameSize ?? 1024)])
      }
      try audioGraph?.push(decoded)
      try pullAudio()
    }
    func decode(_ dec: Decoder, _ pkt: Packet?) throws {
      do {
        _ = try dec.send(pkt)
      } catch {
        // A damaged packet is skipped; too many of them fail the item.
        decodeErrors += 1
        if decodeErrors > maxDecodeErrors { throw TranscodeError("too many corrupt packets; last: \(error.reason)", cause: error) }
      }
      while true {
        let step: Step
        do { step = try dec.receive(decoded) } catch {
          decodeErrors += 1
          if decodeErrors > maxDecodeErrors { throw TranscodeError("too many decode errors; last: \(error.reason)", cause: error) }
          continue
        }
        guard step == .produced else { break }
        if dec === videoDecoder { try handleVideoFrame() } else { try handleAudioFrame(dec) }
      }
    }

    // Audio decoded before the first video frame is held back until the
    // video's origin is known, so both streams share one time zero.
    var heldAudio: [Packet] = []
    while true {
      let more: Bool
      do { more = try input.read(into: packet) } catch let e {
        // A truncated or damaged tail ends the input; what decoded so far is kept.
        warnings.append("input ended early: \(e.reason)")
        more = false
      }
      guard more else { break }
      if packet.streamIndex == video.index {
        try decode(videoDecoder, packet)
        if originSeconds != nil && !heldAudio.isEmpty, let dec = audioDecoder {
          for p in heldAudio { try decode(dec, p) }
          heldAudio.removeAll()
        }
      } else if let a = audio, packet.streamIndex == a.index, let dec = audioDecoder {
        if originSeconds == nil && heldAudio.count < 2000 {
          heldAudio.append(try packet.clone())
        } else {
          try decode(dec, packet)
        }
      }
    }
    try decode(videoDecoder, nil)
    guard originSeconds != nil, let vg = videoGraph else {
      throw TranscodeError("no video frame could be decoded")
    }
    if let dec = audioDecoder {
      for p in heldAudio { try decode(dec, p) }
      try decode(dec, nil)
    }
    try vg.close(pts: videoEndTicks)
    try pullVideo()
    if let ag = audioGraph {
      try ag.push(nil)
      try pullAudio()
    }
    try releaseAudio(final: true)
    if let enc = audioEncoder {
      _ = try enc.send(nil)
      try drainAudioEncoder()
    }
    for w in workers { try w.push(.finish) }
    workersJoined = true
    var workerError: Error? = nil
    for w in workers {
      do { try w.join() } catch { workerError = workerError ?? error }
    }
    if let e = workerError { throw e }
    for m in hls { try m.finish() }
    try mp4.finish()

    var cover: Result<CoverPicture, CoverError>? = nil
    if request.coverPolicy.posterSource == nil {
      var chosen: CoverChoice<Frame>? = nil
      do throws(CoverError) { chosen = try selector.finish() } catch { cover = .failure(error) }
      if let c = chosen {
        cover = .success(CoverPicture(image: try PixelConverter.rgba(from: c.payload), time: c.time, warning: c.warning,
                                      basis: c.basis))
      }
    }
    return TranscodeResult(plan: plan, renditions: outputs, mp4Path: mp4Name, hasAudio: audioEncoder != nil && audioGraph != nil,
                           cover: cover, warnings: warnings, sourceCodec: video.codecName,
                           dynamicRange: dynamicRange)
  }
}
