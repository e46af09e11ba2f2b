// MARK: - ManifestEntry

/// One banners.json item, describing what the stages actually produced.
///
/// All paths are relative to the bundle root and use `/` between segments
/// (e.g. `video/spring/master.m3u8`); they must not start with `/` or
/// contain `.` or `..` segments. `ManifestEmitter` turns them into URLs.
public enum ManifestEntry: Sendable, Equatable {
  /// A video banner.
  case video(VideoManifestEntry)
  /// An image banner.
  case image(ImageManifestEntry)

  /// The banner id.
  public var id: String {
    switch self {
    case .video(let entry): return entry.id
    case .image(let entry): return entry.id
    }
  }
}

// MARK: - VideoManifestEntry

/// What was produced for a video banner.
public struct VideoManifestEntry: Sendable, Equatable {
  /// Banner id (from the job).
  public var id: String
  /// HLS master playlist (`.m3u8`), bundle-relative.
  public var playlistPath: String
  /// Fast-start MP4, bundle-relative.
  public var mp4Path: String
  /// Cover still, WebP, with the video's dimensions, bundle-relative.
  public var coverPath: String
  /// The same cover as JPEG, bundle-relative.
  public var coverJPEGPath: String
  /// Dark variant of the cover, WebP, bundle-relative.
  public var darkCoverPath: String
  /// Dark variant of the cover, JPEG, bundle-relative.
  public var darkCoverJPEGPath: String
  /// Duration in seconds of the output media (what `url` plays), finite and
  /// positive. Written rounded to milliseconds.
  public var duration: Double
  /// Output video width in pixels.
  public var width: Int
  /// Output video height in pixels.
  public var height: Int
  /// Whether the client starts the video on its own.
  public var autoplay: Bool
  /// Whether the video plays muted; must be `true` when `autoplay` is.
  public var muted: Bool
  /// Absolute `http`/`https` URL opened on tap, or `nil`.
  public var link: String?
  /// Which file the `url` key points at.
  public var urlChoice: VideoURLChoice
  /// Where the dark cover came from (`dark_policy`).
  public var darkPolicy: DarkPolicyKind
  /// The slot's placeholder, from the cover and the dark cover
  /// (`thumbhash`, `dark_thumbhash`, `color`, `dark_color`); nil writes none.
  public var placeholder: Placeholder? = nil
  /// The cover's AVIF twin and its dark variant, bundle-relative
  /// (`cover_avif_url`, `cover_dark_avif_url`); nil writes neither.
  public var coverAVIFPath: String? = nil
  public var darkCoverAVIFPath: String? = nil

  /// Creates an entry.
  public init(
    id: String,
    playlistPath: String,
    mp4Path: String,
    coverPath: String,
    coverJPEGPath: String,
    darkCoverPath: String,
    darkCoverJPEGPath: String,
    duration: Double,
    width: Int,
    height: Int,
    autoplay: Bool,
    muted: Bool,
    link: String?,
    urlChoice: VideoURLChoice,
    darkPolicy: DarkPolicyKind = .generated
  ) {
    self.id = id
    self.playlistPath = playlistPath
    self.mp4Path = mp4Path
    self.coverPath = coverPath
    self.coverJPEGPath = coverJPEGPath
    self.darkCoverPath = darkCoverPath
    self.darkCoverJPEGPath = darkCoverJPEGPath
    self.duration = duration
    self.width = width
    self.height = height
    self.autoplay = autoplay
    self.muted = muted
    self.link = link
    self.urlChoice = urlChoice
    self.darkPolicy = darkPolicy
  }
}

// MARK: - ImageManifestEntry

/// What was produced for an image banner.
public struct ImageManifestEntry: Sendable, Equatable {
  /// Banner id (from the job).
  public var id: String
  /// The widest rendition, WebP, bundle-relative (the `url` key).
  public var path: String
  /// The widest rendition, JPEG, bundle-relative.
  public var jpegPath: String
  /// Dark variant of the widest rendition, WebP, bundle-relative.
  public var darkPath: String
  /// Dark variant of the widest rendition, JPEG, bundle-relative.
  public var darkJPEGPath: String
  /// Width in pixels of the widest rendition.
  public var width: Int
  /// Height in pixels of the widest rendition.
  public var height: Int
  /// Absolute `http`/`https` URL opened on tap, or `nil`.
  public var link: String?
  /// The whole width ladder (including the widest), written in the given
  /// order as `sources`.
  public var widths: [ImageWidthEntry]
  /// Where the dark files came from (`dark_policy`).
  public var darkPolicy: DarkPolicyKind
  /// The slot's placeholder, from `url` and `dark_url` (`thumbhash`,
  /// `dark_thumbhash`, `color`, `dark_color`); nil writes none.
  public var placeholder: Placeholder? = nil
  /// The widest rendition's AVIF twin and its dark variant,
  /// bundle-relative (`avif_url`, `dark_avif_url`); nil for animations and
  /// with AVIF off.
  public var avifPath: String?
  public var darkAVIFPath: String?

  /// Creates an entry.
  public init(
    id: String,
    path: String,
    jpegPath: String,
    darkPath: String,
    darkJPEGPath: String,
    width: Int,
    height: Int,
    link: String?,
    widths: [ImageWidthEntry],
    darkPolicy: DarkPolicyKind = .generated,
    avifPath: String? = nil,
    darkAVIFPath: String? = nil
  ) {
    self.avifPath = avifPath
    self.darkAVIFPath = darkAVIFPath
    self.id = id
    self.path = path
    self.jpegPath = jpegPath
    self.darkPath = darkPath
    self.darkJPEGPath = darkJPEGPath
    self.width = width
    self.height = height
    self.link = link
    self.widths = widths
    self.darkPolicy = darkPolicy
  }
}

/// One rung of an image's width ladder.
public struct ImageWidthEntry: Sendable, Equatable {
  /// Width in pixels.
  public var width: Int
  /// Height in pixels.
  public var height: Int
  /// WebP file, bundle-relative.
  public var webpPath: String
  /// JPEG file, bundle-relative.
  public var jpegPath: String
  /// AVIF file, bundle-relative (the `sources` entry's `avif_url`); nil
  /// writes none.
  public var avifPath: String? = nil

  /// Creates a rung.
  public init(width: Int, height: Int, webpPath: String, jpegPath: String) {
    self.width = width
    self.height = height
    self.webpPath = webpPath
    self.jpegPath = jpegPath
  }
}
