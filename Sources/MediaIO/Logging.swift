internal import CFFmpeg
import Foundation

/// How much FFmpeg's libraries print to standard error on their own.
///
/// Marquee reports failures itself, with context, through typed errors, so
/// by default the libraries stay quiet (`AV_LOG_QUIET`); `--verbose` turns
/// on their warnings for diagnosis. `route(to:)` hands their messages to
/// the caller instead of standard error (JSON logs must stay JSON).
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

  /// One line FFmpeg's libraries logged.
  public struct Message: Sendable, Equatable {
    /// FFmpeg's level, in four steps: `error` (`AV_LOG_PANIC` to
    /// `AV_LOG_ERROR`), `warning`, `info`, `debug` (`AV_LOG_VERBOSE` and
    /// finer).
    public enum Severity: String, Sendable { case error, warning, info, debug }
    public var severity: Severity
    /// The component that logged it, as FFmpeg names it in its `[name @
    /// 0x…]` prefix (`gif`, `swscaler`, `mov,mp4,m4a,3gp,3g2,mj2`); `nil`
    /// for a message outside any component.
    public var component: String?
    /// The text: one line, no trailing newline, never empty.
    public var text: String

    public init(severity: Severity, component: String?, text: String) {
      self.severity = severity
      self.component = component
      self.text = text
    }
  }

  /// Sends FFmpeg's messages at or above the `set(_:)` level to `handler`
  /// instead of standard error, one call per complete line, on whatever
  /// thread logged it (the handler must be thread-safe and must not block).
  /// `nil` gives the printing back to FFmpeg (`av_log_default_callback`).
  public static func route(to handler: (@Sendable (Message) -> Void)?) {
    MediaLogSink.shared.setHandler(handler)
    guard handler != nil else {
      av_log_set_callback { (context: UnsafeMutableRawPointer?, level: Int32, format: UnsafePointer<CChar>?,
                             arguments: CVaListPointer?) in
        guard let arguments else { return }
        av_log_default_callback(context, level, format, arguments)
      }
      return
    }
    av_log_set_callback { (context: UnsafeMutableRawPointer?, level: Int32, format: UnsafePointer<CChar>?,
                           arguments: CVaListPointer?) in
      guard level <= av_log_get_level(), let format, let arguments else { return }
      var buffer = [CChar](repeating: 0, count: 2048)
      var printPrefix: Int32 = 0  // the text only: the component is taken from the context
      guard av_log_format_line2(context, level, format, arguments, &buffer, Int32(buffer.count), &printPrefix) >= 0 else { return }
      let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      MediaLogSink.shared.receive(text, severity: MediaLog.severity(level), component: MediaLog.component(of: context))
    }
  }

  static func severity(_ level: Int32) -> Message.Severity {
    if level <= AV_LOG_ERROR { return .error }
    if level <= AV_LOG_WARNING { return .warning }
    if level <= AV_LOG_INFO { return .info }
    return .debug
  }

  /// The item name of a logging context: a struct whose first field is an
  /// `AVClass` pointer (or `NULL`), as `av_log` requires of its context.
  static func component(of context: UnsafeMutableRawPointer?) -> String? {
    guard let context, let avClass = context.load(as: UnsafePointer<AVClass>?.self),
          let itemName = avClass.pointee.item_name, let name = itemName(context) else { return nil }
    return String(cString: name)
  }
}

/// Joins the pieces FFmpeg logs into lines (a line may come in several
/// calls) and hands each complete line to the handler. Pieces are kept per
/// logging thread, so threads logging at once do not mix their lines.
// Safe: `handler` and `pending` are read and written only with `lock` held.
final class MediaLogSink: @unchecked Sendable {
  static let shared = MediaLogSink()

  /// The longest unfinished line kept, in characters; longer text is
  /// passed on as a line of its own.
  static let maximumPending = 4096

  private let lock = NSLock()
  private var handler: (@Sendable (MediaLog.Message) -> Void)?
  private var pending: [pthread_t: MediaLog.Message] = [:]

  func setHandler(_ handler: (@Sendable (MediaLog.Message) -> Void)?) {
    lock.lock()
    self.handler = handler
    pending = [:]
    lock.unlock()
  }

  /// Takes one piece of text; passes on every line it completes.
  func receive(_ text: String, severity: MediaLog.Message.Severity, component: String?) {
    lock.lock()
    let handler = self.handler
    let thread = pthread_self()
    var current = pending.removeValue(forKey: thread) ?? MediaLog.Message(severity: severity, component: component, text: "")
    var lines: [MediaLog.Message] = []
    var pieces = text.split(separator: "\n", omittingEmptySubsequences: false)
    let last = pieces.removeLast()  // after the last newline: unfinished
    for piece in pieces {
      current.text += piece
      lines.append(current)
      current = MediaLog.Message(severity: severity, component: component, text: "")
    }
    current.text += last
    if current.text.count > Self.maximumPending {
      lines.append(current)
    } else if !current.text.isEmpty {
      pending[thread] = current
    }
    lock.unlock()
    guard let handler else { return }
    for var line in lines {
      line.text = line.text.trimmingCharacters(in: .whitespacesAndNewlines)
      if !line.text.isEmpty { handler(line) }
    }
  }
}
