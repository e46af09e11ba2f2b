import Foundation
import Testing

@testable import MarqueeKit
import MarqueeTestSupport

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

  /// `light` with every pixel lighter than mid-grey turned into `#1C1C1E`
  /// and the rest left as it was: a ground recoloured, its ink untouched.
  static func groundOnly(_ light: RGBAImage) -> RGBAImage {
    var dark = light.pixels
    for i in stride(from: 0, to: dark.count, by: 4) where dark[i] > 128 {
      dark[i] = 0x1C; dark[i + 1] = 0x1C; dark[i + 2] = 0x1E
    }
    return RGBAImage(width: light.width, height: light.height, pixels: dark)
  }

  @Test("heavy display type left black on a page that turns dark is illegible, from 300 pt letters to a 110 pt price")
  func heavyTypeLeftBlackIsIllegible() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-heavy-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
    for (text, size) in [("-40%", 300), ("SALE", 260), ("$29.99", 110)] {
      let url = dir.appendingPathComponent("type-\(size).png")
      try Oracle.generate(["-f", "lavfi", "-i", "color=0xF2F2F7:s=1170x658",
                           "-vf", "drawtext=fontfile=\(font):expansion=none:text='\(text)':fontsize=\(size):fontcolor=black:x=60:y=160",
                           "-frames:v", "1"], to: url)
      let light = try FFmpegOracle.decode(url)
      let judgement = PictureLook.judgeDarkVariant(light: light, dark: Self.groundOnly(light), surfaces: .standard,
                                                   isPhotograph: false)
      let report = judgement.legibility
      #expect(!report.isLegible, "\(text) at \(size) pt: \(report.failingTiles) of \(report.markTiles) tiles failed")
    }
  }

  @Test("a large dark product on a page that turns dark is a large shape (reported faint), not illegible ink")
  func largeDarkShapeIsNotInk() {
    // A navy-grey disc 140 px across on the 480x320 picture: seven tiles.
    let disc = Self.pair { x, y in
      let dx = Double(x - 250), dy = Double(y - 170)
      return dx * dx + dy * dy < 70 * 70 ? 40 : 255
    }
    let judgement = Self.judge(disc)
    #expect(judgement.legibility.isLegible && judgement.legibility.faintShapeTiles > 0,
            "\(judgement.legibility.failingTiles) of \(judgement.legibility.markTiles) failed, \(judgement.legibility.faintShapeTiles) faint")
  }

  @Test("a photo's flat black edge joined to its grainy body is part of the photograph, however thin")
  func crushedPhotoEdgeIsNotInk() {
    // A 12 px band of crushed black along the photo's left edge, then
    // grain: the band alone looks like a stroke of ink.
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    let photo = Self.pair { x, _ in
      if x < Self.box.x + 12 { return 0 }
      state = state &* 6364136223846793005 &+ 1442695040888963407
      return UInt8(20 + (state >> 33) % 120)
    }
    let judgement = Self.judge(photo)
    #expect(judgement.legibility.isLegible && judgement.legibility.failingTiles == 0, "\(judgement.problems)")
  }

  @Test("a photo inside graphics keeps a positive r over its rough midtones: inverted it fails, kept it passes; a soft shadow's ramp is no photo")
  func photoInGraphicsStaysAPhoto() {
    // A photo-like box: a ramp across with grain (every pixel up to 90
    // levels off it), 40–190, on a white page that turns dark.
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    let photo = Self.pair { x, _ in
      state = state &* 6364136223846793005 &+ 1442695040888963407
      return UInt8(40 + (x - Self.box.x) * 60 / Self.box.w + Int((state >> 33) % 91))
    }
    let kept = Self.judge(photo)
    #expect(kept.photoTileCorrelation >= 0.99 && kept.passes, "kept: r \(kept.photoTileCorrelation), \(kept.problems)")
    // The same photo inverted with the graphics round it.
    var inverted = photo.dark.pixels
    for i in stride(from: 0, to: inverted.count, by: 4) where photo.light.pixels[i] != 255 {
      for c in 0..<3 { inverted[i + c] = 255 - photo.light.pixels[i + c] }
    }
    let judgement = Self.judge((photo.light, RGBAImage(width: Self.width, height: Self.height, pixels: inverted)))
    #expect(judgement.photoTileCorrelation < 0 && !judgement.passes
              && judgement.problems.contains { $0.hasPrefix("a photograph in it is inverted") },
            "inverted: r \(judgement.photoTileCorrelation), \(judgement.problems)")
    // A soft shadow: a smooth ramp 119–245 across the box, mapped darker
    // than the dark page in proportion. Its tiles span many bands but are
    // smooth: no photograph to hold to r.
    let shadow = Self.pair { x, _ in UInt8(119 + (x - Self.box.x) * 126 / Self.box.w) }
    var shaded = shadow.dark.pixels
    for i in stride(from: 0, to: shaded.count, by: 4) where shadow.light.pixels[i] != 255 {
      let v = UInt8(28 * Int(shadow.light.pixels[i]) / 255)
      for c in 0..<3 { shaded[i + c] = v }
    }
    let ramp = Self.judge((shadow.light, RGBAImage(width: Self.width, height: Self.height, pixels: shaded)))
    #expect(ramp.photoTileCorrelation == 1, "shadow ramp: r \(ramp.photoTileCorrelation)")
  }
}
