import Foundation
import Testing

@testable import MarqueeKit
import MarqueeTestSupport

/// The demo's generated sources (`marquee demo-sources`, `make demo`).
@Suite("Demo sources")
struct DemoSourcesTests {
  @Test("every demo source has the same bytes on every run, so a second make demo reuses every item")
  func sameBytesEveryRun() throws {
    let first = try temporaryFolder(), second = try temporaryFolder()
    defer {
      try? FileManager.default.removeItem(at: first)
      try? FileManager.default.removeItem(at: second)
    }
    try DemoSources.write(into: first)
    try DemoSources.write(into: second)
    for name in DemoSources.files {
      let difference = try ByteComparison.difference(fileAt: first.appendingPathComponent(name),
                                                     second.appendingPathComponent(name))
      #expect(difference == nil, "\(name): \(difference ?? "")")
    }
  }

  @Test("the photo-like source renders the same picture for a seed, another for another seed")
  func photoLikeSourceIsRepeatable() throws {
    let a = try SyntheticMedia.renderStill(SyntheticMedia.photoLikeSource(width: 320, height: 200, seed: 3, grain: 10))
    let b = try SyntheticMedia.renderStill(SyntheticMedia.photoLikeSource(width: 320, height: 200, seed: 3, grain: 10))
    let c = try SyntheticMedia.renderStill(SyntheticMedia.photoLikeSource(width: 320, height: 200, seed: 4, grain: 10))
    #expect(ByteComparison.difference(Data(a.pixels), Data(b.pixels)) == nil)
    #expect(a.pixels != c.pixels)
    // Photo-like: many colours, every channel spread over a wide range.
    var colours = Set<Int>()
    var lo = [255, 255, 255], hi = [0, 0, 0]
    for i in stride(from: 0, to: a.pixels.count, by: 4) {
      colours.insert(Int(a.pixels[i]) << 16 | Int(a.pixels[i + 1]) << 8 | Int(a.pixels[i + 2]))
      for c in 0..<3 { lo[c] = min(lo[c], Int(a.pixels[i + c])); hi[c] = max(hi[c], Int(a.pixels[i + c])) }
    }
    #expect(colours.count >= 5000, "\(colours.count) colours")
    for c in 0..<3 { #expect(hi[c] - lo[c] >= 80, "channel \(c) spans \(lo[c])...\(hi[c])") }
  }
}
