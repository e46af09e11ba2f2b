import Foundation

/// Why an image banner could not be rendered.
///
/// The message names the source file and the reason, in words a job author
/// can act on ("picture is 20000x14000 = 280000000 pixels, over the
/// max_pixels limit of 40000000"); the pipeline prefixes the item id. The
/// MediaIO error underneath, if any, is kept as `cause` for `--verbose`.
public struct ImageRenderError: Error, CustomStringConvertible, Sendable, Equatable {
  /// What kind of failure this is. A struct over a private enum, so cases
  /// can be added without breaking `switch`es elsewhere.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Value: String, Hashable, Sendable {
      case limitExceeded = "limit exceeded"
      case unsupportedFormat = "unsupported format"
      case unreadableSource = "unreadable source"
      case corruptSource = "corrupt source"
      case encodeFailed = "encode failed"
      case writeFailed = "write failed"
      case invalidRequest = "invalid request"
    }
    private let value: Value
    private init(_ value: Value) { self.value = value }

    /// A configured limit (file size, pixels, animation size) is exceeded;
    /// checked from the headers before decoding.
    public static let limitExceeded = Code(.limitExceeded)
    /// The file is not JPEG, PNG, GIF, WebP or HEIF (by content).
    public static let unsupportedFormat = Code(.unsupportedFormat)
    /// The file is missing, empty, not a regular file or unreadable.
    public static let unreadableSource = Code(.unreadableSource)
    /// The file is truncated or corrupt, or a decoder failed on it.
    public static let corruptSource = Code(.corruptSource)
    /// WebP or JPEG encoding (or resizing) failed.
    public static let encodeFailed = Code(.encodeFailed)
    /// The outputs could not be written under the bundle root.
    public static let writeFailed = Code(.writeFailed)
    /// The caller's options or id are invalid (a programming or job error).
    public static let invalidRequest = Code(.invalidRequest)

    public var description: String { value.rawValue }
  }

  /// The kind of failure.
  public var code: Code
  /// The source file name (last path component).
  public var file: String
  /// What went wrong, without the file name.
  public var message: String
  /// The MediaIO error this came from, if any.
  public var cause: MediaIOError?

  public init(code: Code, file: String, message: String, cause: MediaIOError? = nil) {
    self.code = code
    self.file = file
    self.message = message
    self.cause = cause
  }

  /// `file: message`.
  public var description: String { "\(file): \(message)" }

  /// The description plus the underlying C function, for `--verbose`.
  public var detailedDescription: String {
    guard let cause else { return "\(description) [\(code)]" }
    return "\(description) [\(code); \(cause.function)\(cause.code != 0 ? " status \(cause.code)" : "")]"
  }

  /// Classifies a MediaIO error raised while opening or decoding `file`.
  static func decoding(_ error: MediaIOError, file: String) -> ImageRenderError {
    let code: Code
    switch error.function {
    case "limit": code = .limitExceeded
    case "open", "stat", "read": code = .unreadableSource
    case "probe" where error.reason.hasPrefix("not a supported image"): code = .unsupportedFormat
    default: code = .corruptSource
    }
    return ImageRenderError(code: code, file: file, message: error.reason, cause: error)
  }

  /// Wraps a MediaIO error raised while resizing or encoding an output.
  static func encoding(_ error: MediaIOError, file: String, output: String) -> ImageRenderError {
    ImageRenderError(code: .encodeFailed, file: file, message: "cannot produce \(output): \(error.reason)", cause: error)
  }
}
