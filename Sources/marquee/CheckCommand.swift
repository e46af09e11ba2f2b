import Foundation
import MarqueeKit

/// `marquee build <job> --check`: says whether a build would change the
/// published bundle or the store, and what and why (`BundleBuilder.check`);
/// writes nothing. Exit 0 when a build would change nothing, 1 when it
/// would (or would fail, or be over its size budget), 2 for a usage error
/// or an invalid job.
///
/// Text (a terminal, or plain lines): one line per item on stdout, `<id>:
/// ok`, `<id>: would build: <reason>`, `<id>: would publish: <reason>`,
/// `<id>: would remove`; the other changes to the bundle, the size budget,
/// then the summary, `<job>: up to date: …` or `<job>: not up to date: …`.
/// An item that would fail is `error: <id>: <stage> failed: <source>:
/// <reason>` on stderr, as a build prints it. `--log-format json`: one JSON
/// object per line, stage `check` (`ok`, `would_build`, …, `summary`).
/// `--quiet` keeps what would change (and warnings and errors).
struct CheckCommand {
  let arguments: BuildArguments

  func run() async -> ExitCode {
    let reporter = Reporter(output: arguments.output)
    let job: Job
    switch BuildCommand.readJob(arguments, reporter: reporter) {
    case .read(let read): job = read
    case .failed(let code): return code
    }
    var options = BuildOptions(outputRoot: URL(fileURLWithPath: arguments.out ?? "Output"))
    if let j = arguments.jobs { options.jobs = j }
    let report = await BundleBuilder().check(job: job, options: options)
    for event in Self.events(report, job: job) { show(event, reporter: reporter) }
    return report.isUpToDate ? .success : .itemsFailed
  }

  /// The report as events, in the order they are printed: warnings, the
  /// items, the other changes, problems, the budget, the summary.
  static func events(_ report: CheckReport, job: Job) -> [BuildEvent] {
    var events = report.warnings.map { BuildEvent(level: .warning, stage: .run, event: .warning, message: $0) }
    for item in report.items {
      if let failure = item.failure {
        events.append(BuildEvent(level: .error, item: item.id, stage: failure.stage, event: .failed,
                                 error: failure.sourceAndReason,
                                 fields: ["source": failure.source, "code": failure.error.code.description]))
        continue
      }
      let name: BuildEvent.Name =
        switch item.verdict {
        case .ok: .ok
        case .wouldBuild: .wouldBuild
        case .wouldPublish: .wouldPublish
        case .wouldRemove, .failed: .wouldRemove
        }
      var fields: [String: String] = [:]
      if let folder = item.folder { fields["folder"] = folder }
      if let kind = item.kind { fields["kind"] = kind.rawValue }
      if !item.reasons.isEmpty { fields["reason"] = item.reasons.map(\.code.rawValue).joined(separator: ",") }
      if !item.changes.isEmpty { fields["changes"] = item.changes.map(\.description).joined(separator: "; ") }
      events.append(BuildEvent(level: item.verdict == .ok ? .info : .warning, item: item.id, stage: .check, event: name,
                               message: item.text, fields: fields))
    }
    for change in report.bundleChanges {
      events.append(BuildEvent(level: .warning, stage: .check, event: .wouldChange, message: change))
    }
    for problem in report.problems {
      events.append(BuildEvent(level: .error, stage: .check, event: .failed, error: problem))
    }
    if let over = report.overBudget {
      events.append(BuildEvent(level: .warning, stage: .check, event: .budget, message: over,
                               fields: report.budgetFields.merging(["code": MarqueeError.Code.overBudget.description]) { a, _ in a }))
    } else if let note = report.budgetNote {
      events.append(BuildEvent(level: .info, stage: .check, event: .budget, message: note, fields: report.budgetFields))
    }
    let counts: [(String, CheckReport.Verdict)] = [("ok", .ok), ("would_build", .wouldBuild), ("would_publish", .wouldPublish),
                                                     ("would_remove", .wouldRemove), ("failed", .failed)]
    var fields = Dictionary(uniqueKeysWithValues: counts.map { ($0.0, String(report.count($0.1))) })
    fields["up_to_date"] = String(report.isUpToDate)
    fields["bundle_changes"] = String(report.bundleChanges.count)
    fields["bundle"] = report.bundle.path
    events.append(BuildEvent(level: report.isUpToDate ? .info : .warning, stage: .check, event: .summary,
                             duration: report.seconds, message: "\(job.name): \(report.summary)", fields: fields))
    return events
  }

  /// One event: a JSON line, or a line of text (stdout; a failure, a
  /// problem or a warning on stderr). `--quiet` keeps warnings and
  /// errors, which is everything that would change.
  private func show(_ event: BuildEvent, reporter: Reporter) {
    if reporter.mode == .json || (event.stage == .run && event.event == .warning) {
      reporter.handle(event)
      return
    }
    if reporter.quiet && event.level < .warning { return }
    let console = reporter.console
    func styled(_ text: String, _ code: String) -> String { reporter.mode == .live ? console.style(text, code) : text }
    if event.event == .failed {
      let text = LogLine.failureText(event) ?? event.error ?? ""
      console.err(styled("error: ", "1;31") + LogLine.printable(text) + "\n")
      return
    }
    let message = LogLine.printable(event.message ?? "")
    switch event.event {
    case .summary:
      let seconds = event.duration.map { " (\(LogLine.seconds($0)))" } ?? ""
      console.out(styled(message, event.level == .info ? "32" : "33") + seconds + "\n")
    case .ok:
      console.out("\(LogLine.printable(event.item ?? "")): " + styled(message, "2") + "\n")
    case .wouldBuild, .wouldPublish, .wouldRemove:
      console.out("\(LogLine.printable(event.item ?? "")): " + styled(message, "33") + "\n")
    default:
      console.out((event.level >= .warning ? styled(message, "33") : message) + "\n")
    }
  }
}
