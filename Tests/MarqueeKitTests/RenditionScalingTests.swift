import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// Renditions after the first are scaled (and rotated) on their own worker
/// threads from the item's shared picture: the pictures must be those of
/// the one-graph description, and those ffmpeg makes from the source.
@Suite("Renditions scaled on their own threads", .serialized)
struct RenditionScalingTests {
  @Test("the split graphs hold the one graph's filters, in its order")
  func splitDescription() {
    let plan = VideoPlan(displayWidth: 1280, displayHeight: 720, frameRate: Rational(30, 1), renditions: [
      RenditionPlan(width: 1280, height: 720, bitRate: 3_000_000, maxRate: 4_500_000, bufferSize: 9_000_000, name: "720p"),
      RenditionPlan(width: 640, height: 360, bitRate: 730_000, maxRate: 1_095_000, bufferSize: 2_190_000, name: "360p"),
    ], mp4Rendition: 0)
    let desc = VideoFilterDescription(plan: plan, transform: .rotate90, dynamicRange: .pq,
                                      sourceMatrix: "bt2020nc", sourcePrimaries: "bt2020")
    // The one graph, "[in0]<head>,split=2[s0][s1];[s0]<tail0>[out0];[s1]<tail1>[out1]".
    let whole = desc.text
    let head = desc.headText
    let tail1 = desc.tailText(rendition: 1)
    let headChain = String(head.dropFirst("[in0]".count).prefix { $0 != "[" }).replacingOccurrences(of: ",split=2", with: "")
    #expect(whole.hasPrefix("[in0]" + headChain + ",split=2[s0][s1];"), "\(whole)\nvs head \(head)")
    let tail0Chain = head.components(separatedBy: "[s0]").last.map { String($0.dropLast("[out0]".count)) } ?? ""
    let tail1Chain = String(tail1.dropFirst("[in0]".count).dropLast("[out0]".count))
    #expect(whole.hasSuffix("[s0]" + tail0Chain + "[out0];[s1]" + tail1Chain + "[out1]"), "\(whole)\nvs tails \(tail0Chain) / \(tail1Chain)")
    #expect(tail1Chain.hasPrefix("scale=w=360:h=640") && tail1Chain.contains("transpose"), "\(tail1Chain)")
    #expect(head.contains("split=2[s0][out1]") && head.contains("tonemap"))
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
