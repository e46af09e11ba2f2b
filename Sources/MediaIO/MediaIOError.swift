internal import CFFmpeg

#if canImport(Glibc)
import Glibc
#endif

/// An error reported by FFmpeg, libwebp, libheif, Little CMS or the system,
/// with the C function that failed, the context it failed in, and what kind
/// of failure it is.
///
/// FFmpeg reports failure as a negative `Int32` (an `AVERROR` code). This type
/// is the only place such a status exists: the `kind` is decided here, at the
/// boundary where the error is thrown, so nothing above MediaIO turns a status
/// back into an errno or reads the message to classify it.
public struct MediaIOError: Error, CustomStringConvertible, Sendable, Equatable {
  /// What kind of failure, set where the error is thrown.
  public enum Kind: Sendable, Equatable {
    /// The input is corrupt or not what it claims (`AVERROR_INVALIDDATA`, a
    /// truncated or unparsable file).
    case invalidData
    /// The input ends before its own structure says it does (an MP4 box
    /// whose declared size runs past the end of the file, no index yet):
    /// cut short, or still being copied or written.
    case truncated
    /// A configured limit (file size, pixels, frames, duration) is exceeded.
    case limit
    /// A format, codec or feature Marquee does not take.
    case unsupported
    /// Opening, checking or reading an input failed; `errno` when the system
    /// said why (0 when the reason is ours: empty, not a regular file).
    case input(errno: Int32)
    /// Writing an output failed (`avio_open`, a muxer write, the trailer);
    /// `errno` from FFmpeg's `AVERROR(errno)` status or the system.
    case output(errno: Int32)
    /// Any other library failure (an encoder that cannot open, out of memory).
    case failed
  }

  /// The errors that mean the output file system is at fault, not the
  /// input: no space, a file-size limit (`ulimit -f`), a quota, a read-only
  /// mount, a device error, permissions.
  public static let outputErrnos: Set<Int32> = [ENOSPC, EFBIG, EDQUOT, EROFS, EIO, EACCES, EPERM]

  /// The kind of failure.
  public let kind: Kind
  /// The FFmpeg status code (negative), or 0 when the error did not come from
  /// an FFmpeg call (a limit, or a libwebp failure).
  public let status: Int32
  /// The C function (or operation) that failed, such as `avformat_open_input`.
  public let function: String
  /// What was being done: a file name, a stream, a filter graph description.
  public let context: String
  /// `av_strerror`'s text for `status`, or our own reason.
  public let reason: String

  public init(kind: Kind, status: Int32 = 0, function: String, context: String, reason: String) {
    self.kind = kind
    self.status = status
    self.function = function
    self.context = context
    self.reason = reason
  }

  /// Builds the error for an FFmpeg status, reading the text with
  /// `av_strerror`. `AVERROR_INVALIDDATA` is `.invalidData`; a POSIX errno
  /// (`AVERROR(e)` is `-e`) is `.output(errno:)` when `writing`, else
  /// `.input(errno:)`; the rest is `.failed`.
  init(status: Int32, function: String, context: String, writing: Bool = false) {
    var buffer = [CChar](repeating: 0, count: 256)
    let text: String
    if av_strerror(status, &buffer, buffer.count) == 0 {
      text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    } else {
      text = "unknown FFmpeg error \(status)"
    }
    let kind: Kind
    if status == marquee_AVERROR_INVALIDDATA() {
      kind = .invalidData
    } else if status < 0 && status > -4096 {
      kind = writing ? .output(errno: -status) : .input(errno: -status)
    } else {
      kind = .failed
    }
    self.init(kind: kind, status: status, function: function, context: context, reason: text)
  }

  /// An error that did not come from a C status code.
  static func failure(_ function: String, _ context: String, _ reason: String, kind: Kind = .failed) -> MediaIOError {
    MediaIOError(kind: kind, function: function, context: context, reason: reason)
  }

  /// A configured limit exceeded, checked before decoding.
  static func limit(_ context: String, _ reason: String) -> MediaIOError {
    MediaIOError(kind: .limit, function: "limit", context: context, reason: reason)
  }

  public var description: String {
    context.isEmpty ? "\(reason) (\(function))" : "\(context): \(reason) (\(function))"
  }

  /// Corresponds to `AVERROR_INVALIDDATA`: the input is corrupt or not what it claims.
  public var isInvalidData: Bool { kind == .invalidData }

  /// Whether the output file system is at fault (`outputErrnos`).
  public var isOutputIOError: Bool {
    if case .output(let e) = kind { return Self.outputErrnos.contains(e) }
    return false
  }
}

/// Turns an FFmpeg status into `Void` or a thrown `MediaIOError`.
///
/// - Returns: the non-negative status, for calls that return a count.
@discardableResult
func check(_ status: Int32, _ function: String, _ context: @autoclosure () -> String, writing: Bool = false)
  throws(MediaIOError) -> Int32
{
  if status < 0 { throw MediaIOError(status: status, function: function, context: context(), writing: writing) }
  return status
}

/// What a codec did with the input `send` offered it
/// (`avcodec_send_frame`, `avcodec_send_packet`).
///
/// `AVERROR(EAGAIN)` and `AVERROR_EOF` are normal flow, not errors, so they
/// are values here. Not discardable: `.tryAgain` means the input was *not*
/// taken, and a caller that ignored it would lose a picture or a packet.
public enum SendResult: Sendable, Equatable {
  /// The codec took the input (status 0). The end-of-input marker (`nil`)
  /// is accepted once; the codec then drains.
  case accepted
  /// The codec is full and did not take the input (`AVERROR(EAGAIN)`):
  /// receive its output until `receive` answers `.needsInput`, then send
  /// the same input again.
  case tryAgain
  /// The codec was already told the input ended (`AVERROR_EOF`); it takes
  /// nothing more, and the input was not taken.
  case endOfStream
}

/// The outcome of a receive or pull step on a codec or filter graph.
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

extension SendResult {
  /// The result a codec's send call returned (`avcodec_send_packet`,
  /// `avcodec_send_frame`): `AVERROR(EAGAIN)` is `.tryAgain`, `AVERROR_EOF`
  /// `.endOfStream`, 0 `.accepted`.
  ///
  /// - Throws: `MediaIOError` naming `function` and `context` for any other
  ///   negative status (corrupt data, a codec that refuses the input).
  init(status: Int32, _ function: String, _ context: @autoclosure () -> String) throws(MediaIOError) {
    switch status {
    case Status.again: self = .tryAgain
    case Status.eof: self = .endOfStream
    default:
      try check(status, function, context())
      self = .accepted
    }
  }
}

extension Step {
  /// The result a codec's receive call or a filter graph's sink returned
  /// (`avcodec_receive_frame`, `avcodec_receive_packet`,
  /// `av_buffersink_get_frame`): `AVERROR(EAGAIN)` is `.needsInput`,
  /// `AVERROR_EOF` `.endOfStream`, 0 `.produced`.
  ///
  /// - Throws: `MediaIOError` naming `function` and `context` for any other
  ///   negative status.
  init(status: Int32, _ function: String, _ context: @autoclosure () -> String) throws(MediaIOError) {
    switch status {
    case Status.again: self = .needsInput
    case Status.eof: self = .endOfStream
    default:
      try check(status, function, context())
      self = .produced
    }
  }
}

enum Status {
  static let again = marquee_AVERROR_EAGAIN()
  static let eof = marquee_AVERROR_EOF()
  static let noPTS = marquee_AV_NOPTS_VALUE()
}
