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
}
