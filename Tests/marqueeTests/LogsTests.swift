import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit
@testable import MediaIO

/// What runs print: JSON lines for log shippers, plain lines for cron
/// mail, a live display on a terminal; `--quiet`; `NO_COLOR`.
@Suite("Logs: JSON lines, plain lines, terminal")
struct LogsTests {
  static func jsonLines(_ text: String) -> [(line: String, object: [String: Any]?)] {
    text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }.map { line in
      (String(line), (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])
    }
  }

  /// The keys the README promises on every JSON line.
  static let documentedKeys = ["time", "level", "item", "stage", "event", "duration", "error", "message"]

  @Test("--log-format json: every stdout line is one JSON object with every documented key, message included")
  func jsonLogLinesParse() throws {
    let fixture = try BatchFixture("logs-json")
    defer { fixture.remove() }
    try fixture.clip("a.mp4")
    try fixture.png("b.png")
    try Data("junk".utf8).write(to: fixture.dir.appendingPathComponent("junk.mp4"))
    let job = try fixture.job([
      ["id": "a", "type": "video", "source": "a.mp4"],
      ["id": "b", "type": "image", "source": "b.png"],
      ["id": "junk", "type": "video", "source": "junk.mp4"],
    ]).path
    for arguments in [["build", job, "--out", fixture.out.path, "--log-format", "json", "--verbose"],
                      ["build", job, "--out", fixture.out.path, "--log-format", "json", "--allow-partial"],
                      ["verify", fixture.out.appendingPathComponent("home").path, "--log-format", "json"],
                      ["verify", fixture.dir.path, "--log-format", "json"],
                      ["validate", job, "--log-format", "json"]] {
      let result = try MarqueeCLI.run(arguments)
      let lines = Self.jsonLines(result.stdoutText)
      #expect(!lines.isEmpty)
      for (line, object) in lines {
        let o = try #require(object, "not JSON: \(line)")
        for key in Self.documentedKeys {
          #expect(o.keys.contains(key), "\(key) missing: \(line)")
        }
        let time = try #require(o["time"] as? String)
        #expect(time.hasSuffix("Z") && time.count == 24, "time \(time)")
        let message = o["message"] as? String ?? ""
        #expect(!message.isEmpty, "empty message: \(line)")
        if let error = o["error"] as? String {
          #expect(message.contains(error), "the message does not say what failed: \(line)")
        }
      }
      #expect(!result.stderr.contains("{"), "JSON went to stderr: \(result.stderr)")
    }
    let build = try MarqueeCLI.run(["build", job, "--out", fixture.out.path, "--log-format", "json"])
    let objects = Self.jsonLines(build.stdoutText).compactMap(\.object)
    let failure = try #require(objects.first { $0["item"] as? String == "junk" && $0["event"] as? String == "failed" })
    #expect((failure["error"] as? String)?.isEmpty == false)
    let summary = try #require(objects.last)
    #expect(summary["event"] as? String == "summary")
    #expect(summary["reused"] as? String == "2" && summary["failed"] as? String == "1")
  }

  @Test("--log-format json with arguments that do not parse: one JSON error line, nothing on stderr, exit 2",
        arguments: [["build", "--log-format", "json", "--bogus"], ["validate", "--log-format=json"],
                    ["build", "job.json", "--jobs", "x", "--log-format", "json"]])
  func usageErrorStaysJSON(arguments: [String]) throws {
    let result = try MarqueeCLI.run(arguments)
    #expect(result.status == 2)
    #expect(result.stderr.isEmpty, "\(result.stderr)")
    let lines = result.stdoutText.split(separator: "\n")
    #expect(lines.count == 1, "\(result.stdoutText)")
    let object = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
    #expect(object["level"] as? String == "error")
    #expect((object["error"] as? String)?.hasPrefix("usage: ") == true, "\(object)")
    #expect(object["code"] as? String == "usage", "\(object)")
    #expect(object["message"] is String)
  }

  @Test("not on a terminal: plain timestamped lines, no escape codes, errors on stderr, the summary table")
  func plainLines() throws {
    let fixture = try BatchFixture("logs-plain")
    defer { fixture.remove() }
    try fixture.png("b.png")
    let job = try fixture.job([
      ["id": "b", "type": "image", "source": "b.png"],
      ["id": "gone", "type": "image", "source": "gone.png"],
    ]).path
    let result = try MarqueeCLI.run(["build", job, "--out", fixture.out.path, "--allow-partial"])
    #expect(result.status == 1)
    #expect(!result.stdoutText.contains("\u{1B}") && !result.stderr.contains("\u{1B}"))
    let first = try #require(result.stdoutText.split(separator: "\n").first)
    #expect(first.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ "#, options: .regularExpression) != nil, "\(first)")
    #expect(result.stderr.contains("error: gone: hash failed: gone.png: file not found"), "\(result.stderr)")
    for header in ["ITEM", "KIND", "STATUS", "FILES", "SIZE", "TIME"] { #expect(result.stdoutText.contains(header)) }
    #expect(result.stdoutText.contains("Published"))
  }

  @Test("item errors name the item and the source as written: plain lines, JSON lines, terminal")
  func itemErrorsNameTheSource() throws {
    let fixture = try BatchFixture("logs-source")
    defer { fixture.remove() }
    let media = fixture.dir.appendingPathComponent("media")
    try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: media.appendingPathComponent("folder.png"), withIntermediateDirectories: true)
    try Data("junk".utf8).write(to: media.appendingPathComponent("junk.mp4"))
    try Data("not a picture".utf8).write(to: media.appendingPathComponent("bad.png"))
    try fixture.png("media/b.png")
    let job = try fixture.job([
      ["id": "a", "type": "image", "source": "media/nope.jpg"],
      ["id": "dir", "type": "image", "source": "media/folder.png"],
      ["id": "j", "type": "video", "source": "media/junk.mp4"],
      ["id": "bad", "type": "image", "source": "media/bad.png"],
      ["id": "b", "type": "image", "source": "media/b.png"],
    ]).path

    let plain = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(plain.status == 1)
    #expect(plain.stderr.contains("error: a: hash failed: media/nope.jpg: file not found"), "\(plain.stderr)")
    #expect(plain.stderr.contains("error: dir: hash failed: media/folder.png: is a folder, not a media file"), "\(plain.stderr)")
    // One form for every stage: `error: <id>: <stage> failed: <source>: <reason>`.
    #expect(plain.stderr.contains("error: j: encode failed: media/junk.mp4: "), "\(plain.stderr)")
    #expect(plain.stderr.contains("error: bad: encode failed: media/bad.png: "), "\(plain.stderr)")
    #expect(!plain.stderr.contains("media/bad.png: bad.png:"), "file named twice: \(plain.stderr)")
    let errors = plain.stderr.split(separator: "\n").filter { $0.contains(" error: ") }
    #expect(errors.count == 4 && !errors.contains { $0.contains(fixture.dir.path) }, "absolute path in an item error: \(errors)")

    let json = try MarqueeCLI.run(["build", job, "--out", fixture.out.path, "--log-format", "json"])
    let objects = Self.jsonLines(json.stdoutText).compactMap(\.object)
    let failure = try #require(objects.first { $0["item"] as? String == "a" && $0["event"] as? String == "failed" })
    #expect(failure["stage"] as? String == "hash")
    #expect(failure["error"] as? String == "media/nope.jpg: file not found")
    #expect(failure["source"] as? String == "media/nope.jpg")
    let encode = try #require(objects.first { $0["item"] as? String == "j" && $0["event"] as? String == "failed" })
    #expect((encode["error"] as? String)?.hasPrefix("media/junk.mp4: ") == true, "\(encode)")
    // Each failure event carries its error's code.
    #expect(failure["code"] as? String == "unreadable source", "\(failure)")
    #expect(encode["code"] as? String == "corrupt source", "\(encode)")
    let codes = objects.filter { $0["event"] as? String == "failed" && $0["item"] != nil }.map { $0["code"] as? String }
    #expect(codes.count == 4 && !codes.contains(nil), "\(codes)")

    // --verbose: under the summary, each failure's code, cause and where
    // it was raised; the error lines themselves are as without it.
    let verbose = try MarqueeCLI.run(["build", job, "--out", fixture.out.path, "--verbose"])
    #expect(verbose.status == 1)
    #expect(verbose.stderr.contains("error: a: hash failed: media/nope.jpg: file not found"), "\(verbose.stderr)")
    let detail = verbose.stdoutText.components(separatedBy: "  a: hash failed: media/nope.jpg\n").dropFirst().first ?? ""
    let lines = detail.split(separator: "\n").prefix(4).map(String.init)
    #expect(lines.count == 4 && lines[0] == "    file not found" && lines[1] == "      code: unreadable source",
            "\(verbose.stdoutText)")
    #expect(lines.count == 4 && lines[2].hasPrefix("      cause: open") && lines[2].hasSuffix("file not found"), "\(lines)")
    #expect(lines.count == 4 && lines[3].hasPrefix("      at: MarqueeKit/"), "\(lines)")
    #expect(!plain.stdoutText.contains("code: "), "details without --verbose: \(plain.stdoutText)")

    let terminal = try Self.onTerminal(["build", job, "--out", fixture.out.path], environment: ["NO_COLOR": "1"])
    #expect(terminal.contains("error: a: hash failed: media/nope.jpg: file not found"), "\(terminal)")
    #expect(terminal.contains("error: j: encode failed: media/junk.mp4: "), "\(terminal)")
  }

  @Test("--quiet prints nothing for a good run, only errors for a bad one")
  func quiet() throws {
    let fixture = try BatchFixture("logs-quiet")
    defer { fixture.remove() }
    try fixture.png("b.png")
    let job = try fixture.job([["id": "b", "type": "image", "source": "b.png"]]).path
    let good = try MarqueeCLI.run(["build", job, "--out", fixture.out.path, "--quiet"])
    #expect(good.status == 0)
    #expect(good.stdout.isEmpty && good.stderr.isEmpty, "\(good.stdoutText) \(good.stderr)")
    let bad = try fixture.job([["id": "gone", "type": "image", "source": "gone.png"]], file: "bad.json").path
    let failed = try MarqueeCLI.run(["build", bad, "--out", fixture.out.path, "--quiet"])
    #expect(failed.status == 1)
    #expect(failed.stdout.isEmpty)
    #expect(failed.stderr.contains("gone"))
  }

  /// Runs `marquee` on a pseudo-terminal (util-linux `script`), the way a
  /// person at a terminal sees it.
  static func onTerminal(_ arguments: [String], environment: [String: String]) throws -> String {
    let command = ([MarqueeCLI.executable.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
    var env = MarqueeCLI.environment(environment)
    env["TERM"] = "xterm"
    let result = try Run.process("script", ["-qec", command, "/dev/null"], environment: env)
    return result.stdoutText
  }

  @Test("on a terminal: a line per item and the summary table, coloured unless NO_COLOR is set")
  func terminal() throws {
    let fixture = try BatchFixture("logs-tty")
    defer { fixture.remove() }
    let job = try fixture.videoAndImageJob().path
    let colored = try Self.onTerminal(["build", job, "--out", fixture.out.path], environment: [:])
    #expect(colored.contains("✓"), "\(colored)")
    #expect(colored.contains("\u{1B}[32m"), "no colour on a terminal")
    #expect(colored.contains("STATUS") && colored.contains("built"))
    let plain = try Self.onTerminal(["build", job, "--out", fixture.out.path], environment: ["NO_COLOR": "1"])
    #expect(plain.contains("reused"), "\(plain)")
    #expect(plain.range(of: "\u{1B}\\[[0-9;]*m", options: .regularExpression) == nil, "colour despite NO_COLOR: \(plain)")
  }

  @Test("JSON escaping and numbers")
  func logLineFormatting() throws {
    var event = BuildEvent(level: .error, item: "a\"b", stage: .encode, event: .failed, duration: 1.23456,
                           error: "line1\nline2\t\u{01}", message: "ünïcode", fields: ["file": "x/y"],
                           time: Date(timeIntervalSince1970: 1_700_000_000.5))
    event.progress = 0.5
    let line = LogLine.json(event)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect(object["item"] as? String == "a\"b")
    #expect(object["error"] as? String == "line1\nline2\t\u{01}")
    #expect(object["message"] as? String == "ünïcode")
    #expect(object["duration"] as? Double == 1.235)
    #expect(object["time"] as? String == "2023-11-14T22:13:20.500Z")
    #expect(object["file"] as? String == "x/y")
    #expect(line.hasPrefix("{\"time\":"))
    #expect(!line.contains("\n"))
    #expect(LogLine.json(BuildEvent(stage: .run, event: .summary)).contains("\"item\":null,\"stage\":\"run\",\"event\":\"summary\",\"duration\":null,\"error\":null"))
  }

  @Test("an event without a message still has one in JSON: what happened, and for an error what failed")
  func jsonMessageAlwaysPresent() throws {
    let failed = BuildEvent(level: .error, item: "a", stage: .hash, event: .failed, error: "media/nope.jpg: file not found")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(LogLine.json(failed).utf8)) as? [String: Any])
    #expect(object["message"] as? String == "hash failed: media/nope.jpg: file not found")
    let verified = BuildEvent(level: .debug, item: "a", stage: .verify, event: .finished, duration: 0.25)
    let line = try #require(try JSONSerialization.jsonObject(with: Data(LogLine.json(verified).utf8)) as? [String: Any])
    #expect(line["message"] as? String == "verify finished")
    #expect(LogLine.json(verified).contains("\"error\":null,\"message\":"))
  }

  /// A GIF whose trailer is not a block label FFmpeg knows (it logs
  /// "invalid block label" or similar).
  static func corruptGIF() -> Data {
    var data = SyntheticGIF.make(
      width: 32, height: 32, palette: [(0, 0, 0), (255, 0, 0)],
      frames: [.init(width: 32, height: 32, indices: [UInt8](repeating: 1, count: 1024), disposal: 1, transparentIndex: nil,
                     delayCentiseconds: 10),
               .init(width: 32, height: 32, indices: [UInt8](repeating: 0, count: 1024), disposal: 1, transparentIndex: nil,
                     delayCentiseconds: 10)])
    data.removeLast()
    data.append(contentsOf: [0x99, 0x12, 0x34])
    return data
  }

  /// What a `MediaLog` handler received.
  // Safe: `stored` is read and written only with `lock` held.
  final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [MediaLog.Message] = []
    func append(_ m: MediaLog.Message) { lock.lock(); stored.append(m); lock.unlock() }
    var messages: [MediaLog.Message] { lock.lock(); defer { lock.unlock() }; return stored }
  }

  @Test("FFmpeg's log pieces are joined into whole lines, per thread; blank lines dropped")
  func mediaLogLines() {
    let sink = MediaLogSink()
    let received = Received()
    sink.setHandler { received.append($0) }
    sink.receive("Last message ", severity: .warning, component: "gif")
    sink.receive("in two pieces\nand a second line\n", severity: .warning, component: "gif")
    sink.receive("  \n", severity: .error, component: nil)
    sink.receive("unfinished", severity: .error, component: nil)
    #expect(received.messages == [
      MediaLog.Message(severity: .warning, component: "gif", text: "Last message in two pieces"),
      MediaLog.Message(severity: .warning, component: "gif", text: "and a second line"),
    ])
    sink.receive(", now finished\n", severity: .warning, component: "h264")
    #expect(received.messages.last == MediaLog.Message(severity: .error, component: nil, text: "unfinished, now finished"))
    // Two threads logging at once keep their own lines.
    DispatchQueue.concurrentPerform(iterations: 2) { t in
      for i in 0..<200 {
        sink.receive("thread \(t) ", severity: .warning, component: nil)
        sink.receive("line \(i)\n", severity: .warning, component: nil)
      }
    }
    let lines = received.messages.dropFirst(3).map(\.text)
    #expect(lines.count == 400)
    #expect(lines.allSatisfy { $0.range(of: #"^thread [01] line \d+$"#, options: .regularExpression) != nil }, "\(lines)")
  }

  @Test("--verbose --log-format json: FFmpeg's own messages are JSON lines too; every stdout and stderr line parses")
  func ffmpegMessagesAsJSON() throws {
    let fixture = try BatchFixture("logs-ffmpeg")
    defer { fixture.remove() }
    try fixture.clip("a.mp4")
    try Data("junk".utf8).write(to: fixture.dir.appendingPathComponent("junk.mp4"))
    try Self.corruptGIF().write(to: fixture.dir.appendingPathComponent("bad.gif"))
    let job = try fixture.job([
      ["id": "a", "type": "video", "source": "a.mp4"],
      ["id": "junk", "type": "video", "source": "junk.mp4"],
      ["id": "gif", "type": "image", "source": "bad.gif"],
    ]).path
    let verbose = try MarqueeCLI.run(["build", job, "--out", fixture.out.path, "--log-format", "json", "--verbose"])
    var objects: [[String: Any]] = []
    for (line, object) in Self.jsonLines(verbose.stdoutText) + Self.jsonLines(verbose.stderr) {
      let o = try #require(object, "not JSON: \(line)")
      for key in Self.documentedKeys { #expect(o.keys.contains(key), "\(key) missing: \(line)") }
      objects.append(o)
    }
    let ffmpeg = objects.filter { $0["stage"] as? String == "ffmpeg" }
    #expect(ffmpeg.contains { ($0["message"] as? String)?.contains("moov atom not found") == true }, "\(verbose.stdoutText)")
    #expect(ffmpeg.contains { $0["component"] as? String == "gif" && $0["message"] as? String == "invalid block label" },
            "\(verbose.stdoutText)")
    for o in ffmpeg {
      #expect(["error", "warning"].contains(o["level"] as? String ?? ""), "\(o)")
      #expect((o["message"] as? String)?.isEmpty == false && (o["message"] as? String)?.contains("\n") == false, "\(o)")
    }
    #expect(verbose.stderr.isEmpty, "stderr in JSON mode: \(verbose.stderr)")

    let quiet = try MarqueeCLI.run(["build", job, "--out", fixture.out.path, "--log-format", "json", "--rebuild"])
    #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
    let lines = Self.jsonLines(quiet.stdoutText)
    #expect(lines.allSatisfy { $0.object != nil })
    #expect(!lines.contains { $0.object?["stage"] as? String == "ffmpeg" }, "FFmpeg messages without --verbose")
  }
}
