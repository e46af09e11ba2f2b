import Foundation
import Testing

@testable import MarqueeKit

#if canImport(Glibc)
import Glibc
#endif

/// Whether the owner of a store temporary folder is gone: a killed run's
/// folder is removed by the next run, a live run's is kept.
@Suite("Process owners: live, gone, zombie")
struct ProcessOwnerTests {
  @Test("the state letter of /proc/<pid>/stat comes after the command name, which may hold spaces and parentheses")
  func procStatState() {
    #expect(ProcessOwner.state(procStat: "1234 (sleep) S 1 1234 1234 0 -1") == "S")
    #expect(ProcessOwner.state(procStat: "42 (a) b (c)) Z 1 42 42") == "Z")
    #expect(ProcessOwner.state(procStat: "7 (x)") == nil)
    #expect(ProcessOwner.state(procStat: "") == nil)
  }

  /// Starts `sh`, which forks `true` and then becomes `sleep`: `sleep`
  /// never reaps the child, so the child stays a zombie while `sleep`
  /// runs. Returns the sleeper (to end) and the zombie's pid.
  static func makeZombie() throws -> (sleeper: Process, zombie: Int32) {
    let sleeper = Process()
    sleeper.executableURL = URL(fileURLWithPath: "/bin/sh")
    sleeper.arguments = ["-c", "true & echo $!; exec sleep 60 >/dev/null"]
    let out = Pipe()
    sleeper.standardOutput = out
    try sleeper.run()
    var text = ""
    while !text.contains("\n") {
      let chunk = out.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      text += String(decoding: chunk, as: UTF8.self)
    }
    guard let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
      kill(sleeper.processIdentifier, SIGKILL)
      sleeper.waitUntilExit()
      throw CocoaError(.fileReadCorruptFile)
    }
    return (sleeper, pid)
  }

  @Test("a zombie (exited, not yet reaped) is not alive, and its temporary folder is removed",
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/stat")))
  func zombieIsDead() throws {
    let (sleeper, zombie) = try Self.makeZombie()
    defer {
      kill(sleeper.processIdentifier, SIGKILL)  // SIGTERM may be blocked in the test runner's children
      sleeper.waitUntilExit()
    }
    // The child may still be running `true`: wait until it has exited.
    let limit = Date().addingTimeInterval(30)
    while ProcessOwner.state(pid: zombie) != "Z" && Date() < limit { usleep(10_000) }
    try #require(ProcessOwner.state(pid: zombie) == "Z", "no zombie made")
    #expect(kill(zombie, 0) == 0, "kill(pid, 0) sees the zombie")

    let host = ProcessOwner.current.host
    #expect(!ProcessOwner(host: host, pid: zombie).isAlive)
    #expect(ProcessOwner(host: host, pid: sleeper.processIdentifier).isAlive)
    #expect(ProcessOwner.current.isAlive)

    let root = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-owner-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let store = AssetStore(outputRoot: root)
    try store.prepare()
    let dead = "\(host)~\(zombie)~killed"
    let live = "\(host)~\(sleeper.processIdentifier)~running"
    for name in [dead, live] {
      try FileManager.default.createDirectory(at: store.temporary.appendingPathComponent(name), withIntermediateDirectories: true)
    }
    #expect(store.removeLeftovers() == [dead])
    #expect(FileManager.default.fileExists(atPath: store.temporary.appendingPathComponent(live).path))
  }
}
