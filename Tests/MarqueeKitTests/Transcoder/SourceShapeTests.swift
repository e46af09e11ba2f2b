import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// What real uploads keep: a GIF its shape, a constant low frame rate its
/// rate, a source between rungs its own size. Sources generated with the
/// ffmpeg CLI; outputs read back with ffprobe.
@Suite("Source shape: GIF aspect, low frame rates, sizes between rungs", .serialized)
struct SourceShapeTests {
  @Test("a GIF with pixel-aspect byte 1 keeps its 300x148 shape as a video (within 2 %)")
  func gifAspectByteIgnored() throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let plain = dir.appendingPathComponent("plain.gif"), gif = dir.appendingPathComponent("aspect.gif")
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=size=300x148:rate=10", "-t", "2"], to: plain)
    // The logical screen descriptor's last byte (offset 12) is the pixel aspect ratio.
    var bytes = [UInt8](try Data(contentsOf: plain))
    try #require(Array(bytes[0..<6]) == Array("GIF89a".utf8))
    bytes[12] = 1
    try Data(bytes).write(to: gif)
    // libavformat reads it as a 16:64 sample aspect ratio: the oracle sees the squeeze Marquee must not make.
    let probed = try #require(try FFprobe.report(gif).video)
    #expect(probed.sampleAspectRatio == "16:64" || probed.sampleAspectRatio == "1:4", "\(probed.sampleAspectRatio ?? "none")")
    let built = try TranscoderTests.build(gif, in: dir)
    let v = try #require(try FFprobe.report(TranscoderTests.mp4(dir)).video)
    let (w, h) = (try #require(v.width), try #require(v.height))
    #expect(abs(Double(w) / Double(h) / (300.0 / 148) - 1) < 0.02, "\(w)x\(h)")
    #expect(built.entry.width == 300 && built.entry.height == 148, "\(built.entry.width)x\(built.entry.height)")
  }

  @Test("a constant 10 fps clip comes out at 10 fps: every picture once, an IDR opening each segment (1 s, then 2 s)")
  func constantTenFPS() throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let source = dir.appendingPathComponent("camera.avi")
    // Like the camera clip of the issue: MS-MPEG4v3 in AVI at a constant 10 fps.
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=size=384x288:rate=10", "-t", "6", "-c:v", "msmpeg4", "-q:v", "4"], to: source)
    let built = try TranscoderTests.build(source, in: dir)
    #expect(built.result.plan.frameRate == Rational(10, 1))
    let frames = try FFprobe.videoFrames(TranscoderTests.mp4(dir))
    #expect(frames.count == 60, "\(frames.count) pictures for 6 s at 10 fps")
    let timing = try Oracle.streamTiming(TranscoderTests.mp4(dir))
    #expect(timing.first { $0.type == "video" }?.frameRate == "10/1")
    let (_, variants) = try HLSCheck.variants(master: TranscoderTests.master(dir))
    for variant in variants {
      #expect(variant.attributes["FRAME-RATE"] == "10.000", "\(variant.attributes)")
      #expect(variant.segments.map(\.duration) == [1, 2, 2, 1], "\(variant.uri): \(variant.segments.map(\.duration))")
      // Each segment decodes on its own and starts with an IDR, and only one.
      for segment in variant.segments {
        let file = try HLSCheck.standaloneSegment(map: variant.mapURL, segment: segment.url)
        defer { try? FileManager.default.removeItem(at: file) }
        let pictures = try FFprobe.videoFrames(file)
        #expect(pictures.first?.isKeyframe == true && pictures.first?.pictureType == "I")
        #expect(pictures.dropFirst().allSatisfy { !$0.isKeyframe }, "a keyframe inside a segment of \(variant.uri)")
      }
    }
    // The MP4 carries the same IDRs: at 0, 1, 3 and 5 s, and nowhere else.
    let keys = try Oracle.videoPackets(TranscoderTests.mp4(dir)).filter(\.key).map { ($0.pts * 1000).rounded() }
    #expect(keys == [0, 1000, 3000, 5000], "MP4 keyframes \(keys)")
    // The caps scale with the frame rate: (10/30)^0.585 of the 30 fps cap.
    let top = built.result.plan.renditions[0]
    let at30 = RenditionPlanner.bitRate(width: top.width, height: top.height, fps: 30, reference: RenditionRequest(height: 360, bitrateKbps: 730),
                                        exponent: RenditionPlanner.smallSourcePixelExponent)
    #expect(abs(Double(top.bitRate) / Double(at30) - pow(10.0 / 30, 0.585)) < 0.01)
  }

  @Test("a 5 fps GIF as a video passes verify's segment checks: FFmpeg reads each fMP4 segment's first picture two pictures (0.4 s) late, the reorder delay, not a misplaced segment")
  func fiveFPSGIFVerifies() throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let gif = dir.appendingPathComponent("slow.gif")
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=size=480x270:rate=5", "-t", "3"], to: gif)
    let built = try TranscoderTests.build(gif, in: dir)
    #expect(built.result.plan.frameRate == Rational(5, 1))
    let violations = CorpusVideoTests.violations(built, in: dir)
    #expect(violations.isEmpty, "\(violations)")
    // The rule itself: two pictures late at 5 fps is the reorder delay; a
    // whole segment (1 s) late is not.
    #expect(VideoAssetVerifier.startsWhereExpected(first: 0.4, expected: 0, pictureInterval: 0.2))
    #expect(!VideoAssetVerifier.startsWhereExpected(first: 1.0, expected: 0, pictureInterval: 0.2))
    #expect(!VideoAssetVerifier.startsWhereExpected(first: 0.4, expected: 0, pictureInterval: 1.0 / 30))
  }

  @Test("640x480, 720x528 and 1280x536 sources are their own size on top, which meets the SSIM target", arguments: [
    (640, 480, [[640, 480], [480, 360], [192, 144]]),
    (720, 528, [[720, 528], [490, 360], [196, 144]]),
    (1280, 536, [[1280, 536], [860, 360], [344, 144]]),
  ])
  func ownSizeOnTop(width: Int, height: Int, ladder: [[Int]]) throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let source = dir.appendingPathComponent("\(width)x\(height).mp4")
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=25", "-t", "2", "-c:v", "libx264",
                         "-threads", "1", "-pix_fmt", "yuv420p"], to: source)
    let built = try TranscoderTests.build(source, in: dir, settings: JobSettings())
    let (_, variants) = try HLSCheck.variants(master: TranscoderTests.master(dir))
    var sizes: [[Int]] = []
    for variant in variants {
      let file = try HLSCheck.standaloneSegment(map: variant.mapURL, segment: variant.segments[0].url)
      defer { try? FileManager.default.removeItem(at: file) }
      let v = try #require(try FFprobe.report(file).video)
      sizes.append([try #require(v.width), try #require(v.height)])
    }
    #expect(Set(sizes) == Set(ladder), "\(sizes)")
    #expect(built.entry.width == width && built.entry.height == height)
    #expect(built.qualityShortfall == nil, "top SSIM \(built.qualityTrials)")
    #expect((built.qualityTrials.last?.ssim ?? 0) >= 0.985)
  }
}
