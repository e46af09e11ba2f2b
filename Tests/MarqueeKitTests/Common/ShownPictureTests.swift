import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

// `ShownPicture` is what the dark-variant rules read, in the generator and
// in `verify`. Its one pass is written for speed; here it is held against a
// plain reading of its definition, pixel by pixel: composite each pixel on
// the surface by its alpha (encoded values, rounded), box-average each
// f×f block (fewer pixels at the right and bottom edges), BT.709 luma and
// WCAG relative luminance of the average, and the full-size mean luma and
// glare share as `PictureLook` defines them.
@Suite("The picture as shown")
struct ShownPictureTests {
  /// A picture with flat runs, noise, white areas and translucent pixels.
  private func picture(width: Int, height: Int, seed: UInt64) -> RGBAImage {
    var random = SplitMix64(seed: seed)
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    for y in 0..<height {
      for x in 0..<width {
        let i = (y * width + x) * 4
        switch (x / 7 + y / 5) % 4 {
        case 0: break  // white: glare
        case 1:
          pixels[i] = UInt8(truncatingIfNeeded: random.next()); pixels[i + 1] = UInt8(truncatingIfNeeded: random.next())
          pixels[i + 2] = UInt8(truncatingIfNeeded: random.next())
        case 2:
          pixels[i] = 20; pixels[i + 1] = 200; pixels[i + 2] = 240
          pixels[i + 3] = UInt8(truncatingIfNeeded: random.next())
        default:
          pixels[i] = 17; pixels[i + 1] = 17; pixels[i + 2] = 17
        }
      }
    }
    return RGBAImage(width: width, height: height, pixels: pixels)
  }

  private struct Reference {
    var width = 0, height = 0
    var luma: [UInt8] = []
    var luminance: [Float] = []
    var opaque: [Bool] = []
  }

  private func reference(_ image: RGBAImage, on surface: RGBColor, maxSide: Int) -> Reference {
    let f = max(1, (max(image.width, image.height) + maxSide - 1) / maxSide)
    var out = Reference()
    out.width = (image.width + f - 1) / f
    out.height = (image.height + f - 1) / f
    let surfaceChannels = [Int(surface.r), Int(surface.g), Int(surface.b)]
    for oy in 0..<out.height {
      for ox in 0..<out.width {
        var sums = [0, 0, 0], alpha = 0, n = 0
        for y in (oy * f)..<min(image.height, oy * f + f) {
          for x in (ox * f)..<min(image.width, ox * f + f) {
            let i = (y * image.width + x) * 4
            let a = Int(image.pixels[i + 3])
            for c in 0..<3 { sums[c] += (Int(image.pixels[i + c]) * a + surfaceChannels[c] * (255 - a) + 127) / 255 }
            alpha += a
            n += 1
          }
        }
        let rgb = sums.map { ($0 + n / 2) / n }
        out.luma.append(UInt8(min(255, (54 * rgb[0] + 183 * rgb[1] + 19 * rgb[2] + 128) >> 8)))
        let linear = rgb.map { v -> Float in
          let c = Double(v) / 255
          return Float(c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4))
        }
        out.luminance.append(0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2])
        out.opaque.append(alpha >= 128 * n)
      }
    }
    return out
  }

  @Test("the one pass matches the definition, at every reduction factor and with ragged edges",
        arguments: [(37, 23, 800), (101, 67, 50), (130, 45, 40), (64, 64, 16)])
  func matchesDefinition(width: Int, height: Int, maxSide: Int) {
    let surface = RGBColor(r: 0x1C, g: 0x1C, b: 0x1E)
    let image = picture(width: width, height: height, seed: UInt64(width * 1000 + height))
    let shown = ShownPicture(image, on: surface, maxSide: maxSide)
    let expected = reference(image, on: surface, maxSide: maxSide)
    #expect(shown.width == expected.width && shown.height == expected.height)
    let firstLuma = shown.luma.indices.first { shown.luma[$0] != expected.luma[$0] }
    #expect(firstLuma == nil, "luma differs first at sample \(firstLuma ?? -1)")
    let firstLuminance = shown.luminance.indices.first { abs(shown.luminance[$0] - expected.luminance[$0]) > 1e-6 }
    #expect(firstLuminance == nil, "luminance differs first at sample \(firstLuminance ?? -1)")
    let firstOpaque = shown.opaque.indices.first { shown.opaque[$0] != expected.opaque[$0] }
    #expect(firstOpaque == nil, "opacity differs first at sample \(firstOpaque ?? -1)")
    // The full-size figures are `PictureLook`'s own, from the same pass.
    #expect(shown.meanLuma == PictureLook.shownMeanLuma(image, on: surface))
    #expect(shown.glareShare == PictureLook.glareShare(image, on: surface))
  }

  @Test("mean luma and glare share as shown, counted by hand on a small picture")
  func fullSizeFigures() {
    // Four pixels: white, black, white at alpha 0 (the surface shows), and
    // white at alpha 128 on black (luma 128.5).
    let image = RGBAImage(width: 2, height: 2, pixels: [255, 255, 255, 255, 0, 0, 0, 255, 255, 255, 255, 0, 255, 255, 255, 128])
    let black = RGBColor(r: 0, g: 0, b: 0)
    let shown = PictureLook.shownLuma(image, on: black)
    #expect(abs(shown.meanLuma - (255 + 0 + 0 + 255 * 128 / 255.0) / 4) < 1e-9)
    #expect(shown.glareShare == 0.25)
    let onWhite = PictureLook.shownLuma(image, on: RGBColor(r: 255, g: 255, b: 255))
    #expect(onWhite.glareShare == 0.75)
  }
}
