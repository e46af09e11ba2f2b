import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// A small real bundle for the preview and hosting tests: one short video
/// (libavfilter `testsrc2` with a tone, 2 s, 320×240) and one product shot
/// (``DemoSources/productOnWhite(width:height:)``), built by the real
/// ``BundleBuilder`` from a job file, with a `base_url` so the URLs in
/// `banners.json` are absolute.
enum SmallBundle {
  static let videoID = "clip"
  static let imageID = "mug"
  static let baseURL = "https://cdn.example.com/small/"

  /// Builds the bundle in a fresh temporary folder.
  ///
  /// - Returns: The folder holding everything (remove it when done) and
  ///   the bundle inside it.
  static func build() async throws -> (root: URL, bundle: URL) {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("marquee-small-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    let video = root.appendingPathComponent("clip.mp4")
    try SyntheticMedia.writeClip(
      .init(video: "testsrc2=size=320x240:rate=25", frameRate: Rational(25, 1), duration: 2, toneHz: 440),
      to: video.path)
    let image = root.appendingPathComponent("mug.png")
    try PNGWriter.encode(DemoSources.productOnWhite(width: 480, height: 360)).write(to: image)
    let job: [String: Any] = [
      "name": "small",
      "base_url": baseURL,
      "settings": ["max_height": 240, "image_widths": [240, 480]],
      "banners": [
        ["id": videoID, "type": "video", "source": video.path, "link": "https://example.com/clip"],
        ["id": imageID, "type": "image", "source": image.path],
      ],
    ]
    let jobURL = root.appendingPathComponent("job.json")
    try JSONSerialization.data(withJSONObject: job).write(to: jobURL)
    let parsed = try JobReader().read(contentsOf: jobURL)
    let report = try await BundleBuilder().build(
      job: parsed, options: BuildOptions(outputRoot: root.appendingPathComponent("out"), jobs: 2))
    for item in report.items {
      try #require(item.failure == nil, "\(item.id): \(item.failure?.reason ?? "")")
    }
    try #require(report.published, "\(report.warnings)")
    return (root, report.bundle)
  }
}

@Suite("Preview page and contact sheet")
struct PreviewTests {
  @Test func previewShowsEveryBannerWithRelativeLinksToExistingFiles() async throws {
    let (root, bundle) = try await SmallBundle.build()
    defer { try? FileManager.default.removeItem(at: root) }

    let before = try TreeSnapshot.of(bundle)
    let result = try PreviewWriter(tileHeight: 120).write(bundle: bundle)
    #expect(result.bannerIDs == [SmallBundle.videoID, SmallBundle.imageID])
    #expect(result.warnings.isEmpty, "\(result.warnings)")
    // Beside the bundle, never in it: the bundle's files are unchanged,
    // byte for byte, and it still verifies.
    let folder = bundle.deletingLastPathComponent().appendingPathComponent("small.preview")
    #expect(result.html == folder.appendingPathComponent("preview.html"))
    #expect(result.contactSheet == folder.appendingPathComponent("preview-contact-sheet.png"))
    let after = try TreeSnapshot.of(bundle)
    #expect(TreeSnapshot.differences(before, after).isEmpty, "preview changed \(TreeSnapshot.differences(before, after))")
    let verified = BundleVerifier().verify(bundle: bundle)
    #expect(verified.isValid, "\(verified.violations.map(\.description))")

    // Not part of the client's contract.
    let manifest = try String(contentsOf: bundle.appendingPathComponent("banners.json"), encoding: .utf8)
    #expect(!manifest.contains("preview"))

    // Every banner has its section.
    let html = try String(contentsOf: result.html, encoding: .utf8)
    for id in result.bannerIDs {
      #expect(html.contains("data-banner-id=\"\(id)\""), "no section for \(id)")
    }

    // Each slot is painted with its ThumbHash from banners.json (light and
    // dark) before its picture loads: the page's PNGs, decoded by the
    // ffmpeg CLI, are the hashes as the test's own decoder draws them, at
    // the banner's aspect ratio, and their average is near `color`.
    let items = try #require((try JSONSerialization.jsonObject(with: Data(manifest.utf8)) as? [String: Any])?["banners"] as? [[String: Any]])
    let painted = Self.placeholderPNGs(in: html)
    #expect(painted.count == items.count * 2, "\(painted.count) placeholders painted for \(items.count) banners")
    for (n, item) in items.enumerated() where painted.count == items.count * 2 {
      for (k, keys) in [("thumbhash", "color"), ("dark_thumbhash", "dark_color")].enumerated() {
        let hash = try #require((item[keys.0] as? String).flatMap { Data(base64Encoded: $0) }, "\(item["id"] ?? "?") has no \(keys.0)")
        let png = folder.appendingPathComponent("placeholder-\(n)-\(k).png")
        try painted[n * 2 + k].write(to: png)
        defer { try? FileManager.default.removeItem(at: png) }
        let shown = try FFmpegOracle.decode(png)
        let oracle = renderThumbHash([UInt8](hash), width: shown.width, height: shown.height)
        let worst = zip(shown.pixels, oracle).map { abs(Double($0) - $1) }.max() ?? .infinity
        #expect(worst <= 1, "\(item["id"] ?? "?") \(keys.0): the painted PNG differs from the hash by \(worst)")
        let (w, h) = (try #require(item["width"] as? Int), try #require(item["height"] as? Int))
        #expect(max(shown.width, shown.height) == 32
                && abs(Double(shown.width) / Double(shown.height) / (Double(w) / Double(h)) - 1) < 0.1,
                "\(keys.0) drawn at \(shown.width)x\(shown.height) for a \(w)x\(h) banner")
        let hex = try #require(item[keys.1] as? String)
        let colour = try #require(RGBColor(hex: hex))
        var sum = [0.0, 0.0, 0.0]
        for i in stride(from: 0, to: shown.pixels.count, by: 4) { for c in 0..<3 { sum[c] += Double(shown.pixels[i + c]) } }
        let mean = sum.map { $0 / Double(shown.width * shown.height) }
        let off = zip(mean, [colour.r, colour.g, colour.b].map(Double.init)).map { abs($0 - $1) }.max() ?? 0
        #expect(off <= 16, "\(keys.0) paints an average \(mean), \(keys.1) is \(colour.hex)")
      }
    }

    // Every src/href/poster that is not an external link is relative and
    // names a file of the bundle, from the page's folder.
    let links = Self.attributes(in: html, names: ["src", "href", "poster"])
    #expect(links.count >= 10)
    var checked = 0
    for link in links where !link.hasPrefix("https://example.com/") {
      #expect(!link.hasPrefix("/") && !link.contains("://"), "\(link) is not relative")
      #expect(!link.contains("cdn.example.com"), "\(link) still carries base_url")
      let path = try #require(link.removingPercentEncoding)
      let file = folder.appendingPathComponent(path).standardizedFileURL
      #expect(FileManager.default.fileExists(atPath: file.path), "\(link) -> \(file.path) missing")
      #expect(file.path.hasPrefix(bundle.standardizedFileURL.path + "/"), "\(link) leaves the bundle")
      checked += 1
    }
    // The cover and its dark variant side by side, the MP4 in a video
    // element, each image width light and dark.
    // (Item folders may carry a content hash: `videos/clip-1a2b…/`.)
    func has(_ prefix: String, _ suffix: String) -> Bool {
      links.contains { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) }
    }
    #expect(has("../small/videos/clip", "/cover.webp") && has("../small/videos/clip", "/cover.dark.webp"))
    #expect(has("../small/images/mug", "/w240.webp") && has("../small/images/mug", "/w240.dark.webp"))
    #expect(has("../small/images/mug", "/w480.webp") && has("../small/images/mug", "/w480.dark.webp"))
    // The video: HLS first (browsers that play it natively), the MP4 as
    // the fallback.
    let hls = try #require(html.range(of: "<source src=\"../small/videos/clip"))
    let hlsTag = html[hls.lowerBound...].prefix { $0 != ">" }
    #expect(hlsTag.hasSuffix("/master.m3u8\" type=\"application/vnd.apple.mpegurl\""), "\(hlsTag)")
    let mp4 = try #require(html.range(of: "/video.mp4\" type=\"video/mp4\">"))
    #expect(hls.lowerBound < mp4.lowerBound)
    #expect(checked >= 10)

    // The contact sheet decodes (ffprobe, an independent reader) at the
    // size the writer reports: two rows of 120 px tiles and margins.
    let probe = try FFprobe.report(result.contactSheet)
    let sheet = try #require(probe.video)
    #expect(sheet.codecName == "png")
    #expect(sheet.width == result.contactSheetWidth && sheet.height == result.contactSheetHeight)
    #expect(result.contactSheetHeight == 12 + 2 * (120 + 12))
    // The video row: 4:3 cover at 120 px high is 160 px wide, twice plus
    // three margins; the image row is 4:3 as well.
    #expect(result.contactSheetWidth == 12 + 160 + 12 + 160 + 12)

    // Elsewhere with --out: links still reach the bundle.
    let elsewhere = root.appendingPathComponent("review/today")
    let moved = try MarqueeCLI.run(["preview", bundle.path, "--out", elsewhere.path])
    #expect(moved.status == 0, "\(moved.stderr)")
    let movedHTML = try String(contentsOf: elsewhere.appendingPathComponent("preview.html"), encoding: .utf8)
    for link in Self.attributes(in: movedHTML, names: ["src", "poster"]) {
      let file = elsewhere.appendingPathComponent(try #require(link.removingPercentEncoding)).standardizedFileURL
      #expect(FileManager.default.fileExists(atPath: file.path), "\(link)")
    }
  }

  @Test("the preview is never written inside the bundle (exit 2), not through a link either")
  func neverInsideTheBundle() async throws {
    let (root, bundle) = try await SmallBundle.build()
    defer { try? FileManager.default.removeItem(at: root) }
    let before = try TreeSnapshot.of(bundle)
    let link = root.appendingPathComponent("into-bundle")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: bundle.appendingPathComponent("videos"))
    for out in [bundle, bundle.appendingPathComponent("preview"), bundle.appendingPathComponent("videos/x/../y"), link,
                link.appendingPathComponent("p")] {
      #expect(throws: MarqueeError.self, "\(out.path)") { try PreviewWriter().write(bundle: bundle, into: out) }
      let cli = try MarqueeCLI.run(["preview", bundle.path, "--out", out.path])
      #expect(cli.status == 2, "\(out.path): \(cli.status) \(cli.stderr)")
      #expect(cli.stderr.contains("is inside the bundle"), "\(cli.stderr)")
    }
    #expect(TreeSnapshot.differences(before, try TreeSnapshot.of(bundle)).isEmpty)
    #expect(Set(FileSystem.list(bundle)) == ["banners.json", "images", "videos", NginxDarkThemeRule.fileName])
  }

  @Test func missingFilesAreWarningsAndBadManifestIsAnError() async throws {
    let dir = FileManager.default.temporaryDirectory
      .appendingPathComponent("marquee-preview-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer {
      try? FileManager.default.removeItem(at: dir)
      try? FileManager.default.removeItem(at: PreviewWriter.defaultFolder(for: dir))
    }

    #expect(throws: MarqueeError.self) { try PreviewWriter().write(bundle: dir) }
    try Data("{\"items\": []}".utf8).write(to: dir.appendingPathComponent("banners.json"))
    #expect(throws: MarqueeError.self) { try PreviewWriter().write(bundle: dir) }

    let manifest = """
      {"banners": [{"type": "image", "id": "gone", "url": "https://cdn.example.com/x/images/gone/w100.webp",
        "jpeg_url": "https://cdn.example.com/x/images/gone/w100.jpg", "width": 100, "height": 50,
        "sources": []}]}
      """
    try Data(manifest.utf8).write(to: dir.appendingPathComponent("banners.json"))
    let result = try PreviewWriter(tileHeight: 40).write(bundle: dir)
    #expect(result.bannerIDs == ["gone"])
    #expect(result.warnings.count == 2)
    #expect(result.warnings.allSatisfy { $0.hasPrefix("gone: ") })
    let html = try String(contentsOf: result.html, encoding: .utf8)
    #expect(html.contains("Missing from the bundle"))
    let probe = try FFprobe.report(result.contactSheet)
    #expect(probe.video?.width == result.contactSheetWidth)
  }

  @Test("placeholders: the hash over the colour; nothing under a transparent picture; a hash without a colour still paints")
  func placeholderChoices() throws {
    func banner(_ id: String, alpha: UInt8, colour: RGBColor?) -> PreviewBanner {
      var pixels: [UInt8] = []
      for i in 0..<(40 * 30) {
        let x = i % 40
        let a: UInt8 = x < 20 ? 255 : alpha
        pixels += [UInt8(x * 6), 90, 160, a]
      }
      var b = PreviewBanner(id: id, kind: .image)
      (b.width, b.height) = (400, 300)
      b.image = "images/\(id)/w400.webp"
      b.darkImage = "images/\(id)/w400.dark.webp"
      b.thumbHash = Data(ThumbHash.encode(RGBAImage(width: 40, height: 30, pixels: pixels))).base64EncodedString()
      b.colour = colour
      return b
    }
    let grey = RGBColor(r: 90, g: 90, b: 90)
    let banners: [PreviewBanner] = [
      banner("opaque", alpha: 255, colour: grey), banner("cutout", alpha: 0, colour: grey), banner("nocolour", alpha: 255, colour: nil),
    ]
    let html = PreviewHTML(darkSurface: "#1C1C1E").render(banners, bundleName: "b")
    func figures(_ id: String) -> [String] {
      let marker = "images/" + id + "/"
      return html.components(separatedBy: "<figure").filter { $0.contains(marker) }
    }
    // Light: the hash drawn; dark (no dark_thumbhash): the flat dark colour, absent here, so nothing.
    #expect(figures("opaque").first?.contains("background: url(data:image/png;base64,") == true)
    #expect(figures("nocolour").first?.contains("background: url(data:image/png;base64,") == true)
    // A hash with alpha: nothing painted under the picture, only its box.
    #expect(figures("cutout").first.map { !$0.contains("background:") } == true, "\(figures("cutout"))")
  }

  /// The PNGs of the `url(data:image/png;base64,…)` backgrounds, in
  /// document order.
  static func placeholderPNGs(in html: String) -> [Data] {
    var out: [Data] = []
    var rest = Substring(html)
    let marker = "url(data:image/png;base64,"
    while let start = rest.range(of: marker) {
      let after = rest[start.upperBound...]
      guard let end = after.firstIndex(of: ")") else { break }
      if let data = Data(base64Encoded: String(after[..<end])) { out.append(data) }
      rest = after[end...]
    }
    return out
  }

  /// Values of the given attributes, in document order.
  static func attributes(in html: String, names: [String]) -> [String] {
    var values: [String] = []
    for name in names {
      var rest = Substring(html)
      let marker = " \(name)=\""
      while let start = rest.range(of: marker) {
        let after = rest[start.upperBound...]
        guard let end = after.firstIndex(of: "\"") else { break }
        values.append(
          String(after[..<end]).replacingOccurrences(of: "&amp;", with: "&"))
        rest = after[end...]
      }
    }
    return values
  }
}
