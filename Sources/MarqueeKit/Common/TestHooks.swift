import Foundation

internal import CFileSystem

/// Hooks that let tests stop a run at a chosen moment. Each is read from the
/// environment and does nothing unless its variable is set.
///
/// They exist only in debug builds (`swift build`, `swift test`); in a
/// release build (`swift build -c release`, `make dist`) every hook is an
/// empty inline function, so no environment variable can change what a
/// shipped binary does.
enum TestHooks {
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

  #if DEBUG
  /// `MARQUEE_TEST_HOLD_LOCK=<file>`: after taking the bundle lock, wait
  /// until `<file>` exists, so a test can start a second run while this one
  /// certainly holds the lock.
  static func holdLockIfAsked() async {
    guard let path = ProcessInfo.processInfo.environment["MARQUEE_TEST_HOLD_LOCK"], !path.isEmpty else { return }
    while !FileManager.default.fileExists(atPath: path) {
      try? await Task.sleep(nanoseconds: 20_000_000)
    }
  }

  static let failPoint = ProcessInfo.processInfo.environment["MARQUEE_TEST_FAIL_AT"].flatMap(FailPoint.init(rawValue:))

  /// Throws `InjectedFailure` when `MARQUEE_TEST_FAIL_AT` names `point`.
  static func failIfAsked(_ point: FailPoint) throws {
    if failPoint == point { throw InjectedFailure(point: point) }
  }

  static let armedCrashPoint = ProcessInfo.processInfo.environment["MARQUEE_TEST_CRASH_AT"]

  /// SIGKILLs the process when `MARQUEE_TEST_CRASH_AT` names `point`.
  static func crashIfAsked(_ point: CrashPoint) {
    if armedCrashPoint == point.rawValue { marquee_kill_self() }
  }
  #else
  @inline(__always) static func holdLockIfAsked() async {}
  @inline(__always) static func failIfAsked(_ point: FailPoint) throws {}
  @inline(__always) static func crashIfAsked(_ point: CrashPoint) {}
  #endif
}

/// Test-only crash points: with `MARQUEE_TEST_CRASH_AT=<point>` in the
/// environment a debug build SIGKILLs itself on reaching that point, so tests
/// can check what a killed run leaves behind at exactly the delicate
/// moments.
enum CrashPoint: String {
  /// After the first item is committed to the store.
  case itemStored = "item-stored"
  /// After the staging bundle is assembled, before verification.
  case staged
  /// After verification, before the switch.
  case verified
  /// After the switch, before the old bundle is removed.
  case exchanged

  func hit() { TestHooks.crashIfAsked(self) }
}
