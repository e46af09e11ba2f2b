import Foundation

/// Why an item failed: the item, the file at fault as the job names it, the
/// stage, and the `MarqueeError` itself.
///
/// Printed as `<id>: <stage> failed: <source>: <reason>` (the reason is the
/// error's `message`); the JSON log's failure event carries the error's
/// `code`, and `--verbose` prints its `detailedDescription` (the cause and
/// where it was raised).
public struct ItemFailure: CustomStringConvertible, Sendable {
  /// The banner id.
  public var id: String
  /// The file at fault as written in the job file: the source, or the
  /// poster or designer's dark picture when one of those failed.
  public var source: String
  /// What went wrong. Its `message` is the reason printed after `source`.
  public var error: MarqueeError
  /// The stage that failed, for `<id>: <stage> failed: …`.
  public var stage: BuildEvent.Stage

  public init(id: String, source: String, error: MarqueeError, stage: BuildEvent.Stage = .encode) {
    self.id = id
    self.source = source
    self.error = error
    self.stage = stage
  }

  /// What went wrong, in words (FFmpeg's reason included where it is one):
  /// the error's `message`.
  public var reason: String { error.message }

  /// Whether the output side failed (disk full, file too large, read-only
  /// or forbidden output folder) rather than the source: the run then ends
  /// with the I/O exit code and publishes nothing.
  public var isOutputIOError: Bool { error.isOutputIOError }

  public var description: String { "\(id): \(source): \(reason)" }

  /// `<source>: <reason>`: the failure without the id, for a log event
  /// that carries the id in its own field.
  public var sourceAndReason: String { "\(source): \(reason)" }
}

/// What happened to one banner of a run.
public enum ItemStatus: String, Sendable {
  /// Encoded in this run.
  case built
  /// Its fingerprint was in the store: nothing encoded.
  case reused
  /// It failed; see `ItemOutcome.failure`.
  case failed
  /// Another shard's item (`build --shard`).
  case skipped
}

/// What happened to one banner of a build.
public struct ItemOutcome: Sendable {
  public var id: String
  public var kind: BannerKind
  public var status: ItemStatus
  /// The manifest entry when the item was built or reused.
  public var entry: ManifestEntry?
  /// The failure when it was not.
  public var failure: ItemFailure?
  /// Warnings worth a user's attention (a cover that had to settle, a
  /// dropped audio track, …).
  public var warnings: [String]
  /// Wall time spent on the item in this run, seconds.
  public var seconds: Double
  /// One-line summary of what was made, for the CLI.
  public var summary: String
  /// The item's content fingerprint (`nil` when the source could not be read).
  public var fingerprint: String?
  /// The bundle folder of its outputs, e.g. `videos/spring-3fa9c2d41b7e0a55`.
  public var folder: String?
  /// Output files and their total size in bytes.
  public var fileCount: Int
  public var byteCount: Int64
  /// A video published from a damaged or truncated source
  /// (`allow_damaged_sources`): what was wrong with it; nil otherwise.
  public var health: SourceHealth? = nil

  public init(id: String, kind: BannerKind, status: ItemStatus, entry: ManifestEntry? = nil, failure: ItemFailure? = nil,
              warnings: [String] = [], seconds: Double = 0, summary: String = "", fingerprint: String? = nil,
              folder: String? = nil, fileCount: Int = 0, byteCount: Int64 = 0) {
    self.id = id
    self.kind = kind
    self.status = status
    self.entry = entry
    self.failure = failure
    self.warnings = warnings
    self.seconds = seconds
    self.summary = summary
    self.fingerprint = fingerprint
    self.folder = folder
    self.fileCount = fileCount
    self.byteCount = byteCount
  }
}

/// The result of `BundleBuilder.build`.
public struct BuildReport: Sendable {
  /// The bundle folder (also when it was not replaced).
  public var bundle: URL
  /// Per-item outcomes, in job order.
  public var items: [ItemOutcome]
  /// Whether the new bundle replaced the old one.
  public var published: Bool
  /// Whether a bundle (a folder with banners.json) was in place when the
  /// run started: a run that publishes nothing leaves it as it was.
  public var hadBundle = false
  /// Job-level warnings (from the job reader and the build).
  public var warnings: [String]
  /// Problems the pre-publish verification found (the bundle was then not
  /// published, or published without the items they name).
  public var violations: [Violation] = []
  /// Set when the output could not be written (disk full, permissions):
  /// nothing was published.
  public var ioError: String?
  /// Wall time of the whole run, seconds.
  public var seconds: Double = 0
  /// Why the bundle was over its size budget (`max_bundle_mb`,
  /// `max_item_mb`) and so not published; nil otherwise.
  public var overBudget: String?
  /// The staged bundle's bytes, when a size budget had it weighed.
  public var bundleBytes: Int64?

  public init(bundle: URL, items: [ItemOutcome], published: Bool, warnings: [String]) {
    self.bundle = bundle
    self.items = items
    self.published = published
    self.warnings = warnings
  }

  public var failedCount: Int { items.filter { $0.status == .failed }.count }
  public var builtCount: Int { items.filter { $0.status == .built }.count }
  public var reusedCount: Int { items.filter { $0.status == .reused }.count }
  public var skippedCount: Int { items.filter { $0.status == .skipped }.count }
  /// Items built or reused from a damaged or truncated source
  /// (`allow_damaged_sources`).
  public var damagedItems: [ItemOutcome] {
    items.filter { ($0.status == .built || $0.status == .reused) && $0.health.map { !$0.isSound } == true }
  }
  /// Their damaged pictures, summed.
  public var damagedPictureCount: Int { damagedItems.reduce(0) { $0 + ($1.health?.damagedPictureCount ?? 0) } }
  /// Their audio packets that could not be decoded, summed.
  public var damagedAudioPacketCount: Int { damagedItems.reduce(0) { $0 + ($1.health?.audioErrors ?? 0) } }

  /// `4 reused, 0 built` (plus failures when there are any).
  public var countsSummary: String {
    var text = "\(reusedCount) reused, \(builtCount) built"
    if failedCount > 0 { text += ", \(failedCount) failed" }
    if skippedCount > 0 { text += ", \(skippedCount) left to other shards" }
    let damaged = damagedItems
    if !damaged.isEmpty {
      let truncated = damaged.filter { $0.health?.truncation != nil }.count
      let audio = damagedAudioPacketCount
      text += "; \(damaged.count) from a damaged source (\(damagedPictureCount) damaged picture(s)"
        + (audio > 0 ? ", \(audio) damaged audio packet(s)" : "")
        + (truncated > 0 ? ", \(truncated) truncated" : "") + ")"
    }
    return text
  }
}
