internal import CFFmpeg

/// How much FFmpeg's libraries print to standard error on their own.
///
/// Marquee reports failures itself, with context, through typed errors, so
/// by default the libraries stay quiet (`AV_LOG_QUIET`); `--verbose` turns
/// on their warnings for diagnosis.
public enum MediaLog {
  public enum Level: Sendable { case quiet, errors, warnings }
  /// Sets `av_log_set_level` for the whole process.
  public static func set(_ level: Level) {
    switch level {
    case .quiet: av_log_set_level(AV_LOG_QUIET)
    case .errors: av_log_set_level(AV_LOG_ERROR)
    case .warnings: av_log_set_level(AV_LOG_WARNING)
    }
  }
}
