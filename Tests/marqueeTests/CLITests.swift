import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

@Suite("CLI: commands, help, exit codes")
struct CLITests {
  static let commands = ["init", "build", "merge", "verify", "validate", "preview", "nginx-config", "demo-sources"]

  @Test("--help for every command, with its exit codes", arguments: ["init", "build", "merge", "verify", "validate", "preview", "nginx-config", "demo-sources"])
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
    #expect(lines.count == 8, "\(lines)")

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
    // libaom's own version string has a leading v (`aom_codec_version_str`).
    #expect(lines.contains("libavif \(try pkgConfig("libavif")): aom v\(try pkgConfig("aom")) encodes, dav1d \(try pkgConfig("dav1d")) decodes"), "\(lines)")

    // The encoders libavcodec loads: ldd names the libx264 soname, and
    // libx265 says its version when ffmpeg opens it.
    let ldd = try Run.process("ldd", [MarqueeCLI.executable.path]).stdoutText
    let x264 = try #require(ldd.firstMatch(of: #/libx264\.so\.(\d+)/#)?.1, "\(ldd)")
    let x265Run = try Run.process("ffmpeg", ["-hide_banner", "-v", "info", "-f", "lavfi", "-i", "testsrc2=size=64x64:rate=1:duration=1",
                                            "-frames:v", "1", "-c:v", "libx265", "-f", "null", "-"])
    let x265 = try #require(x265Run.stderr.firstMatch(of: #/HEVC encoder version (\S+)/#)?.1, "\(x265Run.stderr)")
    #expect(lines.contains("libx264 build \(x264), libx265 \(x265) (through libavcodec)"), "\(lines)")
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
    UsageCase(arguments: ["build", "j.json", "--out="], message: "--out needs a folder"),
    UsageCase(arguments: ["build", "j.json", "--jobs=0"], message: "--jobs needs a whole number of at least 1"),
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

  @Test("--name=value is read as --name value: a build with --out=DIR --jobs=1 --log-format=json publishes into DIR")
  func longOptionsWithEquals() throws {
    let fixture = try BatchFixture("equals")
    defer { fixture.remove() }
    try fixture.png("b.png")
    let job = try fixture.job([["id": "b", "type": "image", "source": "b.png"]])
    let out = fixture.dir.appendingPathComponent("out=here")
    let result = try MarqueeCLI.run(["build", job.path, "--out=\(out.path)", "--jobs=1", "--log-format=json"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("home/banners.json").path), "\(result.stderr)")
    // JSON lines on stdout: the log format was read from --log-format=json.
    let firstLine = result.stdoutText.split(separator: "\n").first.map(String.init) ?? ""
    #expect(firstLine.hasPrefix("{"), "\(firstLine)")
  }

  @Test("validate: a good job passes; problems name JSON paths and exit 2")
  func validate() throws {
    let fixture = try BatchFixture("validate")
    defer { fixture.remove() }
    let good = try fixture.videoAndImageJob()
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
