import Foundation

// MARK: - Streams

/// What a decoder saw at the start of a file or segment.
struct VideoStart {
  var codec: String
  var width: Int
  var height: Int
  var pixelFormat: String
  /// The first video packet carries the keyframe flag.
  var firstPacketIsKeyframe: Bool
  /// The first decoded picture is a keyframe (an intra picture the decoder
  /// could start from).
  var firstFrameIsKeyframe: Bool
  var pictureType: Character
  var sampleAspectRatio: Rational
  var orientationIsIdentity: Bool
  /// The first picture is interlaced.
  var isInterlaced: Bool
  /// Colour signalling of the stream (`bt709`, `smpte2084`, …).
  var colorSpace: String
  var colorTransfer: String
  var audioCodec: String?
  var audioSampleRate: Int?
  /// Container duration in seconds.
  var duration: Double?
  /// With `everyPicture`: what decoding every picture found.
  var decoded: StreamProbe.DecodeCount? = nil
}

extension VideoStart {
  /// What the first decoded picture `frame` of stream `video` shows, with
  /// the container's audio stream and duration.
  init(first frame: Frame, of video: StreamInfo, audio: StreamInfo?, in input: InputContainer, firstPacketIsKeyframe: Bool) {
    self.init(
      codec: video.codecName, width: frame.width, height: frame.height, pixelFormat: frame.pixelFormatName,
      firstPacketIsKeyframe: firstPacketIsKeyframe, firstFrameIsKeyframe: frame.isKeyframe,
      pictureType: frame.pictureTypeLetter, sampleAspectRatio: video.sampleAspectRatio,
      orientationIsIdentity: video.orientation == .identity, isInterlaced: frame.isInterlaced,
      colorSpace: video.colorSpace, colorTransfer: video.colorTransfer, audioCodec: audio?.codecName,
      audioSampleRate: audio?.sampleRate, duration: input.duration)
  }
}

enum StreamProbe {
  /// Opens `url` (an MP4, or an fMP4 init section + one segment) and
  /// decodes its first video picture; with `everyPicture`, every picture
  /// and audio frame in the same pass (`decodeEverything`), the result in
  /// `VideoStart.decoded`.
  ///
  /// - Throws: `MediaIOError` when the file does not open or decode,
  ///   `MarqueeError` (`corruptSource`) when it has no video or no picture decodes (or, with
  ///   `everyPicture`, a damaged one).
  static func videoStart(_ url: URL, everyPicture: Bool = false) throws -> VideoStart {
    if everyPicture { return try decodeEverything(url) }
    let input = try InputContainer(path: url.path, allowedFormats: ["mov", "mp4"],
                                   limits: InputLimits(maxFileSize: Int64.max, maxPixels: Int.max, maxDuration: .infinity))
    guard let video = input.bestStream(.video) else { throw MarqueeError.probe("no video stream") }
    let audio = input.bestStream(.audio)
    input.keepOnly([video.index])
    let decoder = try Decoder(container: input, streamIndex: video.index, threads: 1)
    let packet = try Packet()
    let frame = try Frame()
    var firstPacketIsKey: Bool? = nil
    let pictures = try decoder.decodePictures(from: input, packet: packet, frame: frame,
                                              onPacket: { if firstPacketIsKey == nil { firstPacketIsKey = $0.isKeyframe } },
                                              { _, _ in false })
    guard pictures > 0 else { throw MarqueeError.probe("no picture decodes") }
    return VideoStart(first: frame, of: video, audio: audio, in: input, firstPacketIsKeyframe: firstPacketIsKey ?? false)
  }

  /// Probes one HLS fMP4 segment as a player starting there would: the
  /// initialization section followed by the segment, alone. With
  /// `everyPicture`, every video picture and audio frame is decoded too
  /// (`decodeEverything`).
  static func segmentStart(initSection: URL, segment: URL, scratch: URL, everyPicture: Bool = false) throws -> VideoStart {
    var bytes = try Data(contentsOf: initSection)
    bytes.append(try Data(contentsOf: segment))
    let file = scratch.appendingPathComponent("segment-\(UUID().uuidString).mp4")
    try bytes.write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    return try videoStart(file, everyPicture: everyPicture)
  }

  /// What `decodeEverything` decoded.
  struct DecodeCount: Equatable {
    var pictures: Int
    var audioFrames: Int
    /// Presentation times of the earliest and latest picture, in seconds
    /// (the stream's time base applied to the best-effort timestamps).
    var firstPictureTime: Double?
    var lastPictureTime: Double?
    /// The most common gap between consecutive pictures, in seconds.
    var pictureInterval: Double?

    /// Seconds the pictures cover: first to last, plus one interval.
    var coveredDuration: Double? {
      guard let a = firstPictureTime, let b = lastPictureTime, let d = pictureInterval else { return nil }
      return b - a + d
    }
  }

  /// Decodes every video picture and audio frame of an MP4 (or init +
  /// segment) with libavcodec's strict error recognition (`Decoder(strict:)`),
  /// which the lenient first-picture probe does not: damage inside a
  /// segment, concealed by a player as smeared blocks, is an error here.
  /// One pass: the first picture's facts come from the same decode.
  ///
  /// - Returns: the first picture's facts, with `decoded` counting the
  ///   pictures and audio frames and giving the pictures' times.
  /// - Throws: `MarqueeError` (`corruptSource`) naming the first damaged picture or frame (by
  ///   its index) or the decoder's reason; `MediaIOError` when the file does
  ///   not open.
  private static func decodeEverything(_ url: URL) throws -> VideoStart {
    let input = try InputContainer(path: url.path, allowedFormats: ["mov", "mp4"],
                                   limits: InputLimits(maxFileSize: Int64.max, maxPixels: Int.max, maxDuration: .infinity))
    guard let video = input.bestStream(.video) else { throw MarqueeError.probe("no video stream") }
    let audio = input.bestStream(.audio)
    input.keepOnly(Set([video.index] + (audio.map { [$0.index] } ?? [])))
    let videoDecoder = try Decoder(container: input, streamIndex: video.index, threads: 1, strict: true)
    let audioDecoder = try audio.map { try Decoder(container: input, streamIndex: $0.index, threads: 1, strict: true) }
    let packet = try Packet()
    let frame = try Frame()
    var count = DecodeCount(pictures: 0, audioFrames: 0)
    var times: [Double] = []
    let timeBase = video.timeBase.doubleValue
    var firstPacketIsKey: Bool? = nil
    var start: VideoStart? = nil

    func drain(_ decoder: Decoder, isVideo: Bool) throws {
      while true {
        let step: Step
        do { step = try decoder.receive(frame) } catch {
          throw MarqueeError.probe(isVideo ? "picture \(count.pictures + 1) does not decode: \(error.reason)"
                                   : "audio frame \(count.audioFrames + 1) does not decode: \(error.reason)")
        }
        guard step == .produced else { return }
        if isVideo {
          count.pictures += 1
          if frame.isCorrupt { throw MarqueeError.probe("picture \(count.pictures) is damaged (the decoder concealed errors in it)") }
          if start == nil {
            start = VideoStart(first: frame, of: video, audio: audio, in: input,
                               firstPacketIsKeyframe: firstPacketIsKey ?? false)
          }
          if let t = frame.bestEffortTimestamp ?? frame.pts { times.append(Double(t) * timeBase) }
        } else {
          count.audioFrames += 1
          if frame.isCorrupt { throw MarqueeError.probe("audio frame \(count.audioFrames) is damaged") }
        }
      }
    }
    func send(_ decoder: Decoder, _ pkt: Packet?, isVideo: Bool) throws {
      while true {
        let result: SendResult
        do { result = try decoder.send(pkt) } catch {
          throw MarqueeError.probe(isVideo ? "picture \(count.pictures + 1) does not decode: \(error.reason)"
                                   : "audio frame \(count.audioFrames + 1) does not decode: \(error.reason)")
        }
        try drain(decoder, isVideo: isVideo)
        // Full: what it had is received now, so it takes the packet.
        guard result == .tryAgain else { return }
      }
    }
    while try input.read(into: packet) {
      if packet.streamIndex == video.index {
        if firstPacketIsKey == nil { firstPacketIsKey = packet.isKeyframe }
        try send(videoDecoder, packet, isVideo: true)
      } else if let a = audio, let dec = audioDecoder, packet.streamIndex == a.index {
        try send(dec, packet, isVideo: false)
      }
    }
    try send(videoDecoder, nil, isVideo: true)
    if let dec = audioDecoder { try send(dec, nil, isVideo: false) }
    guard var result = start else { throw MarqueeError.probe("no picture decodes") }
    times.sort()
    count.firstPictureTime = times.first
    count.lastPictureTime = times.last
    if times.count >= 2 {
      // The most common gap, in whole microseconds, is the frame interval.
      var gaps: [Int: Int] = [:]
      for (a, b) in zip(times, times.dropFirst()) { gaps[Int(((b - a) * 1e6).rounded()), default: 0] += 1 }
      count.pictureInterval = gaps.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }.map { Double($0.key) / 1e6 }
    }
    result.decoded = count
    return result
  }
}
