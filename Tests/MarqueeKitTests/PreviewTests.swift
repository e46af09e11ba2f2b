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

    let result = try PreviewWriter(tileHeight: 120).write(bundle: bundle)
    #expect(result.bannerIDs == [SmallBundle.videoID, SmallBundle.imageID])
    #expect(result.warnings.isEmpty, "\(result.warnings)")
    #expect(result.html == bundle.appendingPathComponent("preview.html"))

    // Not part of the client's contract.
    let manifest = try String(contentsOf: bundle.appendingPathComponent("banners.json"), encoding: .utf8)
    #expect(!manifest.contains("preview"))

    // Every banner has its section.
    let html = try String(contentsOf: result.html, encoding: .utf8)
    for id in result.bannerIDs {
      #expect(html.contains("data-banner-id=\"\(id)\""), "no section for \(id)")
    }

    // Every src/href/poster that is not an external link is relative and
    // names a file of the bundle.
    let links = Self.attributes(in: html, names: ["src", "href", "poster"])
    #expect(links.count >= 10)
    var checked = 0
    for link in links where !link.hasPrefix("https://example.com/") {
      #expect(!link.hasPrefix("/") && !link.contains("://"), "\(link) is not relative")
      #expect(!link.contains("cdn.example.com"), "\(link) still carries base_url")
      let path = try #require(link.removingPercentEncoding)
      let file = bundle.appendingPathComponent(path)
      #expect(FileManager.default.fileExists(atPath: file.path), "\(link) -> \(file.path) missing")
      checked += 1
    }
    // The cover and its dark variant side by side, the MP4 in a video
    // element, each image width light and dark.
    // (Item folders may carry a content hash: `videos/clip-1a2b…/`.)
    func has(_ prefix: String, _ suffix: String) -> Bool {
      links.contains { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) }
    }
    #expect(has("videos/clip", "/cover.webp") && has("videos/clip", "/cover.dark.webp"))
    #expect(html.contains("<video src=\"videos/clip") && has("videos/clip", "/video.mp4"))
    #expect(has("images/mug", "/w240.webp") && has("images/mug", "/w240.dark.webp"))
    #expect(has("images/mug", "/w480.webp") && has("images/mug", "/w480.dark.webp"))
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
  }

  @Test func missingFilesAreWarningsAndBadManifestIsAnError() async throws {
    let dir = FileManager.default.temporaryDirectory
      .appendingPathComponent("marquee-preview-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }

    #expect(throws: PreviewError.self) { try PreviewWriter().write(bundle: dir) }
    try Data("{\"items\": []}".utf8).write(to: dir.appendingPathComponent("banners.json"))
    #expect(throws: PreviewError.self) { try PreviewWriter().write(bundle: dir) }

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
