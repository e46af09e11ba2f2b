import Foundation

// MARK: - BuildEvent

/// Something that happened during a run, for progress displays and logs.
///
/// Stages never print: they report events to a `BuildEventHandler`, and the
/// command line turns them into a live display, plain lines or JSON lines
/// (`LogLine`). Every event has the six fields a log shipper keys on:
/// `time`, `item`, `stage`, `event`, `duration` and `error`.
public struct BuildEvent: Sendable, Equatable {
  /// How much attention an event deserves.
  public enum Level: String, Sendable, Comparable {
    case debug, info, warning, error
    private var rank: Int {
      switch self {
      case .debug: 0
      case .info: 1
      case .warning: 2
      case .error: 3
      }
    }
    public static func < (a: Level, b: Level) -> Bool { a.rank < b.rank }
  }

  /// The part of the run the event belongs to.
  public enum Stage: String, Sendable {
    /// The run as a whole (start, summary).
    case run
    /// Taking the bundle lock.
    case lock
    /// Removing what killed runs left behind.
    case cleanup
    /// Hashing a source and its settings.
    case hash
    /// Decoding a video's source: damaged pictures and a truncated end
    /// (`SourceHealth`) fail the item here.
    case decode
    /// Making an item's outputs (transcode, images).
    case encode
    /// Choosing a video's cover (a frame, or the job's poster) and writing
    /// it with its dark variant.
    case cover
    /// Checking outputs (an item's, or the staged bundle's).
    case verify
    /// Putting an item's outputs into the content-addressed store.
    case store
    /// Linking items into the staging bundle and writing banners.json.
    case assemble
    /// Switching the staged bundle into place.
    case publish
    /// A message of FFmpeg's own libraries (`--verbose`), passed on as it is.
    case ffmpeg
    /// `build --check`: comparing what a build would publish with the
    /// published bundle and the store, writing nothing.
    case check
  }

  /// What happened.
  public enum Name: String, Sendable {
    case started, progress, finished, reused, failed, skipped, warning
    case waiting, acquired, removed, violation, published, notPublished = "not_published", summary
    /// A library's log line (stage `ffmpeg`).
    case log
    /// `build --check` (stage `check`): an item a build would leave as it
    /// is (`ok`), encode (`would_build`), take from the store into the
    /// bundle (`would_publish`) or drop from it (`would_remove`); another
    /// part of the bundle it would rewrite (`would_change`); how the
    /// bundle stands against its size budget (`budget`).
    case ok
    case wouldBuild = "would_build"
    case wouldPublish = "would_publish"
    case wouldRemove = "would_remove"
    case wouldChange = "would_change"
    case budget
  }

  /// When it happened.
  public var time: Date
  public var level: Level
  /// The banner id, or `nil` for the run as a whole.
  public var item: String?
  public var stage: Stage
  public var event: Name
  /// Seconds the stage took (on `finished`, `failed`, `reused`, `summary`).
  public var duration: Double?
  /// The reason, on failures.
  public var error: String?
  /// A human sentence.
  public var message: String?
  /// Fraction done, 0...1 (on `progress`).
  public var progress: Double?
  /// Extra facts as strings (counts, sizes, paths), written as they are.
  public var fields: [String: String]

  public init(level: Level = .info, item: String? = nil, stage: Stage, event: Name, duration: Double? = nil,
              error: String? = nil, message: String? = nil, progress: Double? = nil,
              fields: [String: String] = [:], time: Date = Date()) {
    self.time = time
    self.level = level
    self.item = item
    self.stage = stage
    self.event = event
    self.duration = duration
    self.error = error
    self.message = message
    self.progress = progress
    self.fields = fields
  }
}

/// Receives events from any thread; must be cheap and must not block.
public typealias BuildEventHandler = @Sendable (BuildEvent) -> Void
