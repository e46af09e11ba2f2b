import Foundation

internal import CFileSystem

/// Process-wide setup the command line does once.
public enum ProcessSetup {
  /// Ignores SIGXFSZ and SIGPIPE: a write past `ulimit -f` then fails with
  /// EFBIG (reported as an I/O error, exit 4) instead of killing the run,
  /// and a closed log pipe fails writes instead of killing it.
  public static func ignoreWriteSignals() {
    marquee_ignore_write_signals()
  }
}

/// Hooks that let tests stop a run at a chosen moment. Each is read from the
/// environment and does nothing unless its variable is set.
enum TestHooks {
  static func killSelf() { marquee_kill_self() }

  /// `MARQUEE_TEST_HOLD_LOCK=<file>`: after taking the bundle lock, wait
  /// until `<file>` exists, so a test can start a second run while this one
  /// certainly holds the lock.
  static func holdLockIfAsked() async {
    guard let path = ProcessInfo.processInfo.environment["MARQUEE_TEST_HOLD_LOCK"], !path.isEmpty else { return }
    while !FileManager.default.fileExists(atPath: path) {
      try? await Task.sleep(nanoseconds: 20_000_000)
    }
  }

  /// Where `MARQUEE_TEST_FAIL_AT=<point>` makes a stage fail, so tests can
  /// reach error paths that real media reach only by chance.
  enum FailPoint: String {
    /// A rendition worker's encoder flush (after the last picture).
    case renditionFlush = "rendition-flush"
  }

  struct InjectedFailure: Error, CustomStringConvertible {
    var point: FailPoint
    var description: String { "test failure injected at \(point.rawValue)" }
  }

  static let failPoint = ProcessInfo.processInfo.environment["MARQUEE_TEST_FAIL_AT"].flatMap(FailPoint.init(rawValue:))

  /// Throws `InjectedFailure` when `MARQUEE_TEST_FAIL_AT` names `point`.
  static func failIfAsked(_ point: FailPoint) throws {
    if failPoint == point { throw InjectedFailure(point: point) }
  }
}
