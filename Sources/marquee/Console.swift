import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes text to stdout and stderr with `write(2)`, serialised, never
/// trapping on a closed pipe (SIGPIPE is ignored; the write just fails).
final class Console: Sendable {
  static let shared = Console()

  private let lock = NSLock()

  /// Whether stdout is a terminal that can redraw lines.
  let stdoutIsTerminal: Bool
  /// Colours allowed (`NO_COLOR` unset or empty, and a terminal).
  let useColor: Bool

  init() {
    let env = ProcessInfo.processInfo.environment
    let dumb = env["TERM"] == "dumb"
    stdoutIsTerminal = isatty(1) == 1 && !dumb
    useColor = stdoutIsTerminal && (env["NO_COLOR"] ?? "").isEmpty
  }

  func out(_ text: String) { write(1, text) }
  func err(_ text: String) { write(2, text) }

  /// Runs `body` holding the console lock (for multi-write redraws).
  func locked<T>(_ body: () -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return body()
  }

  private func write(_ fd: Int32, _ text: String) {
    locked { rawWrite(fd, text) }
  }

  /// Writes without taking the lock (callers inside `locked`).
  func rawWrite(_ fd: Int32, _ text: String) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { p -> Int in
        guard let base = p.baseAddress else { return 0 }
        return Glibc.write(fd, base + offset, p.count - offset)
      }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return }
      offset += n
    }
  }

  /// ANSI styling when colours are on.
  func style(_ text: String, _ code: String) -> String {
    useColor ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
  }
}
