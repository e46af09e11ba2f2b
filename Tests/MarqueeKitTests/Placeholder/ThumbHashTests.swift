import Foundation
import Testing

@testable import MarqueeKit
import MediaIO

/// The pictures the known vectors were made from, drawn the same way here
/// and in the generator script.
private func picture(_ kind: String) -> RGBAImage {
  var w = 0, h = 0
  var px: (Int, Int) -> (Int, Int, Int, Int) = { _, _ in (0, 0, 0, 0) }
  switch kind {
  case "gradient":  // 100x75, opaque
    (w, h) = (100, 75)
    px = { x, y in (x * 255 / 99, y * 255 / 74, 128, 255) }
  case "disc":  // 60x100, a red disc on transparency
    (w, h) = (60, 100)
    px = { x, y in (200, (x * y) % 256, 50, (x - 30) * (x - 30) + (y - 50) * (y - 50) < 900 ? 255 : 0) }
  case "stripes":  // 100x33, opaque
    (w, h) = (100, 33)
    px = { x, y in ((x / 10) % 2 == 1 ? 255 : 20, 90, (y * 7) % 256, 255) }
  default:  // "tiny": 3x2, half transparent
    (w, h) = (3, 2)
    px = { x, y in (x * 100, y * 200, 50, 128) }
  }
  var pixels: [UInt8] = []
  for y in 0..<h {
    for x in 0..<w {
      let c = px(x, y)
      pixels += [UInt8(c.0), UInt8(c.1), UInt8(c.2), UInt8(c.3)]
    }
  }
  return RGBAImage(width: w, height: h, pixels: pixels)
}

@Suite("ThumbHash")
struct ThumbHashTests {
  // Made once with thumbhash-python 1.0.1 from PyPI
  // (`thumbhash.encode.rgba_to_thumbhash`) from the same pictures.
  @Test("the hashes of generated pictures are the bytes an independent implementation gives", arguments: [
    ("gradient", "3wcKNZqAh4eAiIeIeHiHiICACPh3"),
    ("disc", "X5uCAwBHtr1VGvbGz5UDo1d3h4iAiIc="),
    ("stripes", "HFgKYoaGhYVwh4eIh48HeIc="),
    ("tiny", "lQmGI5KIcXiAeIdxcBf3iHh4iIiHiAg="),
  ])
  func knownVectors(kind: String, expected: String) {
    let hash = ThumbHash.encode(picture(kind))
    let reference = [UInt8](Data(base64Encoded: expected)!)
    let first = zip(hash, reference).enumerated().first { $0.element.0 != $0.element.1 }?.offset
    #expect(hash.count == reference.count && first == nil,
            "\(kind): \(hash.count) bytes against \(reference.count), first differing byte at \(first.map(String.init) ?? "the end")")
  }

  @Test("a hash rendered by the test's own decoder looks like the picture at 32 px")
  func decodesToThePicture() throws {
    for kind in ["gradient", "stripes"] {
      let image = picture(kind)
      let hash = ThumbHash.encode(image)
      #expect(hash.count <= 25 && Data(hash).base64EncodedString().count <= 40, "\(kind): \(hash.count) bytes")
      let (w, h) = (32, 32 * image.height / image.width)
      let small = try ImageResampler.resize(image, width: w, height: h)
      let rendered = renderThumbHash(hash, width: w, height: h)
      var sum = 0.0
      for i in 0..<(w * h) {
        for c in 0..<3 { sum += abs(rendered[i * 4 + c] - Double(small.pixels[i * 4 + c])) }
      }
      let mean = sum / Double(w * h * 3)
      // A smooth gradient is kept closely (the decoder boosts P and Q by
      // 1.25, as the specification's does); hard stripes only as a blur.
      #expect(mean < (kind == "gradient" ? 16 : 60), "\(kind): mean difference \(mean)")
    }
  }

  @Test("ThumbHash.render draws what the test's own decoder draws, at any size, alpha included; a cut hash draws nothing")
  func renderMatchesTheOracle() throws {
    for kind in ["gradient", "disc", "stripes", "tiny"] {
      let hash = ThumbHash.encode(picture(kind))
      for (w, h) in [(32, 24), (18, 32), (7, 3), (1, 1)] {
        let ours = try #require(ThumbHash.render(hash, width: w, height: h), "\(kind) at \(w)x\(h)")
        let oracle = renderThumbHash(hash, width: w, height: h)
        #expect(ours.width == w && ours.height == h && ours.pixels.count == oracle.count)
        let worst = zip(ours.pixels, oracle).map { abs(Double($0) - $1) }.max() ?? .infinity
        // The oracle keeps fractions; ours rounds to bytes.
        #expect(worst <= 0.5 + 1e-9, "\(kind) at \(w)x\(h): differs by \(worst)")
      }
      // Hostile hashes (the preview reads banners.json from any bundle):
      // shorter than the terms the headers announce, or a size out of range.
      #expect(ThumbHash.render(Array(hash.dropLast()), width: 8, height: 8) == nil, "\(kind)")
      #expect(ThumbHash.render(hash, width: 0, height: 8) == nil && ThumbHash.render(hash, width: 101, height: 8) == nil)
    }
    #expect(ThumbHash.render([0xff, 0xff, 0xff, 0xff, 0xff], width: 4, height: 4) == nil)
  }

  @Test("the headers give the average colour and the L terms of the picture's size")
  func headers() throws {
    let image = picture("gradient")
    let header = try #require(ThumbHash.Header(ThumbHash.encode(image)))
    #expect(!header.hasAlpha && header.lx == 7 && header.ly == 5, "\(header)")
    // The gradient's average: R 127, G 127, B 128.
    #expect(abs(header.red * 255 - 127) < 8 && abs(header.green * 255 - 127) < 8 && abs(header.blue * 255 - 128) < 8,
            "\(header)")
    #expect(ThumbHash.Header([1, 2, 3]) == nil)
    #expect(ThumbHash.thumbnailSize(width: 1170, height: 658) == (100, 56))
    #expect(ThumbHash.thumbnailSize(width: 40, height: 90) == (40, 90))
  }
}
