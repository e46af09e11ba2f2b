import Foundation
import MediaIO

/// What the stages made for one banner: its manifest entry (paths under the
/// item's folder), warnings and a one-line summary.
struct ItemProduct: Sendable {
  var entry: ManifestEntry
  var warnings: [String]
  var summary: String
  /// The source's health (`SourceHealth`): a video's, or a damaged
  /// still's built under `allow_damaged_sources`; nil for a whole still.
  var health: SourceHealth? = nil
  /// What the stages already judged of the dark files they wrote
  /// (``DarkJudgements``), for the build's check of its outputs.
  var darkJudgements = DarkJudgements()
  /// The pictures the stages already decoded from files they wrote
  /// (``DecodedFiles``), for the placeholder and the build's check of its
  /// outputs.
  var decodedFiles = DecodedFiles()
  /// A video's loudness and the gain its sound was given
  /// (`LoudnessAdjustment`), for the JSON log's fields; nil otherwise.
  var loudness: LoudnessAdjustment? = nil
}

/// Runs one banner's stage chain into a folder: the seam between the
/// pipeline (store, scheduling, publishing) and the stages. One function per
/// kind, side by side: `buildVideo` (`BannerItemBuilder+Video.swift`, with
/// the video chain `VideoBannerBuilder`) and `buildImage`
/// (`BannerItemBuilder+Image.swift`); each writes under `root/<folder>` and
/// returns bundle-style paths starting with `<folder>/`.
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
  /// - Throws: `MarqueeError`: a stage that throws other errors
  ///   (`MediaIOError`, file-system errors) is wrapped where it is called
  ///   (`MarqueeError.wrapping`); `ItemFailure.classify` names the file and
  ///   the stage.
  func make(_ spec: BannerSpec) throws(MarqueeError) -> ItemProduct {
    let folder = Self.folder(for: spec)
    var product = spec.kind == .video ? try buildVideo(spec, folder: folder) : try buildImage(spec, folder: folder)
    switch product.entry {
    case .video(var entry):
      entry.placeholder = try placeholder(light: entry.coverPath, dark: entry.darkCoverPath, folder: folder,
                                          decoded: &product.decodedFiles)
      product.entry = .video(entry)
    case .image(var entry):
      entry.placeholder = try placeholder(light: entry.path, dark: entry.darkPath, folder: folder,
                                          decoded: &product.decodedFiles)
      product.entry = .image(entry)
    }
    return product
  }

  /// The placeholder of the published pictures at `light` and `dark`
  /// (paths in the item's `folder` under `staging`): what the carousel
  /// shows first, read back as a client decodes it (the first frame of an
  /// animation); a file whose bytes the stages already decoded takes that
  /// picture (`decoded`, ``DecodedFiles``), and each file's thumbnail is
  /// recorded there for the build's check of the placeholder.
  func placeholder(light: String, dark: String, folder: String,
                   decoded: inout DecodedFiles) throws(MarqueeError) -> Placeholder {
    let dir = staging.appendingPathComponent(folder)
    return try Placeholder.read(light: dir.appendingPathComponent(light), dark: dir.appendingPathComponent(dark),
                                surfaces: settings.surfaces, limits: limits, decoded: &decoded)
  }

  /// What the summary line says of a dark policy other than the generated
  /// one (which the stages describe themselves): `, dark cover: designer's
  /// media/x-dark.png`, `, dark: same as light`.
  static func darkSummary(_ dark: DarkPolicy, what: String) -> String {
    switch dark {
    case .generated: ""
    case .same: ", \(what): same as light"
    case .image(_, let text): ", \(what): designer's \(text)"
    }
  }
}

extension ItemFailure {
  /// The failure of `spec` for an error its chain threw: which file it names
  /// and which stage failed, decided from `MarqueeError.code` and `field`,
  /// never from the text.
  static func classify(_ error: MarqueeError, spec: BannerSpec) -> ItemFailure {
    if error.code == .noCover {
      // A video's cover; an image's designer dark picture is made with its
      // outputs.
      return ItemFailure(id: spec.id, source: error.file ?? spec.sourceText, error: error,
                         stage: spec.kind == .video ? .cover : .encode)
    }
    if error.code == .damagedSource {
      // The source, or a still the job supplies besides it (`field` its
      // JSON path): a damaged designer's dark picture names that file.
      let file = error.field != nil ? error.file : nil
      return ItemFailure(id: spec.id, source: file ?? spec.sourceText, error: error, stage: .decode)
    }
    if error.field != nil, let file = error.file {
      // A file the job names besides the source (the designer's dark
      // picture, `field` its JSON path): the failure names that file.
      return ItemFailure(id: spec.id, source: file, error: error)
    }
    // The failure names the item and its source as written in the job.
    return ItemFailure(id: spec.id, source: spec.sourceText, error: error)
  }
}
