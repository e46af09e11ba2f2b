import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// Every rendition is scaled (and rotated) on its own worker thread from the
/// item's shared picture: its pictures, read back with ffprobe and ffmpeg,
/// must be the size the master playlist says, square-pixelled and upright,
/// and the picture ffmpeg itself decodes from the source.
@Suite("Renditions scaled on their own threads", .serialized)
struct RenditionScalingTests {
  @Test("a rendition worker is freed once it has finished (its thread does not keep it, nor it its thread)")
  func finishedWorkerIsFreed() throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    weak var freed: RenditionWorker?
    do {
      let encoder = try Encoder(video: VideoEncoderSettings(width: 320, height: 180, frameRate: Rational(30, 1),
                                                            bitRate: 500_000, maxRate: 500_000, bufferSize: 500_000,
                                                            gopLength: 30, threads: 1))
      let hls = try OutputContainer(path: dir.appendingPathComponent("index.m3u8").path, format: "hls")
      let worker = RenditionWorker(encoder: encoder, hls: hls, mp4: nil, audioStream: 1, budget: .unlimited,
                                   planner: KeyframePlanner(frameRate: Rational(30, 1), segmentDuration: 2))
      freed = worker
      worker.start()
      try worker.push(.finish)
      try worker.join()
      hls.abandon()  // its header was never written
    }
    // The thread lets go of its closure when it exits, just after `join()`
    // returns.
    let deadline = Date().addingTimeInterval(10)
    while freed != nil && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    #expect(freed == nil, "the worker outlived its thread")
  }

  @Test("each HEVC twin is fed by the H.264 rendition of its size and sound; a twin with no such rendition scales for itself")
  func feeders() {
    let h264 = [RenditionPlan(width: 1280, height: 720, bitRate: 3_000_000, name: "720p"),
                RenditionPlan(width: 640, height: 360, bitRate: 800_000, name: "360p")]
    let alone = RenditionPlanner.hevcTwin(of: RenditionPlan(width: 960, height: 540, bitRate: 2_000_000, name: "540p"))
    let plan = VideoPlan(displayWidth: 1280, displayHeight: 720, frameRate: Rational(30, 1),
                         renditions: h264 + h264.map(RenditionPlanner.hevcTwin(of:)) + [alone], mp4Rendition: 0)
    #expect(RenditionFanOut.feeders(plan: plan, audioSources: [0, 0, 0, 0, 0]) == [0: 2, 1: 3])
    // The 360p rendition takes another AAC encoder's packets than its twin.
    #expect(RenditionFanOut.feeders(plan: plan, audioSources: [0, 1, 0, 0, 0]) == [0: 2])
    #expect(RenditionFanOut.feeders(plan: plan, audioSources: [nil, nil, nil, nil, nil]) == [0: 2, 1: 3])
  }

  @Test("an anamorphic source: every rendition is at its RESOLUTION, square-pixelled, the shown shape, the source's picture")
  func anamorphicRenditions() throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    // 480x360 stored with 4:3 pixels: shown 640x360. Made by the ffmpeg
    // command line, the oracle's own tools.
    let src = dir.appendingPathComponent("anamorphic.mp4")
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=size=480x360:rate=30", "-t", "2", "-vf", "setsar=4/3",
                         "-c:v", "libx264", "-pix_fmt", "yuv420p"], to: src)
    let probed = try #require(try FFprobe.report(src).video)
    try #require(probed.sampleAspectRatio == "4:3", "the source is not anamorphic: \(probed.sampleAspectRatio ?? "none")")
    var settings = JobSettings(maxHeight: 360)
    settings.renditions = [RenditionRequest(height: 360, bitrateKbps: 1500), RenditionRequest(height: 240, bitrateKbps: 800)]
    _ = try TranscoderTests.build(src, in: dir, settings: settings)
    let (_, variants) = try HLSCheck.variants(master: TranscoderTests.master(dir))
    // 360p, 240p and the weak-network 144p, and those of their HEVC twins
    // that take fewer bytes (`HEVCTwinSelection`).
    let h264Count = variants.filter { $0.attributes["CODECS"]?.hasPrefix("avc1.") == true }.count
    #expect(h264Count == 3 && variants.count <= 6)
    let reference = try Oracle.grayFrames(src, width: 64, height: 36)[0]
    for variant in variants {
      let seg = try HLSCheck.standaloneSegment(map: variant.mapURL, segment: variant.segments[0].url)
      defer { try? FileManager.default.removeItem(at: seg) }
      let v = try #require(try FFprobe.report(seg).video)
      let (w, h) = (try #require(v.width), try #require(v.height))
      // What the master promises is what the pictures are.
      #expect(variant.attributes["RESOLUTION"] == "\(w)x\(h)", "\(variant.uri): \(w)x\(h) vs \(variant.attributes)")
      #expect(v.sampleAspectRatio == nil || v.sampleAspectRatio == "1:1", "\(variant.uri): SAR \(v.sampleAspectRatio ?? "")")
      // Shown 16:9 with square pixels (within the even-size rounding).
      #expect(abs(Double(w) / Double(h) / (16.0 / 9) - 1) < 0.02, "\(variant.uri): \(w)x\(h) is not the shown 16:9")
      let ours = try Oracle.grayFrames(seg, width: 64, height: 36)[0]
      let mad = Oracle.meanAbsoluteDifference(ours, reference)
      #expect(mad < 4, "\(variant.uri) (\(w)x\(h)): differs from ffmpeg's decode of the source by \(mad)")
    }
    #expect(Set(variants.compactMap { $0.attributes["RESOLUTION"] }).count == 3, "two renditions of one size")
  }

  @Test("every rendition of a rotated clip is the source's upright picture at its size")
  func renditionsMatchTheSource() throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("rot90.mp4")
    try SyntheticMedia.writeClip(.init(video: "testsrc2=size=640x360:rate=30", frameRate: Rational(30, 1), duration: 2,
                                       rotation: 90), to: src.path)
    var settings = JobSettings(maxHeight: 360)
    settings.renditions = [RenditionRequest(height: 360, bitrateKbps: 1500), RenditionRequest(height: 240, bitrateKbps: 800),
                           RenditionRequest(height: 160, bitrateKbps: 400)]
    _ = try TranscoderTests.build(src, in: dir, settings: settings)
    let (_, variants) = try HLSCheck.variants(master: TranscoderTests.master(dir))
    // 360p, 240p, 160p and the weak-network 144p, and those of their HEVC
    // twins that take fewer bytes (`HEVCTwinSelection`).
    let h264Count = variants.filter { $0.attributes["CODECS"]?.hasPrefix("avc1.") == true }.count
    #expect(h264Count == 4 && variants.count <= 8)
    for variant in variants {
      let seg = try HLSCheck.standaloneSegment(map: variant.mapURL, segment: variant.segments[0].url)
      defer { try? FileManager.default.removeItem(at: seg) }
      let v = try #require(try FFprobe.report(seg).video)
      let (w, h) = (try #require(v.width), try #require(v.height))
      #expect(h > w, "\(variant.uri): \(w)x\(h) is not upright")
      // Compare at a common small size: ours against ffmpeg's own
      // autorotated decode of the source.
      let ours = try Oracle.grayFrames(seg, width: 36, height: 64)[0]
      let reference = try Oracle.grayFrames(src, width: 36, height: 64)[0]
      let mad = Oracle.meanAbsoluteDifference(ours, reference)
      #expect(mad < 4, "\(variant.uri) (\(w)x\(h)): differs from the source by \(mad)")
    }
  }
}
