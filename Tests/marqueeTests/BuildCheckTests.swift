import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// `marquee build <job> --check`, run as CI runs it: exit 0 when a build
/// would change nothing, 1 when it would, naming each item and why; and
/// nothing written under the output root, whatever it finds. The oracle
/// for "nothing written" is `lstat` of every entry of the output root
/// (`TreeMetadata`: created or removed entries, sizes, link counts, inodes,
/// modification and change times), before and after.
@Suite("build --check: what a build would change, nothing written")
struct BuildCheckTests {
  /// A fixture with a tiny video (`a`, 160x90, 1 s, a link) and a tiny
  /// image (`b`), built once into `fixture.out`.
  static func built(_ label: String) throws -> (fixture: BatchFixture, banners: [[String: Any]]) {
    let fixture = try BatchFixture(label)
    try fixture.clip("a.mp4", size: "160x90")
    try fixture.png("b.png", width: 160, height: 90)
    let banners: [[String: Any]] = [
      ["id": "a", "type": "video", "source": "a.mp4", "link": "https://example.com/a"],
      ["id": "b", "type": "image", "source": "b.png"],
    ]
    let job = try fixture.job(banners)
    let build = try MarqueeCLI.run(["build", job.path, "--out", fixture.out.path])
    guard build.status == 0 else { throw FixtureError.tool("build: \(build.stderr)") }
    return (fixture, banners)
  }

  /// Runs `build <job> --check --out <out>` plus `extra`, and requires that
  /// the output root is exactly as before.
  static func check(_ fixture: BatchFixture, job: URL, out: URL? = nil, _ extra: [String] = [],
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> ProcessResult {
    let root = out ?? fixture.out
    let before = TreeMetadata.of(root)
    let result = try MarqueeCLI.run(["build", job.path, "--out", root.path, "--check"] + extra)
    let changed = TreeMetadata.differences(before, TreeMetadata.of(root))
    #expect(changed.isEmpty, "--check wrote under the output root: \(changed.prefix(5))", sourceLocation: sourceLocation)
    return result
  }

  static func lines(_ result: ProcessResult) -> [String] {
    result.stdoutText.split(separator: "\n").map(String.init)
  }

  @Test("an up-to-date bundle: exit 0, every item ok, the whole output tree unchanged (mtimes included); quiet prints nothing")
  func upToDate() throws {
    let (fixture, _) = try Self.built("check-ok")
    defer { fixture.remove() }
    let job = fixture.dir.appendingPathComponent("job.json")
    let result = try Self.check(fixture, job: job)
    #expect(result.status == 0, "\(result.stdoutText)\(result.stderr)")
    let lines = Self.lines(result)
    #expect(lines.prefix(2) == ["a: ok", "b: ok"], "\(lines)")
    #expect(lines.last?.hasPrefix("home: up to date: 2 item(s) ok") == true, "\(lines)")
    #expect(result.stderr.isEmpty, "\(result.stderr)")

    let quiet = try Self.check(fixture, job: job, ["--quiet"])
    #expect(quiet.status == 0)
    #expect(quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet.stdoutText)\(quiet.stderr)")

    // JSON lines: one per item, then the summary; every line an object.
    let json = try Self.check(fixture, job: job, ["--log-format", "json"])
    #expect(json.status == 0)
    let events = try Self.lines(json).map { line in
      try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }
    #expect(events.map { $0["event"] as? String } == ["ok", "ok", "summary"], "\(json.stdoutText)")
    #expect(events.allSatisfy { $0["stage"] as? String == "check" })
    #expect(events.last?["up_to_date"] as? String == "true")
    #expect((events.first?["folder"] as? String)?.hasPrefix("videos/a-") == true)

    // The bundle's own files are what a build leaves: a build now reuses both and changes nothing either.
    let rebuild = try MarqueeCLI.run(["build", job.path, "--out", fixture.out.path])
    #expect(rebuild.stdoutText.contains("2 reused, 0 built"), "\(rebuild.stdoutText)")
  }

  @Test("a changed source: exit 1 naming the item, `source changed`; nothing written; after the build, up to date again")
  func sourceChanged() throws {
    let (fixture, _) = try Self.built("check-source")
    defer { fixture.remove() }
    let job = fixture.dir.appendingPathComponent("job.json")
    let source = fixture.dir.appendingPathComponent("a.mp4")
    let original = try Data(contentsOf: source)
    try fixture.clip("a.mp4", hue: 90, size: "160x90")
    let result = try Self.check(fixture, job: job)
    #expect(result.status == 1)
    let lines = Self.lines(result)
    #expect(lines.contains("a: would build: source changed"), "\(lines)")
    #expect(lines.contains("b: ok"), "\(lines)")
    #expect(lines.contains("banners.json would change: new URLs for `a`"), "\(lines)")
    #expect(lines.last?.hasPrefix("home: not up to date: 1 to build, 1 ok") == true, "\(lines)")

    let quiet = try Self.check(fixture, job: job, ["--quiet"])
    #expect(quiet.status == 1)
    #expect(!Self.lines(quiet).contains("b: ok"), "--quiet printed an unchanged item: \(quiet.stdoutText)")
    #expect(Self.lines(quiet).contains("a: would build: source changed"), "\(quiet.stdoutText)")

    // The build records what each item was made of: a check after it is
    // satisfied, and the previous source is now the change.
    let build = try MarqueeCLI.run(["build", job.path, "--out", fixture.out.path])
    #expect(build.status == 0, "\(build.stderr)")
    #expect(try Self.check(fixture, job: job).status == 0)
    try original.write(to: source)
    let back = try Self.check(fixture, job: job)
    #expect(back.status == 1)
    // The first version is still stored: nothing to encode, only to publish.
    #expect(Self.lines(back).contains("a: would publish: source changed"), "\(back.stdoutText)")
  }

  @Test("a changed setting names it; a changed link rewrites only banners.json; a dropped banner would be removed")
  func settingsLinksAndRemovals() throws {
    let (fixture, banners) = try Self.built("check-settings")
    defer { fixture.remove() }

    let crf = try fixture.job(banners, settings: ["video_crf": 20], file: "crf.json")
    let setting = try Self.check(fixture, job: crf)
    #expect(setting.status == 1)
    // video_crf is no image setting: the image is unchanged.
    #expect(Self.lines(setting).prefix(2) == ["a: would build: setting changed: video_crf 23.0 → 20.0", "b: ok"],
            "\(setting.stdoutText)")

    var relinked = banners
    relinked[0]["link"] = "https://example.com/a-spring"
    let link = try Self.check(fixture, job: try fixture.job(relinked, file: "link.json"))
    #expect(link.status == 1)
    let linkLines = Self.lines(link)
    #expect(linkLines.prefix(2) == ["a: ok", "b: ok"], "\(linkLines)")
    #expect(linkLines.contains("banners.json would change: link of `a`"), "\(linkLines)")

    let dropped = try Self.check(fixture, job: try fixture.job([banners[0]], file: "dropped.json"))
    #expect(dropped.status == 1)
    let droppedLines = Self.lines(dropped)
    #expect(droppedLines.prefix(2) == ["a: ok", "b: would remove"], "\(droppedLines)")
    #expect(droppedLines.contains("banners.json would change: `b` would be removed"), "\(droppedLines)")
    #expect(droppedLines.last?.hasPrefix("home: not up to date: 1 to remove, 1 ok") == true, "\(droppedLines)")

    // JSON: the reasons as codes, the setting as it changed.
    let json = try Self.check(fixture, job: crf, ["--log-format", "json"])
    let first = try #require(try JSONSerialization.jsonObject(with: Data(Self.lines(json)[0].utf8)) as? [String: Any])
    #expect(first["event"] as? String == "would_build")
    #expect(first["reason"] as? String == "setting_changed")
    #expect(first["changes"] as? String == "video_crf 23.0 → 20.0")
    #expect(first["level"] as? String == "warning")
  }

  @Test("over the size budget: exit 1, by as much as the build would say, weighed on what a build publishes")
  func budget() throws {
    let (fixture, banners) = try Self.built("check-budget")
    defer { fixture.remove() }
    // What a client downloads: banners.json and every file of the items' folders.
    let bundle = fixture.out.appendingPathComponent("home")
    let total = try TreeSnapshot.of(bundle).filter { $0.key == "banners.json" || $0.key.hasPrefix("videos/") || $0.key.hasPrefix("images/") }
      .values.reduce(0) { $0 + Int64($1.count) }
    let megabytes = Double(total - 5000) / 1_000_000
    let over = try Self.check(fixture, job: try fixture.job(banners, settings: ["max_bundle_mb": megabytes], file: "over.json"))
    #expect(over.status == 1)
    let text = over.stdoutText
    #expect(text.contains("over the size budget: the bundle is "), "\(text)")
    #expect(text.contains("(\(total) bytes), 5.0 kB over max_bundle_mb \(JobDocumentValidator.format(megabytes))"), "\(text)")
    #expect(Self.lines(over).prefix(2) == ["a: ok", "b: ok"], "\(text)")
    // The build agrees, to the byte.
    let build = try MarqueeCLI.run(["build", fixture.dir.appendingPathComponent("over.json").path, "--out", fixture.out.path])
    #expect(build.status == 1)
    #expect(build.stderr.contains("(\(total) bytes), 5.0 kB over max_bundle_mb"), "\(build.stderr)")

    let within = try Self.check(fixture, job: try fixture.job(banners, settings: ["max_bundle_mb": 10], file: "within.json"))
    #expect(within.status == 0, "\(within.stdoutText)")
    #expect(within.stdoutText.contains("within the size budget: the bundle is "), "\(within.stdoutText)")
  }

  @Test("no output root: every item missing, exit 1, nothing created; an unreadable source is an error line, not a crash")
  func missingRootAndUnreadableSource() throws {
    let fixture = try BatchFixture("check-missing")
    defer { fixture.remove() }
    try fixture.png("b.png", width: 160, height: 90)
    let job = try fixture.job([
      ["id": "gone", "type": "video", "source": "missing.mov"],
      ["id": "b", "type": "image", "source": "b.png"],
    ])
    let nowhere = fixture.dir.appendingPathComponent("nowhere")
    let result = try Self.check(fixture, job: job, out: nowhere)
    #expect(result.status == 1)
    #expect(!FileManager.default.fileExists(atPath: nowhere.path), "--check created the output root")
    #expect(result.stderr.contains("error: gone: hash failed: missing.mov: file not found"), "\(result.stderr)")
    let lines = Self.lines(result)
    #expect(lines.first == "b: would build: missing: not in the bundle or the store", "\(lines)")
    #expect(lines.last?.contains("no bundle at \(nowhere.appendingPathComponent("home").path) yet") == true, "\(lines)")
  }

  @Test("a stored copy whose files changed would be built again; a file planted in the bundle would be removed")
  func damagedAndStray() throws {
    let (fixture, _) = try Self.built("check-damaged")
    defer { fixture.remove() }
    let job = fixture.dir.appendingPathComponent("job.json")
    let bundle = fixture.out.appendingPathComponent("home")
    try Data("x".utf8).write(to: bundle.appendingPathComponent("notes.txt"))
    let stray = try Self.check(fixture, job: job)
    #expect(stray.status == 1)
    #expect(Self.lines(stray).contains("would remove notes.txt (a build does not publish it)"), "\(stray.stdoutText)")
    try FileManager.default.removeItem(at: bundle.appendingPathComponent("notes.txt"))

    // A published image file is the store's file (a hard link): editing it damages the stored copy.
    let images = bundle.appendingPathComponent("images")
    let folder = try #require(try FileManager.default.contentsOfDirectory(atPath: images.path).first)
    let file = try #require(try FileManager.default.contentsOfDirectory(atPath: images.appendingPathComponent(folder).path)
      .first { $0.hasSuffix(".webp") })
    let handle = try FileHandle(forWritingTo: images.appendingPathComponent(folder).appendingPathComponent(file))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("junk".utf8))
    try handle.close()
    let damaged = try Self.check(fixture, job: job)
    #expect(damaged.status == 1)
    #expect(Self.lines(damaged).contains("b: would build: stored copy damaged"), "\(damaged.stdoutText)")
  }

  @Test("--check goes with --out, --jobs and the output options only", arguments: [
    (["build", "j.json", "--check", "--rebuild"], "--check writes nothing and takes no lock: --rebuild belong to a build that does"),
    (["build", "j.json", "--check", "--out", "o", "--shard", "0/2", "--wait"], "--check writes nothing and takes no lock: --shard, --wait belong"),
    (["build", "j.json", "--check", "--allow-partial"], "--check writes nothing and takes no lock: --allow-partial belong"),
    (["merge", "j.json", "--out", "o", "--check"], "--check belongs to build"),
  ])
  func usage(arguments: [String], message: String) throws {
    let result = try MarqueeCLI.run(arguments)
    #expect(result.status == 2)
    #expect(result.stderr.hasPrefix("error: \(message)"), "\(result.stderr)")
    #expect(result.stdout.isEmpty)
  }
}
