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
