import Foundation

/// The result of `BundleBuilder.check` (`marquee build <job> --check`):
/// what a build of the job would change in the published bundle and the
/// store, found without writing anything.
public struct CheckReport: Sendable {
  /// What a build would do with one item.
  public enum Verdict: String, Sendable {
    /// Nothing: stored intact, published as it is, reused.
    case ok
    /// Encode it (the store has no intact copy of its fingerprint).
    case wouldBuild = "would build"
    /// Take it from the store into the bundle, encoding nothing (stored,
    /// but the bundle publishes another version, or none, or a damaged
    /// copy of it).
    case wouldPublish = "would publish"
    /// Drop it from the bundle: the job no longer lists it.
    case wouldRemove = "would remove"
    /// Fail it: its source cannot be hashed, or it was stored from a
    /// damaged source the job does not allow (`failure`).
    case failed = "error"
  }

  /// Why an item would be built or published.
  public struct Reason: Sendable, Equatable {
    /// What kind of reason, as JSON lines give it (`reason`).
    public enum Code: String, Sendable {
      /// The bytes of its source, poster or designer's dark picture.
      case sourceChanged = "source_changed"
      /// A setting of the job or the banner that is in its fingerprint.
      case settingChanged = "setting_changed"
      /// Marquee's version or output format, the codec libraries.
      case marqueeChanged = "marquee_changed"
      /// The fingerprint changed, but the published item's record does
      /// not say what it was made of (stored by an older Marquee).
      case fingerprintChanged = "fingerprint_changed"
      /// Never built, not in the store, or not in the bundle.
      case missing
      /// The stored copy's files changed since it was stored.
      case storedCopyDamaged = "stored_copy_damaged"
      /// The published folder's files are not the stored ones.
      case publishedCopyDiffers = "published_copy_differs"
    }

    public var code: Code
    /// `source changed`, `setting changed: video_crf 23.0 → 20.0`,
    /// `missing: not in the bundle or the store`.
    public var text: String
  }

  /// One item of the job, or of the bundle that the job no longer lists.
  public struct Item: Sendable {
    public var id: String
    /// `nil` for an item of the bundle whose type is not known.
    public var kind: BannerKind?
    public var verdict: Verdict
    public var reasons: [Reason] = []
    /// Its folder in the bundle a build would publish (`videos/<id>-<hash16>`),
    /// or the published one for `wouldRemove`.
    public var folder: String?
    /// What changed between the published version's fingerprint and this
    /// one, when the store records both (`FingerprintChange`).
    public var changes: [FingerprintChange] = []
    /// Why the item would fail (`failed`).
    public var failure: ItemFailure?

    /// `ok`, `would build: source changed`, `would publish: missing: not in
    /// the bundle (stored)`, `would remove`, or the failure.
    public var text: String {
      if let failure { return "\(failure.stage.rawValue) failed: \(failure.sourceAndReason)" }
      return verdict.rawValue + (reasons.isEmpty ? "" : ": " + reasons.map(\.text).joined(separator: "; "))
    }
  }

  /// The bundle folder checked.
  public var bundle: URL
  /// The job's items in job order, then the bundle's items the job no
  /// longer lists.
  public var items: [Item] = []
  /// Whether a bundle was published there.
  public var hasBundle = false
  /// What else a build would change in the bundle, one sentence each
  /// (`banners.json would change: link of `promo``).
  public var bundleChanges: [String] = []
  /// Why a build would refuse to run or publish at all (a link planted in
  /// `.marquee/`, a folder that is not a bundle, banners.json that cannot
  /// be made).
  public var problems: [String] = []
  /// Over the size budget: by how much (`SizeBudget.overage`).
  public var overBudget: String?
  /// Within the size budget (`SizeBudget.headroom`), or why it was not
  /// weighed.
  public var budgetNote: String?
  /// The budget's JSON fields (`SizeBudget.fields`), when weighed.
  public var budgetFields: [String: String] = [:]
  /// The job's warnings, and a run holding the bundle's lock.
  public var warnings: [String] = []
  /// Wall time of the check, seconds.
  public var seconds: Double = 0

  public init(bundle: URL) {
    self.bundle = bundle
  }

  /// Whether a build would change nothing and succeed: exit 0.
  public var isUpToDate: Bool {
    items.allSatisfy { $0.verdict == .ok } && bundleChanges.isEmpty && problems.isEmpty && overBudget == nil
  }

  public func count(_ verdict: Verdict) -> Int { items.filter { $0.verdict == verdict }.count }

  /// One line: `up to date: 4 item(s) ok`, or what a build would do
  /// (`not up to date: 1 to build, 1 to remove, banners.json would change`).
  public var summary: String {
    let total = items.filter { $0.verdict != .wouldRemove }.count
    if isUpToDate { return "up to date: \(total) item(s) ok" }
    var parts: [String] = []
    for (verdict, words) in [(Verdict.wouldBuild, "to build"), (.wouldPublish, "to publish from the store"),
                             (.wouldRemove, "to remove"), (.failed, "failing")] where count(verdict) > 0 {
      parts.append("\(count(verdict)) \(words)")
    }
    if count(.ok) > 0 { parts.append("\(count(.ok)) ok") }
    if !bundleChanges.isEmpty { parts.append("\(bundleChanges.count) other change(s) to the bundle") }
    if overBudget != nil { parts.append("over the size budget") }
    if !problems.isEmpty { parts.append("\(problems.count) problem(s) a build would stop at") }
    if !hasBundle { parts.append("no bundle at \(bundle.path) yet") }
    return "not up to date: " + parts.joined(separator: ", ")
  }
}
