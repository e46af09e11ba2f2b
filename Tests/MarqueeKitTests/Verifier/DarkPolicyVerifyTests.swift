import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// `marquee verify` judges dark files by the item's `dark_policy`: `same`
/// must be byte-identical, a designer's picture is only checked for glare,
/// as a warning; generated variants keep their own rules.
@Suite("Verify: dark files judged by dark_policy", .serialized)
struct DarkPolicyVerifyTests {
  @Test("a \"same\" item whose dark file was altered fails verify, naming the file and the first differing byte")
  func alteredSameFails() throws {
    let b = try DarkPolicyBundle.shared.get()
    let copy = try b.copy("same-altered")
    // Valid pictures of the right size, other bytes: only the identity breaks.
    let rung = try #require(try b.rungs("same").first)
    let widthDark = try #require(RelativePath.darkSibling(of: rung.webp))
    try WebPEncoder.encode(DarkArt.picture(width: rung.width, height: rung.height), quality: 80)
      .write(to: copy.appendingPathComponent(widthDark))
    let coverDark = try b.path("clip-same", "cover_dark_jpeg_url")
    let item = try #require(b.manifest["clip-same"])
    try JPEGEncoder.encode(DarkArt.picture(width: try #require(item["width"] as? Int), height: try #require(item["height"] as? Int)),
                           quality: 85).write(to: copy.appendingPathComponent(coverDark))

    let report = BundleVerifier().verify(bundle: copy)
    let sameViolation = report.violations.first { $0.item == "same" && $0.file == widthDark }
    #expect(sameViolation?.problem.contains("sources[0].url: dark_policy is \"same\" but the dark file differs from \(rung.webp) from byte ") == true,
            "\(report.violations)")
    #expect(report.violations.contains { $0.item == "clip-same" && $0.file == coverDark && $0.problem.contains("cover_jpeg_url: dark_policy is \"same\"") },
            "\(report.violations)")
    // Nothing else is wrong with the bundle.
    #expect(report.violations.count == 2, "\(report.violations)")
    let cli = try MarqueeCLI.run(["verify", copy.path])
    #expect(cli.status == 1)
    #expect(cli.stderr.contains("error: same: \(widthDark): "), "\(cli.stderr)")
  }

  @Test("a glaring designer picture is a warning, never a violation; as a generated variant it would fail")
  func designerGlareOnlyWarns() throws {
    let b = try DarkPolicyBundle.shared.get()
    let copy = try b.copy("designer-glare")
    let report = BundleVerifier().verify(bundle: copy)
    #expect(report.isValid, "\(report.violations)")
    let darkURL = try b.path("glare", "dark_url")
    #expect(report.warnings.contains { $0.hasPrefix("glare: \(darkURL): dark_url: the designer's dark picture glares in dark mode: 89 %") },
            "\(report.warnings)")
    #expect(!report.warnings.contains { !$0.hasPrefix("glare: ") }, "\(report.warnings)")
    let cli = try MarqueeCLI.run(["verify", copy.path])
    #expect(cli.status == 0, "\(cli.stderr)")
    #expect(cli.stderr.contains("warning:") && cli.stderr.contains("glares in dark mode"), "\(cli.stderr)")

    // The same files said to be generated: brighter as shown than the
    // light image (ffmpeg's mean luma of the two JPEGs, each flattened on
    // its own surface), which the generated rules refuse.
    let lightLuma = try FFprobe.meanLuma(try b.url("glare", "jpeg_url")).mean
    let darkLuma = try FFprobe.meanLuma(try b.url("glare", "dark_jpeg_url")).mean
    try #require(darkLuma > lightLuma + PictureLook.darkerMargin, "dark \(darkLuma) vs light \(lightLuma)")
    try Self.setPolicy("generated", of: "glare", in: copy)
    let generated = BundleVerifier().verify(bundle: copy)
    #expect(generated.violations.contains { $0.item == "glare" && $0.problem.contains("it glares") }, "\(generated.violations)")
    #expect(generated.violations.contains { $0.item == "glare" && $0.problem.contains("not darker as shown") }, "\(generated.violations)")
  }

  @Test("a dark_policy Marquee does not write is a violation of banners.json")
  func unknownPolicy() throws {
    let b = try DarkPolicyBundle.shared.get()
    let copy = try b.copy("unknown-policy")
    try Self.setPolicy("inverted", of: "plain", in: copy)
    let report = BundleVerifier().verify(bundle: copy)
    #expect(report.violations.contains {
      $0.item == "plain" && $0.file == "banners.json"
        && $0.problem.hasSuffix(".dark_policy: expected one of \"generated\", \"designer\", \"same\", found \"inverted\"")
    }, "\(report.violations)")
  }

  /// Rewrites one item's `dark_policy` in the bundle's banners.json.
  static func setPolicy(_ policy: String, of id: String, in bundle: URL) throws {
    var manifest = try VerifyTests.manifest(bundle)
    var items = try #require(manifest["banners"] as? [[String: Any]])
    let index = try #require(items.firstIndex { $0["id"] as? String == id })
    items[index]["dark_policy"] = policy
    manifest["banners"] = items
    try VerifyTests.writeManifest(manifest, bundle)
  }
}
