import Foundation
import MarqueeTestSupport
import MediaIO
import Testing

@testable import MarqueeKit

/// `AVIFQualityMatch`'s two-speed search against the plain search it
/// replaced: a bisection over the same range with every encode at the file
/// speed (about six file encodes). On real pictures (corpus stills resized
/// as the renderer would) and a generated sale card, both must choose the
/// same quantizer, whose file reaches the target while the next quantizer's
/// file does not, with fewer file encodes.
@Suite("AVIF quantizer search: probes at libaom speed 9, files at speed 6")
struct AVIFQualityMatchTests {
  /// A sale card: a light panel with dark type-like bars and a coloured
  /// badge on a photo-like noisy ground, 640x360.
  static func saleCard() -> RGBAImage {
    var rng = SplitMix64(seed: 26)
    let width = 640, height = 360
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    for y in 0..<height {
      for x in 0..<width {
        let i = (y * width + x) * 4
        let grain = Int(rng.next() % 24)
        var rgb = (60 + x / 8 + grain, 90 + y / 6 + grain, 140 + grain)
        if x > 40, x < 360, y > 40, y < 320 { rgb = (245, 242, 236) }
        if x > 64, x < 330, (y / 18) % 3 == 0, y > 70, y < 300, (x / 7) % 5 != 0 { rgb = (30, 30, 34) }
        let dx = x - 500, dy = y - 180
        if dx * dx + dy * dy < 80 * 80 { rgb = (220, 30, 40) }
        pixels[i] = UInt8(min(255, rgb.0)); pixels[i + 1] = UInt8(min(255, rgb.1)); pixels[i + 2] = UInt8(min(255, rgb.2))
      }
    }
    return RGBAImage(width: width, height: height, pixels: pixels)
  }

  static func corpusPicture(_ name: String, width: Int) throws -> RGBAImage {
    let source = try ImageSource.open(path: try Corpus.url(name).path, limits: InputLimits()).decodeStill().image
    let height = max(1, Int((Double(source.height) * Double(width) / Double(source.width)).rounded()))
    return try ImageResampler.resize(source, width: width, height: height)
  }

  static func check(_ picture: RGBAImage, _ label: String) throws {
    let webp = try WebPEncoder.encode(picture, quality: 80)
    let match = AVIFQualityMatch(show: { $0 })
    let choice = try match.choose(for: picture, webp: webp)
    let target = choice.webpSSIM - AVIFQualityMatch.allowedShortfall
    func fileSSIM(_ q: Int) throws(MediaIOError) -> Double {
      let data = try AVIFEncoder.encode(picture, quantizer: q, alphaQuantizer: AVIFQualityMatch.alphaQuantizer(for: q))
      return try StillSSIM.compare(try AVIFDecoder.decode(data), picture)
    }
    // The plain search: a bisection with file encodes only.
    var plainEncodes = 0
    let plain = try AVIFQualityMatch.highest(in: AVIFQualityMatch.searchRange) { (q) throws(MediaIOError) in
      plainEncodes += 1
      return try fileSSIM(q) >= target
    } ?? AVIFQualityMatch.searchRange.lowerBound
    #expect(choice.quantizer == plain, "\(label): two-speed q \(choice.quantizer), file-speed bisection q \(plain)")
    #expect(choice.avifSSIM >= target, "\(label): SSIM \(choice.avifSSIM) under the target \(target)")
    if choice.quantizer < AVIFQualityMatch.searchRange.upperBound {
      #expect(try fileSSIM(choice.quantizer + 1) < target, "\(label): q \(choice.quantizer + 1) reaches the target too")
    }
    // The chosen file is the file-speed encode (what a plain encode gives).
    let again = try AVIFEncoder.encode(picture, quantizer: choice.quantizer,
                                       alphaQuantizer: AVIFQualityMatch.alphaQuantizer(for: choice.quantizer))
    #expect(again == choice.avif, "\(label): the chosen AVIF is not the file-speed encode at q \(choice.quantizer)")
    #expect(choice.encodes < plainEncodes, "\(label): \(choice.encodes) file encodes, the bisection made \(plainEncodes)")
    #expect(choice.probes > 0)
  }

  @Test("a generated sale card: the same quantizer as a file-speed bisection, fewer file encodes")
  func saleCard() throws {
    try Self.check(Self.saleCard(), "sale card")
  }

  @Test("corpus stills resized to 780 px: the same quantizer as a file-speed bisection, fewer file encodes",
        .enabled(if: Corpus.skipReason == nil),
        arguments: ["image-jpeg-adobergb1998-photo-2000x1072.jpg", "image-jpeg-product-white-mug-on-white-1000.jpg",
                    "image-jpeg-grayscale-1ch-gray-gamma22-icc.jpg"])
  func corpus(_ name: String) throws {
    try Self.check(try Self.corpusPicture(name, width: 780), name)
  }
}
