import Foundation
import MarqueeKit

/// Entry point: parses the command line, runs the command, maps every
/// outcome to text and an exit code in one place (stages never print).
@main
struct Marquee {
  static func main() async {
    ProcessSetup.ignoreWriteSignals()
    ProcessSetup.keepFreedBuffers()
    let code = await run(Array(CommandLine.arguments.dropFirst()))
    exit(code.rawValue)
  }

  /// Whether the arguments ask for `--log-format json` (also when the
  /// rest of them do not parse).
  static func wantsJSON(_ arguments: [String]) -> Bool {
    if arguments.contains("--log-format=json") { return true }
    return zip(arguments, arguments.dropFirst()).contains { $0 == "--log-format" && $1 == "json" }
  }

  static func run(_ arguments: [String]) async -> ExitCode {
    MediaLog.set(arguments.contains("--verbose") || arguments.contains("-v") ? .warnings : .quiet)
    let command: Command
    do { command = try ArgumentParser.parse(arguments) } catch {
      if wantsJSON(arguments) {
        // The format was asked for even if the rest did not parse: keep the
        // stream JSON for the log shipper.
        let event = BuildEvent(level: .error, stage: .run, event: .failed, error: "usage: \(error.message)",
                               fields: ["code": MarqueeError.Code.usage.description])
        Console.shared.out(LogLine.json(event) + "\n")
      } else {
        Console.shared.err("error: \(error.message)\n\n" + usageLines(for: error.command))
      }
      return ExitCode(for: error)
    }
    switch command {
    case .help(let topic):
      Console.shared.out(HelpText.topic(topic))
      return .success
    case .version:
      Console.shared.out(HelpText.version + "\n")
      return .success
    case .demoSources(let dir):
      do {
        let url = URL(fileURLWithPath: dir)
        try DemoSources.write(into: url)
        for f in DemoSources.files { Console.shared.out(url.appendingPathComponent(f).path + "\n") }
        return .success
      } catch {
        Console.shared.err("error: cannot write the demo sources: \(error)\n")
        return ExitCode(for: MarqueeError(.writeFailed, "\(error)"))
      }
    case .preview(let bundle, let out):
      do {
        let result = try PreviewWriter().write(
          bundle: URL(fileURLWithPath: bundle), into: out.map { URL(fileURLWithPath: $0) })
        for w in result.warnings { Console.shared.err("warning: \(LogLine.printable(w))\n") }
        Console.shared.out(result.html.path + "\n" + result.contactSheet.path + "\n")
        return .success
      } catch {
        Console.shared.err("error: \(error)\n")
        return ExitCode(for: error)
      }
    case .nginxConfig(let n):
      do {
        let config = try NginxBundleConfig(
          bundle: URL(fileURLWithPath: n.bundle), prefix: n.prefix, corsOrigin: n.cors, manifestMaxAge: n.manifestMaxAge)
        Console.shared.out(config.text)
        return .success
      } catch {
        Console.shared.err("error: \(error)\n")
        return ExitCode(for: error)
      }
    case .build(let arguments) where arguments.check:
      return await CheckCommand(arguments: arguments).run()
    case .build(let arguments):
      return await BuildCommand(arguments: arguments).run()
    case .verify(let bundle, let output):
      return VerifyCommand(bundle: bundle, output: output).run()
    case .validate(let job, let output):
      return ValidateCommand(job: job, output: output).run()
    case .initJob(let arguments):
      return InitCommand(arguments: arguments).run()
    }
  }

  /// The usage lines of a command's help (up to the first blank line after
  /// "Usage:"), pointing at `--help` for the rest.
  static func usageLines(for command: String?) -> String {
    guard let command else {
      return "Usage: marquee <command> [options]   (commands: \(ArgumentParser.commands.joined(separator: ", ")))\n\n"
        + "See 'marquee --help' for more.\n"
    }
    let help = HelpText.topic(command)
    let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(where: { $0.hasPrefix("Usage") }) else { return help }
    var usage: [Substring] = []
    for line in lines[start...] {
      if line.isEmpty && !usage.isEmpty && !(usage.last?.hasSuffix(":") ?? false) { break }
      usage.append(line)
    }
    return usage.joined(separator: "\n") + "\n\nSee 'marquee \(command) --help' for more.\n"
  }
}

// MARK: - build / merge

struct BuildCommand {
  let arguments: BuildArguments

  /// Hands the media libraries' log to `reporter` and reads the job of
  /// `arguments` (`build` and `build --check` alike).
  ///
  /// - Returns: the job, or the exit code of the error the reporter said.
  static func readJob(_ arguments: BuildArguments, reporter: Reporter) -> JobRead {
    reporter.takeOverMediaLog()
    do { return .read(try JobReader().read(contentsOf: URL(fileURLWithPath: arguments.job))) } catch {
      reporter.say(.error, .run, .failed, error: error.description, fields: ["code": MarqueeError.Code.usage.description])
      return .failed(ExitCode(for: error))
    }
  }

  /// What `readJob` gives.
  enum JobRead {
    case read(Job)
    case failed(ExitCode)
  }

  func run() async -> ExitCode {
    let reporter = Reporter(output: arguments.output)
    let job: Job
    switch Self.readJob(arguments, reporter: reporter) {
    case .read(let read): job = read
    case .failed(let code): return code
    }
    reporter.prepare(ids: job.banners.map(\.id))
    for w in job.warnings { reporter.say(.warning, .run, .warning, message: w) }
    var options = BuildOptions(outputRoot: URL(fileURLWithPath: arguments.out ?? "Output"),
                               allowPartial: arguments.allowPartial, waitForLock: arguments.wait)
    if let j = arguments.jobs { options.jobs = j }
    options.forceRebuild = arguments.rebuild
    if arguments.merge { options.mode = .merge } else if let s = arguments.shard { options.mode = .shard(s) }
    options.onEvent = reporter.handler
    options.progressInterval = reporter.wantsProgress ? 0.25 : 0
    options.commandDescription = (["marquee", arguments.merge ? "merge" : "build", arguments.job]
      + (arguments.shard.map { ["--shard", $0.description] } ?? [])).joined(separator: " ")

    let report: BuildReport
    do { report = try await BundleBuilder().build(job: job, options: options) } catch {
      let code = ExitCode(for: error)
      let fields = ["code": error.code.description]
      switch code {
      case .locked: reporter.say(.error, .lock, .failed, error: error.message + " (use --wait to wait for it)", fields: fields)
      case .io: reporter.say(.error, .publish, .failed, error: error.message, fields: fields)
      default: reporter.say(.error, .verify, .failed, error: error.message, fields: fields)
      }
      return code
    }
    let manifest = report.bundle.appendingPathComponent("banners.json").path
    let outcome: String? =
      if report.published {
        "Published \(manifest)"
      } else if case .shard(let s) = options.mode {
        "Shard \(s): items stored in \(options.outputRoot.appendingPathComponent(".marquee/store").path); run `marquee merge` when every shard has finished"
      } else if report.hadBundle {
        "Not published: " + (report.overBudget.map { "\($0); " } ?? "") + "\(report.bundle.path) is unchanged"
      } else {
        "Not published: " + (report.overBudget.map { "\($0); " } ?? "") + "no bundle at \(report.bundle.path) yet"
      }
    reporter.summary(report, published: outcome)
    if report.ioError != nil { return .io }
    if report.failedCount > 0 || report.violations.count > 0 { return .itemsFailed }
    if case .shard = options.mode { return .success }
    return report.published ? .success : .itemsFailed
  }
}

// MARK: - verify

struct VerifyCommand {
  let bundle: String
  let output: OutputOptions

  func run() -> ExitCode {
    let reporter = Reporter(output: output)
    reporter.takeOverMediaLog()
    let url = URL(fileURLWithPath: bundle)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
      reporter.say(.error, .verify, .failed, error: "\(bundle): no such bundle folder")
      return .usage
    }
    let start = Date()
    let report = BundleVerifier().verify(bundle: url)
    for w in report.warnings { reporter.say(.warning, .verify, .warning, message: w) }
    for v in report.violations {
      if reporter.mode == .json {
        reporter.say(.error, .verify, .violation, item: v.item, message: v.description, error: v.problem, fields: ["file": v.file])
      } else {
        Console.shared.err("error: \(LogLine.printable(v.description))\n")
      }
    }
    let seconds = LogLine.seconds(Date().timeIntervalSince(start))
    let counts = "\(report.itemCount) item(s), \(report.fileCount) file(s) checked in \(seconds)"
    let fields = ["violations": String(report.violations.count), "items": String(report.itemCount), "files": String(report.fileCount)]
    if report.isValid {
      reporter.say(.info, .verify, .finished, message: "\(bundle) verifies: \(counts)", fields: fields)
      return .success
    }
    reporter.say(.error, .verify, .summary, message: "\(bundle): \(report.violations.count) violation(s); \(counts)", fields: fields)
    return .itemsFailed
  }
}

// MARK: - validate

struct ValidateCommand {
  let job: String
  let output: OutputOptions

  func run() -> ExitCode {
    let reporter = Reporter(output: output)
    reporter.takeOverMediaLog()
    let (parsed, problems) = JobValidator.validate(jobAt: URL(fileURLWithPath: job))
    for p in problems {
      if reporter.mode == .json {
        reporter.say(.error, .run, .failed, message: p.description, error: p.reason, fields: ["file": p.file, "path": p.path])
      } else {
        Console.shared.err("error: \(LogLine.printable(p.description))\n")
      }
    }
    if let parsed {
      for w in parsed.warnings { reporter.say(.warning, .run, .warning, message: w) }
    }
    guard problems.isEmpty, let parsed else {
      reporter.say(.error, .run, .summary, message: "\(job): \(problems.count) problem(s)")
      return .usage
    }
    let videos = parsed.banners.filter { $0.kind == .video }.count
    reporter.say(.info, .run, .finished,
                 message: "\(job) is valid: \(parsed.banners.count) banner(s) (\(videos) video, \(parsed.banners.count - videos) image)")
    return .success
  }
}
