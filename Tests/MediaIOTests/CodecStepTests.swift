import Foundation
import MarqueeTestSupport
import MediaIO
import Testing

/// What `Encoder` and `Decoder` return for FFmpeg's send/receive statuses
/// (`SendResult`, `Step`). The mapping the callers rely on:
///
/// - `send` → `.accepted` when the input was taken; `.tryAgain` when it
///   was *not* taken (`AVERROR(EAGAIN)`: receive first, then send it
///   again); `.endOfStream` once draining has begun (`AVERROR_EOF`);
/// - `receive` → `.produced` with an output, `.needsInput` when more input
///   is needed (`EAGAIN`), `.endOfStream` when drained (`AVERROR_EOF`).
///
/// libavcodec (5.1, `encode.c`/`decode.c`) buffers one input and one
/// output: a caller that keeps sending without receiving is told "not
/// taken" once both are full, which these tests provoke on purpose. The
/// oracle is the count: every picture sent comes out exactly once.
@Suite("Encoder and Decoder: send/receive steps")
struct CodecStepTests {
  static let pictures = 30

  /// An x264 encoder (160x96, 25 fps, an IDR every 25 pictures, one
  /// thread, so its output is the same every run) and a testsrc2 graph of
  /// `count` pictures.
  static func encoderAndSource(pictures count: Int = pictures) throws(MediaIOError) -> (Encoder, FilterGraph) {
    let graph = try FilterGraph(description: "testsrc2=size=160x96:rate=25,trim=end_frame=\(count),format=yuv420p[out0]",
                                inputs: [], outputs: [.videoSink])
    let encoder = try Encoder(video: VideoEncoderSettings(
      width: 160, height: 96, frameRate: Rational(25, 1), bitRate: 300_000, maxRate: 300_000, bufferSize: 600_000,
      gopLength: 25, preset: "veryfast", threads: 1))
    return (encoder, graph)
  }

  /// Encodes every picture, receiving only when `send` says the picture
  /// was not taken, then drains.
  ///
  /// - Returns: the packets (cloned) and how often a picture was not taken.
  static func encodeLazily() throws -> (packets: [Packet], notTaken: Int, encoder: Encoder) {
    let (encoder, graph) = try encoderAndSource()
    let frame = try Frame(), packet = try Packet()
    var packets: [Packet] = []
    var notTaken = 0
    #expect(try encoder.receive(packet) == .needsInput, "a packet before any picture")
    while try graph.pull(frame) == .produced {
      if let pts = frame.pts { frame.pts = Rational.rescale(pts, from: graph.timeBase(), to: encoder.timeBase) }
      frame.forcesKeyframe = false
      while try encoder.send(frame) == .tryAgain {
        notTaken += 1
        try #require(try encoder.receive(packet) == .produced, "not taken, yet nothing to receive")
        packets.append(try packet.clone())
      }
    }
    while try encoder.send(nil) == .tryAgain {
      try #require(try encoder.receive(packet) == .produced)
      packets.append(try packet.clone())
    }
    while true {
      let step = try encoder.receive(packet)
      if step == .endOfStream { break }
      try #require(step == .produced, "draining asked for input")
      packets.append(try packet.clone())
    }
    return (packets, notTaken, encoder)
  }

  @Test("encoder: a picture not taken is .tryAgain (receive first); every picture comes out once; drained is .endOfStream")
  func encoderSteps() throws {
    let (packets, notTaken, encoder) = try Self.encodeLazily()
    #expect(notTaken > 0, "libavcodec never refused a picture: the not-taken path is untested")
    #expect(packets.count == Self.pictures, "\(packets.count) packets for \(Self.pictures) pictures")
    #expect(packets.first?.isKeyframe == true)
    // After the end: draining again and receiving stay at the end.
    #expect(try encoder.send(nil) == .endOfStream)
    #expect(try encoder.receive(try Packet()) == .endOfStream)
  }

  @Test("decoder: the same mapping; every packet decodes to one picture, in order")
  func decoderSteps() throws {
    let (packets, _, encoder) = try Self.encodeLazily()
    let decoder = try Decoder(decoding: encoder)
    let frame = try Frame()
    var notTaken = 0
    var pts: [Int64] = []
    #expect(try decoder.receive(frame) == .needsInput, "a picture before any packet")
    for packet in packets {
      while try decoder.send(packet) == .tryAgain {
        notTaken += 1
        try #require(try decoder.receive(frame) == .produced, "not taken, yet nothing to receive")
        pts.append(frame.bestEffortTimestamp ?? -1)
      }
    }
    // Everything out before the drain: sent while a packet still waited
    // (not decoded yet), the drain lost that packet's picture here (29 of
    // 30 with libavcodec 59.37), so the drain goes in only once `receive`
    // asks for input.
    while try decoder.receive(frame) == .produced { pts.append(frame.bestEffortTimestamp ?? -1) }
    #expect(try decoder.send(nil) == .accepted, "the drain was not taken")
    while true {
      let step = try decoder.receive(frame)
      if step == .endOfStream { break }
      try #require(step == .produced, "draining asked for input")
      pts.append(frame.bestEffortTimestamp ?? -1)
    }
    #expect(notTaken > 0, "libavcodec never refused a packet: the not-taken path is untested")
    #expect(pts.count == Self.pictures, "\(pts.count) pictures from \(packets.count) packets: \(pts)")
    #expect(pts == pts.sorted() && Set(pts).count == pts.count, "pictures out of order: \(pts)")
    #expect(try decoder.send(nil) == .endOfStream)
    #expect(try decoder.receive(frame) == .endOfStream)
  }

  @Test("decodePictures: each picture of the file's video stream once and in order, its packets seen, the audio skipped; it stops when the body says so")
  func decodePicturesFromFile() throws {
    let url = try temporaryFolder().appendingPathComponent("clip.mp4")
    _ = try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x96:rate=25:duration=1.2",
                               "-f", "lavfi", "-i", "sine=duration=1.2", "-c:v", "libx264", "-bf", "3", "-pix_fmt", "yuv420p",
                               "-c:a", "aac", "-shortest", url.path])
    func open() throws -> (InputContainer, Decoder) {
      let input = try InputContainer(path: url.path, allowedFormats: ["mov", "mp4"],
                                     limits: InputLimits(maxFileSize: Int64.max, maxPixels: Int.max, maxDuration: .infinity))
      let video = try #require(input.bestStream(.video))
      return (input, try Decoder(container: input, streamIndex: video.index, threads: 1))
    }
    var (input, decoder) = try open()
    var pts: [Int64] = []
    var packets = 0, keyframes = 0
    let taken = try decoder.decodePictures(from: input, packet: try Packet(), frame: try Frame(),
                                           onPacket: { packets += 1; if $0.isKeyframe { keyframes += 1 } }) { i, frame in
      #expect(i == pts.count)
      pts.append(frame.bestEffortTimestamp ?? -1)
      return true
    }
    #expect(taken == 30 && pts.count == 30, "\(taken) pictures")
    #expect(pts == pts.sorted() && Set(pts).count == pts.count, "pictures out of order: \(pts)")
    #expect(packets == 30 && keyframes >= 1, "\(packets) video packets seen, \(keyframes) keyframes")
    (input, decoder) = try open()
    #expect(try decoder.decodePictures(from: input, packet: try Packet(), frame: try Frame()) { i, _ in i < 4 } == 5)
  }
}
