import Foundation
import MarqueeKit

/// Entry point: parses the command line, runs the command, maps every
/// outcome to text and an exit code in one place (stages never print).
@main
struct Marquee {
  static func main() async {
    let code = await run(Array(CommandLine.arguments.dropFirst()))
    exit(code)
  }

  static func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }

  static func run(_ arguments: [String]) async -> Int32 {
    MediaLog.set(arguments.contains("--verbose") || arguments.contains("-v") ? .warnings : .quiet)
    let command: Command
    do { command = try ArgumentParser.parse(arguments) } catch {
      printError("error: \(error)\n")
      printError(HelpText.main)
      return 2
    }
    switch command {
    case .help(let topic):
      switch topic {
      case "build": print(HelpText.build, terminator: "")
      case "demo-sources": print(HelpText.demoSources, terminator: "")
      default: print(HelpText.main, terminator: "")
      }
      return 0
    case .version:
      print(HelpText.version)
      return 0
    case .demoSources(let dir):
      do {
        let url = URL(fileURLWithPath: dir)
        try DemoSources.write(into: url)
        for f in DemoSources.files { print(url.appendingPathComponent(f).path) }
        return 0
      } catch {
        printError("error: cannot write the demo sources: \(error)")
        return 4
      }
    case let .build(jobPath, out, jobs, allowPartial, quiet, verbose):
      return await build(jobPath: jobPath, out: out, jobs: jobs, allowPartial: allowPartial, quiet: quiet, verbose: verbose)
    }
  }

  static func build(jobPath: String, out: String?, jobs: Int?, allowPartial: Bool, quiet: Bool, verbose: Bool) async -> Int32 {
    let job: Job
    do { job = try JobReader().read(contentsOf: URL(fileURLWithPath: jobPath)) } catch {
      printError("error: \(error)")
      return 2
    }
    for w in job.warnings { printError("warning: \(w)") }
    var options = BuildOptions(outputRoot: URL(fileURLWithPath: out ?? "Output"), allowPartial: allowPartial)
    if let j = jobs { options.jobs = j }
    if !quiet { print("Building \(job.banners.count) banner(s) of '\(job.name)' into \(options.outputRoot.appendingPathComponent(job.name).path)") }
    let report: BuildReport
    do { report = try await BundleBuilder().build(job: job, options: options) } catch {
      printError("error: \(error)")
      return 4
    }
    for item in report.items {
      if let f = item.failure {
        printError("error: \(f.description)")
      } else if !quiet {
        print(String(format: "  ok  %@ (%@, %.1f s): %@", item.id, item.kind.rawValue, item.seconds, item.summary))
      }
      for w in item.warnings { printError("warning: \(item.id): \(w)") }
    }
    for w in report.warnings where !job.warnings.contains(w) { printError("warning: \(w)") }
    if report.published && !quiet {
      print("Wrote \(report.bundle.appendingPathComponent("banners.json").path) (\(report.items.count - report.failedCount) of \(report.items.count) banners)")
    }
    _ = verbose
    return report.failedCount > 0 || !report.published ? 1 : 0
  }
}
