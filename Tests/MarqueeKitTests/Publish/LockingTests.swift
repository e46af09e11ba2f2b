import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// Two runs of the same bundle: the second exits at once with code 3 and
/// names the holder, or waits with `--wait`.
@Suite("Locking: one run per bundle")
struct LockingTests {
  /// Starts a build that takes the lock and holds it until `release` exists.
  static func holder(_ fixture: BatchFixture, job: String, release: URL) throws -> LiveProcess {
    let run = try LiveProcess(["build", job, "--out", fixture.out.path, "--log-format", "json"],
                              environment: ["MARQUEE_TEST_HOLD_LOCK": release.path])
    #expect(run.waitForEvent(stage: "lock", event: "acquired") != nil)
    return run
  }

  @Test("a second build of a locked bundle exits 3 at once, naming the holder's pid and host")
  func secondRunExits3() throws {
    let fixture = try BatchFixture("lock")
    defer { fixture.remove() }
    try fixture.png("b.png")
    let job = try fixture.job([["id": "b", "type": "image", "source": "b.png"]]).path
    let release = fixture.dir.appendingPathComponent("release")
    let first = try Self.holder(fixture, job: job, release: release)

    let second = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(second.status == 3)
    #expect(second.stderr.contains("pid \(first.pid) on host \(ProcessInfo.processInfo.hostName)"), "\(second.stderr)")
    #expect(second.stderr.contains("--wait"))
    let merge = try MarqueeCLI.run(["merge", job, "--out", fixture.out.path, "--log-format", "json"])
    #expect(merge.status == 3)
    let lastLine = String(merge.stdoutText.split(separator: "\n").last ?? "")
    let parsed = try JSONSerialization.jsonObject(with: Data(lastLine.utf8))
    let event = try #require(parsed as? [String: Any])
    #expect(event["stage"] as? String == "lock" && event["event"] as? String == "failed")
    // The runs that lost left the holder's name in the lock file.
    let third = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(third.status == 3)
    #expect(third.stderr.contains("pid \(first.pid) on host"), "\(third.stderr)")

    try Data().write(to: release)
    let end = first.finish()
    #expect(end.status == 0, "\(end.stderr)")
  }

  @Test("--wait waits for the holder, then builds")
  func waitForHolder() throws {
    let fixture = try BatchFixture("lock-wait")
    defer { fixture.remove() }
    try fixture.png("b.png")
    let job = try fixture.job([["id": "b", "type": "image", "source": "b.png"]]).path
    let release = fixture.dir.appendingPathComponent("release")
    let first = try Self.holder(fixture, job: job, release: release)

    let second = try LiveProcess(["build", job, "--out", fixture.out.path, "--wait", "--log-format", "json"])
    let waiting = try #require(second.waitForEvent(stage: "lock", event: "waiting"))
    #expect(waiting.contains("pid \(first.pid)"))
    try Data().write(to: release)
    #expect(first.finish().status == 0)
    let end = second.finish()
    #expect(end.status == 0, "\(end.stderr)")
    #expect(end.stdout.contains("\"event\":\"acquired\""))
    #expect(end.stdout.contains("1 reused, 0 built"))
  }

  @Test("different bundles in one output root build at the same time")
  func otherBundlesAreFree() throws {
    let fixture = try BatchFixture("lock-other")
    defer { fixture.remove() }
    try fixture.png("b.png")
    let job = try fixture.job([["id": "b", "type": "image", "source": "b.png"]]).path
    let other = try fixture.job([["id": "b", "type": "image", "source": "b.png"]], name: "other", file: "other.json").path
    let release = fixture.dir.appendingPathComponent("release")
    let first = try Self.holder(fixture, job: job, release: release)
    let second = try MarqueeCLI.run(["build", other, "--out", fixture.out.path])
    #expect(second.status == 0, "\(second.stderr)")
    try Data().write(to: release)
    #expect(first.finish().status == 0)
  }
}
