import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

// Inputs and independent oracles for the dark-policy suites: pictures drawn
// here and written as PNG, and the ffmpeg command-line tools (Debian's
// FFmpeg 5.1, not the libwebp/libjpeg-turbo paths under test) decoding and
// scaling them.

/// Pictures a designer might supply, drawn pixel by pixel.
enum DarkArt {
  /// A dark picture with something to recognise everywhere: a blue-violet
  /// gradient, a warm disc left of centre and a light stripe near the right
  /// edge, so a crop, a stretch or a mirror shows in the difference.
  static func picture(width: Int, height: Int) -> RGBAImage {
    var image = RGBAImage(width: width, height: height, fill: (0, 0, 0, 255))
    let cx = Double(width) * 0.35, cy = Double(height) * 0.5, radius = Double(min(width, height)) * 0.25
    for y in 0..<height {
      for x in 0..<width {
        let fx = Double(x) / Double(width), fy = Double(y) / Double(height)
        var rgb = (20 + 70 * fx, 25 + 60 * fy, 60 + 50 * (fx + fy) / 2)
        if ((Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)).squareRoot() < radius {
          rgb = (200 - 40 * fy, 110 + 30 * fx, 40)
        }
        if fx > 0.84 && fx < 0.9 { rgb = (170, 175, 190) }
        let o = image.offset(x: x, y: y)
        image.pixels[o] = UInt8(rgb.0)
        image.pixels[o + 1] = UInt8(rgb.1)
        image.pixels[o + 2] = UInt8(rgb.2)
      }
    }
    return image
  }

  /// A "dark" picture that glares: pure white but for a dark box in the
  /// middle third (about 89 % near white).
  static func glaring(width: Int, height: Int) -> RGBAImage {
    var image = RGBAImage(width: width, height: height, fill: (255, 255, 255, 255))
    for y in (height / 3)..<(2 * height / 3) {
      for x in (width / 3)..<(2 * width / 3) {
        let o = image.offset(x: x, y: y)
        image.pixels[o] = 30; image.pixels[o + 1] = 30; image.pixels[o + 2] = 40
      }
    }
    return image
  }

  /// `image` written as a PNG at `url`.
  static func write(_ image: RGBAImage, to url: URL) throws {
    try PNGWriter.encode(image).write(to: url)
  }
}

/// The ffmpeg CLI as the oracle for what a picture file shows.
enum PictureOracle {
  /// The first picture of `url`, decoded by ffmpeg, through `filter` when
  /// given (e.g. `scale=240:135:flags=lanczos`), as RGBA bytes of
  /// `width × height`.
  static func rgba(_ url: URL, filter: String? = nil, width: Int, height: Int) throws -> [UInt8] {
    var arguments = ["-v", "error", "-i", url.path, "-frames:v", "1"]
    if let filter { arguments += ["-vf", filter] }
    arguments += ["-f", "rawvideo", "-pix_fmt", "rgba", "-"]
    let raw = [UInt8](try runTool("ffmpeg", arguments))
    guard raw.count == width * height * 4 else {
      throw FFprobe.Failure.failed("ffmpeg gave \(raw.count) bytes for \(width)x\(height) from \(url.lastPathComponent)")
    }
    return raw
  }

  /// The designer's picture scaled by ffmpeg to exactly `width × height`.
  static func scaled(_ url: URL, width: Int, height: Int) throws -> [UInt8] {
    try rgba(url, filter: "scale=\(width):\(height):flags=lanczos", width: width, height: height)
  }

  /// The designer's picture cover-cropped by ffmpeg to `width × height`:
  /// scaled to fill, the overflow cut from the centre (aspect-fill).
  static func coverCropped(_ url: URL, width: Int, height: Int) throws -> [UInt8] {
    try rgba(url, filter: "scale=\(width):\(height):force_original_aspect_ratio=increase:flags=lanczos,crop=\(width):\(height)",
             width: width, height: height)
  }

  /// Mean absolute difference of the R, G and B samples (0–255), pixel by
  /// pixel; infinity when the sizes differ.
  static func meanAbsoluteDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
    guard a.count == b.count, !a.isEmpty else { return .infinity }
    var total = 0
    var n = 0
    for i in a.indices where i % 4 != 3 {
      total += abs(Int(a[i]) - Int(b[i]))
      n += 1
    }
    return Double(total) / Double(n)
  }

  /// SHA-256 of a file by coreutils' `sha256sum`.
  static func sha256(_ url: URL) throws -> String {
    String(decoding: try runTool("sha256sum", [url.path]), as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
  }
}

/// One `marquee build` of every dark policy, shared by the suites that read
/// it (built once, on first use):
///
/// | id | banner | dark |
/// | --- | --- | --- |
/// | `designer` | image, `light.png` 480x270 | `designer.png` 960x540 (same aspect) |
/// | `cropped` | image, `light.png` | `tall-dark.png` 480x360 (4:3, 25 % off) |
/// | `same` | image, `light.png` | `"same"` |
/// | `glare` | image, `light.png` | `white-dark.png` 480x270, 89 % white |
/// | `anim` | image, `anim.gif` 240x135, 5 frames | `anim-dark.png` 480x270 |
/// | `clip-designer` | video, `clip.mp4` 320x240 | `clip-dark.png` 640x400 (16:10) |
/// | `clip-same` | video, `clip.mp4` | `"same"` |
/// | `plain` | image, `light.png` | (generated) |
///
/// Image widths 240 and 480.
// Safe: every property is a `let` set in init; read-only afterwards.
final class DarkPolicyBundle: @unchecked Sendable {
  let fixture: BatchFixture
  let build: ProcessResult
  /// banners.json items by id.
  let manifest: [String: [String: Any]]

  static let shared = Result { try DarkPolicyBundle() }

  var bundle: URL { fixture.out.appendingPathComponent("home") }
  func input(_ name: String) -> URL { fixture.dir.appendingPathComponent(name) }

  init() throws {
    let fixture = try BatchFixture("dark-policy")
    self.fixture = fixture
    func input(_ name: String) -> URL { fixture.dir.appendingPathComponent(name) }
    try fixture.png("light.png", width: 480, height: 270)
    try DarkArt.write(DarkArt.picture(width: 960, height: 540), to: input("designer.png"))
    try DarkArt.write(DarkArt.picture(width: 480, height: 360), to: input("tall-dark.png"))
    try DarkArt.write(DarkArt.glaring(width: 480, height: 270), to: input("white-dark.png"))
    try DarkArt.write(DarkArt.picture(width: 480, height: 270), to: input("anim-dark.png"))
    try DarkArt.write(DarkArt.picture(width: 640, height: 400), to: input("clip-dark.png"))
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=size=240x135:rate=5:duration=1"], to: input("anim.gif"))
    try fixture.clip("clip.mp4")
    try fixture.job([
      ["id": "designer", "type": "image", "source": "light.png", "dark": ["image": "designer.png"]],
      ["id": "cropped", "type": "image", "source": "light.png", "dark": ["image": "tall-dark.png"]],
      ["id": "same", "type": "image", "source": "light.png", "dark": "same"],
      ["id": "glare", "type": "image", "source": "light.png", "dark": ["image": "white-dark.png"]],
      ["id": "anim", "type": "image", "source": "anim.gif", "dark": ["image": "anim-dark.png"]],
      ["id": "clip-designer", "type": "video", "source": "clip.mp4", "dark": ["image": "clip-dark.png"]],
      ["id": "clip-same", "type": "video", "source": "clip.mp4", "dark": "same"],
      ["id": "plain", "type": "image", "source": "light.png"],
    ], settings: ["image_widths": [240, 480]], baseURL: nil)
    let build = try MarqueeCLI.run(["build", "job.json", "--out", "out", "--log-format", "plain"], in: fixture.dir)
    var items: [String: [String: Any]] = [:]
    if let data = try? Data(contentsOf: fixture.out.appendingPathComponent("home/banners.json")),
       let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
       let banners = root["banners"] as? [[String: Any]] {
      for b in banners { if let id = b["id"] as? String { items[id] = b } }
    }
    self.build = build
    manifest = items
  }

  /// The bundle path of an item's key (banners.json URLs are relative).
  func path(_ id: String, _ key: String) throws -> String {
    let item = try #require(manifest[id], "\(id) is not in banners.json; build said: \(build.stderr)")
    return try #require(item[key] as? String, "\(id) has no \(key)")
  }

  func url(_ id: String, _ key: String) throws -> URL { bundle.appendingPathComponent(try path(id, key)) }

  /// The item's `sources` rungs: width, height and WebP/JPEG paths.
  func rungs(_ id: String) throws -> [(width: Int, height: Int, webp: String, jpeg: String)] {
    let sources = try #require(manifest[id]?["sources"] as? [[String: Any]])
    return try sources.map {
      (try #require($0["width"] as? Int), try #require($0["height"] as? Int),
       try #require($0["url"] as? String), try #require($0["jpeg_url"] as? String))
    }
  }

  /// The build log's lines that name the item.
  func log(_ id: String) -> String {
    (build.stdoutText + build.stderr).split(separator: "\n").filter { $0.contains(" \(id):") || $0.contains(" \(id) ") }
      .joined(separator: "\n")
  }

  /// A private copy of the bundle (its files are hard links into the
  /// store), to damage.
  func copy(_ label: String) throws -> URL {
    let copy = fixture.dir.appendingPathComponent("copy-\(label)-\(UUID().uuidString)")
    try FileManager.default.copyItem(at: bundle, to: copy)
    return copy
  }
}
