import Foundation
import Testing

@testable import MarqueeKit

// The legibility rule on pictures drawn here pixel by pixel: a photograph's
// edge against a frame that turns dark is not ink, while strokes of ink
// left dark on a ground that turns dark are.
@Suite("PictureLook: legibility of marks")
struct PictureLookLegibilityTests {
  static let width = 480, height = 320
  // Off the 20 px tile grid, so tiles straddle its edges.
  static let box = (x: 130, y: 90, w: 240, h: 160)

  /// A white picture whose box holds `fill(x, y)` (an sRGB grey), and its
  /// dark variant: every white pixel turned into `#1C1C1E`, the rest of
  /// the box unchanged.
  static func pair(_ fill: (Int, Int) -> UInt8) -> (light: RGBAImage, dark: RGBAImage) {
    var light = [UInt8](repeating: 255, count: width * height * 4)
    var dark = light
    for y in 0..<height {
      for x in 0..<width {
        let i = (y * width + x) * 4
        let inside = x >= box.x && x < box.x + box.w && y >= box.y && y < box.y + box.h
        let v = inside ? fill(x, y) : 255
        if v != 255 {
          for c in 0..<3 { light[i + c] = v; dark[i + c] = v }
        } else {
          dark[i] = 0x1C; dark[i + 1] = 0x1C; dark[i + 2] = 0x1E
        }
      }
    }
    return (RGBAImage(width: width, height: height, pixels: light), RGBAImage(width: width, height: height, pixels: dark))
  }

  static func judge(_ pair: (light: RGBAImage, dark: RGBAImage)) -> PictureLook.DarkVariantJudgement {
    PictureLook.judgeDarkVariant(light: pair.light, dark: pair.dark, surfaces: .standard, isPhotograph: false)
  }

  @Test("a grainy photo's edge against a frame that turns dark is part of the photograph, not illegible ink")
  func photoEdgeIsNotInk() {
    // A dark, grainy part of a photograph: every pixel its own level,
    // 0–59, too close to the dark surface for the rule as ink.
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    let photo = Self.pair { _, _ in
      state = state &* 6364136223846793005 &+ 1442695040888963407
      return UInt8((state >> 33) % 60)
    }
    let judgement = Self.judge(photo)
    #expect(judgement.legibility.isLegible && judgement.legibility.failingTiles == 0, "\(judgement.problems)")
  }

  @Test("strokes of dark ink left on a ground that turns dark are illegible")
  func inkLeftDarkIsIllegible() {
    // 3 px black strokes every 12 px: lines of text.
    let ink = Self.pair { _, y in y % 12 < 3 ? 0 : 255 }
    let judgement = Self.judge(ink)
    #expect(!judgement.legibility.isLegible, "\(judgement.legibility.failingTiles) of \(judgement.legibility.markTiles) tiles failed")
  }
}
