import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// Content addressing and incremental builds: SHA-256, fingerprints, reuse,
/// immutable URLs, and byte-identical bundles whatever `--jobs` is.
@Suite("Incremental: content-addressed, reused, deterministic")
struct IncrementalTests {
  // MARK: - Fingerprints

  static func spec(_ kind: BannerKind = .video, id: String = "a", link: String? = nil, autoplay: Bool = true,
                   cover: CoverPolicy = .auto, dark: DarkPolicy = .generated) -> BannerSpec {
    BannerSpec(id: id, kind: kind, source: URL(fileURLWithPath: "/x"), sourceText: "x", link: link, autoplay: autoplay,
               muted: true, cover: cover, dark: dark, jsonPath: "banners[0]")
  }

  @Test("fingerprints change with the source and with every setting that affects the outputs, not with manifest-only values")
  func fingerprints() {
    let base = ItemFingerprint(spec: Self.spec(), settings: .default, sourceDigest: "aa").hash
    #expect(base.count == 64)
    #expect(ItemFingerprint(spec: Self.spec(), settings: .default, sourceDigest: "aa").hash == base)
    #expect(ItemFingerprint(spec: Self.spec(), settings: .default, sourceDigest: "ab").hash != base)
    // Banners.json-only values: same outputs, same URLs.
    #expect(ItemFingerprint(spec: Self.spec(id: "b", link: "https://e.com", autoplay: false), settings: .default, sourceDigest: "aa").hash == base)
    #expect(ItemFingerprint(spec: Self.spec(cover: .first), settings: .default, sourceDigest: "aa").hash != base)
    var s = JobSettings.default
    s.segmentDuration = 4
    #expect(ItemFingerprint(spec: Self.spec(), settings: s, sourceDigest: "aa").hash != base)
    s = .default
    s.renditions = [RenditionRequest(height: 360, bitrateKbps: 700)]
    #expect(ItemFingerprint(spec: Self.spec(), settings: s, sourceDigest: "aa").hash != base)
    // Image-only settings leave videos alone, and the other way round.
    s = .default
    s.imageWidth = 800
    #expect(ItemFingerprint(spec: Self.spec(), settings: s, sourceDigest: "aa").hash == base)
    let image = ItemFingerprint(spec: Self.spec(.image), settings: .default, sourceDigest: "aa").hash
    #expect(image != base)
    #expect(ItemFingerprint(spec: Self.spec(.image), settings: s, sourceDigest: "aa").hash != image)
    s = .default
    s.maxHeight = 480
    #expect(ItemFingerprint(spec: Self.spec(.image), settings: s, sourceDigest: "aa").hash == image)
    s = .default
    s.webpQuality = 70
    #expect(ItemFingerprint(spec: Self.spec(.image), settings: s, sourceDigest: "aa").hash != image)
    #expect(ItemFingerprint(spec: Self.spec(), settings: s, sourceDigest: "aa").hash != base)
    // audio_loudness changes every video's sound, and no image.
    for loudness in [-23.0, nil] {
      s = .default
      s.audioLoudness = loudness
      #expect(ItemFingerprint(spec: Self.spec(), settings: s, sourceDigest: "aa").hash != base)
      #expect(ItemFingerprint(spec: Self.spec(.image), settings: s, sourceDigest: "aa").hash == image)
    }
    // allow_damaged_sources changes no byte: clean items keep their fingerprints (reuse checks a damaged
    // item's recorded health against the setting instead).
    s = .default
    s.allowDamagedSources = true
    #expect(ItemFingerprint(spec: Self.spec(), settings: s, sourceDigest: "aa").hash == base)
    #expect(ItemFingerprint(spec: Self.spec(.image), settings: s, sourceDigest: "aa").hash == image)
    #expect(!ItemFingerprint(spec: Self.spec(), settings: s, sourceDigest: "aa").canonicalSettings.contains("allowDamagedSources"))
  }

  @Test("the dark policy, and the designer picture's bytes and path, are part of the fingerprint; generated adds nothing")
  func darkPolicyFingerprints() {
    for kind in BannerKind.allCases {
      let base = ItemFingerprint(spec: Self.spec(kind), settings: .default, sourceDigest: "aa")
      // Generated is what every item had before the key: same text, same hash.
      #expect(!base.canonicalSettings.contains("dark="))
      let same = ItemFingerprint(spec: Self.spec(kind, dark: .same), settings: .default, sourceDigest: "aa")
      let picture = URL(fileURLWithPath: "/m/d.png")
      let designer = ItemFingerprint(spec: Self.spec(kind, dark: .image(source: picture, text: "m/d.png")), settings: .default,
                                     sourceDigest: "aa", darkDigest: "d1")
      let otherBytes = ItemFingerprint(spec: Self.spec(kind, dark: .image(source: picture, text: "m/d.png")), settings: .default,
                                       sourceDigest: "aa", darkDigest: "d2")
      let otherPath = ItemFingerprint(spec: Self.spec(kind, dark: .image(source: picture, text: "m/e.png")), settings: .default,
                                      sourceDigest: "aa", darkDigest: "d1")
      let hashes = [base, same, designer, otherBytes, otherPath].map(\.hash)
      #expect(Set(hashes).count == 5, "\(kind): \(hashes)")
      #expect(designer.hash == ItemFingerprint(spec: Self.spec(kind, id: "z", dark: .image(source: picture, text: "m/d.png")),
                                               settings: .default, sourceDigest: "aa", darkDigest: "d1").hash)
    }
  }

  @Test("a designer's dark picture: a rebuild reuses the item; new bytes or a new path build it again, under a new URL")
  func designerPictureRebuilds() async throws {
    let fixture = try BatchFixture("dark-incremental")
    defer { fixture.remove() }
    try fixture.png("c.png")
    let dark = fixture.dir.appendingPathComponent("c-dark.png")
    try DarkArt.write(DarkArt.picture(width: 240, height: 180), to: dark)
    try fixture.job([["id": "c", "type": "image", "source": "c.png", "dark": ["image": "c-dark.png"]],
                     ["id": "d", "type": "image", "source": "c.png", "dark": "same"]])
    let first = try await BundleBuilder().build(job: try fixture.readJob(), options: BuildOptions(outputRoot: fixture.out))
    #expect(first.published && first.builtCount == 2, "\(first.items.compactMap(\.failure))")

    let again = try await BundleBuilder().build(job: try fixture.readJob(), options: BuildOptions(outputRoot: fixture.out))
    #expect(again.countsSummary == "2 reused, 0 built")
    // The stored record gives back the policy: banners.json is unchanged.
    #expect(again.items.map(\.entry) == first.items.map(\.entry))
    let policies = again.items.compactMap { item -> DarkPolicyKind? in
      guard case .image(let entry) = item.entry else { return nil }
      return entry.darkPolicy
    }
    #expect(policies == [.designer, .same])

    // New bytes in the designer's picture: that item only, new folder.
    try DarkArt.write(DarkArt.picture(width: 240, height: 170), to: dark)
    let changed = try await BundleBuilder().build(job: try fixture.readJob(), options: BuildOptions(outputRoot: fixture.out))
    #expect(changed.items.map(\.status) == [.built, .reused])
    #expect(changed.items[0].folder != first.items[0].folder)
    #expect(changed.items[1].folder == first.items[1].folder)

    // The same bytes under another name: built again too (the path is hashed).
    try FileManager.default.copyItem(at: dark, to: fixture.dir.appendingPathComponent("renamed-dark.png"))
    try fixture.job([["id": "c", "type": "image", "source": "c.png", "dark": ["image": "renamed-dark.png"]],
                     ["id": "d", "type": "image", "source": "c.png", "dark": "same"]])
    let renamed = try await BundleBuilder().build(job: try fixture.readJob(), options: BuildOptions(outputRoot: fixture.out))
    #expect(renamed.items.map(\.status) == [.built, .reused])
    #expect(renamed.items[0].folder != changed.items[0].folder)
  }

  // MARK: - Builds

  @Test("an unchanged job rebuilds nothing: 4 reused, 0 built, same bundle and URLs")
  func noOpRebuild() async throws {
    let fixture = try BatchFixture("noop")
    defer { fixture.remove() }
    try fixture.fourItemJob()
    let first = try await BundleBuilder().build(job: try fixture.readJob(), options: BuildOptions(outputRoot: fixture.out))
    #expect(first.published && first.builtCount == 4 && first.reusedCount == 0, "\(first.items.compactMap(\.failure))")
    let before = try TreeSnapshot.of(first.bundle)

    let events = EventLog()
    let second = try await BundleBuilder().build(
      job: try fixture.readJob(), options: BuildOptions(outputRoot: fixture.out, onEvent: events.record))
    #expect(second.published)
    #expect(second.countsSummary == "4 reused, 0 built")
    #expect(!events.all.contains { $0.stage == .encode && $0.event == .started }, "something was encoded")
    let changed = TreeSnapshot.differences(before, try TreeSnapshot.of(second.bundle))
    #expect(changed.isEmpty, "differ: \(changed)")

    let cli = try MarqueeCLI.run(["build", fixture.dir.appendingPathComponent("job.json").path, "--out", fixture.out.path])
    #expect(cli.status == 0)
    #expect(cli.stdoutText.contains("4 reused, 0 built"), "\(cli.stdoutText)")
  }

  @Test("a changed source rebuilds that item only; the others keep their URLs")
  func changedItemOnly() async throws {
    let fixture = try BatchFixture("changed")
    defer { fixture.remove() }
    try fixture.fourItemJob()
    let first = try await BundleBuilder().build(job: try fixture.readJob(), options: BuildOptions(outputRoot: fixture.out))
    #expect(first.published)
    try fixture.png("c.png", width: 260, height: 180)
    let second = try await BundleBuilder().build(job: try fixture.readJob(), options: BuildOptions(outputRoot: fixture.out))
    #expect(second.published)
    #expect(second.items.map(\.status) == [.reused, .reused, .built, .reused])
    for (a, b) in zip(first.items, second.items) where b.status == .reused {
      #expect(a.folder == b.folder)
      #expect(a.entry == b.entry)
    }
    #expect(first.items[2].folder != second.items[2].folder)
    // The old folder is gone from the new bundle; nothing else is left over.
    #expect(!FileManager.default.fileExists(atPath: second.bundle.appendingPathComponent(first.items[2].folder ?? "-").path))
    #expect(FileSystem.list(fixture.out.appendingPathComponent(".marquee/staging")).isEmpty)
    #expect(FileSystem.list(fixture.out.appendingPathComponent(".marquee/store/tmp")).isEmpty)
  }

  @Test("a link or autoplay change rewrites banners.json without encoding")
  func manifestOnlyChange() async throws {
    let fixture = try BatchFixture("manifest-only")
    defer { fixture.remove() }
    try fixture.clip("a.mp4")
    try fixture.job([["id": "a", "type": "video", "source": "a.mp4"]])
    let first = try await BundleBuilder().build(job: try fixture.readJob(), options: BuildOptions(outputRoot: fixture.out))
    #expect(first.builtCount == 1)
    try fixture.job([["id": "a", "type": "video", "source": "a.mp4", "autoplay": false, "link": "https://example.com/x"]])
    let second = try await BundleBuilder().build(job: try fixture.readJob(), options: BuildOptions(outputRoot: fixture.out))
    #expect(second.countsSummary == "1 reused, 0 built")
    let manifest = try #require(try JSONSerialization.jsonObject(
      with: Data(contentsOf: second.bundle.appendingPathComponent("banners.json"))) as? [String: Any])
    let item = try #require((manifest["banners"] as? [[String: Any]])?.first)
    #expect(item["autoplay"] as? Bool == false && item["link"] as? String == "https://example.com/x")
  }

  @Test("--jobs 1 and --jobs 2 build byte-identical bundles, an animated WebP with alpha and its dark JPEG included")
  func deterministicAcrossJobs() throws {
    let fixture = try BatchFixture("determinism", twins: true)
    defer { fixture.remove() }
    try fixture.animatedLosslessWebP("e.webp")
    let job = try fixture.fourItemJob(extra: [["id": "sticker", "type": "image", "source": "e.webp"]]).path
    let one = fixture.dir.appendingPathComponent("out1"), two = fixture.dir.appendingPathComponent("out2")
    let r1 = try MarqueeCLI.run(["build", job, "--out", one.path, "--jobs", "1"])
    // Freed and fresh heap memory filled with other bytes than the first
    // build saw: a read of memory nothing wrote shows as a difference.
    let r2 = try MarqueeCLI.run(["build", job, "--out", two.path, "--jobs", "2"], environment: ["MALLOC_PERTURB_": "85"])
    #expect(r1.status == 0 && r2.status == 0, "\(r1.stderr) \(r2.stderr)")
    let a = try TreeSnapshot.of(one.appendingPathComponent("home"))
    let b = try TreeSnapshot.of(two.appendingPathComponent("home"))
    #expect(a.count > 20)
    #expect(a.keys.contains { $0.hasPrefix("images/sticker-") && $0.hasSuffix(".dark.jpg") }, "\(a.keys.sorted())")
    #expect(TreeSnapshot.differences(a, b).isEmpty, "differ: \(TreeSnapshot.differences(a, b))")
  }

  /// The corpus's animated lossless WebP with alpha (245x245, 42 frames),
  /// when the corpus is there, and a generated one of the same kind.
  static let animatedAlphaCorpusFile = "image-webp-animated-lossless-alpha-42f.webp"

  @Test("an animated lossless WebP with alpha (odd width) builds to the same bytes every time, its JPEG and dark JPEG included")
  func animatedAlphaRepeatable() throws {
    let fixture = try BatchFixture("determinism-animated")
    defer { fixture.remove() }
    try fixture.animatedLosslessWebP("generated.webp")
    var banners: [[String: Any]] = [["id": "generated", "type": "image", "source": "generated.webp"]]
    if Corpus.isAvailable || Corpus.isRequired {
      let source = try Corpus.url(Self.animatedAlphaCorpusFile)
      try FileManager.default.copyItem(at: source, to: fixture.dir.appendingPathComponent(Self.animatedAlphaCorpusFile))
      banners.append(["id": "c-webp-animated-lossless-alpha-42f", "type": "image", "source": Self.animatedAlphaCorpusFile])
    }
    let job = try fixture.job(banners).path
    // Each build in its own process; glibc fills fresh and freed blocks with
    // a different byte each time (MALLOC_PERTURB_; the first build: none),
    // so output made from memory nothing wrote differs between builds.
    let runs: [(label: String, arguments: [String], environment: [String: String])] = [
      ("plain", [], [:]),
      ("perturb-85", ["--jobs", "1"], ["MALLOC_PERTURB_": "85"]),
      ("perturb-170", ["--jobs", "2"], ["MALLOC_PERTURB_": "170"]),
      ("rebuild-perturb-255", ["--rebuild"], ["MALLOC_PERTURB_": "255"]),
    ]
    var first: [String: Data]?
    var previousOut: URL?
    for run in runs {
      // The last run rebuilds into the previous folder, over its store.
      let out = run.arguments.contains("--rebuild") ? previousOut! : fixture.dir.appendingPathComponent("out-\(run.label)")
      previousOut = out
      let result = try MarqueeCLI.run(["build", job, "--out", out.path] + run.arguments, environment: run.environment)
      #expect(result.status == 0, "\(run.label): \(result.stderr)")
      let tree = try TreeSnapshot.of(out.appendingPathComponent("home"))
      let darkJPEGs = tree.keys.filter { $0.hasSuffix(".dark.jpg") }
      #expect(darkJPEGs.count >= banners.count, "\(run.label): \(tree.keys.sorted())")
      guard let first else {
        first = tree
        continue
      }
      // One line per differing file: sizes, digests and the first differing offset.
      let differences = TreeSnapshot.differences(first, tree)
      #expect(differences.isEmpty, "\(run.label) differs from the first build: \(differences)")
    }
  }

  @Test("--rebuild encodes everything again, to the same bytes and URLs")
  func forcedRebuild() throws {
    let fixture = try BatchFixture("rebuild")
    defer { fixture.remove() }
    let job = try fixture.videoAndImageJob().path
    let first = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(first.status == 0)
    let before = try TreeSnapshot.of(fixture.out.appendingPathComponent("home"))
    let again = try MarqueeCLI.run(["build", job, "--out", fixture.out.path, "--rebuild"])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stdoutText.contains("0 reused, 2 built"), "\(again.stdoutText)")
    let changed = TreeSnapshot.differences(before, try TreeSnapshot.of(fixture.out.appendingPathComponent("home")))
    #expect(changed.isEmpty, "differ: \(changed)")
    #expect(try MarqueeCLI.run(["verify", fixture.out.appendingPathComponent("home").path]).status == 0)
  }

  @Test("a store object edited through the bundle is detected and built again")
  func damagedObjectIsRebuilt() async throws {
    let fixture = try BatchFixture("damaged")
    defer { fixture.remove() }
    try fixture.png("c.png")
    try fixture.job([["id": "c", "type": "image", "source": "c.png"]])
    let first = try await BundleBuilder().build(job: try fixture.readJob(), options: BuildOptions(outputRoot: fixture.out))
    let folder = try #require(first.items[0].folder)
    let webp = try #require(FileSystem.list(first.bundle.appendingPathComponent(folder)).first { $0.hasSuffix(".webp") })
    // An in-place edit of a hard-linked bundle file edits the store's copy.
    let handle = try FileHandle(forWritingTo: first.bundle.appendingPathComponent("\(folder)/\(webp)"))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data([0]))
    try handle.close()
    let second = try await BundleBuilder().build(job: try fixture.readJob(), options: BuildOptions(outputRoot: fixture.out))
    #expect(second.items[0].status == .built)
    #expect(BundleVerifier().verify(bundle: second.bundle).isValid)
  }
}

/// Collects events from any thread.
// Safe: `events` is read and written only with `lock` held.
final class EventLog: @unchecked Sendable {
  private let lock = NSLock()
  private var events: [BuildEvent] = []

  var record: BuildEventHandler { { [self] e in lock.lock(); events.append(e); lock.unlock() } }
  var all: [BuildEvent] {
    lock.lock()
    defer { lock.unlock() }
    return events
  }
}
