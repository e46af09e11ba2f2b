import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// Real content builds: covers, posters and dark variants judged as a viewer
/// sees them (`PictureLook`). One generated input per case goes through the
/// real `marquee build` and `marquee verify`; what was written is read back
/// with Debian's ffmpeg, the independent oracle.
@Suite("Covers, posters and dark variants as a viewer sees them", .serialized)
struct CoverJudgementTests {
  /// The fixture with every input built once, shared by the tests below.
  // Safe: every property is a `let` set in init; read-only afterwards.
  final class Built: @unchecked Sendable {
    let fixture: BatchFixture
    let build: ProcessResult
    let verify: ProcessResult
    let manifest: [String: [String: Any]]
    init() throws {
      fixture = try BatchFixture("cover-judgement")
      let dir = fixture.dir
      // A night scene: near-black with small lights (mean luma about 6).
      try Oracle.generate([
        "-f", "lavfi", "-i",
        "color=c=0x050505:size=320x240:rate=25:duration=2," + (0..<24).map { n in
          "drawbox=x=\(8 + n * 13):y=\(50 + (n * 37) % 140):w=6:h=6:c=0xB0B0A0:t=fill"
        }.joined(separator: ","),
        "-c:v", "libx264", "-pix_fmt", "yuv420p",
      ], to: dir.appendingPathComponent("night.mp4"))
      // A solid-colour title card for 7 s, pinned at 6.0 s.
      try Oracle.generate(["-f", "lavfi", "-i", "color=c=0x2050C0:size=320x240:rate=25:duration=7",
                           "-c:v", "libx264", "-pix_fmt", "yuv420p"], to: dir.appendingPathComponent("card.mp4"))
      // Black with a single white frame at 1.48 s.
      try Oracle.generate(["-f", "lavfi", "-i",
                           "color=c=black:size=320x240:rate=25:duration=3,drawbox=c=white:t=fill:enable='eq(n,37)'",
                           "-c:v", "libx264", "-pix_fmt", "yuv420p"], to: dir.appendingPathComponent("flash.mp4"))
      // All black, 2 s.
      try Oracle.generate(["-f", "lavfi", "-i", "color=c=black:size=320x240:rate=25:duration=2",
                           "-c:v", "libx264", "-pix_fmt", "yuv420p"], to: dir.appendingPathComponent("black.mp4"))
      // A 16-bit RGBA logo: a red disc on transparency.
      try Oracle.generate(["-f", "lavfi", "-i",
                           "color=c=red:size=200x200,format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='if(lt(hypot(X-100,Y-100),80),255,0)'",
                           "-frames:v", "1", "-pix_fmt", "rgba64be"], to: dir.appendingPathComponent("logo16.png"))
      // An upright 640x360 poster (16:9 for a 4:3 video), stored turned
      // 90° counter-clockwise with EXIF orientation 6 (rotate 90° clockwise
      // to display), and the upright picture itself for the oracle.
      try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=size=640x360", "-frames:v", "1"],
                          to: dir.appendingPathComponent("poster-upright.png"))
      let stored = dir.appendingPathComponent("poster-stored.jpg")
      try Oracle.generate(["-i", dir.appendingPathComponent("poster-upright.png").path, "-vf", "transpose=2",
                           "-q:v", "2", "-pix_fmt", "yuvj444p"], to: stored)
      try CoverJudgementTests.withOrientation(6, jpeg: try Data(contentsOf: stored)).write(to: dir.appendingPathComponent("poster6.jpg"))
      try fixture.job([
        ["id": "night", "type": "video", "source": "night.mp4"],
        ["id": "night-first", "type": "video", "source": "night.mp4", "cover": "first"],
        ["id": "card", "type": "video", "source": "card.mp4", "cover": ["at": 6.0]],
        ["id": "flash", "type": "video", "source": "flash.mp4"],
        ["id": "black", "type": "video", "source": "black.mp4"],
        ["id": "black-pinned", "type": "video", "source": "flash.mp4", "cover": ["at": 0.5]],
        ["id": "black-poster", "type": "video", "source": "black.mp4", "cover": ["image": "poster6.jpg"]],
        ["id": "logo", "type": "image", "source": "logo16.png"],
      ], settings: ["max_height": 240], baseURL: nil)
      build = try MarqueeCLI.run(["build", "job.json", "--out", "out", "--allow-partial", "--log-format", "plain"], in: dir)
      verify = try MarqueeCLI.run(["verify", "out/home"], in: dir)
      var items: [String: [String: Any]] = [:]
      if let data = try? Data(contentsOf: dir.appendingPathComponent("out/home/banners.json")),
         let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
         let banners = root["banners"] as? [[String: Any]] {
        for b in banners { if let id = b["id"] as? String { items[id] = b } }
      }
      manifest = items
    }

    func url(_ id: String, _ key: String) throws -> URL {
      let item = try #require(manifest[id], "\(id) is not in banners.json; build said: \(build.stderr)")
      let path = try #require(item[key] as? String)
      return fixture.out.appendingPathComponent("home").appendingPathComponent(path)
    }

    /// The item's lines in the build log.
    func log(_ id: String) -> String {
      (build.stdoutText + build.stderr).split(separator: "\n").filter { $0.contains(" \(id):") || $0.contains("error: \(id):") }
        .joined(separator: "\n")
    }

    deinit { fixture.remove() }
  }

  static let built = Result { try Built() }

  /// A JPEG with an APP1 Exif segment carrying only `Orientation`, inserted
  /// after the SOI and APP0 markers (TIFF little-endian, one IFD entry).
  static func withOrientation(_ orientation: UInt16, jpeg: Data) throws -> Data {
    var bytes = [UInt8](jpeg)
    try #require(bytes.count > 4 && bytes[0] == 0xFF && bytes[1] == 0xD8)
    var insertAt = 2
    if bytes[2] == 0xFF && bytes[3] == 0xE0 { insertAt = 4 + Int(bytes[4]) << 8 + Int(bytes[5]) }
    var tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00]  // "II", 42, IFD at 8
    tiff += [0x01, 0x00]  // one entry
    tiff += [0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00]  // 0x0112 Orientation, SHORT, count 1
    tiff += [UInt8(orientation & 0xFF), UInt8(orientation >> 8), 0x00, 0x00]
    tiff += [0x00, 0x00, 0x00, 0x00]  // no next IFD
    let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
    let length = payload.count + 2
    bytes.insert(contentsOf: [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload, at: insertAt)
    return Data(bytes)
  }

  /// Gray samples of a picture file, decoded and scaled by ffmpeg.
  static func gray(_ url: URL, width: Int, height: Int) throws -> [UInt8] {
    try Oracle.grayFrames(url, width: width, height: height)[0]
  }

  /// The level the brightest 0.5 % of `samples` reach.
  static func brightTail(_ samples: [UInt8]) -> Int {
    let sorted = samples.sorted()
    return Int(sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.995))])
  }

  static func mean(_ samples: [UInt8]) -> Double {
    Double(samples.reduce(0) { $0 + Int($1) }) / Double(max(1, samples.count))
  }

  @Test("the build publishes every item but the black clip, and the bundle verifies")
  func buildAndVerify() throws {
    let b = try Self.built.get()
    // One item failed (exit 1), the others are published (--allow-partial).
    #expect(b.build.status == 1, "\(b.build.stderr)")
    #expect(Set(b.manifest.keys) == ["night", "night-first", "card", "flash", "black-poster", "logo"],
            "\(b.manifest.keys.sorted()): \(b.build.stderr)")
    #expect(b.verify.status == 0, "verify: \(b.verify.stdoutText) \(b.verify.stderr)")
  }

  @Test("a dark scene with small lights is a cover, without a warning", arguments: ["night", "night-first"])
  func darkSceneWithLights(id: String) throws {
    let b = try Self.built.get()
    let cover = try Self.gray(try b.url(id, "cover_jpeg_url"), width: 320, height: 240)
    #expect(Self.mean(cover) < 20, "mean luma \(Self.mean(cover))")
    #expect(Self.brightTail(cover) >= 60, "the lights are gone: tail \(Self.brightTail(cover))")
    #expect(!b.log(id).contains("warning"), "\(b.log(id))")
  }

  @Test("a solid-colour card pinned with at is the user's frame, with a warning at most")
  func pinnedCard() throws {
    let b = try Self.built.get()
    let cover = try Self.gray(try b.url("card", "cover_jpeg_url"), width: 80, height: 60)
    // ffmpeg's own reading of the source card: the same tone.
    let source = try Self.gray(b.fixture.dir.appendingPathComponent("card.mp4"), width: 80, height: 60)
    #expect(abs(Self.mean(cover) - Self.mean(source)) < 3, "cover \(Self.mean(cover)) vs card \(Self.mean(source))")
    #expect(b.log("card").contains("flat tone"), "\(b.log("card"))")
    #expect(b.log("card").contains("at 6.00 s"), "\(b.log("card"))")
  }

  @Test("a black clip with a one-frame white flash takes the flash, with a warning")
  func flash() throws {
    let b = try Self.built.get()
    let cover = try Self.gray(try b.url("flash", "cover_jpeg_url"), width: 80, height: 60)
    #expect(Self.mean(cover) > 200, "mean \(Self.mean(cover))")
    #expect(b.log("flash").contains("no frame qualified"), "\(b.log("flash"))")
  }

  @Test("a clip with nothing lit fails naming the fixes; a pinned black frame too")
  func blackFails() throws {
    let b = try Self.built.get()
    let line = b.log("black").split(separator: "\n").first { $0.contains("error: black: cover failed") }
    let text = String(try #require(line, "\(b.build.stderr)"))
    #expect(text.contains("black.mp4: no frame is lit"), "\(text)")
    #expect(text.contains("\"cover\": {\"image\": \"poster.jpg\"}") && text.contains("\"cover\": {\"at\": seconds}"), "\(text)")
    let pinned = b.log("black-pinned")
    #expect(pinned.contains("error: black-pinned: cover failed") && pinned.contains("flash.mp4: the frame at 0.480 s"),
            "\(pinned)")
    #expect(pinned.contains("is black") && pinned.contains("\"image\""), "\(pinned)")
  }

  @Test("a poster with EXIF orientation 6 is upright, at the video's size, cover-cropped centred")
  func poster() throws {
    let b = try Self.built.get()
    let item = try #require(b.manifest["black-poster"])
    #expect(item["width"] as? Int == 320 && item["height"] as? Int == 240)
    let cover = try b.url("black-poster", "cover_jpeg_url")
    let size = try FFmpegOracle.size(cover)
    #expect(size.width == 320 && size.height == 240)
    // The oracle: ffmpeg scales the upright picture to fill 320x240 and
    // crops the centre (aspect-fill).
    let expected = try runTool("ffmpeg", [
      "-v", "error", "-i", b.fixture.dir.appendingPathComponent("poster-upright.png").path, "-vf",
      "scale=320:240:force_original_aspect_ratio=increase:flags=lanczos,crop=320:240,scale=80:60:flags=area,format=rgb24,format=gray",
      "-f", "rawvideo", "-"])
    let ours = try Self.gray(cover, width: 80, height: 60)
    let difference = Oracle.meanAbsoluteDifference(ours, [UInt8](expected))
    #expect(difference < 6, "cover differs from the upright centre crop by \(difference)")
    // Turned the wrong way it would differ far more.
    let sideways = try runTool("ffmpeg", [
      "-v", "error", "-i", b.fixture.dir.appendingPathComponent("poster-stored.jpg").path, "-vf",
      "scale=320:240:force_original_aspect_ratio=increase,crop=320:240,scale=80:60:flags=area,format=rgb24,format=gray",
      "-f", "rawvideo", "-"])
    #expect(Oracle.meanAbsoluteDifference(ours, [UInt8](sideways)) > difference * 3)
    // Its dark variant is darker and at the same size.
    let dark = try b.url("black-poster", "cover_dark_jpeg_url")
    #expect(try FFmpegOracle.size(dark) == (320, 240))
    #expect(Self.mean(try Self.gray(dark, width: 80, height: 60)) < Self.mean(ours))
  }

  @Test("a 16-bit RGBA logo's dark variant is darker as shown: each on its own surface")
  func logoDarkerAsShown() throws {
    let b = try Self.built.get()
    let light = try FFmpegOracle.decode(try b.url("logo", "url"))
    let dark = try FFmpegOracle.decode(try b.url("logo", "dark_url"))
    #expect(light.hasTransparency && dark.hasTransparency)
    // Composited here, on the job's defaults: white and #1C1C1E.
    func shown(_ image: RGBAImage, _ surface: (Double, Double, Double)) -> Double {
      var total = 0.0
      for i in stride(from: 0, to: image.pixels.count, by: 4) {
        let a = Double(image.pixels[i + 3]) / 255
        let r = Double(image.pixels[i]) * a + surface.0 * (1 - a)
        let g = Double(image.pixels[i + 1]) * a + surface.1 * (1 - a)
        let bl = Double(image.pixels[i + 2]) * a + surface.2 * (1 - a)
        total += 0.2126 * r + 0.7152 * g + 0.0722 * bl
      }
      return total / Double(image.width * image.height)
    }
    let lightShown = shown(light, (255, 255, 255))
    let darkShown = shown(dark, (0x1C, 0x1C, 0x1E))
    #expect(darkShown < lightShown - 50, "dark \(darkShown) vs light \(lightShown)")
    // The disc stays red in both.
    let centre = (100 * light.width + 100) * 4
    let (r, g, bl) = (Int(dark.pixels[centre]), Int(dark.pixels[centre + 1]), Int(dark.pixels[centre + 2]))
    #expect(r > g + 80 && r > bl + 80, "centre of the dark disc: \(r), \(g), \(bl)")
  }

  @Test("validate names a missing or corrupt poster by its JSON path")
  func validatePoster() throws {
    let fixture = try BatchFixture("poster-validate")
    defer { fixture.remove() }
    try fixture.clip("a.mp4")
    try Data("not an image at all".utf8).write(to: fixture.dir.appendingPathComponent("broken.jpg"))
    try fixture.job([
      ["id": "a", "type": "video", "source": "a.mp4", "cover": ["image": "missing.jpg"]],
      ["id": "b", "type": "video", "source": "a.mp4", "cover": ["image": "broken.jpg"]],
    ])
    let run = try MarqueeCLI.run(["validate", "job.json"], in: fixture.dir)
    #expect(run.status == 2, "\(run.stdoutText)\(run.stderr)")
    let text = run.stdoutText + run.stderr
    #expect(text.contains("job.json: banners[0].cover.image: poster not found (missing.jpg)"), "\(text)")
    #expect(text.contains("job.json: banners[1].cover.image: not a usable poster"), "\(text)")
    // The schema's other shapes are refused with the path too.
    try fixture.job([["id": "a", "type": "video", "source": "a.mp4", "cover": ["image": "x.jpg", "at": 1]]])
    let both = try MarqueeCLI.run(["validate", "job.json"], in: fixture.dir)
    #expect(both.status == 2 && (both.stdoutText + both.stderr).contains("banners[0].cover: has both"), "\(both.stderr)")
  }

  /// Corpus images a job can build (the two decompression bombs are refused
  /// by the pixel limit, which other suites check).
  static let corpusImages: [String] = {
    guard let data = try? Data(contentsOf: Corpus.folder.appendingPathComponent("corpus.json")),
          let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return [] }
    return list.filter { $0["kind"] as? String == "image" }.compactMap { $0["file"] as? String }
      .filter { !$0.contains("-huge-") }
  }()

  @Test("every corpus image builds and verifies, its dark variants darker as shown", .enabled(if: Corpus.skipReason == nil))
  func corpusImagesDarkerAsShown() throws {
    #expect(Self.corpusImages.count >= 20)
    let fixture = try BatchFixture("corpus-dark")
    defer { fixture.remove() }
    var banners: [[String: Any]] = []
    for (n, file) in Self.corpusImages.enumerated() {
      banners.append(["id": "i\(n)", "type": "image", "source": try Corpus.url(file).path])
    }
    // Corpus files lie outside the fixture's folder.
    try fixture.job(banners, settings: ["allow_outside_sources": true], baseURL: nil)
    let build = try MarqueeCLI.run(["build", "job.json", "--out", "out", "--log-format", "plain"], in: fixture.dir)
    #expect(build.status == 0, "\(build.stderr)")
    let verify = try MarqueeCLI.run(["verify", "out/home"], in: fixture.dir)
    #expect(verify.status == 0, "\(verify.stdoutText)\(verify.stderr)")
    let bundle = fixture.out.appendingPathComponent("home")
    let root = try JSONSerialization.jsonObject(with: Data(contentsOf: bundle.appendingPathComponent("banners.json"))) as? [String: Any]
    let items = try #require(root?["banners"] as? [[String: Any]])
    #expect(items.count == Self.corpusImages.count)
    for item in items {
      let id = item["id"] as? String ?? "?"
      let file = Self.corpusImages[Int(id.dropFirst()) ?? 0]
      // The JPEGs are flattened on their surfaces (light on background,
      // dark on dark_surface): ffmpeg's mean luma of each is the shown one.
      let light = try FFprobe.meanLuma(bundle.appendingPathComponent(try #require(item["jpeg_url"] as? String)))
      let dark = try FFprobe.meanLuma(bundle.appendingPathComponent(try #require(item["dark_jpeg_url"] as? String)))
      #expect(dark.mean <= light.mean + 2, "\(file): dark JPEG \(dark.mean) vs light \(light.mean)")
      print(String(format: "[Dark] %@: shown mean luma %.1f light, %.1f dark", file, light.mean, dark.mean))
    }
  }
}
