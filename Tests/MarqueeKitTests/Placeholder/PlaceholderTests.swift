import Foundation
import Testing

@testable import MarqueeKit
import MarqueeTestSupport

/// banners.json placeholders, checked from the written files: each item's
/// `color` / `dark_color` against the mean of its JPEG twin (the same
/// picture flattened on `background` / `dark_surface`, decoded by the
/// ffmpeg CLI), and each ThumbHash rendered by the tests' own decoder.
@Suite("Placeholders in banners.json")
struct PlaceholderTests {
  // Safe: written once in init, read-only after.
  private final class Built: @unchecked Sendable {
    let fixture: BatchFixture
    let bundle: URL
    let items: [String: [String: Any]]

    init() throws {
      fixture = try BatchFixture("placeholders")
      _ = try fixture.clip("clip.mp4")
      try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=s=900x600", "-frames:v", "1"],
                          to: fixture.dir.appendingPathComponent("photo.png"))
      // A red card on transparency, and a pale blue card with text.
      try Oracle.generate(["-f", "lavfi", "-i", "color=0xE53935:s=600x600,format=rgba,geq=r='r(X\\,Y)':g='g(X\\,Y)':b='b(X\\,Y)':a='255*lt(hypot(X-300\\,Y-300)\\,250)'",
                           "-frames:v", "1"], to: fixture.dir.appendingPathComponent("disc.png"))
      try Oracle.generate(["-f", "lavfi", "-i", "color=0xD5F3FE:s=1170x390,drawbox=x=100:y=100:w=500:h=60:color=0x111111:t=fill",
                           "-frames:v", "1"], to: fixture.dir.appendingPathComponent("wide.png"))
      try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=s=320x180:r=10:d=1", "-filter_complex", "split[a][b];[a]palettegen[p];[b][p]paletteuse"],
                          to: fixture.dir.appendingPathComponent("anim.gif"))
      try fixture.job([
        ["id": "clip", "type": "video", "source": "clip.mp4"],
        ["id": "photo", "type": "image", "source": "photo.png"],
        ["id": "disc", "type": "image", "source": "disc.png"],
        ["id": "wide", "type": "image", "source": "wide.png"],
        ["id": "same", "type": "image", "source": "wide.png", "dark": "same"],
        ["id": "anim", "type": "image", "source": "anim.gif"],
      ], baseURL: nil)
      let build = try MarqueeCLI.run(["build", "job.json", "--out", "out"], in: fixture.dir)
      guard build.status == 0 else { throw BuildFailure(log: build.stderr) }
      bundle = fixture.out.appendingPathComponent("home")
      let root = try JSONSerialization.jsonObject(with: Data(contentsOf: bundle.appendingPathComponent("banners.json"))) as? [String: Any]
      var items: [String: [String: Any]] = [:]
      for item in root?["banners"] as? [[String: Any]] ?? [] { items[item["id"] as? String ?? ""] = item }
      self.items = items
    }
  }

  struct BuildFailure: Error, CustomStringConvertible {
    var log: String
    var description: String { "the build failed:\n\(log)" }
  }

  private static let built = Result { try Built() }

  /// Mean R, G, B of a decoded picture (opaque).
  private static func mean(_ image: RGBAImage) -> [Double] {
    var sum = [0.0, 0.0, 0.0]
    for i in stride(from: 0, to: image.pixels.count, by: 4) {
      for c in 0..<3 { sum[c] += Double(image.pixels[i + c]) }
    }
    return sum.map { $0 / Double(image.width * image.height) }
  }

  private static func hex(_ text: String?) -> [Double]? {
    guard let text, text.count == 7, text.hasPrefix("#"), let v = Int(text.dropFirst(), radix: 16) else { return nil }
    return [Double(v >> 16 & 255), Double(v >> 8 & 255), Double(v & 255)]
  }

  @Test("every item has thumbhash, dark_thumbhash, color and dark_color, and they match its pictures as shown",
        arguments: ["clip", "photo", "disc", "wide", "same", "anim"])
  func placeholdersMatchThePictures(id: String) throws {
    let b = try Self.built.get()
    let item = try #require(b.items[id])
    let (lightJPEG, darkJPEG) = id == "clip" ? ("cover_jpeg_url", "cover_dark_jpeg_url") : ("jpeg_url", "dark_jpeg_url")
    let surfaces: [(String, String, String, [Double])] = [
      ("thumbhash", "color", lightJPEG, [255, 255, 255]),
      ("dark_thumbhash", "dark_color", darkJPEG, [0x1C, 0x1C, 0x1E]),
    ]
    for (hashKey, colourKey, jpegKey, surface) in surfaces {
      let jpeg = try FFmpegOracle.decode(b.bundle.appendingPathComponent(try #require(item[jpegKey] as? String)))
      let shown = Self.mean(jpeg)
      let colour = try #require(Self.hex(item[colourKey] as? String), "\(id): \(colourKey) is \(item[colourKey] ?? "missing")")
      for c in 0..<3 {
        #expect(abs(colour[c] - shown[c]) <= 12, "\(id): \(colourKey) \(colour) against the \(jpegKey) mean \(shown)")
      }
      let text = try #require(item[hashKey] as? String, "\(id): no \(hashKey)")
      let hash = [UInt8](try #require(Data(base64Encoded: text), "\(id): \(hashKey) is not base64"))
      let opaque = hash[2] & 0x80 == 0
      if opaque { #expect(text.count <= 40, "\(id): \(hashKey) is \(text.count) characters") }
      // The hash rendered at 32 px and shown on its surface: its mean is
      // the picture's.
      let (w, h) = (32, max(1, 32 * jpeg.height / jpeg.width))
      let rendered = renderThumbHash(hash, width: w, height: h)
      var sum = [0.0, 0.0, 0.0]
      for i in 0..<(w * h) {
        let a = rendered[i * 4 + 3] / 255
        for c in 0..<3 { sum[c] += rendered[i * 4 + c] * a + surface[c] * (1 - a) }
      }
      for c in 0..<3 {
        #expect(abs(sum[c] / Double(w * h) - shown[c]) <= 16, "\(id): \(hashKey) renders \(sum.map { $0 / Double(w * h) }) against \(shown)")
      }
      // Its aspect ratio: the L terms of the picture's longer side, 7 (5
      // with alpha), and the shorter side's share.
      let landscape = hash[4] & 0x80 != 0
      #expect(landscape == (jpeg.width > jpeg.height), "\(id): \(hashKey) landscape flag")
    }
    if id == "same" {
      #expect(item["thumbhash"] as? String == item["dark_thumbhash"] as? String && item["color"] as? String == item["dark_color"] as? String,
              "same: the dark placeholder differs from the light one")
    }
  }

  @Test("verify fails a bundle whose placeholder does not match its picture, or has none")
  func verifyChecksPlaceholders() throws {
    let b = try Self.built.get()
    let scratch = b.fixture.dir.appendingPathComponent("tampered")
    try? FileManager.default.removeItem(at: scratch)
    try FileManager.default.copyItem(at: b.bundle, to: scratch)
    let jsonURL = scratch.appendingPathComponent("banners.json")
    var root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: jsonURL)) as? [String: Any])
    var banners = try #require(root["banners"] as? [[String: Any]])
    let photo = try #require(banners.firstIndex { $0["id"] as? String == "photo" })
    let disc = try #require(banners.firstIndex { $0["id"] as? String == "disc" })
    let clip = try #require(banners.firstIndex { $0["id"] as? String == "clip" })
    banners[photo]["thumbhash"] = banners[disc]["thumbhash"]
    banners[photo]["dark_color"] = "#FFFFFF"
    for key in ["thumbhash", "dark_thumbhash", "color", "dark_color"] { banners[clip][key] = nil }
    root["banners"] = banners
    try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]).write(to: jsonURL)
    let verify = try MarqueeCLI.run(["verify", scratch.path])
    let text = verify.stdoutText + verify.stderr
    #expect(verify.status != 0, "\(text)")
    #expect(text.contains("photo") && text.contains("thumbhash:") && text.contains("dark_color: #FFFFFF"), "\(text)")
    #expect(text.contains("clip") && text.contains("no thumbhash"), "\(text)")
    let clean = try MarqueeCLI.run(["verify", b.bundle.path])
    #expect(clean.status == 0, "\(clean.stdoutText + clean.stderr)")
  }
}
