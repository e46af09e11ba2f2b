import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// Every rendition is scaled (and rotated) on its own worker thread from the
/// item's shared picture: the pictures must be those of the one-graph
/// description, and those ffmpeg makes from the source.
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
    }
    // The thread lets go of its closure when it exits, just after `join()`
    // returns.
    let deadline = Date().addingTimeInterval(10)
    while freed != nil && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    #expect(freed == nil, "the worker outlived its thread")
  }

  @Test("the split graphs hold the one graph's filters, in its order")
  func splitDescription() {
    let plan = VideoPlan(displayWidth: 1280, displayHeight: 720, frameRate: Rational(30, 1), renditions: [
      RenditionPlan(width: 1280, height: 720, bitRate: 3_000_000, name: "720p"),
      RenditionPlan(width: 640, height: 360, bitRate: 730_000, name: "360p"),
    ], mp4Rendition: 0)
    let desc = VideoFilterDescription(plan: plan, transform: .rotate90, dynamicRange: .pq,
                                      sourceMatrix: "bt2020nc", sourcePrimaries: "bt2020")
    // The one graph, "[in0]<head>,split=2[s0][s1];[s0]<tail0>[out0];[s1]<tail1>[out1]".
    func chain(_ graph: String) -> String { String(graph.dropFirst("[in0]".count).dropLast("[out0]".count)) }
    let head = chain(desc.headText)
    let tails = plan.renditions.indices.map { chain(desc.tailText(rendition: $0)) }
    #expect(desc.text == "[in0]\(head),split=2[s0][s1];[s0]\(tails[0])[out0];[s1]\(tails[1])[out1]",
            "\(desc.text)\nvs head \(head), tails \(tails)")
    #expect(head.contains("tonemap") && !head.contains("scale=w="), "\(head)")
    #expect(tails[1].hasPrefix("scale=w=360:h=640") && tails[1].contains("transpose"), "\(tails[1])")
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
    #expect(variants.count == 3)
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
