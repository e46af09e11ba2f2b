import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Formats `BuildEvent`s as log lines: one JSON object per line for cron and
/// log shippers, or a plain line for people reading a cron mail.
public enum LogLine {
  // MARK: - JSON lines

  /// One JSON object, no newline. Keys, in this order: `time` (ISO 8601
  /// UTC with milliseconds), `level`, `item`, `stage`, `event`, `duration`
  /// (seconds), `error` (always present, `null` when absent), `message`
  /// (always present: `jsonMessage(_:)`), then `progress` and the event's
  /// extra fields in sorted order when present.
  public static func json(_ e: BuildEvent) -> String {
    var out = "{"
    func key(_ k: String) { out += (out.count > 1 ? "," : "") + quoted(k) + ":" }
    key("time"); out += quoted(timestamp(e.time, milliseconds: true))
    key("level"); out += quoted(e.level.rawValue)
    key("item"); out += e.item.map(quoted) ?? "null"
    key("stage"); out += quoted(e.stage.rawValue)
    key("event"); out += quoted(e.event.rawValue)
    key("duration"); out += e.duration.map(number) ?? "null"
    key("error"); out += e.error.map(quoted) ?? "null"
    key("message"); out += quoted(jsonMessage(e))
    if let p = e.progress { key("progress"); out += number(p) }
    for k in e.fields.keys.sorted() where !reserved.contains(k) {
      key(k); out += quoted(e.fields[k] ?? "")
    }
    return out + "}"
  }

  /// The `message` of a JSON line: the event's sentence or, for an event
  /// without one, the stage and what happened, and for a problem what went
  /// wrong (`hash failed: media/nope.jpg: file not found`, `verify finished`).
  public static func jsonMessage(_ e: BuildEvent) -> String {
    if let message = e.message { return message }
    let what = "\(e.stage.rawValue) \(e.event.rawValue.replacingOccurrences(of: "_", with: " "))"
    return e.error.map { "\(what): \($0)" } ?? what
  }

  /// `<id>: <stage> failed: <source>: <reason>` of a failure event (its
  /// `error` is `<source>: <reason>`), as every output format prints it
  /// after `error: `; nil for other events.
  public static func failureText(_ e: BuildEvent) -> String? {
    guard e.event == .failed else { return nil }
    let what = "\(e.stage.rawValue) failed" + ((e.error ?? e.message).map { ": \($0)" } ?? "")
    return e.item.map { "\($0): \(what)" } ?? what
  }

  static let reserved: Set<String> = ["time", "level", "item", "stage", "event", "duration", "error", "message", "progress"]

  /// A JSON number with at most three decimals (`1.5`, `0.125`, `3`);
  /// `null` for values JSON cannot carry.
  static func number(_ v: Double) -> String {
    guard v.isFinite else { return "null" }
    let rounded = (v * 1000).rounded() / 1000
    if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
    var text = String(format: "%.3f", rounded)
    while text.hasSuffix("0") { text.removeLast() }
    return text
  }

  /// A JSON string literal (RFC 8259 escaping; non-ASCII kept as UTF-8;
  /// `TextEscaping.appendJSON`).
  public static func quoted(_ s: String) -> String {
    var out = ""
    TextEscaping.appendJSON(s, to: &out)
    return out
  }

  // MARK: - Plain lines

  /// `2025-05-01T10:00:03Z spring  encode finished in 3.2 s: h264 → …`;
  /// warnings and errors carry `warning:`/`error:` after the time. A
  /// failure reads `error: <id>: <stage> failed: <source>: <reason>`, the
  /// one form of every stage's failure (`failureText`), without the time
  /// it took (the JSON line's `duration` has it).
  public static func plain(_ e: BuildEvent) -> String {
    var text = timestamp(e.time, milliseconds: false) + " "
    switch e.level {
    case .error: text += "error: "
    case .warning: text += "warning: "
    default: break
    }
    if let item = e.item { text += printable(item) + ": " }
    text += "\(e.stage.rawValue) \(e.event.rawValue.replacingOccurrences(of: "_", with: " "))"
    if let d = e.duration, e.event != .failed { text += " in " + seconds(d) }
    if let m = e.message { text += ": " + printable(m) }
    if let err = e.error { text += (e.message == nil ? ": " : " (") + printable(err) + (e.message == nil ? "" : ")") }
    return text
  }

  /// `text` with every character that could forge or hide log content
  /// escaped: C0 and C1 control characters and DEL (`\n`, `\r`, `\t`, else
  /// `\u{1b}` …) and the Unicode bidirectional overrides and isolates
  /// (U+202A–U+202E, U+2066–U+2069). File names and reasons come from
  /// untrusted sources: a name with a newline must not start a new log
  /// line, nor an escape sequence drive the terminal. When anything is
  /// escaped, backslashes are doubled too, so the line reads back
  /// unambiguously.
  public static func printable(_ text: String) -> String {
    TextEscaping.printable(text)
  }

  /// `0.42 s`, `3.2 s`, `1 min 05 s`.
  public static func seconds(_ d: Double) -> String {
    if d < 10 { return String(format: "%.2f s", d) }
    if d < 60 { return String(format: "%.1f s", d) }
    let whole = Int(d.rounded())
    return String(format: "%d min %02d s", whole / 60, whole % 60)
  }

  /// `812 B`, `4.1 kB`, `12.3 MB` (powers of 1000).
  public static func bytes(_ n: Int64) -> String {
    let v = Double(n)
    if v < 1000 { return "\(n) B" }
    if v < 1_000_000 { return String(format: "%.1f kB", v / 1000) }
    if v < 1_000_000_000 { return String(format: "%.1f MB", v / 1_000_000) }
    return String(format: "%.2f GB", v / 1_000_000_000)
  }

  /// ISO 8601 in UTC: `2025-05-01T10:00:03Z` or `…03.125Z`.
  public static func timestamp(_ date: Date, milliseconds: Bool) -> String {
    let t = date.timeIntervalSince1970
    var seconds = time_t(floor(t))
    var ms = Int((t - floor(t)) * 1000)
    if ms > 999 { ms = 999 }
    var parts = tm()
    gmtime_r(&seconds, &parts)
    let base = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    return milliseconds ? base + String(format: ".%03dZ", ms) : base + "Z"
  }
}
