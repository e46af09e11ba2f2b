import Foundation

/// A source opened for transcoding: the container (local regular file,
/// allow-listed demuxers, limits checked), its best video stream with a
/// decoder, and its best audio stream with a decoder when it decodes.
///
/// Only the chosen streams are demuxed (`InputContainer.keepOnly`).
final class SourceStreams {
  /// The file the container reads (`TranscodeRequest.sourceFile`, or opened
  /// here): the loudness meter reads it through a container of its own.
  let file: ReadableFile
  let input: InputContainer
  let video: StreamInfo
  let videoDecoder: Decoder
  let audio: StreamInfo?
  let audioDecoder: Decoder?
  /// Why the audio was dropped, for the user.
  let warnings: [String]

  /// - Throws: `MediaIOError` when the file cannot be opened or is over a
  ///   limit; `MarqueeError` when it has no video stream (`corruptSource`)
  ///   or its picture is under `Transcoder.minimumSide` (`limitExceeded`).
  init(_ request: TranscodeRequest) throws {
    let file = try request.sourceFile ?? request.limits.openSourceFile(atPath: request.source.path)
    self.file = file
    input = try InputContainer(file: file, path: request.source.path, allowedFormats: InputContainer.videoFormats,
                               limits: request.limits)
    guard var video = input.bestStream(.video) else {
      throw MarqueeError(.corruptSource, "no video stream (found: \(input.streams.map { $0.codecName }.joined(separator: ", ")))")
    }
    // A GIF's pixel-aspect byte is ignored, as browsers, ImageIO and
    // SDWebImage ignore it (and as the image renderer does): libavformat
    // reads it as a sample aspect ratio of (byte + 15)/64, so byte 1 made
    // a 300x148 GIF a 76x148 video.
    if video.codecName == "gif" { video.sampleAspectRatio = Rational(1, 1) }
    self.video = video
    var warnings: [String] = []
    var audio = input.bestStream(.audio)
    var audioDecoder: Decoder? = nil
    if let a = audio {
      do { audioDecoder = try Decoder(container: input, streamIndex: a.index, threads: 1) } catch {
        warnings.append("audio stream \(a.index) (\(a.codecName)) cannot be decoded (\(error.reason)); the output has no audio")
        audio = nil
      }
    }
    self.audio = audio
    self.audioDecoder = audioDecoder
    self.warnings = warnings
    input.keepOnly(Set([video.index] + (audio.map { [$0.index] } ?? [])))
    videoDecoder = try Decoder(container: input, streamIndex: video.index, threads: request.budget.libraryThreads)
    let side = Transcoder.minimumSide
    guard video.width >= side, video.height >= side else {
      throw MarqueeError(.limitExceeded, "picture is \(video.width)x\(video.height), below the minimum of \(side)x\(side) pixels")
    }
  }

  /// The output's audio channels: mono stays mono, the rest is stereo.
  var audioChannels: Int { (audio?.channels ?? 2) == 1 ? 1 : 2 }
}

/// Reads a source once, packet by packet, and decodes it into the video
/// and audio paths on one timeline, following its health
/// (`SourceHealthMonitor`).
///
/// - Audio read before the first picture is held (at most
///   `maxHeldAudioPackets`) until the video's origin is known, so both
///   streams share one time zero; past that many, audio is decoded at once
///   on a provisional origin of 0.
/// - A damaged picture (concealed or flagged by its decoder, its packet
///   cut short or lost, or predicted from one of those) is marked
///   (`Frame.markCorrupt`) so that no cover is taken from it. Unless
///   `allowsDamage`, the first one stops the encode: the rest of the source
///   is only decoded, to count the damage for the error.
/// - A damaged audio packet is skipped (a gap in the sound, its time
///   followed by the monitor); unless `allowsDamage`, more than
///   `SourceHealth.audioErrorAllowance` of them stop the encode like a
///   damaged picture, and the health names them all.
/// - A read error ends the input; what decoded so far is kept, and the
///   health says how far short of its declared end it stopped.
struct SourceReader {
  /// Audio packets held before the first picture: about 43 s of AAC at
  /// 48 kHz, far more than any real source interleaves ahead of its video.
  static let maxHeldAudioPackets = 2000
  /// Failures in a row of a decoder that hands nothing over before the
  /// item fails (`corruptSource`) instead of waiting for ever.
  static let maxDecodeErrors = 25

  let source: SourceStreams
  let video: VideoPath
  let audio: AudioPath?
  /// Whether damaged pictures are encoded (`allow_damaged_sources`); when
  /// false the encode stops at the first one.
  var allowsDamage = false

  /// What `run` found.
  struct Outcome {
    /// The rebaser, holding the origin and the pictures' end.
    var timeline: TimelineRebaser
    /// Warnings about the input.
    var warnings: [String]
    /// Damage and truncation (`SourceHealth`), on the output timeline.
    /// Without `allowsDamage`, pictures stopped reaching the encoders at the
    /// first damaged one: the outputs are unfinished unless it is sound.
    var health: SourceHealth
  }

  /// Reads to the end and flushes both decoders.
  ///
  /// - Throws: `MarqueeError` when no picture decodes, a picture lies past
  ///   the duration limit, or a decoder keeps failing; errors of the paths.
  func run(limits: InputLimits, frameRate: Rational) throws -> Outcome {
    var state = ReadState(
      timeline: TimelineRebaser(videoTimeBase: source.video.timeBase, frameRate: frameRate, maxDuration: limits.maxDuration),
      decoded: try Frame(),
      monitor: SourceHealthMonitor(frameDuration: 1 / frameRate.doubleValue,
                                   judgesLostPackets: source.video.codecName == "h264" && !source.videoDecoder.usesFrameThreads))
    var warnings: [String] = []
    let packet = try Packet()
    var heldAudio: [Packet] = []
    while true {
      let more: Bool
      do { more = try source.input.read(into: packet) } catch let e {
        warnings.append("input ended early: \(e.reason)")
        more = false
      }
      guard more else { break }
      let tb = packet.timeBase.doubleValue
      state.monitor.packetRead(stream: packet.streamIndex, isVideo: packet.streamIndex == source.video.index,
                               start: packet.pts.map { Double($0) * tb },
                               end: packet.pts.map { Double($0 + packet.duration) * tb }, cut: packet.isCorrupt)
      if packet.streamIndex == source.video.index {
        if packet.isCorrupt {
          state.monitor.videoPacketCut(at: Self.seconds(packet), position: packet.position)
        }
        try decode(source.videoDecoder, packet, &state)
        if state.timeline.origin != nil && !heldAudio.isEmpty, let dec = source.audioDecoder {
          for p in heldAudio { try decode(dec, p, &state) }
          heldAudio.removeAll()
        }
      } else if let a = source.audio, packet.streamIndex == a.index, let dec = source.audioDecoder {
        if state.timeline.origin == nil && heldAudio.count < Self.maxHeldAudioPackets {
          heldAudio.append(try packet.clone())
        } else {
          try decode(dec, packet, &state)
        }
      }
    }
    try decode(source.videoDecoder, nil, &state)
    try handOn(state.monitor.drain(), &state)
    guard let origin = state.timeline.origin, video.hasPictures || state.stopped else {
      throw MarqueeError(.corruptSource, "no video frame could be decoded")
    }
    if let dec = source.audioDecoder {
      for p in heldAudio { try decode(dec, p, &state) }
      try decode(dec, nil, &state)
    }
    let declared = declaredSpan()
    let health = state.monitor.health(origin: origin, picturesEnd: state.timeline.videoEnd.seconds,
                                      declaredEnd: declared?.end, declaredStart: declared?.start ?? origin)
    return Outcome(timeline: state.timeline, warnings: warnings, health: health)
  }

  /// Where the container says the streams read end (and start), source
  /// seconds: each stream's start plus its declared duration (for an AVI's
  /// video, or its header's frame count over its rate when that is longer:
  /// the header keeps the frame count of the whole file while libavformat
  /// measures a cut file's duration from what is there; an MP4's sample
  /// count is not used, since an edit list may show only part of it), else
  /// the container's; nil when the container only guesses
  /// (`InputContainer.durationIsEstimated`) or says nothing.
  private func declaredSpan() -> (start: Double, end: Double)? {
    guard !source.input.durationIsEstimated else { return nil }
    var ends: [Double] = [], starts: [Double] = []
    let isAVI = source.input.formatName == "avi"
    for s in [source.video] + (source.audio.map { [$0] } ?? []) {
      var length = s.duration ?? 0
      if isAVI, s.kind == .video, s.frameCount > 0, s.frameRate.isValid, s.frameRate.doubleValue > 0 {
        length = max(length, Double(s.frameCount) / s.frameRate.doubleValue)
      }
      guard length > 0 else { continue }
      let start = s.startTime ?? source.input.startTime
      starts.append(start)
      ends.append(start + length)
    }
    if let end = ends.max(), let start = starts.min() { return (start, end) }
    guard let d = source.input.duration else { return nil }
    return (source.input.startTime, source.input.startTime + d)
  }

  private struct ReadState {
    var timeline: TimelineRebaser
    let decoded: Frame
    var monitor: SourceHealthMonitor
    /// Rebased pictures waiting for the monitor's decision (a reference
    /// each), oldest first: as many as the decoder's reorder depth, more
    /// while a refused packet waits to be judged.
    var waiting: [Frame] = []
    /// Pictures and sound no longer reach the encoders (damage, not allowed).
    var stopped = false
  }

  /// A packet's presentation time (or decode time) in seconds.
  private static func seconds(_ packet: Packet) -> Double? {
    (packet.pts ?? packet.dts).map { Double($0) * packet.timeBase.doubleValue }
  }

  /// Sends a packet (`nil`: flush) and hands every decoded frame on; a
  /// decoder too full to take it (`.tryAgain`) hands its frames on first
  /// and is sent the packet again.
  private func decode(_ decoder: Decoder, _ packet: Packet?, _ state: inout ReadState) throws {
    let isVideo = decoder === source.videoDecoder
    let audioTime = isVideo ? nil : packet.flatMap(Self.seconds)
    var failedReceives = 0
    var audioFailed = false
    var full = false
    repeat {
      do {
        full = try decoder.send(packet) == .tryAgain
        if !full, isVideo, let packet { state.monitor.videoPacketSent(position: packet.position) }
      } catch {
        full = false
        audioFailed = true
        if isVideo {
          // Judged by the monitor: a lost picture (damage) or a stray unit.
          try handOn(state.monitor.videoPacketRefused(at: packet.flatMap(Self.seconds), position: packet?.position), &state)
          stopIfDamaged(&state)
        }
      }
      try receiveAll(decoder, isVideo: isVideo, failedReceives: &failedReceives, audioFailed: &audioFailed, &state)
    } while full
    if !isVideo, packet != nil {
      state.monitor.audioPacket(at: audioTime, ok: !audioFailed)
      if state.monitor.audioErrors > SourceHealth.audioErrorAllowance { stopIfNotAllowed(&state) }
    }
  }

  /// Receives every frame the decoder has ready and hands it on.
  private func receiveAll(_ decoder: Decoder, isVideo: Bool, failedReceives: inout Int, audioFailed: inout Bool,
                          _ state: inout ReadState) throws {
    while true {
      let step: Step
      do { step = try decoder.receive(state.decoded) } catch {
        // A decoder that keeps failing without handing anything over is
        // not waited on for ever.
        failedReceives += 1
        if failedReceives > Self.maxDecodeErrors {
          throw MarqueeError(.corruptSource, "the decoder keeps failing: \(error.reason)", cause: error)
        }
        if isVideo {
          try handOn(state.monitor.videoPacketRefused(at: nil, position: nil), &state)
          stopIfDamaged(&state)
        } else {
          audioFailed = true
        }
        continue
      }
      guard step == .produced else { break }
      if isVideo {
        try handOnPicture(&state)
      } else if let audio, !state.stopped {
        let frame = state.decoded
        if let pts = state.timeline.rebaseAudio(ticks: frame.bestEffortTimestamp ?? frame.pts, timeBase: decoder.stream.timeBase) {
          frame.pts = pts
        }
        try audio.push(frame)
      }
    }
  }

  /// Rebases a decoded picture and offers it to the health monitor; hands
  /// on the pictures it has decided about.
  private func handOnPicture(_ state: inout ReadState) throws {
    let frame = state.decoded
    let ticks = frame.bestEffortTimestamp ?? frame.pts
    guard let pts = try state.timeline.rebaseVideo(ticks: ticks, duration: frame.duration) else {
      return
    }
    let origin = state.timeline.origin ?? 0
    let time = origin + Double(pts) * source.video.timeBase.doubleValue
    frame.pts = pts
    state.waiting.append(try frame.clone())
    try handOn(state.monitor.picture(at: time, position: frame.packetPosition, codedNumber: frame.codedPictureNumber,
                                     keyframe: frame.isKeyframe, flagged: frame.isCorrupt,
                                     window: source.videoDecoder.reorderDelay), &state)
  }

  /// Hands the oldest waiting pictures to the video path, one per decision:
  /// a damaged one marked (`Frame.markCorrupt`), so it is never a cover;
  /// none once the encode has stopped.
  private func handOn(_ decisions: [Bool], _ state: inout ReadState) throws {
    for damaged in decisions {
      let frame = state.waiting.removeFirst()
      if damaged {
        frame.markCorrupt()
        stopIfNotAllowed(&state)
      }
      guard !state.stopped else { continue }
      try video.push(frame)
    }
  }

  /// Without `allowsDamage`, damage ends the encode (the item fails).
  private func stopIfNotAllowed(_ state: inout ReadState) {
    if !allowsDamage { state.stopped = true }
  }

  /// Stops (`stopIfNotAllowed`) once the monitor has counted a damaged
  /// picture: a lost one counts when it is judged, not when its packet is
  /// refused (it may be a stray unit).
  private func stopIfDamaged(_ state: inout ReadState) {
    if state.monitor.damagedPictures > 0 { stopIfNotAllowed(&state) }
  }
}
