import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// `"dark"` on a banner, built for real (`DarkPolicyBundle`: one
/// `marquee build` of every policy) and read back with ffmpeg: the
/// designer's picture used as supplied, `"same"` byte-identical, and
/// banners.json, the summary and `verify` saying which policy each item
/// uses.
@Suite("Dark policy: the designer's picture and \"same\", built", .serialized)
struct DarkPolicyBuildTests {
  /// How far a written dark file may be from the designer's picture scaled
  /// by ffmpeg (mean absolute RGB difference, 0–255, at the output size):
  /// WebP/JPEG coding and two Lanczos implementations, nothing more.
  static let asSupplied = 6.0

  @Test("the build publishes every policy, banners.json names each, and the bundle verifies")
  func buildsAndVerifies() throws {
    let b = try DarkPolicyBundle.shared.get()
    #expect(b.build.status == 0, "\(b.build.stderr)")
    let policies = b.manifest.mapValues { $0["dark_policy"] as? String ?? "-" }
    #expect(policies == ["designer": "designer", "cropped": "designer", "same": "same", "glare": "designer",
                         "anim": "designer", "clip-designer": "designer", "clip-same": "same", "plain": "generated"],
            "\(policies)")
    let verify = try MarqueeCLI.run(["verify", b.bundle.path])
    #expect(verify.status == 0, "\(verify.stdoutText)\(verify.stderr)")
  }

  @Test("an image banner's designer picture is every width's dark file, as supplied")
  func designerPictureIsEveryWidth() throws {
    let b = try DarkPolicyBundle.shared.get()
    let rungs = try b.rungs("designer")
    #expect(rungs.map(\.width) == [240, 480])
    for rung in rungs {
      let expected = try PictureOracle.scaled(b.input("designer.png"), width: rung.width, height: rung.height)
      for light in [rung.webp, rung.jpeg] {
        let dark = try #require(RelativePath.darkSibling(of: light))
        let written = try PictureOracle.rgba(b.bundle.appendingPathComponent(dark), width: rung.width, height: rung.height)
        let difference = PictureOracle.meanAbsoluteDifference(written, expected)
        #expect(difference <= Self.asSupplied, "\(dark) differs from designer.png scaled to \(rung.width)x\(rung.height) by \(difference)")
        // The light file is another picture altogether.
        let lightPixels = try PictureOracle.rgba(b.bundle.appendingPathComponent(light), width: rung.width, height: rung.height)
        #expect(PictureOracle.meanAbsoluteDifference(lightPixels, expected) > 40)
      }
    }
    // dark_url and dark_jpeg_url are the widest width's.
    #expect(try b.path("designer", "dark_url") == RelativePath.darkSibling(of: rungs[1].webp))
    #expect(try b.path("designer", "dark_jpeg_url") == RelativePath.darkSibling(of: rungs[1].jpeg))
  }

  @Test("a designer picture more than 1 % off the light aspect ratio is cover-cropped, centred, with a warning")
  func aspectMismatchIsCropped() throws {
    let b = try DarkPolicyBundle.shared.get()
    for rung in try b.rungs("cropped") {
      let dark = b.bundle.appendingPathComponent(try #require(RelativePath.darkSibling(of: rung.jpeg)))
      let written = try PictureOracle.rgba(dark, width: rung.width, height: rung.height)
      let cropped = try PictureOracle.coverCropped(b.input("tall-dark.png"), width: rung.width, height: rung.height)
      let stretched = try PictureOracle.scaled(b.input("tall-dark.png"), width: rung.width, height: rung.height)
      let toCrop = PictureOracle.meanAbsoluteDifference(written, cropped)
      let toStretch = PictureOracle.meanAbsoluteDifference(written, stretched)
      #expect(toCrop <= Self.asSupplied, "w\(rung.width): \(toCrop) from the centre crop")
      #expect(toStretch > toCrop * 2, "w\(rung.width): the stretched picture is as close (\(toStretch) vs \(toCrop))")
    }
    let log = b.log("cropped")
    #expect(log.contains("warning") && log.contains("dark picture tall-dark.png is 480x360")
              && log.contains("cover-cropped, centred, to 480x270"), "\(log)")
    // Within 1 % nothing is said.
    #expect(!b.log("designer").contains("cover-cropped"), "\(b.log("designer"))")
  }

  @Test("\"same\": every dark file is byte-identical to its light file, images and covers")
  func sameIsByteIdentical() throws {
    let b = try DarkPolicyBundle.shared.get()
    var pairs: [(String, String)] = [
      (try b.path("same", "url"), try b.path("same", "dark_url")),
      (try b.path("same", "jpeg_url"), try b.path("same", "dark_jpeg_url")),
      (try b.path("clip-same", "cover_url"), try b.path("clip-same", "cover_dark_url")),
      (try b.path("clip-same", "cover_jpeg_url"), try b.path("clip-same", "cover_dark_jpeg_url")),
    ]
    for rung in try b.rungs("same") {
      for light in [rung.webp, rung.jpeg] { pairs.append((light, try #require(RelativePath.darkSibling(of: light)))) }
    }
    #expect(pairs.count == 8)
    for (light, dark) in pairs {
      let a = b.bundle.appendingPathComponent(light), d = b.bundle.appendingPathComponent(dark)
      let (lightDigest, darkDigest) = (try PictureOracle.sha256(a), try PictureOracle.sha256(d))
      let where_ = lightDigest == darkDigest ? "" : (try ByteComparison.difference(fileAt: a, d) ?? "")
      #expect(lightDigest == darkDigest, "\(dark) is not \(light): \(where_)")
    }
  }

  @Test("a video's designer picture is its dark cover, fitted like a poster to the video's size")
  func designerDarkCover() throws {
    let b = try DarkPolicyBundle.shared.get()
    let item = try #require(b.manifest["clip-designer"])
    let width = try #require(item["width"] as? Int), height = try #require(item["height"] as? Int)
    let expected = try PictureOracle.coverCropped(b.input("clip-dark.png"), width: width, height: height)
    for key in ["cover_dark_url", "cover_dark_jpeg_url"] {
      let file = try b.url("clip-designer", key)
      #expect(try FFmpegOracle.size(file) == (width, height))
      let difference = PictureOracle.meanAbsoluteDifference(try PictureOracle.rgba(file, width: width, height: height), expected)
      #expect(difference <= Self.asSupplied, "\(key) differs from clip-dark.png cover-cropped by \(difference)")
    }
    // The light cover is still the video's frame.
    let light = try PictureOracle.rgba(try b.url("clip-designer", "cover_url"), width: width, height: height)
    #expect(PictureOracle.meanAbsoluteDifference(light, expected) > 40)
    #expect(b.log("clip-designer").contains("cover-cropped"), "\(b.log("clip-designer"))")
  }

  @Test("an animated banner's dark WebP is the designer's still, with a warning; its light WebP stays animated")
  func animatedBannerGetsTheStill() throws {
    let b = try DarkPolicyBundle.shared.get()
    let rung = try #require(try b.rungs("anim").first)
    let light = try Data(contentsOf: b.bundle.appendingPathComponent(rung.webp))
    #expect((WebPAnimationInfo(light)?.durations.count ?? 0) > 1, "the light WebP is not animated")
    let darkURL = b.bundle.appendingPathComponent(try #require(RelativePath.darkSibling(of: rung.webp)))
    #expect((WebPAnimationInfo(try Data(contentsOf: darkURL))?.durations.count ?? 1) <= 1, "the dark WebP is animated")
    let expected = try PictureOracle.scaled(b.input("anim-dark.png"), width: rung.width, height: rung.height)
    let difference = PictureOracle.meanAbsoluteDifference(
      try PictureOracle.rgba(darkURL, width: rung.width, height: rung.height), expected)
    #expect(difference <= Self.asSupplied, "\(difference)")
    #expect(b.log("anim").contains("is a still: dark mode shows it still"), "\(b.log("anim"))")
  }

  @Test("the summary names the policy of designer and same items; a glaring designer picture is a warning")
  func summaryAndGlare() throws {
    let b = try DarkPolicyBundle.shared.get()
    #expect(b.log("designer").contains("dark: designer's designer.png"), "\(b.log("designer"))")
    #expect(b.log("same").contains("dark: same as light"), "\(b.log("same"))")
    #expect(b.log("clip-designer").contains("dark cover: designer's clip-dark.png"), "\(b.log("clip-designer"))")
    #expect(b.log("clip-same").contains("dark cover: same as light"), "\(b.log("clip-same"))")
    #expect(b.log("plain").contains("dark: "), "\(b.log("plain"))")
    let glare = b.log("glare")
    #expect(glare.contains("warning") && glare.contains("glares in dark mode") && glare.contains("used as supplied"), "\(glare)")
    #expect(!b.log("designer").contains("glares"))
  }

  @Test("the preview names the designer's and the same-as-light dark pictures")
  func previewNamesThePolicy() throws {
    let b = try DarkPolicyBundle.shared.get()
    let out = b.fixture.dir.appendingPathComponent("preview-\(UUID().uuidString)")
    let result = try PreviewWriter(tileHeight: 60).write(bundle: b.bundle, into: out)
    let html = try String(contentsOf: result.html, encoding: .utf8)
    #expect(html.contains("image, dark (?theme=dark) · the designer&#39;s picture"), "\(html.prefix(4000))")
    #expect(html.contains("cover, dark (?theme=dark) · same as light"))
  }

  // MARK: - Bad input

  @Test("a designer picture that cannot be used fails its item only, naming the item, the picture and the reason")
  func badPictureFailsItsItemOnly() async throws {
    let fixture = try BatchFixture("dark-bad")
    defer { fixture.remove() }
    try fixture.png("light.png")
    try fixture.clip("clip.mp4")
    try Data("not a picture".utf8).write(to: fixture.dir.appendingPathComponent("text-dark.png"))
    try DarkArt.write(RGBAImage(width: 320, height: 240, fill: (0, 0, 0, 255)), to: fixture.dir.appendingPathComponent("black-dark.png"))
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=size=8x6", "-frames:v", "1"], to: fixture.dir.appendingPathComponent("tiny-dark.png"))
    try Oracle.generate(["-f", "lavfi", "-i", "color=black@0.0:size=320x240,format=rgba", "-frames:v", "1"],
                        to: fixture.dir.appendingPathComponent("clear-dark.png"))
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=size=64x36:rate=5:duration=1"], to: fixture.dir.appendingPathComponent("moving.gif"))
    try fixture.job([
      ["id": "text", "type": "image", "source": "light.png", "dark": ["image": "text-dark.png"]],
      ["id": "moving", "type": "image", "source": "light.png", "dark": ["image": "moving.gif"]],
      ["id": "black", "type": "video", "source": "clip.mp4", "dark": ["image": "black-dark.png"]],
      ["id": "black-image", "type": "image", "source": "light.png", "dark": ["image": "black-dark.png"]],
      ["id": "missing", "type": "image", "source": "light.png", "dark": ["image": "gone.png"]],
      ["id": "good", "type": "image", "source": "light.png", "dark": "same"],
      ["id": "tiny", "type": "image", "source": "light.png", "dark": ["image": "tiny-dark.png"]],
      ["id": "clear", "type": "image", "source": "light.png", "dark": ["image": "clear-dark.png"]],
      ["id": "tiny-clip", "type": "video", "source": "clip.mp4", "dark": ["image": "tiny-dark.png"]],
    ])
    let report = try await BundleBuilder().build(job: try fixture.readJob(),
                                                 options: BuildOptions(outputRoot: fixture.out, allowPartial: true))
    #expect(report.items.map(\.status) == [.failed, .failed, .failed, .failed, .failed, .built, .built, .failed, .built],
            "\(report.items.map(\.failure))")
    #expect(report.published)
    let failures = report.items.compactMap(\.failure)
    func failure(_ id: String) -> ItemFailure? { failures.first { $0.id == id } }
    #expect(failure("text")?.source == "text-dark.png")
    #expect(failure("text")?.reason.contains("the designer's dark picture (dark.image) cannot be used: not a supported image") == true,
            "\(String(describing: failure("text")))")
    #expect(failure("moving")?.source == "moving.gif")
    #expect(failure("moving")?.reason.contains("is gif; a dark picture is a JPEG, PNG, WebP or HEIC still") == true,
            "\(String(describing: failure("moving")))")
    #expect(failure("black")?.source == "black-dark.png")
    #expect(failure("black")?.reason.contains("is black") == true, "\(String(describing: failure("black")))")
    // An image's black dark picture: nothing in it can be shown either.
    #expect(failure("black-image")?.source == "black-dark.png")
    #expect(failure("black-image")?.stage == .encode)
    #expect(failure("black-image")?.reason.contains("is black") == true, "\(String(describing: failure("black-image")))")
    // A fully transparent one: only the surface would show.
    #expect(failure("clear")?.source == "clear-dark.png")
    #expect(failure("clear")?.reason.contains("fully transparent: nothing in it can be shown") == true,
            "\(String(describing: failure("clear")))")
    // A picture far smaller than the widest width is used, with a warning.
    let tiny = report.items.first { $0.id == "tiny" }
    #expect(tiny?.warnings.contains { $0.contains("dark picture tiny-dark.png is 8x") && $0.contains("it will look blurred") } == true,
            "\(tiny?.warnings ?? [])")
    // So is one far smaller than the video it is the dark cover of.
    let tinyClip = report.items.first { $0.id == "tiny-clip" }
    #expect(tinyClip?.warnings.contains { $0.contains("dark picture tiny-dark.png is 8x6: scaled up") && $0.contains("to the video's") } == true,
            "\(tinyClip?.warnings ?? [])")
    #expect(failure("missing")?.source == "gone.png")
    #expect(failure("missing")?.reason.contains("dark.image") == true, "\(String(describing: failure("missing")))")
    #expect(failure("text")?.description.hasPrefix("text: text-dark.png: ") == true)
  }
}
