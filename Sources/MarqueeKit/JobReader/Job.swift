import Foundation

// MARK: - Job

/// One validated batch job: the bundle to build and the banners in it, in
/// job-file order.
///
/// Produced by `JobReader`; every value here has passed validation, so the
/// stages can trust it (sources are not yet opened: whether a file exists
/// and is a playable media file is the stages' business).
public struct Job: Sendable, Equatable {
  /// The bundle folder name under the output root; matches `^[a-z0-9_-]+$`,
  /// at most 64 characters.
  public var name: String
  /// Absolute `http`/`https` URL that bundle-relative paths are appended to
  /// in banners.json, always ending in `/`; `nil` writes relative URLs.
  public var baseURL: String?
  /// Job-wide settings, defaults filled in.
  public var settings: JobSettings
  /// The banners, in job-file order; never empty.
  public var banners: [BannerSpec]
  /// The job file, as the caller gave it (may be relative to the current
  /// directory). Sources in `banners` are already resolved against it.
  public var jobFileURL: URL
  /// Things that are allowed but probably a mistake (e.g. more than 10
  /// banners), each a full sentence naming its JSON path. Empty normally.
  public var warnings: [String]

  /// Creates a job.
  public init(
    name: String,
    baseURL: String?,
    settings: JobSettings,
    banners: [BannerSpec],
    jobFileURL: URL,
    warnings: [String] = []
  ) {
    self.name = name
    self.baseURL = baseURL
    self.settings = settings
    self.banners = banners
    self.jobFileURL = jobFileURL
    self.warnings = warnings
  }
}

// MARK: - BannerKind

/// What a banner shows.
public enum BannerKind: String, Sendable, Equatable, CaseIterable {
  /// A looping video, transcoded to H.264 MP4 + HLS, with a cover still.
  case video
  /// A still image, rendered to a WebP/JPEG width ladder.
  case image
}

// MARK: - CoverPolicy

/// How the cover still of a video banner is chosen (`cover` key).
public enum CoverPolicy: Sendable, Equatable {
  /// A representative, sharp frame near the start that is not black or
  /// blank (`"auto"`, the default).
  case auto
  /// The first frame that is not black or blank, for the most seamless
  /// hand-over from cover to playback (`"first"`).
  case first
  /// The frame at this time, in seconds from the start of the source,
  /// at least 0 (`{"at": 1.5}`).
  case at(seconds: Double)
  /// A poster still supplied by the job (`{"image": "media/poster.jpg"}`):
  /// JPEG, PNG, WebP or HEIC under the image sources' rules and limits,
  /// fitted to the video's output size (`PosterFitter`).
  ///
  /// - `source`: the file, absolute and standardized (resolved like
  ///   `source`, against the job file's folder).
  /// - `text`: the path exactly as written, for messages.
  case image(source: URL, text: String)

  /// The poster file, when the cover is one.
  public var posterSource: URL? {
    if case .image(let source, _) = self { return source }
    return nil
  }
}

// MARK: - DarkPolicy

/// Where a banner's dark-mode picture comes from (`dark` key): the dark
/// cover of a video banner, the `.dark` files of every width of an image
/// banner.
public enum DarkPolicy: Sendable, Equatable {
  /// Made from the light picture by the dark-variant stage
  /// (`DarkVariantGenerator`); the default, when the banner has no `dark`.
  case generated
  /// The light picture is served for dark mode too (`"same"`: a brand
  /// banner meant to look the same in both). The `.dark` files are still
  /// written, byte-identical to their light files, so `?theme=dark` and
  /// the explicit dark URLs keep working.
  case same
  /// The designer's own dark picture (`{"image": "media/sale-dark.png"}`):
  /// a JPEG, PNG, WebP or HEIC still, read under the image sources' rules
  /// and limits (EXIF orientation, ICC to sRGB, alpha flattened onto
  /// `dark_surface`), used as supplied (`DesignerDarkPicture`).
  ///
  /// - `source`: the file, absolute and standardized (resolved like
  ///   `source`, against the job file's folder, under the same
  ///   outside-the-folder rule).
  /// - `text`: the path exactly as written, for messages.
  case image(source: URL, text: String)

  /// The name banners.json gives the policy (`dark_policy`).
  public var kind: DarkPolicyKind {
    switch self {
    case .generated: .generated
    case .same: .same
    case .image: .designer
    }
  }

  /// The designer's picture, when the policy is one.
  public var designerSource: URL? {
    if case .image(let source, _) = self { return source }
    return nil
  }
}

/// Which dark policy an item's outputs were made with, as banners.json
/// names it (`"dark_policy": "generated" | "designer" | "same"`) and
/// `marquee verify` reads it back.
public enum DarkPolicyKind: String, Sendable, Equatable, CaseIterable, Codable {
  /// The dark-variant stage made the dark pictures from the light ones.
  case generated
  /// The designer supplied the dark picture (`"dark": {"image": …}`).
  case designer
  /// The dark files are byte-identical to the light ones (`"dark": "same"`).
  case same
}

// MARK: - BannerSpec

/// One banner as the job file describes it, validated.
public struct BannerSpec: Sendable, Equatable {
  /// Identifier, unique in the job; matches `^[a-z0-9][a-z0-9_-]*$`, at most
  /// 64 characters. Used in output file names.
  public var id: String
  /// Video or image.
  public var kind: BannerKind
  /// The source media file: an absolute, standardized file URL (relative
  /// paths in the job file are resolved against the job file's folder).
  public var source: URL
  /// The `source` text exactly as written in the job file, for messages.
  public var sourceText: String
  /// Absolute `http`/`https` URL opened on tap, as written; `nil` if none.
  public var link: String?
  /// Whether the video starts on its own. Always `false` for images;
  /// default `true` for videos.
  public var autoplay: Bool
  /// Whether the video plays without sound. Always `true` when `autoplay`
  /// is (iOS only autoplays muted video); `true` for images.
  public var muted: Bool
  /// How to choose the cover of a video; `.auto` for images (unused).
  public var cover: CoverPolicy
  /// Where the dark-mode picture comes from (`dark`; video and image
  /// banners alike); `.generated` when the banner has no `dark`.
  public var dark: DarkPolicy
  /// Where this banner sits in the job file, e.g. `banners[2]`, for messages
  /// (`"\(jsonPath).source"`).
  public var jsonPath: String

  /// Creates a banner spec.
  public init(
    id: String,
    kind: BannerKind,
    source: URL,
    sourceText: String,
    link: String?,
    autoplay: Bool,
    muted: Bool,
    cover: CoverPolicy,
    dark: DarkPolicy = .generated,
    jsonPath: String
  ) {
    self.id = id
    self.kind = kind
    self.source = source
    self.sourceText = sourceText
    self.link = link
    self.autoplay = autoplay
    self.muted = muted
    self.cover = cover
    self.dark = dark
    self.jsonPath = jsonPath
  }
}
