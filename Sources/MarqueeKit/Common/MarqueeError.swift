import Foundation

/// The one error type of MarqueeKit: what failed (`code`), for which item and
/// file, a message for people, the MediaIO error underneath and where in
/// Marquee it was raised.
///
/// The message names the reason in words a job author can act on ("picture
/// is 20000x14000 = 280000000 pixels, over the max_pixels limit of
/// 40000000"). Stages fill in `file` when the file at fault is not the item's
/// source (a poster, a bundle file); the pipeline adds the item id. Item
/// failures become `ItemFailure` outcomes that keep the error; run-level ones (`locked`,
/// `writeFailed`, `verification`) end the run, and the command line maps every
/// code to an exit status in one place (`ExitCode(for:)` in `marquee`).
///
/// Decisions are made on `code` and on `MediaIOError.kind`, never on message
/// text.
public struct MarqueeError: Error, CustomStringConvertible, Sendable, Equatable {
  /// What kind of failure this is. A struct over a private enum, so cases
  /// can be added without breaking `switch`es elsewhere.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Value: String, Hashable, Sendable {
      case usage = "usage"
      case limitExceeded = "limit exceeded"
      case unsupportedFormat = "unsupported format"
      case unreadableSource = "unreadable source"
      case corruptSource = "corrupt source"
      case damagedSource = "damaged source"
      case noCover = "no cover"
      case encodeFailed = "encode failed"
      case writeFailed = "write failed"
      case invalidRequest = "invalid request"
      case invalidManifest = "invalid manifest"
      case storeDamaged = "store damaged"
      case notStored = "not stored"
      case locked = "locked"
      case verification = "verification"
      case overBudget = "over budget"
    }
    private let value: Value
    private init(_ value: Value) { self.value = value }

    /// The command line or a command's input is wrong (a folder that is not a
    /// bundle, an nginx prefix, a preview folder inside the bundle).
    public static let usage = Code(.usage)
    /// A configured limit (file size, pixels, frames, duration) is exceeded.
    public static let limitExceeded = Code(.limitExceeded)
    /// The file is not a format or codec Marquee takes (by content).
    public static let unsupportedFormat = Code(.unsupportedFormat)
    /// The file is missing, empty, not a regular file or unreadable.
    public static let unreadableSource = Code(.unreadableSource)
    /// The file is truncated or corrupt, has no picture, or a decoder failed on it.
    public static let corruptSource = Code(.corruptSource)
    /// The video source is damaged or truncated: pictures or sound of it
    /// do not decode cleanly, or it ends well before its declared duration
    /// (`SourceHealth`), which the job's `allow_damaged_sources` builds
    /// anyway; or it is cut before the index that says where its pictures
    /// are (an MP4 without its `moov`, `MediaIOError.Kind.truncated`), which
    /// nothing builds.
    public static let damagedSource = Code(.damagedSource)
    /// No cover or dark picture can be made: every frame, the pinned one, the
    /// poster or the designer's dark picture is black.
    public static let noCover = Code(.noCover)
    /// An encoder, resizer or muxer failed on good input.
    public static let encodeFailed = Code(.encodeFailed)
    /// The output cannot be written (disk full, permissions, read-only).
    public static let writeFailed = Code(.writeFailed)
    /// A stage was handed options it cannot use (a programming or job error).
    public static let invalidRequest = Code(.invalidRequest)
    /// An entry would break the banners.json contract
    /// (docs/playback-constraints.md §1).
    public static let invalidManifest = Code(.invalidManifest)
    /// A record in the content-addressed store cannot be read or is inconsistent.
    public static let storeDamaged = Code(.storeDamaged)
    /// `merge` found no stored object for an item: no shard has built it.
    public static let notStored = Code(.notStored)
    /// Another run holds the bundle's lock.
    public static let locked = Code(.locked)
    /// The staged bundle breaks the playback constraints.
    public static let verification = Code(.verification)
    /// The staged bundle or an item of it weighs more than the job's size
    /// budget (`max_bundle_mb`, `max_item_mb`; `SizeBudget`).
    public static let overBudget = Code(.overBudget)

    public var description: String { value.rawValue }
  }

  /// Where in Marquee the error was raised (`#fileID`, `#line`).
  public struct Location: Hashable, Sendable, CustomStringConvertible {
    public var fileID: String
    public var line: Int
    public var description: String { "\(fileID):\(line)" }
  }

  /// The kind of failure.
  public var code: Code
  /// The file at fault as the user named it (last path component or job
  /// path), when the message does not already start from the item's source.
  public var file: String?
  /// The banner id, when the error belongs to one.
  public var item: String?
  /// Where in a JSON document the bad value is (`banners[2].duration`),
  /// when the error is about one.
  public var field: String?
  /// What went wrong, without the file name.
  public var message: String
  /// The MediaIO error this came from, if any.
  public var cause: MediaIOError?
  /// Where it was raised.
  public var location: Location

  public init(_ code: Code, _ message: String, file: String? = nil, item: String? = nil, cause: MediaIOError? = nil,
              fileID: String = #fileID, line: Int = #line) {
    self.code = code
    self.message = message
    self.file = file
    self.item = item
    self.cause = cause
    location = Location(fileID: fileID, line: line)
  }

  /// The same, with the file first (the image renderer's order).
  public init(_ code: Code, file: String?, message: String, cause: MediaIOError? = nil,
              fileID: String = #fileID, line: Int = #line) {
    self.init(code, message, file: file, cause: cause, fileID: fileID, line: line)
  }

  /// `file: message`, or the message alone.
  public var description: String { file.map { "\($0): \(message)" } ?? message }

  /// The description, then one indented line each for the code, the
  /// error underneath (the C function that failed, its FFmpeg status when
  /// it has one, the context and reason) and where in Marquee it was
  /// raised: what `--verbose` prints under a failed item.
  ///
  /// ```
  /// <description>
  ///   code: <code>
  ///   cause: <C function>[ status <FFmpeg status>]: [<context>: ]<reason>
  ///   at: <#fileID>:<line>
  /// ```
  public var detailedDescription: String {
    var lines = [description, "  code: \(code)"]
    if let cause {
      let status = cause.status != 0 ? " status \(cause.status)" : ""
      let context = cause.context.isEmpty ? "" : "\(cause.context): "
      lines.append("  cause: \(cause.function)\(status): \(context)\(cause.reason)")
    }
    lines.append("  at: \(location)")
    return lines.joined(separator: "\n")
  }

  /// Whether the output file system is at fault (disk full, permissions):
  /// the run stops publishing and the command exits with its I/O status.
  public var isOutputIOError: Bool { code == .writeFailed || cause?.isOutputIOError == true }

  /// Equal in what they say; where they were raised does not count.
  public static func == (a: MarqueeError, b: MarqueeError) -> Bool {
    a.code == b.code && a.file == b.file && a.item == b.item && a.field == b.field && a.message == b.message
      && a.cause == b.cause
  }

  /// Classifies a MediaIO error raised while opening or decoding `file`,
  /// from its `kind` as set where it was thrown. A file cut before its
  /// index (`truncated`) is a damaged source, with the fix.
  static func decoding(_ error: MediaIOError, file: String?, fileID: String = #fileID, line: Int = #line) -> MarqueeError {
    let code: Code =
      switch error.kind {
      case .limit: .limitExceeded
      case .unsupported: .unsupportedFormat
      case .input: .unreadableSource
      case .output: .writeFailed
      case .truncated: .damagedSource
      case .invalidData, .failed: .corruptSource
      }
    let message = error.kind == .truncated ? error.reason + truncatedFix : error.reason
    return MarqueeError(code, message, file: file, cause: error, fileID: fileID, line: line)
  }

  /// What a job can do about a file cut before its index.
  static let truncatedFix = "; copy the file again once it is complete (allow_damaged_sources cannot build it)"


  /// Wraps a MediaIO error raised while resizing, encoding or writing an output.
  static func encoding(_ error: MediaIOError, file: String?, output: String, fileID: String = #fileID, line: Int = #line)
    -> MarqueeError
  {
    MarqueeError(error.isOutputIOError ? .writeFailed : .encodeFailed, "cannot produce \(output): \(error.reason)",
                 file: file, cause: error, fileID: fileID, line: line)
  }

  /// Wraps what a stage edge caught into the one error type, so what
  /// crosses into the pipeline is a `MarqueeError` (item builders are
  /// `throws(MarqueeError)`): a `MarqueeError` passes as it is; a
  /// `MediaIOError` becomes `.writeFailed` when the output file system is at
  /// fault, else `.encodeFailed`, its description the message and itself the
  /// cause; any other error (Foundation's file errors) is described from its
  /// errno, `.writeFailed` when that errno means the output is at fault
  /// (`MediaIOError.outputErrnos`), else `.encodeFailed`.
  static func wrapping(_ error: any Error, fileID: String = #fileID, line: Int = #line) -> MarqueeError {
    switch error {
    case let e as MarqueeError:
      return e
    case let e as MediaIOError:
      return MarqueeError(e.isOutputIOError ? .writeFailed : .encodeFailed, e.description, cause: e,
                          fileID: fileID, line: line)
    default:
      let io = FileSystem.posixCode(error).map { MediaIOError.outputErrnos.contains($0) } ?? false
      return MarqueeError(io ? .writeFailed : .encodeFailed, FileSystem.describe(error), fileID: fileID, line: line)
    }
  }

  /// The same error, its `file` moved into the message after `prefix`
  /// (`the poster (cover.image): poster.jpg: file not found`): for a failure
  /// that names another file as its source. Code, cause and location stay.
  func withFileInMessage(after prefix: String = "") -> MarqueeError {
    var error = self
    error.message = prefix + description
    error.file = nil
    return error
  }

  /// A store or output-folder operation that failed; `isIO` when the file
  /// system is at fault.
  static func store(_ message: String, isIO: Bool = false, fileID: String = #fileID, line: Int = #line) -> MarqueeError {
    MarqueeError(isIO ? .writeFailed : .storeDamaged, message, fileID: fileID, line: line)
  }

  /// No cover can be made; `file` is the file at fault as written in the job
  /// when it is not the video source (the poster).
  static func noCover(_ message: String, source: String? = nil, fileID: String = #fileID, line: Int = #line) -> MarqueeError {
    MarqueeError(.noCover, message, file: source, fileID: fileID, line: line)
  }

  /// An entry that would break the banners.json contract: `path` is where
  /// in banners.json the value would go (`banners[2].duration`, `""` for the
  /// emitter's own configuration), `id` the banner's.
  static func manifest(path: String, id: String?, reason: String, fileID: String = #fileID, line: Int = #line) -> MarqueeError {
    var text = path.isEmpty ? "banners.json" : path
    if let id { text += " (banner \(JobJSON.quoted(id)))" }
    var error = MarqueeError(.invalidManifest, "\(text): \(reason)", item: id, fileID: fileID, line: line)
    error.field = path
    return error
  }

  /// A media file that cannot be read the way a player would (`verify`).
  static func probe(_ message: String, fileID: String = #fileID, line: Int = #line) -> MarqueeError {
    MarqueeError(.corruptSource, message, fileID: fileID, line: line)
  }

  /// The fixes a job has when the video has nothing to show.
  static let coverFix = "supply a poster with \"cover\": {\"image\": \"poster.jpg\"}, or pin a lit frame with \"cover\": {\"at\": seconds}"
}
