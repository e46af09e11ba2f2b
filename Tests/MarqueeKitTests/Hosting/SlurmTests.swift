import Foundation
import MarqueeTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@testable import MarqueeKit

/// The checks `make test-serving` runs: real clients and a real workload
/// manager, too slow or too heavy to install for every `make test`.
/// Without `MARQUEE_SERVING_TESTS=1` they are skipped, saying so; with it
/// (CI, after `make setup-serving`) a missing tool fails them.
enum ServingChecks {
  static var requested: Bool { ProcessInfo.processInfo.environment["MARQUEE_SERVING_TESTS"] == "1" }
  static var skipReason: String? {
    requested ? nil : "browser, GStreamer and Slurm checks run with MARQUEE_SERVING_TESTS=1 (make test-serving)"
  }

  /// The first of `names` on PATH or in the sbin folders, `nil` if none.
  static func tool(_ names: String...) -> String? {
    let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
    for name in names {
      for dir in path + ["/usr/sbin", "/usr/bin", "/sbin", "/bin"] {
        let candidate = dir + "/" + name
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
      }
    }
    return nil
  }

  /// Waits until `condition` holds, polling every `interval` seconds, at
  /// most `limit` seconds; whether it held.
  static func wait(_ limit: TimeInterval, interval: TimeInterval = 0.5, _ condition: () throws -> Bool) rethrows -> Bool {
    let end = Date().addingTimeInterval(limit)
    while Date() < end {
      if try condition() { return true }
      usleep(UInt32(interval * 1_000_000))
    }
    return try condition()
  }
}

/// `deploy/slurm/`'s recipe on a one-node Slurm cluster this test starts
/// from Debian's packages: munged, slurmctld and slurmd for localhost, all
/// of their state, sockets, logs and pid files in a temporary folder.
@Suite("Slurm: sbatch --array shards and an afterok merge", .serialized)
struct SlurmTests {
  @Test(
    "4 array tasks and the merge equal a single build; a task cancelled or requeued mid-run; an early merge fails and publishes nothing",
    .enabled(if: ServingChecks.skipReason == nil, "\(ServingChecks.skipReason ?? "")"), .timeLimit(.minutes(15)))
  func arrayShardsAndMerge() async throws {
    let fixture = try BatchFixture("slurm", twins: true)
    defer { fixture.remove() }
    // Item 1 (shard 1's) is long enough to be cancelled while it encodes.
    try fixture.clip("a.mp4", hue: 0)
    let long = fixture.dir.appendingPathComponent("long.mp4")
    try SyntheticMedia.writeClip(
      .init(video: "testsrc2=size=640x360:rate=25,hue=h=60", frameRate: Rational(25, 1), duration: 6, toneHz: 330),
      to: long.path)
    try fixture.png("c.png")
    try fixture.jpeg("d.jpg")
    let job = try fixture.job([
      ["id": "clip-a", "type": "video", "source": "a.mp4"],
      ["id": "long", "type": "video", "source": "long.mp4"],
      ["id": "product", "type": "image", "source": "c.png"],
      ["id": "photo", "type": "image", "source": "d.jpg"],
    ]).path
    let single = fixture.dir.appendingPathComponent("single")
    let reference = try MarqueeCLI.run(["build", job, "--out", single.path, "--jobs", "1"])
    try #require(reference.status == 0, "\(reference.stderr)")

    let leftoversBefore = SlurmCluster.rootPathsInUse()
    let cluster = try SlurmCluster(folder: fixture.dir.appendingPathComponent("slurm"))
    defer { cluster.stop() }
    try cluster.start()

    let out = fixture.dir.appendingPathComponent("shared")
    let logs = fixture.dir.appendingPathComponent("logs")
    try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
    let recipe = Corpus.repositoryRoot.appendingPathComponent("deploy/slurm")
    let shardsScript = recipe.appendingPathComponent("marquee-shards.sbatch").path
    let mergeScript = recipe.appendingPathComponent("marquee-merge.sbatch").path
    let bundle = out.appendingPathComponent("home")
    func published() -> Bool { FileManager.default.fileExists(atPath: bundle.path) }

    // The shards, held; a merge started before any shard ran fails clearly
    // (exit 1, the missing items named) and publishes nothing.
    let shards = try cluster.submit(
      ["--hold", "--cpus-per-task=1", "--array=0-3", "--chdir=\(logs.path)", shardsScript, job, out.path])
    let early = try cluster.submit(["--chdir=\(logs.path)", mergeScript, job, out.path])
    let earlyEnd = try cluster.waitForEnd(early)
    #expect(earlyEnd.state == "FAILED" && earlyEnd.exitCode == "1:0", "early merge: \(earlyEnd)")
    let earlyLog = try String(contentsOf: logs.appendingPathComponent("marquee-merge-\(early).log"), encoding: .utf8)
    #expect(earlyLog.contains("not in the store"), "\(earlyLog)")
    #expect(earlyLog.contains("\"published\":\"false\""), "\(earlyLog)")
    #expect(!published(), "an early merge published")

    // The recipe's merge: afterok on the whole array.
    let merge = try cluster.submit(
      ["--dependency=afterok:\(shards)", "--kill-on-invalid-dep=yes", "--chdir=\(logs.path)", mergeScript, job, out.path])
    try cluster.control(["release", shards])

    // Task 1 is cancelled while it encodes: the recipe's merge can then
    // never run (Slurm counts the array as failed), and nothing is
    // published.
    let taskLog = logs.appendingPathComponent("marquee-shards-\(shards)_1.log")
    let encoding = ServingChecks.wait(300) {
      let text = (try? String(contentsOf: taskLog, encoding: .utf8)) ?? ""
      return text.contains("\"item\":\"long\"") && text.contains("\"stage\":\"encode\",\"event\":\"started\"")
    }
    try #require(encoding, "task 1 never started encoding: \(cluster.diagnostics())")
    try cluster.cancel(["\(shards)_1"])
    let cancelled = try cluster.waitForEnd("\(shards)_1")
    #expect(cancelled.state == "CANCELLED", "\(cancelled)")
    let cancelledLog = try String(contentsOf: taskLog, encoding: .utf8)
    #expect(!cancelledLog.contains("\"event\":\"summary\""), "task 1 finished before it was cancelled: \(cancelledLog)")
    let dropped = try cluster.waitForEnd(merge)
    #expect(dropped.state == "CANCELLED" && dropped.reason == "DependencyNeverSatisfied", "\(dropped)")
    for task in [0, 2, 3] {
      let end = try cluster.waitForEnd("\(shards)_\(task)")
      #expect(end.state == "COMPLETED" && end.exitCode == "0:0", "task \(task): \(end)")
    }
    #expect(!published(), "published without shard 1")

    // Requeued (now, instead of after Slurm's requeue delay), task 1 runs
    // again and completes; a merge after it publishes the bundle.
    try cluster.control(["requeue", "\(shards)_1"])
    try cluster.control(["update", "jobid=\(shards)_1", "StartTime=now"])
    let rerun = try cluster.waitForEnd("\(shards)_1", after: "CANCELLED")
    #expect(rerun.state == "COMPLETED" && rerun.exitCode == "0:0" && rerun.restarts == "1", "\(rerun)")
    let final = try cluster.submit(
      ["--dependency=afterok:\(shards)_1", "--kill-on-invalid-dep=yes", "--chdir=\(logs.path)", mergeScript, job, out.path])
    let finalEnd = try cluster.waitForEnd(final)
    #expect(finalEnd.state == "COMPLETED" && finalEnd.exitCode == "0:0", "\(finalEnd): \(cluster.diagnostics())")
    let finalLog = try String(contentsOf: logs.appendingPathComponent("marquee-merge-\(final).log"), encoding: .utf8)
    #expect(finalLog.contains("4 reused, 0 built"), "\(finalLog)")

    // Byte for byte the single build, and it verifies.
    let a = try TreeSnapshot.of(bundle)
    let b = try TreeSnapshot.of(single.appendingPathComponent("home"))
    #expect(a.count > 20)
    #expect(TreeSnapshot.differences(a, b).isEmpty, "differ: \(TreeSnapshot.differences(a, b))")
    let verify = try MarqueeCLI.run(["verify", bundle.path])
    #expect(verify.status == 0, "\(verify.stderr)")

    // `scontrol requeue` of a running task (into a fresh output root, so
    // everything is encoded again): the recipe's merge keeps waiting and
    // publishes once the requeued task has succeeded.
    let out2 = fixture.dir.appendingPathComponent("shared2")
    let shards2 = try cluster.submit(["--cpus-per-task=1", "--array=0-3", "--chdir=\(logs.path)", shardsScript, job, out2.path])
    let merge2 = try cluster.submit(
      ["--dependency=afterok:\(shards2)", "--kill-on-invalid-dep=yes", "--chdir=\(logs.path)", mergeScript, job, out2.path])
    let taskLog2 = logs.appendingPathComponent("marquee-shards-\(shards2)_1.log")
    let encoding2 = ServingChecks.wait(300) {
      let text = (try? String(contentsOf: taskLog2, encoding: .utf8)) ?? ""
      return text.contains("\"item\":\"long\"") && text.contains("\"stage\":\"encode\",\"event\":\"started\"")
    }
    try #require(encoding2, "task 1 never started encoding: \(cluster.diagnostics())")
    try cluster.control(["requeue", "\(shards2)_1"])
    #expect(try cluster.state(merge2)?.state == "PENDING", "the merge did not keep waiting")
    try cluster.control(["update", "jobid=\(shards2)_1", "StartTime=now"])
    let rerun2 = try cluster.waitForEnd("\(shards2)_1", after: "RUNNING")
    #expect(rerun2.state == "COMPLETED" && rerun2.restarts == "1", "\(rerun2)")
    let merge2End = try cluster.waitForEnd(merge2)
    #expect(merge2End.state == "COMPLETED" && merge2End.exitCode == "0:0", "\(merge2End): \(cluster.diagnostics())")
    let c = try TreeSnapshot.of(out2.appendingPathComponent("home"))
    #expect(TreeSnapshot.differences(c, b).isEmpty, "differ after requeue: \(TreeSnapshot.differences(c, b))")

    cluster.stop()
    #expect(SlurmCluster.rootPathsInUse() == leftoversBefore, "Slurm or munge left files in system folders")
  }
}

// MARK: - A one-node cluster

/// munged, slurmctld and slurmd in the foreground, children of the test,
/// configured for this host on free loopback ports, every path in
/// `folder`; clients reach it through `SLURM_CONF`.
// Safe: started, used and stopped by one serialized suite, one test at a time.
final class SlurmCluster: @unchecked Sendable {
  let folder: URL
  private var daemons: [(name: String, process: Process)] = []
  private let tools: [String: String]
  private var environment: [String: String] = [:]

  /// A job's last known state.
  struct End: CustomStringConvertible {
    var state: String
    var exitCode: String
    var reason: String
    var restarts: String
    var description: String { "\(state) exit \(exitCode) reason \(reason) restarts \(restarts)" }
  }

  init(folder: URL) throws {
    self.folder = folder
    var found: [String: String] = [:]
    for name in ["munged", "mungekey", "slurmctld", "slurmd", "sbatch", "scontrol", "scancel", "squeue"] {
      let path = try #require(ServingChecks.tool(name), "\(name) is not installed (make setup-serving)")
      found[name] = path
    }
    tools = found
  }

  /// The path of a tool `init` found.
  private func tool(_ name: String) -> String { tools[name] ?? name }

  /// System folders the Debian packages' defaults would use, with what is
  /// in them: equal before and after a run means nothing was left there.
  static func rootPathsInUse() -> [String: [String]] {
    var result: [String: [String]] = [:]
    for path in [
      "/run/munge", "/var/run/munge", "/var/lib/munge", "/var/log/munge", "/var/spool/slurmd", "/var/spool/slurmctld",
      "/var/spool/slurm", "/var/lib/slurm", "/var/log/slurm", "/run/slurm", "/run/slurmctld.pid", "/run/slurmd.pid",
    ] {
      guard FileManager.default.fileExists(atPath: path) else { continue }
      result[path] = ((try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? []).sorted()
    }
    return result
  }

  func start() throws {
    let fm = FileManager.default
    for sub in ["state", "spool", "logs"] {
      try fm.createDirectory(at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
    }
    // munge's sockets and keys must not be reachable by others.
    chmod(folder.path, 0o700)
    let f = folder.path
    let key = "\(f)/munge.key"
    let created = try Run.process(tool("mungekey"), ["--create", "--keyfile=\(key)"])
    try #require(created.status == 0, "mungekey: \(created.stderr)")
    try launch("munged", [
      "--foreground", "--force", "--socket=\(f)/munge.socket", "--key-file=\(key)", "--pid-file=\(f)/munged.pid",
      "--seed-file=\(f)/munged.seed", "--log-file=\(f)/logs/munged.log",
    ])
    try #require(ServingChecks.wait(20) { fm.fileExists(atPath: "\(f)/munge.socket") }, "munged did not start: \(diagnostics())")

    var host = [CChar](repeating: 0, count: 256)
    gethostname(&host, host.count)
    let name = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let hostname = name.split(separator: ".").first.map(String.init) ?? "localhost"
    let controllerPort = try NginxServer.freePort()
    var nodePort = try NginxServer.freePort()
    while nodePort == controllerPort { nodePort = try NginxServer.freePort() }
    try Data().write(to: folder.appendingPathComponent("plugstack.conf"))
    let conf = """
      ClusterName=marqueetest
      SlurmctldHost=\(hostname)(127.0.0.1)
      SlurmctldPort=\(controllerPort)
      SlurmdPort=\(nodePort)
      SlurmUser=root
      SlurmdUser=root
      AuthType=auth/munge
      CredType=cred/munge
      AuthInfo=socket=\(f)/munge.socket
      StateSaveLocation=\(f)/state
      SlurmdSpoolDir=\(f)/spool
      SlurmctldPidFile=\(f)/slurmctld.pid
      SlurmdPidFile=\(f)/slurmd.pid
      SlurmctldLogFile=\(f)/logs/slurmctld.log
      SlurmdLogFile=\(f)/logs/slurmd.log
      PlugStackConfig=\(f)/plugstack.conf
      ProctrackType=proctrack/linuxproc
      TaskPlugin=task/none
      MpiDefault=none
      JobAcctGatherType=jobacct_gather/none
      AccountingStorageType=accounting_storage/none
      JobCompType=jobcomp/none
      SchedulerType=sched/backfill
      SelectType=select/cons_tres
      SelectTypeParameters=CR_Core
      ReturnToService=2
      KillWait=5
      MinJobAge=900
      SlurmdTimeout=120
      NodeName=marquee1 NodeHostname=\(hostname) NodeAddr=127.0.0.1 CPUs=2 RealMemory=2000 State=UNKNOWN
      PartitionName=test Nodes=marquee1 Default=YES MaxTime=INFINITE State=UP

      """
    let confPath = "\(f)/slurm.conf"
    try Data(conf.utf8).write(to: URL(fileURLWithPath: confPath))
    environment = MarqueeCLI.environment(["SLURM_CONF": confPath, "MARQUEE": MarqueeCLI.executable.path])
    try launch("slurmctld", ["-D", "-c", "-f", confPath])
    try launch("slurmd", ["-D", "-N", "marquee1", "-f", confPath])
    let up = try ServingChecks.wait(60, interval: 1) {
      let info = try Run.process(tool("scontrol"), ["-o", "show", "node", "marquee1"], environment: environment)
      return info.status == 0 && (info.stdoutText.contains("State=IDLE") || info.stdoutText.contains("State=MIXED"))
    }
    try #require(up, "the node did not come up: \(diagnostics())")
  }

  /// Starts a daemon under a small `sh` that stays its parent: the
  /// daemons close every inherited descriptor at start, which Foundation's
  /// `Process` takes for an exit (and then blocks every other child's
  /// reaping in `waitpid`). The shell waits for the daemon.
  private func launch(_ name: String, _ arguments: [String]) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = [
      "-c", #""$@" & wait $!"#,
      "sh", tool(name),
    ] + arguments
    p.environment = environment.isEmpty ? nil : environment
    let log = folder.appendingPathComponent("logs/\(name).out")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let handle = try FileHandle(forWritingTo: log)
    p.standardOutput = handle
    p.standardError = handle
    p.standardInput = FileHandle.nullDevice
    try p.run()
    daemons.append((name, p))
  }

  /// Cancels what is left and stops the daemons: `scontrol shutdown`
  /// (slurmctld and slurmd), then SIGTERM to munged by its pid file, and
  /// SIGKILL by pid file to whatever is still running after 15 s. (Signals
  /// are not enough on their own: children of the test runner start with
  /// SIGTERM blocked, which slurmd and munged keep.)
  func stop() {
    guard !daemons.isEmpty else { return }
    if !environment.isEmpty {
      _ = try? Run.process(tool("scancel"), ["--user", "root"], environment: environment)
      _ = try? Run.process(tool("scontrol"), ["shutdown"], environment: environment)
    }
    let pids = ["slurmd", "slurmctld", "munged"].compactMap { name -> pid_t? in
      let text = (try? String(contentsOf: folder.appendingPathComponent("\(name).pid"), encoding: .utf8)) ?? ""
      return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    func alive(_ pid: pid_t) -> Bool {
      // A daemon whose wrapper shell has reaped it is gone; a zombie is
      // as good as gone.
      guard kill(pid, 0) == 0 else { return false }
      let status = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
      return !status.contains(") Z ")
    }
    if let munged = pids.last { kill(munged, SIGTERM) }
    if !ServingChecks.wait(15, interval: 0.2, { pids.allSatisfy { !alive($0) } }) {
      for pid in pids where alive(pid) { kill(pid, SIGKILL) }
    }
    for (_, p) in daemons.reversed() {
      for _ in 0..<200 where p.isRunning { usleep(50_000) }
      if p.isRunning { kill(p.processIdentifier, SIGKILL) }
      p.waitUntilExit()
    }
    daemons = []
  }

  /// `sbatch --parsable …`: the job id.
  func submit(_ arguments: [String]) throws -> String {
    let r = try Run.process(tool("sbatch"), ["--parsable"] + arguments, environment: environment)
    try #require(r.status == 0, "sbatch \(arguments): \(r.stderr)")
    return String(r.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ";").first ?? "")
  }

  func control(_ arguments: [String]) throws {
    let r = try Run.process(tool("scontrol"), arguments, environment: environment)
    try #require(r.status == 0, "scontrol \(arguments): \(r.stderr)")
  }

  func cancel(_ arguments: [String]) throws {
    let r = try Run.process(tool("scancel"), arguments, environment: environment)
    try #require(r.status == 0, "scancel \(arguments): \(r.stderr)")
  }

  /// The state of one job or array task (`scontrol -o show job`).
  func state(_ id: String) throws -> End? {
    let r = try Run.process(tool("scontrol"), ["-o", "show", "job", id], environment: environment)
    guard r.status == 0, let line = r.stdoutText.split(separator: "\n").first else { return nil }
    func field(_ name: String) -> String {
      guard let range = line.range(of: " \(name)=") else { return "" }
      return String(line[range.upperBound...].prefix { $0 != " " })
    }
    return End(state: field("JobState"), exitCode: field("ExitCode"), reason: field("Reason"), restarts: field("Restarts"))
  }

  /// Waits (at most 10 minutes) until the job has ended; with `after`,
  /// until it has left that state and ended again.
  func waitForEnd(_ id: String, after previous: String? = nil) throws -> End {
    let terminal: Set<String> = ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"]
    var left = previous == nil
    var last: End?
    let ended = try ServingChecks.wait(600) {
      last = try state(id)
      guard let s = last?.state else { return false }
      if !left { left = s != previous }
      return left && terminal.contains(s)
    }
    try #require(ended, "job \(id) did not end: \(last?.description ?? "unknown"); \(diagnostics())")
    return try #require(last)
  }

  /// The queue and the daemons' last log lines, for a failure message.
  func diagnostics() -> String {
    var text = ""
    if !environment.isEmpty, let q = try? Run.process(tool("squeue"), ["-a"], environment: environment) {
      text += "squeue:\n" + q.stdoutText
    }
    for name in ["munged.out", "slurmctld.log", "slurmd.log"] {
      let lines = ((try? String(contentsOf: folder.appendingPathComponent("logs/\(name)"), encoding: .utf8)) ?? "")
        .split(separator: "\n").suffix(8)
      text += "\n\(name):\n" + lines.joined(separator: "\n")
    }
    return text
  }
}
