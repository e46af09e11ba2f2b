internal import CFileSystem

/// Process-wide setup the command line does once.
public enum ProcessSetup {
  /// Ignores SIGXFSZ and SIGPIPE: a write past `ulimit -f` then fails with
  /// EFBIG (reported as an I/O error, exit 4) instead of killing the run,
  /// and a closed log pipe fails writes instead of killing it.
  public static func ignoreWriteSignals() {
    marquee_ignore_write_signals()
  }

  /// Keeps freed picture-sized buffers in the heap for reuse instead of
  /// giving each a fresh mapping (`marquee_keep_freed_buffers`: glibc's
  /// `M_MMAP_THRESHOLD` 8 MiB, `M_TRIM_THRESHOLD` 64 MiB). Memory only: no
  /// output byte changes. Measured side by side (BENCHMARKS.md): seven image
  /// banners 5 % less CPU (system time halved) for 11–13 MiB more peak RSS
  /// (135 MiB); the demo with its two videos 6 % less CPU and 23 MiB less
  /// peak RSS (1198 MiB).
  public static func keepFreedBuffers() {
    marquee_keep_freed_buffers()
  }
}
