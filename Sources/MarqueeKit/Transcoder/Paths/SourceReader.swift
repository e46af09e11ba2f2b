import Foundation

/// A source opened for transcoding: the container (local regular file,
/// allow-listed demuxers, limits checked), its best video stream with a
/// decoder, and its best audio stream with a decoder when it decodes.
///
/// Only the chosen streams are demuxed (`InputContainer.keepOnly`).
final class SourceStreams {
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
    input = try InputContainer(file: file, path: request.source.path, allowedFormats: InputContainer.videoFormats,
                               limits: request.limits)
    guard let video = input.bestStream(.video) else {
      throw MarqueeError(.corruptSource, "no video stream (found: \(input.streams.map { $0.codecName }.joined(separator: ", ")))")
    }
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
/// and audio paths on one timeline.
///
/// - Audio read before the first picture is held (at most
///   `maxHeldAudioPackets`) until the video's origin is known, so both
///   streams share one time zero; past that many, audio is decoded at once
///   on a provisional origin of 0.
/// - A damaged packet or frame is skipped; more than `maxDecodeErrors` of
///   them fail the item (`corruptSource`).
/// - A truncated or damaged tail ends the input with a warning; what
///   decoded so far is kept.
struct SourceReader {
  /// Audio packets held before the first picture: about 43 s of AAC at
  /// 48 kHz, far more than any real source interleaves ahead of its video.
  static let maxHeldAudioPackets = 2000
  /// Damaged packets and frames tolerated per item.
  static let maxDecodeErrors = 25

  let source: SourceStreams
  let video: VideoPath
  let audio: AudioPath?

  /// Reads to the end and flushes both decoders.
  ///
  /// - Returns: the rebaser, holding the origin and the pictures' end, and
  ///   warnings about the input.
  /// - Throws: `MarqueeError` when no picture decodes, a picture lies past
  ///   the duration limit, or too many packets are damaged; errors of the
  ///   paths.
  func run(limits: InputLimits, frameRate: Rational) throws -> (TimelineRebaser, [String]) {
    var state = ReadState(
      timeline: TimelineRebaser(videoTimeBase: source.video.timeBase, frameRate: frameRate, maxDuration: limits.maxDuration),
      decoded: try Frame())
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
      if packet.streamIndex == source.video.index {
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
    guard state.timeline.origin != nil, video.hasPictures else {
      throw MarqueeError(.corruptSource, "no video frame could be decoded")
    }
    if let dec = source.audioDecoder {
      for p in heldAudio { try decode(dec, p, &state) }
      try decode(dec, nil, &state)
    }
    return (state.timeline, warnings)
  }

  private struct ReadState {
    var timeline: TimelineRebaser
    let decoded: Frame
    var decodeErrors = 0
  }

  /// Sends a packet (`nil`: flush) and hands every decoded frame on.
  private func decode(_ decoder: Decoder, _ packet: Packet?, _ state: inout ReadState) throws {
    do {
      _ = try decoder.send(packet)
    } catch {
      try countDecodeError(&state, "too many corrupt packets; last: \(error.reason)", error)
    }
    while true {
      let step: Step
      do { step = try decoder.receive(state.decoded) } catch {
        try countDecodeError(&state, "too many decode errors; last: \(error.reason)", error)
        continue
      }
      guard step == .produced else { break }
      if decoder === source.videoDecoder {
        try handOnPicture(&state)
      } else if let audio {
        let frame = state.decoded
        if let pts = state.timeline.rebaseAudio(ticks: frame.bestEffortTimestamp ?? frame.pts, timeBase: decoder.stream.timeBase) {
          frame.pts = pts
        }
        try audio.push(frame)
      }
    }
  }

  private func handOnPicture(_ state: inout ReadState) throws {
    let frame = state.decoded
    guard let pts = try state.timeline.rebaseVideo(ticks: frame.bestEffortTimestamp ?? frame.pts, duration: frame.duration) else {
      return
    }
    frame.pts = pts
    try video.push(frame)
  }

  private func countDecodeError(_ state: inout ReadState, _ message: String, _ error: MediaIOError) throws {
    state.decodeErrors += 1
    if state.decodeErrors > Self.maxDecodeErrors { throw MarqueeError(.corruptSource, message, cause: error) }
  }
}
