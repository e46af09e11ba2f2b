import Foundation

/// What the stages made for one banner: its manifest entry (paths under the
/// item's folder), warnings and a one-line summary.
struct ItemProduct: Sendable {
  var entry: ManifestEntry
  var warnings: [String]
  var summary: String
  /// A video's source health (`SourceHealth`); nil for images.
  var health: SourceHealth? = nil
}

/// Runs one banner's stage chain into a folder: the seam between the
/// pipeline (store, scheduling, publishing) and the stages. One function per
/// kind; each writes under `root/<folder>` and returns bundle-style paths
/// starting with `<folder>/`.
struct BannerItemBuilder: Sendable {
  let settings: JobSettings
  /// Where the stages write (a temporary folder of the store).
  let staging: URL
  /// The build's CPU permits; `make` is called holding one.
  var budget: CPUBudget = .unlimited
  /// How far a video's transcode has got, for live progress.
  var progress: (@Sendable (TranscodeProgress) -> Void)? = nil

  var limits: InputLimits {
    settings.inputLimits
  }

  var darkVariants: DarkVariantGenerator {
    let s = settings.darkSurface, l = settings.background
    return DarkVariantGenerator(options: .init(surface: s,
                                               lightSurface: l))
  }

  /// The folder the stages write an item into, relative to `staging`.
  static func folder(for spec: BannerSpec) -> String {
    spec.kind == .video ? "videos/\(spec.id)" : "images/\(spec.id)"
  }

  /// Runs the item's chain.
  ///
  /// - Throws: whatever the stages throw (`MarqueeError`, `MediaIOError`,
  ///   `MarqueeError`, file-system errors); `ItemFailure.classify`
  ///   turns it into words.
  func make(_ spec: BannerSpec) throws -> ItemProduct {
    let folder = Self.folder(for: spec)
    if spec.kind == .video { return try buildVideo(spec, folder: folder) }
    let (entry, warnings, summary) = try buildImage(spec, folder: folder)
    return ItemProduct(entry: entry, warnings: warnings, summary: summary)
  }

  /// Video banners: `VideoBannerBuilder` (transcoder, master playlist,
  /// cover and its dark variant) with the pipeline's fixed encoder threads.
  private func buildVideo(_ spec: BannerSpec, folder: String) throws -> ItemProduct {
    let built = try VideoBannerBuilder(settings: settings, darkVariants: darkVariants,
                                       encoderThreads: ItemFingerprint.encoderThreads)
      .build(spec, bundleRoot: staging, folder: folder, budget: budget, progress: progress)
    return ItemProduct(entry: .video(built.entry), warnings: built.warnings, summary: built.summary, health: built.health)
  }
}

extension ItemFailure {
  /// Words for any error a stage or the store threw, and whether it means
  /// the output cannot be written: decided from `MarqueeError.code` and
  /// `MediaIOError.kind`, never from the text.
  static func classify(_ error: Error, spec: BannerSpec) -> ItemFailure {
    switch error {
    case let e as MarqueeError where e.code == .noCover:
      return ItemFailure(id: spec.id, source: e.file ?? spec.sourceText, reason: e.message, stage: .cover)
    case let e as MarqueeError where e.code == .damagedSource:
      return ItemFailure(id: spec.id, source: spec.sourceText, reason: e.message, stage: .decode)
    case let e as MarqueeError:
      // The failure names the item and its source as written in the job.
      return ItemFailure(id: spec.id, source: spec.sourceText, reason: e.message, isOutputIOError: e.isOutputIOError)
    case let e as MediaIOError:
      return ItemFailure(id: spec.id, source: spec.sourceText, reason: e.description, isOutputIOError: e.isOutputIOError)
    default:
      let io = FileSystem.posixCode(error).map { MediaIOError.outputErrnos.contains($0) } ?? false
      return ItemFailure(id: spec.id, source: spec.sourceText, reason: FileSystem.describe(error), isOutputIOError: io)
    }
  }
}
