import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// Atomic publishing under failure: runs SIGKILLed at the delicate moments,
/// a disk that fills up, failed items: the published bundle always
/// verifies, and a rerun completes the job and cleans the leftovers.
@Suite("Publish: atomic, crash-safe, failure policy")
struct PublishTests {
  /// A fixture with a published bundle (a video and an image), then the
  /// video's source changed so the next build has work to do.
  static func publishedThenChanged(_ label: String) throws -> (BatchFixture, job: String, before: Data) {
    let fixture = try BatchFixture(label)
    try fixture.clip("a.mp4", hue: 0)
    try fixture.png("b.png")
    let job = try fixture.job([
      ["id": "a", "type": "video", "source": "a.mp4"],
      ["id": "b", "type": "image", "source": "b.png"],
    ]).path
    let first = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(first.status == 0, "\(first.stderr)")
    let before = try Data(contentsOf: fixture.out.appendingPathComponent("home/banners.json"))
    try fixture.clip("a.mp4", hue: 200)
    return (fixture, job, before)
  }

  static func bundle(_ fixture: BatchFixture) -> URL { fixture.out.appendingPathComponent("home") }

  static func manifest(_ fixture: BatchFixture) throws -> Data {
    try Data(contentsOf: bundle(fixture).appendingPathComponent("banners.json"))
  }

  static func leftovers(_ fixture: BatchFixture) -> [String] {
    FileSystem.list(fixture.out.appendingPathComponent(".marquee/staging"))
      + FileSystem.list(fixture.out.appendingPathComponent(".marquee/store/tmp"))
  }

  @Test("a build SIGKILLed at each delicate point leaves a bundle that verifies; a rerun completes it",
        arguments: ["item-stored", "staged", "verified", "exchanged"])
  func killedAtCrashPoint(point: String) throws {
    let (fixture, job, before) = try Self.publishedThenChanged("crash-\(point)")
    defer { fixture.remove() }
    let killed = try MarqueeCLI.run(["build", job, "--out", fixture.out.path], environment: ["MARQUEE_TEST_CRASH_AT": point])
    #expect(killed.status == SIGKILL, "the run was not killed at \(point): exit \(killed.status) \(killed.stderr)")

    // Old or new, but whole.
    #expect(BundleVerifier().verify(bundle: Self.bundle(fixture)).violations.isEmpty)
    let afterKill = try Self.manifest(fixture)
    if point == "exchanged" {
      #expect(afterKill != before, "the switch happened before the kill")
      #expect(!Self.leftovers(fixture).isEmpty, "the old bundle waits in staging for the next run")
    } else {
      #expect(afterKill == before, "the old bundle must stay until the switch")
    }
    if point == "staged" || point == "verified" { #expect(!Self.leftovers(fixture).isEmpty) }

    let rerun = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(rerun.status == 0, "\(rerun.stderr)")
    #expect(Self.leftovers(fixture).isEmpty, "leftovers not cleaned: \(Self.leftovers(fixture))")
    #expect(BundleVerifier().verify(bundle: Self.bundle(fixture)).violations.isEmpty)
    #expect(try Self.manifest(fixture) != before)
    // The item stored before the kill is reused by the rerun.
    #expect(rerun.stdoutText.contains("2 reused, 0 built"), "\(rerun.stdoutText)")
  }

  @Test("a build SIGKILLed from outside while encoding keeps the old bundle; a rerun completes it")
  func killedWhileEncoding() throws {
    let (fixture, job, before) = try Self.publishedThenChanged("sigkill")
    defer { fixture.remove() }
    let run = try LiveProcess(["build", job, "--out", fixture.out.path, "--log-format", "json"])
    #expect(run.waitForEvent(stage: "encode", event: "started", item: "a") != nil)
    run.kill9()
    let end = run.finish()
    #expect(end.signaled || end.status == 0)
    #expect(BundleVerifier().verify(bundle: Self.bundle(fixture)).violations.isEmpty)
    if end.signaled { #expect(try Self.manifest(fixture) == before) }
    let rerun = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(rerun.status == 0, "\(rerun.stderr)")
    #expect(Self.leftovers(fixture).isEmpty)
    #expect(BundleVerifier().verify(bundle: Self.bundle(fixture)).violations.isEmpty)
  }

  @Test("a disk that fills up mid-build gives exit 4 and keeps the old bundle")
  func diskFull() throws {
    let (fixture, job, before) = try Self.publishedThenChanged("diskfull")
    defer { fixture.remove() }
    // 64 blocks of 512 bytes: the video's first segment already does not fit.
    let full = try MarqueeCLI.runWithFileSizeLimit(blocks: 64, ["build", job, "--out", fixture.out.path])
    #expect(full.status == 4, "exit \(full.status): \(full.stderr)")
    #expect(full.stderr.contains("File too large"), "\(full.stderr)")
    #expect(try Self.manifest(fixture) == before)
    #expect(BundleVerifier().verify(bundle: Self.bundle(fixture)).violations.isEmpty)
    #expect(Self.leftovers(fixture).isEmpty)

    let rerun = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(rerun.status == 0, "\(rerun.stderr)")
    #expect(try Self.manifest(fixture) != before)
  }

  @Test("a disk that fills up while a video is still encoding gives exit 4 (no hang) and keeps the old bundle",
        arguments: ["1", "2"])
  func diskFullMidEncode(jobs: String) throws {
    let (fixture, job, before) = try Self.publishedThenChanged("diskfull-mid-\(jobs)")
    defer { fixture.remove() }
    // An 8 s clip: video.mp4's media data passes 32 KiB a second or two in,
    // while the decoder is still feeding the rendition workers.
    try fixture.clip("a.mp4", hue: 90, seconds: 8)
    let full = try MarqueeCLI.runWithFileSizeLimit(blocks: 64, ["build", job, "--out", fixture.out.path, "--jobs", jobs])
    #expect(full.status == 4, "exit \(full.status): \(full.stderr)")
    #expect(full.stderr.contains("File too large"), "\(full.stderr)")
    #expect(try Self.manifest(fixture) == before)
    #expect(BundleVerifier().verify(bundle: Self.bundle(fixture)).violations.isEmpty)
    #expect(Self.leftovers(fixture).isEmpty)
    // The lock was released: the next run builds.
    let rerun = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(rerun.status == 0, "\(rerun.stderr)")
  }

  @Test("a rendition whose encoder flush fails fails its item (exit 1), never hangs the build", arguments: ["1", "2"])
  func failedFlush(jobs: String) throws {
    let (fixture, job, before) = try Self.publishedThenChanged("flush-\(jobs)")
    defer { fixture.remove() }
    // Killed after 10 minutes if it hangs, so a hang fails here.
    let run = try Run.process("/usr/bin/timeout", ["-s", "KILL", "600", MarqueeCLI.executable.path,
                                                   "build", job, "--out", fixture.out.path, "--jobs", jobs],
                              environment: MarqueeCLI.environment(["MARQUEE_TEST_FAIL_AT": "rendition-flush"]))
    #expect(run.status == 1, "exit \(run.status): \(run.stderr)")
    #expect(run.stderr.contains("a: encode failed"), "\(run.stderr)")
    #expect(try Self.manifest(fixture) == before)
    #expect(Self.leftovers(fixture).isEmpty)
  }

  @Test("with HEVC twins fed by their H.264 workers: a twin that fails on a fed picture, or a failed flush, fails the item (exit 1), never hangs the build",
        arguments: ["fed-picture", "rendition-flush"])
  func failedTwin(point: String) throws {
    let fixture = try BatchFixture("twin-\(point)", twins: true)
    defer { fixture.remove() }
    try fixture.clip("a.mp4", hue: 0)
    let job = try fixture.job([["id": "a", "type": "video", "source": "a.mp4"]]).path
    // Killed after 10 minutes if it hangs, so a hang fails here.
    let run = try Run.process("/usr/bin/timeout", ["-s", "KILL", "600", MarqueeCLI.executable.path,
                                                   "build", job, "--out", fixture.out.path],
                              environment: MarqueeCLI.environment(["MARQUEE_TEST_FAIL_AT": point]))
    #expect(run.status == 1, "exit \(run.status): \(run.stderr)")
    #expect(run.stderr.contains("a: encode failed") && run.stderr.contains(point), "\(run.stderr)")
    #expect(Self.leftovers(fixture).isEmpty)
    // Without the failure the same job builds, twins included.
    let good = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(good.status == 0, "\(good.stderr)")
    let master = try String(contentsOf: fixture.out.appendingPathComponent("home/videos").appendingPathComponent(
      try #require(FileSystem.list(fixture.out.appendingPathComponent("home/videos")).first)).appendingPathComponent("master.m3u8"), encoding: .utf8)
    #expect(master.contains("hvc1"), "\(master)")
  }

  @Test("a failed item keeps the old bundle (exit 1) and the good items stored; --allow-partial publishes them")
  func failurePolicy() throws {
    let (fixture, _, before) = try Self.publishedThenChanged("policy")
    defer { fixture.remove() }
    try Data("this is not a video".utf8).write(to: fixture.dir.appendingPathComponent("broken.mp4"))
    let job = try fixture.job([
      ["id": "a", "type": "video", "source": "a.mp4"],
      ["id": "b", "type": "image", "source": "b.png"],
      ["id": "broken", "type": "video", "source": "broken.mp4"],
    ]).path
    let strict = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(strict.status == 1)
    #expect(strict.stderr.contains("broken: encode failed"), "\(strict.stderr)")
    #expect(strict.stdoutText.contains("Not published"))
    #expect(try Self.manifest(fixture) == before)

    let partial = try MarqueeCLI.run(["build", job, "--out", fixture.out.path, "--allow-partial"])
    #expect(partial.status == 1)
    #expect(partial.stdoutText.contains("2 reused, 0 built, 1 failed"), "the good item was not kept: \(partial.stdoutText)")
    #expect(partial.stderr.contains("published without broken"), "\(partial.stderr)")
    let manifest = try #require(try JSONSerialization.jsonObject(with: Self.manifest(fixture)) as? [String: Any])
    #expect((manifest["banners"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["a", "b"])
    #expect(BundleVerifier().verify(bundle: Self.bundle(fixture)).violations.isEmpty)

    try fixture.clip("broken.mp4", hue: 60)
    let fixed = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(fixed.status == 0)
    #expect(fixed.stdoutText.contains("2 reused, 1 built"), "\(fixed.stdoutText)")
  }

  @Test("a fresh output root gets its bundle by rename; nothing but the bundle and .marquee is written")
  func firstPublish() throws {
    let fixture = try BatchFixture("first")
    defer { fixture.remove() }
    try fixture.png("b.png")
    let job = try fixture.job([["id": "b", "type": "image", "source": "b.png"]]).path
    let result = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(result.status == 0)
    #expect(FileSystem.list(fixture.out).sorted() == [".marquee", "home"])
    #expect(Set(FileSystem.list(Self.bundle(fixture))) == ["banners.json", "images", NginxDarkThemeRule.fileName])
  }
}
