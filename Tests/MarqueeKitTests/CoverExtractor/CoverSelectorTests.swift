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
    let finished = try s.finish()
    let choice = try #require(finished)
    #expect(choice.payload == 4 && choice.qualified)
  }

  @Test("a flat card and a white flash never become covers")
  func flatAndBlown() throws {
    var s = CoverSelector<Int>(policy: .first)
    s.offer(time: 0, statistics: Self.stats(mean: 128, spread: 2, sharp: false)) { 0 }  // flat grey card
    s.offer(time: 0.1, statistics: Self.stats(mean: 250, spread: 3, sharp: false)) { 1 }  // flash
    s.offer(time: 0.2, statistics: Self.stats(mean: 100, spread: 40)) { 2 }
    let finished = try s.finish()
    #expect(try #require(finished).payload == 2)
  }

  @Test("auto prefers a sharp frame over a blurred one and skips frames next to a hard cut")
  func autoScoring() throws {
    var s = CoverSelector<Int>(policy: .auto)
    s.offer(time: 0.0, statistics: Self.stats(mean: 110, spread: 40, sharp: false)) { 0 }  // blurred
    s.offer(time: 0.1, statistics: Self.stats(mean: 112, spread: 40, sharp: false)) { 1 }
    s.offer(time: 0.2, statistics: Self.stats(mean: 120, spread: 40, sharp: true)) { 2 }   // sharp
    s.offer(time: 0.3, statistics: Self.stats(mean: 121, spread: 40, sharp: true)) { 3 }
    let finished = try s.finish()
    let choice = try #require(finished)
    #expect(choice.payload == 2, "earliest sharp frame wins, got \(choice.payload)")

    var cut = CoverSelector<Int>(policy: .auto)
    cut.offer(time: 0.0, statistics: Self.stats(mean: 60, spread: 20)) { 0 }
    cut.offer(time: 0.1, statistics: Self.stats(mean: 200, spread: 20)) { 1 }  // hard cut before and after
    cut.offer(time: 0.2, statistics: Self.stats(mean: 60, spread: 20)) { 2 }
    cut.offer(time: 0.3, statistics: Self.stats(mean: 61, spread: 20)) { 3 }
    let cutFinished = try cut.finish()
    let c = try #require(cutFinished)
    #expect(c.payload == 3, "frames next to a cut are skipped, got \(c.payload)")
  }

  /// A night scene: black but for `lights` small bright spots (phone
  /// lights over a crowd) of luma `level`, with faint detail around them.
  static func nightScene(lights: Int = 12, level: UInt8 = 150) -> PictureStatistics {
    let w = 160, h = 90
    var y = [UInt8](repeating: 3, count: w * h)
    for r in 0..<h where r % 3 == 0 { for c in 0..<w where c % 5 == 0 { y[r * w + c] = 9 } }
    for n in 0..<lights {
      let r = 20 + (n * 7) % 50, c = 10 + n * 12
      for dr in 0..<3 { for dc in 0..<3 { y[(r + dr) * w + c + dc] = level } }
    }
    let uv = PlaneThumbnail(width: 80, height: 45, samples: [UInt8](repeating: 128, count: 80 * 45))
    return PictureStatistics(y: PlaneThumbnail(width: w, height: h, samples: y), u: uv, v: uv)
  }

  /// One flat tone over the whole picture.
  static func solid(_ level: UInt8) -> PictureStatistics {
    let uv = PlaneThumbnail(width: 16, height: 9, samples: [UInt8](repeating: 128, count: 144))
    return PictureStatistics(y: PlaneThumbnail(width: 32, height: 18, samples: [UInt8](repeating: level, count: 576)), u: uv, v: uv)
  }

  @Test("black is judged by the bright tail: a dark scene with small lights is a picture, a near-black one is not")
  func blackIsTheBrightTail() {
    let night = Self.nightScene()
    #expect(night.meanLuma < 8, "mean \(night.meanLuma)")
    #expect(PictureLook.verdict(night) == .picture, "tail \(night.brightTail), range \(night.toneRange)")
    #expect(PictureLook.verdict(Self.solid(0)) == .black)
    #expect(PictureLook.verdict(Self.stats(mean: 5, spread: 3)) == .black)  // peaks at 18
    #expect(PictureLook.verdict(Self.solid(200)) == .flat)
    #expect(PictureLook.verdict(Self.titleCard()) == .picture)
  }

  @Test("a dark but lit scene is a cover without a warning, under auto and first", arguments: [CoverPolicy.auto, .first])
  func darkSceneIsACover(policy: CoverPolicy) throws {
    var s = CoverSelector<Int>(policy: policy)
    s.offer(time: 0, statistics: Self.solid(0)) { 0 }
    for i in 1..<40 { s.offer(time: Double(i) / 25, statistics: Self.nightScene(lights: 10 + i % 3)) { i } }
    let choice = try s.finish()
    #expect(choice.payload > 0 && choice.qualified && choice.warning == nil && choice.verdict == .picture)
  }

  @Test("a black clip with a one-frame white flash gets the flash, with a warning", arguments: [CoverPolicy.auto, .first])
  func blackWithFlash(policy: CoverPolicy) throws {
    var s = CoverSelector<Int>(policy: policy)
    for i in 0..<60 { s.offer(time: Double(i) / 30, statistics: i == 31 ? Self.solid(252) : Self.solid(1)) { i } }
    let choice = try s.finish()
    #expect(choice.payload == 31 && !choice.qualified && choice.verdict == .flat)
    #expect(choice.warning?.contains("no frame qualified") == true, "\(choice.warning ?? "")")
  }

  @Test("a clip with nothing lit fails, and the error names the fixes", arguments: [CoverPolicy.auto, .first])
  func allBlack(policy: CoverPolicy) {
    var s = CoverSelector<Int>(policy: policy)
    for i in 0..<10 { s.offer(time: Double(i) / 10, statistics: Self.stats(mean: i == 6 ? 9 : 2, spread: 1)) { i } }
    #expect {
      _ = try s.finish()
    } throws: { error in
      let reason = (error as? MarqueeError)?.message ?? ""
      return reason.contains("no frame is lit") && reason.contains("\"cover\": {\"image\"") && reason.contains("\"at\"")
    }
  }

  @Test("a pinned flat frame is used with a warning; a pinned black frame fails naming the fixes")
  func pinnedFlatAndBlack() throws {
    var card = CoverSelector<Int>(policy: .at(seconds: 0.5))
    for i in 0..<10 { card.offer(time: Double(i) / 10, statistics: Self.solid(180)) { i } }
    let chosen = try card.finish()
    #expect(chosen.payload == 5 && chosen.verdict == .flat)
    #expect(chosen.warning?.contains("flat tone") == true)
    var black = CoverSelector<Int>(policy: .at(seconds: 0.5))
    for i in 0..<10 { black.offer(time: Double(i) / 10, statistics: Self.solid(i == 5 ? 0 : 120)) { i } }
    #expect {
      _ = try black.finish()
    } throws: { error in
      let reason = (error as? MarqueeError)?.message ?? ""
      return reason.contains("is black") && reason.contains("\"image\"") && reason.contains("\"at\"")
    }
  }

  /// A lit, nearly one-tone wall: a gentle ±`spread`·√3 shading with ±1
  /// grain, like a camera's view of a painted wall.
  static func wall(mean: Int, spread: Int) -> PictureStatistics {
    let w = 32, h = 18
    var y = [UInt8](repeating: 0, count: w * h)
    let amplitude = Double(spread) * 3.0.squareRoot()
    for r in 0..<h {
      for c in 0..<w {
        let shade = (Double(c) / Double(w - 1) * 2 - 1) * amplitude
        y[r * w + c] = UInt8(max(0, min(255, mean + Int(shade.rounded()) + ((r + c) % 2 == 0 ? 1 : -1))))
      }
    }
    let uv = PlaneThumbnail(width: 16, height: 9, samples: [UInt8](repeating: 128, count: 144))
    return PictureStatistics(y: PlaneThumbnail(width: w, height: h, samples: y), u: uv, v: uv)
  }

  @Test("auto prefers the detailed scene that follows over a blank wall at the start")
  func blankWallLosesToDetail() throws {
    let wall = Self.wall(mean: 125, spread: 14)
    let selector = CoverSelector<Int>(policy: .auto)
    #expect(selector.isExposedAndDetailed(wall), "the wall qualifies on its own: spread \(wall.lumaSpread), sharpness \(wall.sharpness)")
    var s = CoverSelector<Int>(policy: .auto)
    var i = 0
    for _ in 0..<96 { s.offer(time: Double(i) / 24, statistics: wall) { i }; i += 1 }  // 4 s of wall
    let firstScene = i
    // A camera pan across a detailed street (a cut, so the first frame is skipped).
    for _ in 0..<48 { s.offer(time: Double(i) / 24, statistics: Self.stats(mean: 110, spread: 45)) { i }; i += 1 }
    let choice = try s.finish()
    #expect(choice.payload > firstScene, "took frame \(choice.payload) (the wall ends at \(firstScene))")
  }

  @Test("auto skips a 0.2 s opening shot of another scene for the shot the clip is about")
  func shortOpeningShot() throws {
    // Like the corpus's edit-list clip: 6 frames of a sharp meadow, a cut,
    // then 4 s of the bird (less sharp, so it scores lower frame for frame).
    var s = CoverSelector<Int>(policy: .auto)
    for i in 0..<6 { s.offer(time: Double(i) / 30, statistics: Self.stats(mean: 130, spread: 55)) { i } }
    for i in 6..<120 { s.offer(time: Double(i) / 30, statistics: Self.wall(mean: 180, spread: 40)) { i } }
    let choice = try s.finish()
    #expect(choice.payload >= 7, "took frame \(choice.payload) of the 0.2 s opening shot")
    // A clip that is one short shot still gets its cover.
    var short = CoverSelector<Int>(policy: .auto)
    for i in 0..<4 { short.offer(time: Double(i) / 30, statistics: Self.stats(mean: 130, spread: 55)) { i } }
    #expect(try short.finish().qualified)
  }

  // MARK: - Fades, title cards, low-contrast pictures

  /// A white card (255) with a detailed logo block (a 40/200 checkerboard)
  /// covering `logo` of it: mean luma about 235 for 15 %.
  static func titleCard(logo: Double = 0.15) -> PictureStatistics {
    let w = 40, h = 24
    var y = [UInt8](repeating: 255, count: w * h)
    let side = Int((Double(w * h) * logo).squareRoot())
    for r in (h - side) / 2..<((h - side) / 2 + side) {
      for c in (w - side) / 2..<((w - side) / 2 + side) {
        y[r * w + c] = (r + c) % 2 == 0 ? 40 : 200
      }
    }
    let uv = PlaneThumbnail(width: 20, height: 12, samples: [UInt8](repeating: 128, count: 240))
    return PictureStatistics(y: PlaneThumbnail(width: w, height: h, samples: y), u: uv, v: uv)
  }

  @Test("auto takes the title card a fast fade ends on, not a washed-out fade frame")
  func fadeIntoWhiteTitleCard() throws {
    // Like the corpus HEVC clip: black, a 5-frame fade at 30 fps, then a
    // detailed near-white card (mean ~235, most of it clipped).
    let card = Self.titleCard()
    #expect(card.clippedHighlights > 0.3 && card.meanLuma > 228)
    #expect(CoverSelector<Int>(policy: .auto).isExposedAndDetailed(card))
    var s = CoverSelector<Int>(policy: .auto)
    let fade = [0, 24, 77, 130, 182]
    for (i, m) in fade.enumerated() {
      s.offer(time: Double(i) / 30, statistics: Self.stats(mean: m, spread: m / 6)) { i }
    }
    for i in fade.count..<(fade.count + 10) {
      s.offer(time: Double(i) / 30, statistics: card) { i }
    }
    let finished = try s.finish()
    let choice = try #require(finished)
    #expect(choice.qualified && choice.warning == nil)
    #expect(choice.payload == fade.count + 1, "took frame \(choice.payload)")
  }

  @Test("a slow fade's mid frames are skipped although their mean luma looks ideal")
  func slowFadeIsSkipped() throws {
    // 24 fps, 10 levels a frame (240 levels/s) from 40 to 200, then stable.
    var s = CoverSelector<Int>(policy: .auto)
    var i = 0
    var t = 0.0
    for m in stride(from: 40, through: 200, by: 10) {
      s.offer(time: t, statistics: Self.stats(mean: m, spread: 30)) { i }
      i += 1
      t += 1.0 / 24
    }
    let firstStable = i
    for _ in 0..<24 {
      s.offer(time: t, statistics: Self.stats(mean: 200, spread: 30)) { i }
      i += 1
      t += 1.0 / 24
    }
    let finished = try s.finish()
    let choice = try #require(finished)
    #expect(choice.payload >= firstStable, "took mid-fade frame \(choice.payload)")
    #expect(choice.qualified)
  }

  @Test("a low-contrast but detailed picture is not flat; a white flash and a plain card are")
  func flatMeansFeaturelessNotLowContrast() {
    let selector = CoverSelector<Int>(policy: .auto)
    // Spread under 12 but sharp (the bird against a blue sky).
    #expect(selector.isExposedAndDetailed(Self.stats(mean: 70, spread: 2, sharp: true)))
    #expect(!selector.isExposedAndDetailed(Self.stats(mean: 70, spread: 4, sharp: false)))
    // A detailed picture is never "exposed" above the hard cap.
    #expect(!selector.isExposedAndDetailed(Self.stats(mean: 250, spread: 40)))
    // Bright and clipped without detail is blown out.
    #expect(!selector.isExposedAndDetailed(Self.stats(mean: 240, spread: 8, sharp: false)))
  }
}
