import Foundation

/// Why an item failed, for the user: names the item, the file and the reason.
public struct ItemFailure: Error, CustomStringConvertible, Sendable {
  /// The banner id.
  public var id: String
  /// The source as written in the job file.
  public var source: String
  /// What went wrong, in words (FFmpeg's reason included where it is one).
  public var reason: String
  public var description: String { "\(id): \(source): \(reason)" }
}

/// What happened to one banner of a build.
public struct ItemOutcome: Sendable {
  public var id: String
  public var kind: BannerKind
  /// The manifest entry when the item was built.
  public var entry: ManifestEntry?
  /// The failure when it was not.
  public var failure: ItemFailure?
  /// Warnings worth a user's attention (a cover that had to settle, a
  /// dropped audio track, …).
  public var warnings: [String]
  /// Wall time spent on the item, seconds.
  public var seconds: Double
  /// One-line summary of what was made, for the CLI.
  public var summary: String
}

/// The result of `BundleBuilder.build`.
public struct BuildReport: Sendable {
  /// The published bundle folder (also when it was not replaced).
  public var bundle: URL
  /// Per-item outcomes, in job order.
  public var items: [ItemOutcome]
  /// Whether the new bundle replaced the old one.
  public var published: Bool
  /// Job-level warnings (from the job reader and the build).
  public var warnings: [String]
  public var failedCount: Int { items.filter { $0.failure != nil }.count }
}
