import MarqueeKit

/// The process exit codes, documented in `--help` and the README, and the one
/// place where errors become them.
struct ExitCode: RawRepresentable, Equatable {
  var rawValue: Int32
  /// Every item built (or reused) and the bundle published; a check passed.
  static let success = ExitCode(rawValue: 0)
  /// Some items failed (or the bundle fails verification).
  static let itemsFailed = ExitCode(rawValue: 1)
  /// Usage error, or the job file is invalid.
  static let usage = ExitCode(rawValue: 2)
  /// The bundle is locked by another run.
  static let locked = ExitCode(rawValue: 3)
  /// The output cannot be written (disk full, permissions).
  static let io = ExitCode(rawValue: 4)
}

extension ExitCode {
  /// The exit code of a command that stopped on `error`:
  /// - 2 for a wrong command line or input that is not what the command
  ///   takes (`.usage`, `.invalidRequest`, a `JobError`, a `UsageError`);
  /// - 3 for a bundle another run holds (`.locked`);
  /// - 4 when the output cannot be written (`isOutputIOError`);
  /// - 1 for the rest: a source, cover or bundle that fails.
  init(for error: any Error) {
    switch error {
    case is UsageError, is JobError:
      self = .usage
    case let e as MarqueeError:
      if e.isOutputIOError {
        self = .io
      } else if e.code == .locked {
        self = .locked
      } else if e.code == .usage || e.code == .invalidRequest {
        self = .usage
      } else {
        self = .itemsFailed
      }
    case let e as MediaIOError where e.isOutputIOError:
      self = .io
    default:
      self = .itemsFailed
    }
  }
}
