import Foundation
import Testing

@testable import MarqueeKit

/// Cover choice on synthetic picture statistics, with exact expectations.
@Suite("Cover selector")
struct CoverSelectorTests {
  /// A thumbnail of `mean` luma with a ±`spread` checkerboard (sharp) or a
  /// smooth ramp (blurred), and a chroma offset for colour.
  static func stats(mean: Int, spread: Int, sharp: Bool = true, chroma: Int = 0) -> PictureStatistics {
    let w = 32, h = 18
    var y = [UInt8](repeating: 0, count: w * h)
    for r in 0..<h {
      for c in 0..<w {
        // A horizontal ramp of ±spread, plus fine ±10 detail when sharp.
        let ramp = c * 2 * spread / w - spread
        let d = sharp ? ramp + (((r + c) % 2 == 0) ? 10 : -10) : ramp
        y[r * w + c] = UInt8(max(0, min(255, mean + d)))
      }
    }
    let uv = PlaneThumbnail(width: 16, height: 9, samples: [UInt8](repeating: UInt8(128 + chroma), count: 144))
    return PictureStatistics(y: PlaneThumbnail(width: w, height: h, samples: y), u: uv, v: uv)
  }

  @Test("black, flat and blown-out frames are rejected; fade-in settles on a lit frame")
  func fadeIn() throws {
    var s = CoverSelector<Int>(policy: .first)
    let means = [0, 10, 25, 39, 60, 120]
    for (i, m) in means.enumerated() {
      s.offer(time: Double(i) / 30, statistics: Self.stats(mean: m, spread: 30)) { i }
    }
    let finished = s.finish()
    let choice = try #require(finished)
    #expect(choice.payload == 4 && choice.qualified)
  }

  @Test("a flat card and a white flash never become covers")
  func flatAndBlown() throws {
    var s = CoverSelector<Int>(policy: .first)
    s.offer(time: 0, statistics: Self.stats(mean: 128, spread: 2, sharp: false)) { 0 }  // flat grey card
    s.offer(time: 0.1, statistics: Self.stats(mean: 250, spread: 3, sharp: false)) { 1 }  // flash
    s.offer(time: 0.2, statistics: Self.stats(mean: 100, spread: 40)) { 2 }
    let finished = s.finish()
    #expect(try #require(finished).payload == 2)
  }

  @Test("auto prefers a sharp frame over a blurred one and skips frames next to a hard cut")
  func autoScoring() throws {
    var s = CoverSelector<Int>(policy: .auto)
    s.offer(time: 0.0, statistics: Self.stats(mean: 110, spread: 40, sharp: false)) { 0 }  // blurred
    s.offer(time: 0.1, statistics: Self.stats(mean: 112, spread: 40, sharp: false)) { 1 }
    s.offer(time: 0.2, statistics: Self.stats(mean: 120, spread: 40, sharp: true)) { 2 }   // sharp
    s.offer(time: 0.3, statistics: Self.stats(mean: 121, spread: 40, sharp: true)) { 3 }
    let finished = s.finish()
    let choice = try #require(finished)
    #expect(choice.payload == 2, "earliest sharp frame wins, got \(choice.payload)")

    var cut = CoverSelector<Int>(policy: .auto)
    cut.offer(time: 0.0, statistics: Self.stats(mean: 60, spread: 20)) { 0 }
    cut.offer(time: 0.1, statistics: Self.stats(mean: 200, spread: 20)) { 1 }  // hard cut before and after
    cut.offer(time: 0.2, statistics: Self.stats(mean: 60, spread: 20)) { 2 }
    cut.offer(time: 0.3, statistics: Self.stats(mean: 61, spread: 20)) { 3 }
    let cutFinished = cut.finish()
    let c = try #require(cutFinished)
    #expect(c.payload == 3, "frames next to a cut are skipped, got \(c.payload)")
  }

  @Test("an all-black clip falls back to the best frame with a warning")
  func allBlack() throws {
    var s = CoverSelector<Int>(policy: .auto)
    for i in 0..<10 { s.offer(time: Double(i) / 10, statistics: Self.stats(mean: i == 6 ? 9 : 2, spread: 1)) { i } }
    let finished = s.finish()
    let choice = try #require(finished)
    #expect(!choice.qualified && choice.payload == 6)
    #expect(choice.warning?.contains("no frame qualified") == true)
  }

  @Test("a pinned time takes the frame shown at that time, and stops looking after it")
  func pinned() throws {
    var s = CoverSelector<Int>(policy: .at(seconds: 0.25))
    var offered = 0
    for i in 0..<30 where !s.isSatisfied {
      offered += 1
      s.offer(time: Double(i) / 10, statistics: Self.stats(mean: 5, spread: 1)) { i }
    }
    let finished = s.finish()
    let choice = try #require(finished)
    #expect(choice.payload == 2)  // shown from 0.2 s to 0.3 s
    #expect(offered == 4)
    var late = CoverSelector<Int>(policy: .at(seconds: 9))
    for i in 0..<5 { late.offer(time: Double(i) / 10, statistics: Self.stats(mean: 50, spread: 10)) { i } }
    let lateFinished = late.finish()
    let l = try #require(lateFinished)
    #expect(l.payload == 4 && l.warning?.contains("past the end") == true)
  }
}
