import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// `ItemClaim`: builds that share an output root encode each shared item
/// once. Runs are real `marquee` processes; the first holds its claims
/// (`MARQUEE_TEST_HOLD_CLAIM`) until the others are seen waiting, so the
/// runs certainly overlap, and the JSON logs say who encoded what.
@Suite("Item claims: one encode per item across concurrent builds")
struct ItemClaimTests {
  /// Two shared clips and one picture per job; job `k` lists the clips as
  /// `s1` and `s2` and its own picture as `own<k>`.
  static func makeJobs(_ fixture: BatchFixture, count: Int) throws -> [URL] {
    _ = try fixture.clip("shared1.mp4", hue: 0)
    _ = try fixture.clip("shared2.mp4", hue: 120, tone: nil)
    return try (1...count).map { k in
      _ = try fixture.png("own\(k).png", width: 200 + 20 * k, height: 150)
      return try fixture.job([["id": "s1", "type": "video", "source": "shared1.mp4"],
                              ["id": "s2", "type": "video", "source": "shared2.mp4"],
                              ["id": "own\(k)", "type": "image", "source": "own\(k).png"]],
                             name: "job\(k)", file: "job\(k).json")
    }
  }

  /// The JSON log events of a run's stdout.
  static func events(_ stdout: String) -> [[String: Any]] {
    stdout.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }
  }

  static func count(_ events: [[String: Any]], item: String, stage: String = "encode", event: String) -> Int {
    events.filter { $0["item"] as? String == item && $0["stage"] as? String == stage && $0["event"] as? String == event }.count
  }

  /// Waits until `count` claim markers of `gate` exist (the held run has
  /// claimed that many items).
  static func waitForClaims(_ gate: URL, count: Int) throws {
    let folder = gate.deletingLastPathComponent()
    let prefix = gate.lastPathComponent + ".claimed-"
    let limit = Date().addingTimeInterval(300)
    while FileSystem.list(folder).filter({ $0.hasPrefix(prefix) }).count < count {
      guard Date() < limit else { throw ClaimTestFailure.noClaim }
      usleep(20_000)
    }
  }

  enum ClaimTestFailure: Error { case noClaim }

  /// Starts a run of `job` that holds its claims on the job's three items
  /// (three in flight, so all at once) until `gate` exists, and returns
  /// once it holds them all.
  static func startHolder(_ job: URL, out: String, gate: URL) throws -> LiveProcess {
    let run = try LiveProcess(["build", job.path, "--out", out, "--jobs", "3", "--log-format", "json"],
                              environment: ["MARQUEE_TEST_HOLD_CLAIM": gate.path])
    try waitForClaims(gate, count: 3)
    return run
  }

  /// Each job's bundle against the same job built alone into a fresh
  /// output root: byte-identical, file by file.
  static func expectSameAsAlone(_ jobs: [(file: URL, name: String)], shared out: URL, fixture: BatchFixture) throws {
    for job in jobs {
      let name = job.name
      let alone = fixture.dir.appendingPathComponent("alone-\(name)")
      let run = try MarqueeCLI.run(["build", job.file.path, "--out", alone.path, "--quiet"])
      #expect(run.status == 0, "\(run.stderr)")
      let differences = TreeSnapshot.differences(try TreeSnapshot.of(out.appendingPathComponent(name)),
                                                 try TreeSnapshot.of(alone.appendingPathComponent(name)))
      #expect(differences.isEmpty, "\(name): \(differences.prefix(5))")
    }
  }

  @Test("4 builds started together on jobs sharing 2 videos encode each video once, all verify, and their bundles are byte-identical to single builds")
  func fourBuildsEncodeOnce() throws {
    let fixture = try BatchFixture("claims", twins: true)
    defer { fixture.remove() }
    let jobs = try Self.makeJobs(fixture, count: 4)
    let gate = fixture.dir.appendingPathComponent("gate")
    let out = fixture.out.path
    let first = try Self.startHolder(jobs[0], out: out, gate: gate)
    let others = try jobs.dropFirst().map { try LiveProcess(["build", $0.path, "--out", out, "--log-format", "json"]) }
    for run in others {
      #expect(run.waitForEvent(stage: "encode", event: "waiting", item: "s1") != nil)
      #expect(run.waitForEvent(stage: "encode", event: "waiting", item: "s2") != nil)
    }
    FileManager.default.createFile(atPath: gate.path, contents: nil)
    let results = [first.finish()] + others.map { $0.finish() }
    for (k, r) in results.enumerated() { #expect(r.status == 0, "job\(k + 1): \(r.stderr)") }
    let logs = results.map { Self.events($0.stdout) }

    // Each shared video encoded once, by the first run; the others reused it.
    for item in ["s1", "s2"] {
      #expect(logs.map { Self.count($0, item: item, event: "started") } == [1, 0, 0, 0], "\(item)")
      for log in logs.dropFirst() {
        let reused = log.filter { $0["item"] as? String == item && $0["event"] as? String == "reused" }
        #expect(reused.count == 1 && (reused.first?["message"] as? String ?? "").contains("built by another run"), "\(reused)")
      }
    }
    for (k, log) in logs.enumerated() { #expect(Self.count(log, item: "own\(k + 1)", event: "started") == 1) }

    for k in 1...4 {
      let verify = try MarqueeCLI.run(["verify", fixture.out.appendingPathComponent("job\(k)").path])
      #expect(verify.status == 0, "job\(k): \(verify.stdoutText)")
    }
    try Self.expectSameAsAlone(jobs.enumerated().map { ($0.element, "job\($0.offset + 1)") }, shared: fixture.out, fixture: fixture)
  }

  @Test("SIGKILL of the run that encodes an item while another waits for it: the waiter encodes it and publishes")
  func killedHolderHandsOver() throws {
    let fixture = try BatchFixture("claims-kill")
    defer { fixture.remove() }
    let jobs = try Self.makeJobs(fixture, count: 2)
    let gate = fixture.dir.appendingPathComponent("gate")
    let out = fixture.out.path
    let holder = try Self.startHolder(jobs[0], out: out, gate: gate)
    let waiter = try LiveProcess(["build", jobs[1].path, "--out", out, "--log-format", "json"])
    #expect(waiter.waitForEvent(stage: "encode", event: "waiting", item: "s1") != nil)
    #expect(waiter.waitForEvent(stage: "encode", event: "waiting", item: "s2") != nil)
    holder.kill9()
    let killed = holder.finish()
    #expect(killed.signaled)
    let result = waiter.finish()
    #expect(result.status == 0, "\(result.stderr)")
    let log = Self.events(result.stdout)
    for item in ["s1", "s2"] {
      #expect(Self.count(log, item: item, event: "started") == 1, "\(item): the waiter did not encode it")
      #expect(Self.count(log, item: item, event: "finished") == 1)
    }
    let verify = try MarqueeCLI.run(["verify", fixture.out.appendingPathComponent("job2").path])
    #expect(verify.status == 0, "\(verify.stdoutText)")
    try Self.expectSameAsAlone([(jobs[1], "job2")], shared: fixture.out, fixture: fixture)
  }

  @Test("a claim is an flock on a file of the store's own: a symbolic link planted there is refused, never followed")
  func plantedLinkRefused() throws {
    let fixture = try BatchFixture("claims-link")
    defer { fixture.remove() }
    let store = AssetStore(outputRoot: fixture.out)
    try store.prepare()
    let hash = String(repeating: "ab", count: 32)
    let victim = fixture.dir.appendingPathComponent("victim.txt")
    try Data("keep".utf8).write(to: victim)
    try FileManager.default.createSymbolicLink(at: store.claims.appendingPathComponent("\(hash).lock"), withDestinationURL: victim)
    #expect(throws: MarqueeError.self) { _ = try ItemClaim.acquire(hash, in: store) {} }
    #expect(try Data(contentsOf: victim) == Data("keep".utf8))
  }
}
