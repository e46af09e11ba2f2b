import Foundation
import MarqueeKit

/// Turns `BuildEvent`s into what a person or a log shipper reads:
///
/// - `live` (a terminal): a progress line per item being encoded (percent of
///   the duration encoded, ETA), redrawn in place, with a permanent line per
///   finished item above it, and a summary table at the end;
/// - `plain` (not a terminal, or `--log-format plain`): one timestamped line
///   per event, warnings and errors on stderr, and the summary table;
/// - `json` (`--log-format json`): one JSON object per line on stdout.
///
/// `--quiet` keeps warnings and errors only; `--verbose` adds debug events
/// and, under the summary, each failed item's error in detail.
// Safe: `active` and `liveLineCount` are used only with `lock` held; `idWidth` is set before any event.
final class Reporter: @unchecked Sendable {
  enum Mode { case live, plain, json }

  let mode: Mode
  let quiet: Bool
  let verbose: Bool
  let console: Console

  private let lock = NSLock()
  /// Items being encoded, in start order: id → (fraction, elapsed).
  private var active: [(id: String, fraction: Double, elapsed: Double)] = []
  private var liveLineCount = 0
  private var idWidth = 12

  init(output: OutputOptions, console: Console = .shared) {
    self.console = console
    quiet = output.quiet
    verbose = output.verbose
    switch output.logFormat {
    case .json: mode = .json
    case .plain: mode = .plain
    case .text: mode = console.stdoutIsTerminal ? .live : .plain
    }
  }

  /// In JSON mode, takes FFmpeg's own messages (`--verbose`) off stderr and
  /// writes them as JSON lines like any event: stage `ffmpeg`, event `log`,
  /// the line as `message`, the FFmpeg component as `component`. A log
  /// collected with `2>&1` then stays one JSON object per line. In the
  /// other modes FFmpeg keeps printing to stderr itself.
  func takeOverMediaLog() {
    guard mode == .json else { return }
    MediaLog.route { [self] m in
      let level: BuildEvent.Level =
        switch m.severity {
        case .error: .error
        case .warning: .warning
        case .info: .info
        case .debug: .debug
        }
      handle(BuildEvent(level: level, stage: .ffmpeg, event: .log, message: m.text,
                        fields: m.component.map { ["component": $0] } ?? [:]))
    }
  }

  /// Sizes the id column to the job's longest id.
  func prepare(ids: [String]) {
    idWidth = min(32, max(8, ids.map(\.count).max() ?? 8))
  }

  /// The handler to give `BuildOptions.onEvent`.
  var handler: BuildEventHandler { { [self] event in self.handle(event) } }

  /// Whether progress events are worth producing.
  var wantsProgress: Bool { mode == .live && !quiet }

  func handle(_ e: BuildEvent) {
    if e.level == .debug && !verbose && e.event != .progress { return }
    if quiet && e.level < .warning { return }
    switch mode {
    case .json:
      if e.event == .progress { return }
      console.out(LogLine.json(e) + "\n")
    case .plain:
      if e.event == .progress { return }
      let line = LogLine.plain(e) + "\n"
      if e.level >= .warning { console.err(line) } else { console.out(line) }
    case .live:
      live(e)
    }
  }

  /// A message of the command itself (not of the pipeline).
  func say(_ level: BuildEvent.Level, _ stage: BuildEvent.Stage, _ name: BuildEvent.Name, item: String? = nil,
           message: String? = nil, error: String? = nil, fields: [String: String] = [:]) {
    let event = BuildEvent(level: level, item: item, stage: stage, event: name, error: error, message: message, fields: fields)
    if mode == .live {
      if quiet && level < .warning { return }
      let text = LogLine.printable([message, error].compactMap { $0 }.joined(separator: ": "))
      let prefix = level == .error ? console.style("error: ", "1;31") : level == .warning ? console.style("warning: ", "33") : ""
      let line = prefix + (item.map { "\($0): " } ?? "") + text
      if level >= .warning {
        problem(line)
      } else {
        permanent(line)
      }
      return
    }
    handle(event)
  }

  // MARK: - Live display

  private func live(_ e: BuildEvent) {
    let item = e.item ?? ""
    switch (e.stage, e.event) {
    case (.encode, .started):
      lock.lock()
      active.append((item, 0, 0))
      lock.unlock()
      redraw()
    case (.encode, .progress):
      lock.lock()
      if let i = active.firstIndex(where: { $0.id == item }) {
        active[i].fraction = e.progress ?? active[i].fraction
        active[i].elapsed = e.duration ?? active[i].elapsed
      }
      lock.unlock()
      redraw()
    case (.encode, .finished):
      remove(item)
      permanent("  \(console.style("✓", "32")) \(pad(item)) built in \(LogLine.seconds(e.duration ?? 0))" + (e.message.map { "  \(console.style(LogLine.printable($0), "2"))" } ?? ""))
    case (_, .reused):
      permanent("  \(console.style("=", "2")) \(pad(item)) reused, nothing encoded")
    case (_, .failed):
      // The one failure form (`LogLine.failureText`), on stderr like every problem.
      remove(item)
      problem(console.style("error: ", "1;31") + LogLine.printable(LogLine.failureText(e) ?? ""))
    case (_, .violation):
      permanent("  \(console.style("✗", "31")) \(item.isEmpty ? "(bundle)" : item): \(LogLine.printable(e.error ?? ""))")
    case (_, .warning), (_, .notPublished):
      permanent(console.style("warning: ", "33") + (e.item.map { "\($0): " } ?? "") + LogLine.printable(e.message ?? e.error ?? ""))
    case (.lock, .waiting):
      permanent(LogLine.printable(e.message ?? "waiting for the bundle lock"))
    case (.run, .started):
      permanent(e.message.map { "Marquee \(LogLine.printable($0))" } ?? "")
    case (.cleanup, .removed):
      permanent(console.style("cleaned up: " + LogLine.printable(e.message ?? ""), "2"))
    default:
      if verbose { permanent(console.style(LogLine.plain(e), "2")) }
    }
  }

  /// Prints a problem on stderr, with the live area moved out of the way.
  private func problem(_ line: String) {
    console.locked {
      lock.lock()
      defer { lock.unlock() }
      console.rawWrite(1, eraseLive())
      console.rawWrite(2, line + "\n")
      console.rawWrite(1, drawLive())
    }
  }

  private func pad(_ id: String) -> String {
    id.count >= idWidth ? id : id + String(repeating: " ", count: idWidth - id.count)
  }

  private func remove(_ id: String) {
    lock.lock()
    active.removeAll { $0.id == id }
    lock.unlock()
  }

  /// Prints a line above the live area.
  private func permanent(_ text: String) {
    console.locked {
      lock.lock()
      defer { lock.unlock() }
      console.rawWrite(1, eraseLive() + text + "\n" + drawLive())
    }
  }

  private func redraw() {
    console.locked {
      lock.lock()
      defer { lock.unlock() }
      console.rawWrite(1, eraseLive() + drawLive())
    }
  }

  /// Moves up over the live lines and clears them (lock held).
  private func eraseLive() -> String {
    guard liveLineCount > 0 else { return "" }
    let text = "\u{1B}[\(liveLineCount)A\r\u{1B}[J"
    liveLineCount = 0
    return text
  }

  /// The live lines (lock held).
  private func drawLive() -> String {
    guard mode == .live, !quiet else { return "" }
    var text = ""
    for a in active {
      let width = 20
      let filled = Int((a.fraction * Double(width)).rounded(.down))
      let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
      let eta: String
      if a.fraction >= 0.02 {
        let remaining = a.elapsed * (1 - a.fraction) / a.fraction
        eta = "ETA " + Self.clock(remaining)
      } else {
        eta = "ETA --:--"
      }
      text += "  \(console.style("▸", "36")) \(pad(a.id)) \(console.style(bar, "36")) \(String(format: "%3d%%", Int(a.fraction * 100)))  \(eta)\n"
      liveLineCount += 1
    }
    return text
  }

  static func clock(_ seconds: Double) -> String {
    let s = max(0, Int(seconds.rounded()))
    return String(format: "%d:%02d", s / 60, s % 60)
  }

  // MARK: - Summary

  /// The table at the end of a build: items, outputs, sizes, time.
  func summary(_ report: BuildReport, published: String?) {
    guard mode != .json, !quiet else { return }
    var rows: [[String]] = [["ITEM", "KIND", "STATUS", "FILES", "SIZE", "TIME"]]
    for item in report.items where item.status != .skipped {
      rows.append([item.id, item.kind.rawValue, item.status.rawValue, item.fileCount > 0 ? String(item.fileCount) : "-",
                   item.byteCount > 0 ? LogLine.bytes(item.byteCount) : "-",
                   item.status == .built || item.status == .failed ? LogLine.seconds(item.seconds) : "-"])
    }
    var widths = [Int](repeating: 0, count: rows[0].count)
    for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
    var text = "\n"
    for (n, row) in rows.enumerated() {
      var line = "  "
      for (i, cell) in row.enumerated() {
        let numeric = i >= 3
        let padding = String(repeating: " ", count: widths[i] - cell.count)
        line += (numeric ? padding + cell : cell + padding) + (i < row.count - 1 ? "  " : "")
      }
      let styled = n == 0 ? console.style(line, "1") : row[2] == "failed" ? console.style(line, "31") : line
      text += styled + "\n"
    }
    let files = report.items.reduce(0) { $0 + $1.fileCount }
    let bytes = report.items.reduce(Int64(0)) { $0 + $1.byteCount }
    text += "\n  \(report.items.count - report.skippedCount) item(s): \(report.countsSummary); \(files) files, \(LogLine.bytes(bytes)); \(LogLine.seconds(report.seconds))\n"
    // The items' files are what the table adds up; a size budget weighs the
    // whole bundle, banners.json included, and says so here too.
    if let whole = report.bundleBytes { text += "  The bundle, banners.json included: \(LogLine.bytes(whole))\n" }
    if let published { text += "  \(published)\n" }
    if verbose {
      for failure in report.items.compactMap(\.failure) { text += "\n" + Self.detail(of: failure) }
    }
    console.out(text)
  }

  /// A failed item for `--verbose`, under the summary: `<id>: <stage>
  /// failed: <source>`, then its error's `detailedDescription` (the message,
  /// code, cause and where it was raised), indented.
  static func detail(of failure: ItemFailure) -> String {
    var text = "  " + LogLine.printable("\(failure.id): \(failure.stage.rawValue) failed: \(failure.source)") + "\n"
    for line in failure.error.detailedDescription.split(separator: "\n", omittingEmptySubsequences: false) {
      text += "    " + LogLine.printable(String(line)) + "\n"
    }
    return text
  }
}
