import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

// MARK: - Support for the batch-run suites (CLI, Verify, Publish, Incremental, Locking, Logs, Shard)

/// The built `marquee` executable, run as a separate process the way cron
/// and Kubernetes run it.
enum MarqueeCLI {
  /// `marquee` beside the test runner (both are products of the same
  /// `swift build`), else `<repo>/.build/debug/marquee`.
  static var executable: URL {
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = dir.appendingPathComponent("marquee")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      dir = dir.deletingLastPathComponent()
    }
    let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return repo.appendingPathComponent(".build/debug/marquee")
  }

  /// The environment of a run: ours without test hooks, plus `extra`.
  static func environment(_ extra: [String: String] = [:]) -> [String: String] {
    var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("MARQUEE_TEST_") }
    env["NO_COLOR"] = nil
    for (k, v) in extra { env[k] = v }
    return env
  }

  /// Runs `marquee <arguments>` to completion.
  static func run(_ arguments: [String], in directory: URL? = nil, environment extra: [String: String] = [:]) throws -> ProcessResult {
    try Run.process(executable.path, arguments, currentDirectory: directory, environment: environment(extra))
  }

  /// Runs `marquee <arguments>` under `ulimit -f <blocks>` (512-byte blocks
  /// in dash): a disk that fills up, where mounting one is not possible.
  /// A run that hangs is killed after 10 minutes (coreutils `timeout`), so
  /// a hang fails the test instead of stalling the suite.
  static func runWithFileSizeLimit(blocks: Int, _ arguments: [String], in directory: URL? = nil) throws -> ProcessResult {
    try Run.process("/bin/sh", ["-c", "ulimit -f \(blocks) && exec timeout -s KILL 600 \"$0\" \"$@\"", executable.path] + arguments,
                    currentDirectory: directory, environment: environment())
  }
}

/// A scratch folder with small synthetic sources (320x240, 1 s) and job
/// files, removed by `remove()`.
struct BatchFixture {
  let dir: URL

  init(_ label: String = "batch") throws {
    dir = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  }

  var out: URL { dir.appendingPathComponent("out") }

  func remove() { try? FileManager.default.removeItem(at: dir) }

  /// A 1 s, 320x240, 25 fps H.264 clip from libavfilter's `testsrc2`,
  /// its hue turned by `hue` degrees so clips differ; with a tone unless
  /// `tone` is nil.
  @discardableResult
  func clip(_ name: String, hue: Int = 0, tone: Int? = 440, seconds: Double = 1) throws -> URL {
    let url = dir.appendingPathComponent(name)
    try SyntheticMedia.writeClip(
      .init(video: "testsrc2=size=320x240:rate=25,hue=h=\(hue)", frameRate: Rational(25, 1), duration: seconds, toneHz: tone),
      to: url.path)
    return url
  }

  /// A small product-on-white PNG (`DemoSources.productOnWhite`).
  @discardableResult
  func png(_ name: String, width: Int = 240, height: Int = 180) throws -> URL {
    let url = dir.appendingPathComponent(name)
    try PNGWriter.encode(DemoSources.productOnWhite(width: width, height: height)).write(to: url)
    return url
  }

  /// A small photo-like JPEG from libavfilter's `gradients`.
  @discardableResult
  func jpeg(_ name: String, seed: Int = 3) throws -> URL {
    let url = dir.appendingPathComponent(name)
    try JPEGEncoder.encode(SyntheticMedia.renderStill("gradients=size=320x200:seed=\(seed)"), quality: 90).write(to: url)
    return url
  }

  /// Writes a job file; sources are paths relative to the fixture folder.
  @discardableResult
  func job(_ banners: [[String: Any]], name: String = "home", settings: [String: Any]? = nil,
           baseURL: String? = "https://cdn.example.com/home/", file: String = "job.json") throws -> URL {
    var doc: [String: Any] = ["name": name, "banners": banners]
    if let baseURL { doc["base_url"] = baseURL }
    if let settings { doc["settings"] = settings }
    let url = dir.appendingPathComponent(file)
    try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys]).write(to: url)
    return url
  }

  /// The standard 4-item job: two videos (one silent), a PNG and a JPEG.
  @discardableResult
  func fourItemJob(file: String = "job.json") throws -> URL {
    try clip("a.mp4", hue: 0)
    try clip("b.mp4", hue: 120, tone: nil)
    try png("c.png")
    try jpeg("d.jpg")
    return try job([
      ["id": "clip-a", "type": "video", "source": "a.mp4", "link": "https://example.com/a"],
      ["id": "clip-b", "type": "video", "source": "b.mp4", "cover": "first"],
      ["id": "product", "type": "image", "source": "c.png"],
      ["id": "photo", "type": "image", "source": "d.jpg", "link": "https://example.com/d"],
    ], file: file)
  }

  /// A job on the library API.
  func readJob(_ file: String = "job.json") throws -> Job {
    try JobReader().read(contentsOf: dir.appendingPathComponent(file))
  }
}

/// Every regular file under a folder, by relative path, with its bytes.
enum TreeSnapshot {
  static func of(_ folder: URL) throws -> [String: Data] {
    var result: [String: Data] = [:]
    let base = folder.standardizedFileURL.path
    guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { return [:] }
    for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
      let path = url.standardizedFileURL.path
      result[String(path.dropFirst(base.count + 1))] = try Data(contentsOf: url)
    }
    return result
  }

  /// The files that differ (missing on either side, or other bytes), each
  /// with its sizes, digests and first differing offset
  /// (`ByteComparison`).
  static func differences(_ a: [String: Data], _ b: [String: Data]) -> [String] {
    Set(a.keys).union(b.keys).sorted().compactMap { path in
      guard let x = a[path], let y = b[path] else { return a[path] == nil ? "\(path) (only in the second)" : "\(path) (only in the first)" }
      return ByteComparison.difference(x, y).map { "\(path): \($0)" }
    }
  }
}

/// A `marquee` run whose stdout lines can be awaited while it runs: for
/// killing a run at a given event, or starting a second one while the
/// first holds the lock.
final class LiveProcess: @unchecked Sendable {
  private let process = Process()
  private let condition = NSCondition()
  private var lines: [String] = []
  private var stdoutDone = false
  private var errText = Data()
  private var errDone = false

  init(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws {
    process.executableURL = MarqueeCLI.executable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    process.environment = MarqueeCLI.environment(environment)
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    Thread.detachNewThread { [self] in
      var pending = Data()
      while true {
        let chunk = out.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        pending.append(chunk)
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
          let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
          pending.removeSubrange(pending.startIndex...newline)
          condition.lock()
          lines.append(line)
          condition.broadcast()
          condition.unlock()
        }
      }
      condition.lock()
      stdoutDone = true
      condition.broadcast()
      condition.unlock()
    }
    Thread.detachNewThread { [self] in
      let data = err.fileHandleForReading.readDataToEndOfFile()
      condition.lock()
      errText = data
      errDone = true
      condition.broadcast()
      condition.unlock()
    }
  }

  var pid: Int32 { process.processIdentifier }

  /// Waits for a stdout line matching `match`; `nil` when the run ended
  /// without one. (A generous safety limit keeps a broken run from hanging
  /// the suite; nothing is timed.)
  func waitForLine(_ match: (String) -> Bool) -> String? {
    let limit = Date().addingTimeInterval(300)
    condition.lock()
    defer { condition.unlock() }
    var seen = 0
    while true {
      while seen < lines.count {
        if match(lines[seen]) { return lines[seen] }
        seen += 1
      }
      if stdoutDone || Date() > limit { return nil }
      condition.wait(until: limit)
    }
  }

  /// Waits for the JSON log event `stage`/`event` (optionally of `item`).
  func waitForEvent(stage: String, event: String, item: String? = nil) -> String? {
    waitForLine { line in
      guard let data = line.data(using: .utf8),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return false }
      return object["stage"] as? String == stage && object["event"] as? String == event
        && (item == nil || object["item"] as? String == item)
    }
  }

  func kill9() { kill(process.processIdentifier, SIGKILL) }

  /// Waits for the run to end: exit status (or signal) and the output.
  func finish() -> (status: Int32, signaled: Bool, stdout: String, stderr: String) {
    process.waitUntilExit()
    condition.lock()
    let limit = Date().addingTimeInterval(60)
    while !(stdoutDone && errDone) && Date() < limit { condition.wait(until: limit) }
    let out = lines.joined(separator: "\n")
    let err = String(decoding: errText, as: UTF8.self)
    condition.unlock()
    return (process.terminationStatus, process.terminationReason == .uncaughtSignal, out, err)
  }
}

// MARK: - CLI tests

@Suite("CLI: commands, help, exit codes")
struct CLITests {
  static let commands = ["build", "merge", "verify", "validate", "demo-sources"]

  @Test("--help for every command, with its exit codes", arguments: ["build", "merge", "verify", "validate", "demo-sources"])
  func helpForEveryCommand(command: String) throws {
    let result = try MarqueeCLI.run([command, "--help"])
    #expect(result.status == 0)
    #expect(result.stdoutText.hasPrefix("Usage: marquee \(command)"))
    #expect(result.stdoutText.contains("Exit codes"))
  }

  @Test("marquee --help lists every command and the five exit codes")
  func mainHelp() throws {
    let result = try MarqueeCLI.run(["--help"])
    #expect(result.status == 0)
    for command in Self.commands { #expect(result.stdoutText.contains("  \(command) ")) }
    for code in ["0  every item", "1  some items failed", "2  usage error", "3  the bundle is locked", "4  I/O error"] {
      #expect(result.stdoutText.contains(code), "missing exit code line: \(code)")
    }
    let help = try MarqueeCLI.run(["help", "verify"])
    #expect(help.stdoutText.hasPrefix("Usage: marquee verify"))
  }

  @Test("marquee without a command prints the usage on stderr and exits 2")
  func noCommand() throws {
    let result = try MarqueeCLI.run([])
    #expect(result.status == 2)
    #expect(result.stdout.isEmpty, "\(result.stdoutText)")
    #expect(result.stderr.hasPrefix("error: "), "\(result.stderr)")
    #expect(result.stderr.contains("Usage: marquee <command>"), "\(result.stderr)")
    #expect(result.stderr.contains("marquee --help"))
  }

  @Test("--version prints the version")
  func version() throws {
    let result = try MarqueeCLI.run(["--version"])
    #expect(result.status == 0)
    #expect(result.stdoutText.hasPrefix("marquee \(ItemFingerprint.marqueeVersion)\n"))
  }

  /// The oracles are other programs linked to the same libraries:
  /// `ffprobe -version` prints the versions its loaded FFmpeg libraries
  /// report (the second column), pkg-config the installed -dev packages'.
  @Test("--version names each linked C library with the version it reports")
  func versionNamesLinkedLibraries() throws {
    let result = try MarqueeCLI.run(["--version"])
    #expect(result.status == 0)
    let lines = result.stdoutText.split(separator: "\n").map(String.init)
    #expect(lines.count == 6, "\(lines)")

    let probe = try Run.process("ffprobe", ["-hide_banner", "-version"])
    let probeText = probe.stdoutText
    let release = try #require(probeText.split(separator: "\n").first?.split(separator: " ").dropFirst(2).first)
    let ffmpegLine = try #require(lines.first { $0.hasPrefix("FFmpeg ") })
    #expect(ffmpegLine.hasPrefix("FFmpeg \(release) ("), "\(ffmpegLine) vs ffprobe \(release)")
    #expect(ffmpegLine.contains("GPL version 2 or later"), "Debian's FFmpeg is built with --enable-gpl: \(ffmpegLine)")
    for library in ["libavformat", "libavcodec", "libavfilter", "libswscale", "libswresample", "libavutil"] {
      // `libavformat    59. 27.100 / 59. 27.100`: compile time / run time.
      let row = try #require(probeText.split(separator: "\n").first { $0.hasPrefix(library + " ") })
      let runtime = row.split(separator: "/").last!.replacingOccurrences(of: " ", with: "")
      #expect(ffmpegLine.contains("\(library) \(runtime)"), "\(ffmpegLine) vs ffprobe's \(row)")
    }

    func pkgConfig(_ module: String) throws -> String {
      try Run.process("pkg-config", ["--modversion", module]).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    #expect(lines.contains("libwebp \(try pkgConfig("libwebp")), libwebpmux \(try pkgConfig("libwebpmux")), libwebpdemux \(try pkgConfig("libwebpdemux"))"), "\(lines)")
    #expect(lines.contains("Little CMS \(try pkgConfig("lcms2"))"), "\(lines)")
    #expect(lines.contains("libheif \(try pkgConfig("libheif"))"), "\(lines)")
    // libjpeg.so.62 is the libjpeg 6b ABI.
    #expect(lines.contains("libjpeg-turbo \(try pkgConfig("libjpeg")) (build headers; the library reports libjpeg API 6b)"), "\(lines)")
  }

  struct UsageCase: Sendable, CustomTestStringConvertible {
    var arguments: [String]
    var message: String
    var testDescription: String { arguments.joined(separator: " ") }
  }

  @Test("usage errors exit 2 with the message and the command's usage", arguments: [
    UsageCase(arguments: ["bild"], message: "unknown command 'bild' (did you mean 'build'?)"),
    UsageCase(arguments: ["build"], message: "build needs a job file"),
    UsageCase(arguments: ["build", "j.json", "--jobs", "0"], message: "--jobs needs a whole number of at least 1"),
    UsageCase(arguments: ["build", "j.json", "--frobnicate"], message: "unknown option '--frobnicate' for build"),
    UsageCase(arguments: ["build", "j.json", "--out", "o", "--shard", "2/2"], message: "--shard needs i/n with 0 <= i < n"),
    UsageCase(arguments: ["build", "j.json", "--shard", "0/2"], message: "--shard needs --out DIR"),
    UsageCase(arguments: ["build", "j.json", "--log-format", "xml"], message: "--log-format is text, plain or json"),
    UsageCase(arguments: ["merge", "j.json"], message: "merge needs --out DIR"),
    UsageCase(arguments: ["verify"], message: "verify needs a bundle folder"),
    UsageCase(arguments: ["validate", "a.json", "b.json"], message: "validate takes one job file"),
  ])
  func usageErrors(_ c: UsageCase) throws {
    let result = try MarqueeCLI.run(c.arguments)
    #expect(result.status == 2)
    #expect(result.stderr.hasPrefix("error: \(c.message)"), "stderr: \(result.stderr)")
    #expect(result.stderr.contains("Usage: marquee"))
    #expect(result.stdout.isEmpty)
  }

  @Test("validate: a good job passes; problems name JSON paths and exit 2")
  func validate() throws {
    let fixture = try BatchFixture("validate")
    defer { fixture.remove() }
    try fixture.clip("a.mp4")
    try fixture.png("b.png")
    let good = try fixture.job([
      ["id": "a", "type": "video", "source": "a.mp4"],
      ["id": "b", "type": "image", "source": "b.png"],
    ])
    let ok = try MarqueeCLI.run(["validate", good.path, "--log-format", "plain"])
    #expect(ok.status == 0, "\(ok.stderr)")
    #expect(ok.stdoutText.contains("is valid: 2 banner(s)"))

    try Data("not a video at all".utf8).write(to: fixture.dir.appendingPathComponent("text.mp4"))
    let bad = try fixture.job([
      ["id": "a", "type": "video", "source": "a.mp4"],
      ["id": "gone", "type": "video", "source": "missing.mov"],
      ["id": "text", "type": "video", "source": "text.mp4"],
      ["id": "pixels", "type": "image", "source": "b.png"],
    ], settings: ["max_pixels": 1000], file: "bad.json")
    let result = try MarqueeCLI.run(["validate", bad.path])
    #expect(result.status == 2)
    let lines = result.stderr.split(separator: "\n").map(String.init)
    #expect(lines.contains { $0.contains("banners[0].source:") && $0.contains("max_pixels") }, "\(lines)")
    #expect(lines.contains { $0.contains("banners[1].source: file not found (missing.mov)") }, "\(lines)")
    #expect(lines.contains { $0.contains("banners[2].source:") }, "\(lines)")
    #expect(lines.contains { $0.contains("banners[3].source:") && $0.contains("max_pixels") }, "\(lines)")

    let schema = try fixture.job([["id": "a", "type": "video", "source": "a.mp4", "mutted": true]], file: "typo.json")
    let typo = try MarqueeCLI.run(["validate", schema.path])
    #expect(typo.status == 2)
    #expect(typo.stderr.contains("banners[0].mutted: unknown key \"mutted\" (did you mean \"muted\"?)"), "\(typo.stderr)")
  }

  @Test("build: a missing job file is a job error (exit 2); a failed item exits 1 and publishes nothing")
  func buildExitCodes() throws {
    let fixture = try BatchFixture("exit")
    defer { fixture.remove() }
    let missing = try MarqueeCLI.run(["build", fixture.dir.appendingPathComponent("nope.json").path, "--out", fixture.out.path])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("nope.json: no such file"))

    try fixture.png("b.png")
    let job = try fixture.job([
      ["id": "gone", "type": "video", "source": "missing.mov"],
      ["id": "b", "type": "image", "source": "b.png"],
    ])
    let result = try MarqueeCLI.run(["build", job.path, "--out", fixture.out.path])
    #expect(result.status == 1)
    #expect(result.stderr.contains("gone: hash failed: missing.mov: file not found"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: fixture.out.appendingPathComponent("home").path))
  }

  @Test("a build that publishes nothing says whether a bundle is kept or none exists yet")
  func notPublishedWording() throws {
    let fixture = try BatchFixture("not-published")
    defer { fixture.remove() }
    try fixture.png("b.png")
    let bundle = fixture.out.appendingPathComponent("home").path
    let bad = try fixture.job([
      ["id": "gone", "type": "image", "source": "missing.png"],
      ["id": "b", "type": "image", "source": "b.png"],
    ], file: "bad.json").path
    let first = try MarqueeCLI.run(["build", bad, "--out", fixture.out.path])
    #expect(first.status == 1)
    #expect(first.stdoutText.contains("Not published: no bundle at \(bundle) yet"), "\(first.stdoutText)")
    #expect(!first.stdoutText.contains("unchanged") && !first.stderr.contains("unchanged"), "\(first.stdoutText)\(first.stderr)")
    let json = try MarqueeCLI.run(["build", bad, "--out", fixture.out.path, "--log-format", "json"])
    let notPublished = json.stdoutText.split(separator: "\n").first { $0.contains("\"not_published\"") }
    #expect(notPublished?.contains("no bundle at \(bundle) yet") == true, "\(json.stdoutText)")
    let merge = try MarqueeCLI.run(["merge", bad, "--out", fixture.out.path])
    #expect(merge.stdoutText.contains("Not published: no bundle at \(bundle) yet"), "\(merge.stdoutText)")

    let good = try fixture.job([["id": "b", "type": "image", "source": "b.png"]]).path
    #expect(try MarqueeCLI.run(["build", good, "--out", fixture.out.path]).status == 0)
    let again = try MarqueeCLI.run(["build", bad, "--out", fixture.out.path])
    #expect(again.status == 1)
    #expect(again.stdoutText.contains("Not published: \(bundle) is unchanged"), "\(again.stdoutText)")
    #expect(again.stderr.contains("the previous bundle is unchanged"), "\(again.stderr)")
  }

  @Test("the job schema in Pipelines/ is valid JSON and knows every key the reader accepts")
  func jobSchema() throws {
    let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let data = try Data(contentsOf: repo.appendingPathComponent("Pipelines/job.schema.json"))
    let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let properties = try #require(schema["properties"] as? [String: Any])
    #expect(Set(properties.keys).isSuperset(of: JobDocumentValidator.rootKeys))
    let defs = try #require(schema["$defs"] as? [String: Any])
    let settings = try #require((defs["settings"] as? [String: Any])?["properties"] as? [String: Any])
    #expect(Set(settings.keys) == Set(JobDocumentValidator.settingsKeys), "schema settings differ from the reader's")
    let banner = try #require((defs["banner"] as? [String: Any])?["properties"] as? [String: Any])
    #expect(Set(banner.keys) == Set(JobDocumentValidator.bannerKeys), "schema banner keys differ from the reader's")
  }
}
