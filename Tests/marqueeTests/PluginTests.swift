import Foundation
import MarqueeKit
import MarqueeTestSupport
import Testing

/// The SwiftPM command plugin (`Plugins/MarqueeCommand`), as an app's
/// package uses it: a package generated in a temporary folder depends on
/// this checkout by path, and `swift package marquee …` builds its banners,
/// verifies them, and a failure names `marquee`'s exit code. SwiftPM builds
/// Marquee's `marquee` for the plugin in that package's own `.build` (about
/// a minute on two cores; see BENCHMARKS, "Build-time generation").
@Suite("SwiftPM plugin: a package that depends on Marquee by path", .timeLimit(.minutes(30)))
struct PluginTests {
  /// The toolchain's `swift`, from `PATH`, as a developer runs it.
  static let swift = "swift"

  /// The generated package: `Package.swift` depending on `marquee` at
  /// `repository`, one library target, and `Banners/` with a clip, a
  /// picture and the job.
  static func makePackage(in fixture: BatchFixture, repository: URL) throws -> URL {
    let package = fixture.dir.appendingPathComponent("App")
    let banners = package.appendingPathComponent("Banners")
    try FileManager.default.createDirectory(at: package.appendingPathComponent("Sources/App"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: banners.appendingPathComponent("media"), withIntermediateDirectories: true)
    let manifest = """
      // swift-tools-version:6.0
      import PackageDescription

      let package = Package(
        name: "App",
        dependencies: [.package(path: \(String(reflecting: repository.path)))],
        targets: [.target(name: "App")]
      )

      """
    try Data(manifest.utf8).write(to: package.appendingPathComponent("Package.swift"))
    try Data("public let bannerBundle = \"Banners/Output/home\"\n".utf8)
      .write(to: package.appendingPathComponent("Sources/App/App.swift"))
    for name in ["clip.mp4", "product.png"] {
      let made = name.hasSuffix(".mp4") ? try fixture.clip(name) : try fixture.png(name)
      try FileManager.default.moveItem(at: made, to: banners.appendingPathComponent("media/\(name)"))
    }
    let job = #"{"name": "home", "banners": [{"id": "clip", "type": "video", "source": "media/clip.mp4"}, "#
      + #"{"id": "product", "type": "image", "source": "media/product.png"}]}"#
    try Data(job.utf8).write(to: banners.appendingPathComponent("job.json"))
    return package
  }

  @Test("swift package marquee builds the package's banners with Marquee's own marquee, verifies and checks them, and says marquee's exit code")
  func pluginBuildsAndVerifies() throws {
    let fixture = try BatchFixture("plugin", twins: true)
    defer { fixture.remove() }
    let package = try Self.makePackage(in: fixture, repository: Corpus.repositoryRoot)
    let env = MarqueeCLI.environment()
    func plugin(_ arguments: [String]) throws -> ProcessResult {
      try Run.process(Self.swift, ["package", "--allow-writing-to-package-directory", "marquee"] + arguments,
                      currentDirectory: package, environment: env)
    }

    // The package's own marquee: the version this checkout builds.
    let version = try plugin(["--version"])
    #expect(version.status == 0, "\(version.stderr)")
    #expect(version.stdoutText.hasPrefix("marquee \(ItemFingerprint.marqueeVersion)\n"), "\(version.stdoutText)")

    // Paths are the package's: the job and --out relative to its folder.
    let build = try plugin(["build", "Banners/job.json", "--out", "Banners/Output", "--log-format", "plain"])
    #expect(build.status == 0, "\(build.stdoutText)\n\(build.stderr)")
    let bundle = package.appendingPathComponent("Banners/Output/home")
    let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: bundle.appendingPathComponent("banners.json"))) as? [String: Any]
    let banners = try #require(manifest?["banners"] as? [[String: Any]])
    #expect(banners.compactMap { $0["id"] as? String } == ["clip", "product"])

    // Its bundle verifies, by the plugin and by this checkout's marquee.
    let verify = try plugin(["verify", "Banners/Output/home"])
    #expect(verify.status == 0, "\(verify.stdoutText)\n\(verify.stderr)")
    let independent = try MarqueeCLI.run(["verify", bundle.path])
    #expect(independent.status == 0, "\(independent.stdoutText)\n\(independent.stderr)")

    // A second build reuses both items.
    let again = try plugin(["build", "Banners/job.json", "--out", "Banners/Output", "--log-format", "plain"])
    #expect(again.status == 0 && again.stdoutText.contains("2 reused, 0 built"), "\(again.stdoutText)")

    // The README's CI step: --check says the banners are current, and
    // after a source changes that they are not (exit 1), writing nothing.
    let current = try plugin(["build", "Banners/job.json", "--out", "Banners/Output", "--check"])
    #expect(current.status == 0, "\(current.stdoutText)\n\(current.stderr)")
    let product = package.appendingPathComponent("Banners/media/product.png")
    try FileManager.default.removeItem(at: product)
    _ = try fixture.png("product-2.png", width: 260)
    try FileManager.default.moveItem(at: fixture.dir.appendingPathComponent("product-2.png"), to: product)
    let stale = try plugin(["build", "Banners/job.json", "--out", "Banners/Output", "--check"])
    #expect(stale.status == 1 && stale.stdoutText.contains("product") && stale.stderr.contains("Plugin ended with exit code 1"),
            "\(stale.stdoutText)\n\(stale.stderr)")

    // marquee's exit code reaches SwiftPM, which ends with 1 for any
    // plugin failure (swift-package-manager issue 7380) and names the code.
    let missing = try plugin(["validate", "Banners/missing.json"])
    #expect(missing.status == 1 && missing.stderr.contains("Plugin ended with exit code 2"), "\(missing.status): \(missing.stderr)")
    let usage = try plugin(["build"])
    #expect(usage.status == 1 && usage.stderr.contains("Plugin ended with exit code 2"), "\(usage.status): \(usage.stderr)")
  }
}
