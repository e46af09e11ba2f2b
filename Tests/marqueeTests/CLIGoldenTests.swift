import Foundation
import MarqueeTestSupport
import Testing

/// The command line's text against golden files (`Tests/Golden/cli/`):
/// help, usage errors and the error lines of `validate`. Re-record with
/// `MARQUEE_RECORD_GOLDEN=1 swift test --filter CLIGoldenTests`.
@Suite("CLI text: golden files")
struct CLIGoldenTests {
  @Test("--help of marquee and of every command", arguments: ["", "init", "build", "merge", "verify", "validate", "preview",
                                                             "nginx-config", "demo-sources"])
  func help(command: String) throws {
    let result = try MarqueeCLI.run(command.isEmpty ? ["--help"] : [command, "--help"])
    #expect(result.status == 0)
    let name = command.isEmpty ? "cli/help.txt" : "cli/help-\(command).txt"
    if let problem = GoldenFile.mismatch(result.stdoutText, name: name) { Issue.record("\(problem)") }
  }

  @Test("a usage error: the message, the command's usage lines, exit 2")
  func usageError() throws {
    let result = try MarqueeCLI.run(["build", "job.json", "--jobs", "0"])
    #expect(result.status == 2)
    if let problem = GoldenFile.mismatch(result.stderr, name: "cli/usage-error.txt") { Issue.record("\(problem)") }
  }

  @Test("validate's error lines name the job file, the JSON path and the reason")
  func validateErrors() throws {
    let fixture = try BatchFixture("golden-validate", twins: true)
    defer { fixture.remove() }
    try fixture.png("b.png")
    try Data("not a video at all".utf8).write(to: fixture.dir.appendingPathComponent("text.mp4"))
    _ = try fixture.job([
      ["id": "gone", "type": "video", "source": "missing.mov"],
      ["id": "text", "type": "video", "source": "text.mp4"],
      ["id": "pixels", "type": "image", "source": "b.png"],
    ], settings: ["max_pixels": 1000], file: "bad.json")
    let result = try MarqueeCLI.run(["validate", "bad.json", "--log-format", "plain"], in: fixture.dir)
    #expect(result.status == 2)
    // Plain lines start with a UTC timestamp: the one part that changes.
    let text = result.stderr.replacingOccurrences(of: #"(?m)^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ "#, with: "<time> ",
                                                  options: .regularExpression)
    if let problem = GoldenFile.mismatch(text, name: "cli/validate-errors.txt") { Issue.record("\(problem)") }
  }
}
