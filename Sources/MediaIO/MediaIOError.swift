internal import CFFmpeg

/// An error reported by FFmpeg or libwebp, with the C function that failed and
/// the context it failed in.
///
/// FFmpeg reports failure as a negative `Int32` (an `AVERROR` code). This type
/// is the only place such a status exists outside `Internal/`: everything
/// above MediaIO sees a typed error with a readable message.
public struct MediaIOError: Error, CustomStringConvertible, Sendable, Equatable {
  /// The FFmpeg status code (negative), or 0 when the error did not come from
  /// an FFmpeg call (a limit, or a libwebp failure).
  public let code: Int32
  /// The C function (or operation) that failed, such as `avformat_open_input`.
  public let function: String
  /// What was being done: a file name, a stream, a filter graph description.
  public let context: String
  /// `av_strerror`'s text for `code`, or our own reason.
  public let reason: String

  public init(code: Int32, function: String, context: String, reason: String) {
    self.code = code
    self.function = function
    self.context = context
    self.reason = reason
  }

  /// Builds the error for an FFmpeg status, reading the text with `av_strerror`.
  init(status: Int32, function: String, context: String) {
    var buffer = [CChar](repeating: 0, count: 256)
    let text: String
    if av_strerror(status, &buffer, buffer.count) == 0 {
      text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    } else {
      text = "unknown FFmpeg error \(status)"
    }
    self.init(code: status, function: function, context: context, reason: text)
  }

  /// An error that did not come from a C status code.
  static func failure(_ function: String, _ context: String, _ reason: String) -> MediaIOError {
    MediaIOError(code: 0, function: function, context: context, reason: reason)
  }

  public var description: String {
    context.isEmpty ? "\(reason) (\(function))" : "\(context): \(reason) (\(function))"
  }

  /// Corresponds to `AVERROR_INVALIDDATA`: the input is corrupt or not what it claims.
  public var isInvalidData: Bool { code == marquee_AVERROR_INVALIDDATA() }

  /// Pattern match on the code, so `catch` clauses can test a status.
  public static func ~= (lhs: MediaIOError, rhs: any Error) -> Bool {
    (rhs as? MediaIOError)?.code == lhs.code
  }
}

/// Turns an FFmpeg status into `Void` or a thrown `MediaIOError`.
///
/// - Returns: the non-negative status, for calls that return a count.
@discardableResult
func check(_ status: Int32, _ function: String, _ context: @autoclosure () -> String) throws(MediaIOError) -> Int32 {
  if status < 0 { throw MediaIOError(status: status, function: function, context: context()) }
  return status
}

/// The outcome of a send/receive step on a codec or filter graph.
///
/// `AVERROR(EAGAIN)` and `AVERROR_EOF` are normal flow, not errors, so they
/// are values here (like GStreamer's `NEED_DATA` or NIO's `IOResult`).
public enum Step: Sendable, Equatable {
  /// A frame or packet was produced.
  case produced
  /// Feed more input before asking again (`AVERROR(EAGAIN)`).
  case needsInput
  /// The stream is fully drained (`AVERROR_EOF`).
  case endOfStream
}

enum Status {
  static let again = marquee_AVERROR_EAGAIN()
  static let eof = marquee_AVERROR_EOF()
  static let noPTS = marquee_AV_NOPTS_VALUE()
}
