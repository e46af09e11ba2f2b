import Foundation
import MarqueeTestSupport
import MediaIO
import Testing

/// `JPEGEncoder`'s RGBA → 4:2:0 conversion at odd widths: the last chroma
/// column is made of the picture's last column, never of pixels past the
/// row (the next row's first pixel, or on the last row memory past the
/// pixel buffer, which made JPEGs of the same picture differ run to run).
@Suite("JPEG encoder: odd widths")
struct JPEGEncoderTests {
  /// Red everywhere but a blue first column.
  static func redWithBlueFirstColumn(width: Int, height: Int) -> RGBAImage {
    var image = RGBAImage(width: width, height: height, fill: (r: 255, g: 0, b: 0, a: 255))
    for y in 0..<height {
      let i = image.offset(x: 0, y: y)
      image.pixels[i] = 0
      image.pixels[i + 2] = 255
    }
    return image
  }

  @Test("the right edge of an odd-width picture keeps its own colour, not the next row's first pixel", arguments: [245, 33])
  func rightEdgeKeepsItsColour(width: Int) throws {
    let height = 32
    let jpeg = try JPEGEncoder.encode(Self.redWithBlueFirstColumn(width: width, height: height), quality: 90)
    let url = try temporaryFolder().appendingPathComponent("edge.jpg")
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    try jpeg.write(to: url)
    let decoded = try ImageDecoder.decodeFirstFrame(path: url.path, limits: InputLimits()).image
    #expect(decoded.width == width && decoded.height == height)
    for y in [2, height / 2, height - 3] {
      let i = decoded.offset(x: width - 1, y: y)
      let (r, g, b) = (decoded.pixels[i], decoded.pixels[i + 1], decoded.pixels[i + 2])
      #expect(r > 200 && g < 60 && b < 60, "pixel (\(width - 1), \(y)) is (\(r), \(g), \(b)), not red")
    }
  }

  @Test("the same odd-width picture encodes to the same bytes, whatever the heap held", arguments: [245, 1, 3])
  func repeatable(width: Int) throws {
    let image = Self.redWithBlueFirstColumn(width: width, height: 7)
    let reference = try JPEGEncoder.encode(image, quality: 85)
    for _ in 0..<8 {
      // Churn the heap between encodes so the bytes after a new copy of the
      // pixels are other leftovers each time.
      let junk = (0..<16).map { [UInt8](repeating: UInt8.random(in: 0...255), count: width * 7 * 4 + $0 * 4) }
      let copy = RGBAImage(width: image.width, height: image.height, pixels: image.pixels.map { $0 })
      let again = try JPEGEncoder.encode(copy, quality: 85)
      withExtendedLifetime(junk) {}
      #expect(ByteComparison.difference(reference, again) == nil, "\(ByteComparison.difference(reference, again) ?? "")")
    }
  }
}
