// MARK: - JobSettings

/// Job-wide settings, read from the optional `settings` object of a job file.
///
/// Every key is optional. `JobSettings.default` holds all defaults, and the
/// static `…Range` constants hold the accepted ranges; `JobReader` checks
/// against exactly these values, so help text and error messages can quote
/// them.
public struct JobSettings: Sendable, Equatable {
  /// Target HLS segment length in seconds (`segment_duration`); a keyframe
  /// starts every segment. Default 2, range 1...10.
  public var segmentDuration: Double
  /// Cap on the output video height in pixels (`max_height`); smaller sources
  /// are not upscaled. Default 720, range 144...2160.
  public var maxHeight: Int
  /// Width in pixels of the widest image output (`image_width`). Default 1170
  /// (3x of a 390 pt phone width), range 16...4096.
  public var imageWidth: Int
  /// WebP quality, 1 (smallest) ... 100 (best) (`webp_quality`). Default 80.
  public var webpQuality: Int
  /// JPEG quality, 1 ... 100 (`jpeg_quality`). Default 85.
  public var jpegQuality: Int
  /// The dark surface that dark variants move light backgrounds toward
  /// (`dark_surface`, `"#RRGGBB"`). Default `#1C1C1E`.
  public var darkSurface: RGBColor
  /// What transparent images are flattened onto for JPEG output
  /// (`background`, `"#RRGGBB"`). Default `#FFFFFF`.
  public var background: RGBColor
  /// Longest accepted source duration in seconds (`max_duration`).
  /// Default 600, range greater than 0 up to 86 400 (one day).
  public var maxDuration: Double
  /// Largest accepted frame or image size in pixels, width × height
  /// (`max_pixels`). Default 40 000 000, range 1...268 435 456 (16384²).
  public var maxPixels: Int
  /// Largest accepted source file size in bytes. The job file gives it in
  /// mebibytes (`max_file_size_mb`, 1 MB = 1 048 576 bytes, fractions
  /// allowed). Default 2048 MB (2 GiB), range greater than 0 up to 1 048 576
  /// MB (1 TiB).
  public var maxFileSize: Int64
  /// What the `url` of a video banner in banners.json points at
  /// (`video_url`: `"hls"` or `"mp4"`). Default `.hls`.
  public var videoURL: VideoURLChoice
  /// The HLS rendition ladder (`renditions`: `[{"height": 720,
  /// "bitrate_kbps": 3000}, …]`, `height` being the short side in pixels).
  /// Default `RenditionRequest.defaultLadder` (after Apple's HLS authoring
  /// spec §1.25); rungs above `max_height` or the source are dropped.
  public var renditions: [RenditionRequest]
  /// Short side of the rendition muxed to the MP4 (`mp4_height`); nil picks
  /// the rendition nearest 720. When no rendition has exactly this size, the
  /// nearest one is used.
  public var mp4Height: Int?
  /// Image output widths in pixels (`image_widths`), e.g. `[780, 1170]` for
  /// @2x and @3x of a 390 pt phone; nil means `image_width` and two thirds
  /// of it. Widths above the source are dropped (never upscaled).
  public var imageWidths: [Int]?
  /// The quality target of every video rendition (`video_crf`): x264's
  /// constant rate factor, lower is better quality and more bytes (about 6
  /// lower doubles the bytes). Each rendition takes the bits this needs, up
  /// to its rung's bit rate (capped CRF, see `RenditionPlan`). Renditions
  /// smaller than 640x360 are encoded a little lower, one point per halving
  /// of their pixels, at most 4 (`RenditionPlanner.crfOffset`: they are
  /// shown upscaled). Default 23 (x264's own default), range 1...51 (x264's
  /// range without 0, which would be lossless and leave the High profile);
  /// fractions allowed.
  public var videoCRF: Double
  /// The SSIM the top rendition must reach (`video_target_ssim`): the mean
  /// of libavfilter's `ssim` "All" figure against the pictures it was
  /// encoded from. When the encode at `videoCRF` falls short and was not
  /// held to its cap, the top rendition alone is encoded again at a lower
  /// CRF, at most 6 lower and at most twice (`QualityTarget`). Default
  /// 0.985; 0 turns the check off; otherwise 0.5...0.999.
  public var videoTargetSSIM: Double
  /// Whether a video source whose pictures or sound are damaged or whose
  /// end is missing is built anyway (`allow_damaged_sources`): with a
  /// warning naming the damaged time ranges and the gaps in the sound, a
  /// cover from outside them, and the duration that was there. Default
  /// false: such an item fails (`MarqueeError.Code.damagedSource`,
  /// `SourceHealth`). Not in the fingerprint (it changes no byte): reuse
  /// checks a stored item's recorded health against it.
  public var allowDamagedSources: Bool
  /// The most bytes the published bundle may hold (`max_bundle_mb`, in
  /// decimal megabytes of ``budgetBytesPerMB``): what a client can
  /// download, every file of the bundle, `banners.json` included. A build
  /// over it is not published, and says by how much and which items are
  /// largest (`SizeBudget`); the previous bundle is kept. nil: no budget.
  /// Not in the fingerprint (it changes no byte).
  public var maxBundleBytes: Int64?
  /// The most bytes one item's folder may hold (`max_item_mb`, decimal
  /// megabytes): its renditions, MP4, covers, images and dark variants. nil:
  /// no budget. Not in the fingerprint.
  public var maxItemBytes: Int64?
  /// The integrated loudness every video's sound is brought to, in LUFS
  /// (`audio_loudness`; EBU R128, measured by libavfilter's `ebur128`):
  /// one linear gain per item, held back so the true peak stays at most
  /// −1 dBTP, and none for near-silent sound under −50 LUFS
  /// (`LoudnessAdjustment`). Default −16 (Apple's guidance for streamed
  /// audio); range −40...−5; nil (`null` in the job) leaves every sound
  /// at its own level.
  public var audioLoudness: Double?
  /// The video codecs of the HLS ladder (`video_codecs`): `h264` always,
  /// first; `hevc` adds an HEVC twin of every H.264 rendition whose sides
  /// are both at least `RenditionPlanner.hevcMinimumSide` to the same
  /// master playlist (same segments, IDRs and sound), for the players
  /// that decode HEVC in hardware (every iPhone since the 7). The MP4 stays
  /// H.264. Default `["h264", "hevc"]`; `["h264"]` turns HEVC off.
  public var videoCodecs: [VideoCodec]
  /// The formats of every image width and video cover (`image_formats`),
  /// in `ImageOutputFormat.allCases` order: `webp` and `jpeg` always (the
  /// client contract); `avif` adds an AVIF twin of each still WebP, with
  /// its dark variant (animations stay WebP only). Default all three;
  /// `["webp", "jpeg"]` turns AVIF off.
  public var imageFormats: [ImageOutputFormat]

  /// Whether the stills get AVIF twins (`image_formats` holds `avif`).
  public var makesAVIF: Bool { imageFormats.contains(.avif) }

  /// Creates settings; every parameter defaults to the documented default.
  public init(
    segmentDuration: Double = 2,
    maxHeight: Int = 720,
    imageWidth: Int = 1170,
    webpQuality: Int = 80,
    jpegQuality: Int = 85,
    darkSurface: RGBColor = .standard,
    background: RGBColor = RGBColor(r: 0xFF, g: 0xFF, b: 0xFF),
    maxDuration: Double = 600,
    maxPixels: Int = 40_000_000,
    maxFileSize: Int64 = 2048 * JobSettings.bytesPerMB,
    videoURL: VideoURLChoice = .hls,
    renditions: [RenditionRequest] = RenditionRequest.defaultLadder,
    mp4Height: Int? = nil,
    imageWidths: [Int]? = nil,
    videoCRF: Double = 23,
    videoTargetSSIM: Double = QualityTarget.defaultSSIM,
    allowDamagedSources: Bool = false,
    maxBundleBytes: Int64? = nil,
    maxItemBytes: Int64? = nil,
    audioLoudness: Double? = JobSettings.defaultAudioLoudness,
    videoCodecs: [VideoCodec] = JobSettings.defaultVideoCodecs,
    imageFormats: [ImageOutputFormat] = JobSettings.defaultImageFormats
  ) {
    self.imageFormats = imageFormats
    self.videoCodecs = videoCodecs
    self.audioLoudness = audioLoudness
    self.maxBundleBytes = maxBundleBytes
    self.maxItemBytes = maxItemBytes
    self.videoTargetSSIM = videoTargetSSIM
    self.allowDamagedSources = allowDamagedSources
    self.segmentDuration = segmentDuration
    self.maxHeight = maxHeight
    self.imageWidth = imageWidth
    self.webpQuality = webpQuality
    self.jpegQuality = jpegQuality
    self.darkSurface = darkSurface
    self.background = background
    self.maxDuration = maxDuration
    self.maxPixels = maxPixels
    self.maxFileSize = maxFileSize
    self.videoURL = videoURL
    self.renditions = renditions
    self.mp4Height = mp4Height
    self.imageWidths = imageWidths
    self.videoCRF = videoCRF
  }

  /// All defaults, the one place they are defined.
  public static let `default` = JobSettings()

  // MARK: - Accepted ranges

  /// Accepted `segment_duration`, seconds.
  public static let segmentDurationRange: ClosedRange<Double> = 1...10
  /// Accepted `max_height`, pixels.
  public static let maxHeightRange: ClosedRange<Int> = 144...2160
  /// Accepted `image_width`, pixels.
  public static let imageWidthRange: ClosedRange<Int> = 16...4096
  /// Accepted `video_crf` (x264 constant rate factor).
  public static let videoCRFRange: ClosedRange<Double> = 1...51
  /// Accepted `video_target_ssim` besides 0 (off).
  public static let videoTargetSSIMRange: ClosedRange<Double> = 0.5...0.999
  /// The default `audio_loudness`, LUFS: Apple's guidance for streamed
  /// audio (about −16 LUFS integrated, true peak at most −1 dBTP).
  public static let defaultAudioLoudness: Double = -16
  /// The default `video_codecs`: H.264 and its HEVC twins.
  public static let defaultVideoCodecs: [VideoCodec] = [.h264, .hevc]
  /// The default `image_formats`: WebP, JPEG and AVIF.
  public static let defaultImageFormats: [ImageOutputFormat] = ImageOutputFormat.allCases
  /// Accepted `audio_loudness`, LUFS, besides null (off).
  public static let audioLoudnessRange: ClosedRange<Double> = -40 ... -5
  /// Accepted `webp_quality` and `jpeg_quality`.
  public static let qualityRange: ClosedRange<Int> = 1...100
  /// Largest accepted `max_duration`, seconds (the smallest is anything
  /// above 0).
  public static let maxDurationLimit: Double = 86_400
  /// Accepted `max_pixels`, pixels per frame or image.
  public static let maxPixelsRange: ClosedRange<Int> = 1...268_435_456
  /// Largest accepted `max_file_size_mb`, MB (the smallest is anything
  /// above 0).
  public static let maxFileSizeMBLimit: Double = 1_048_576
  /// Accepted `bitrate_kbps` of a rendition, kbit/s.
  public static let bitrateRange: ClosedRange<Int> = 100...50_000
  /// Most renditions (or image widths) a job may ask for.
  public static let maxLadderCount = 8
  /// Bytes in one `max_file_size_mb` unit (a mebibyte).
  public static let bytesPerMB: Int64 = 1_048_576
  /// Bytes in one `max_bundle_mb` or `max_item_mb` unit: a decimal
  /// megabyte, as download sizes are given (App Store, HTTP tooling).
  public static let budgetBytesPerMB: Int64 = 1_000_000
  /// Largest accepted `max_bundle_mb` and `max_item_mb` (the smallest is
  /// anything above 0).
  public static let maxBudgetMBLimit: Double = 1_000_000
}

// MARK: - VideoURLChoice

/// Which rendition the `url` key of a video banner points at.
public enum VideoURLChoice: String, Sendable, Equatable, CaseIterable {
  /// The HLS master playlist (`.m3u8`).
  case hls
  /// The progressive, fast-start MP4 file.
  case mp4
}

// MARK: - RGBColor

extension JobSettings {
  /// The limits every source is opened under (`max_file_size_mb`,
  /// `max_pixels`, `max_duration`): the one place settings become limits.
  public var inputLimits: InputLimits {
    InputLimits(maxFileSize: maxFileSize, maxPixels: maxPixels, maxDuration: maxDuration)
  }

  /// `background` and `dark_surface`, the surfaces pictures are shown on.
  public var surfaces: PictureLook.Surfaces { PictureLook.Surfaces(light: background, dark: darkSurface) }
}


/// An image format Marquee writes for stills (`image_formats`).
public enum ImageOutputFormat: String, Sendable, Equatable, Hashable, CaseIterable, Codable {
  case webp, jpeg, avif

  /// The formats every job writes: banners.json's contract keys name them.
  public static let required: [ImageOutputFormat] = [.webp, .jpeg]
}
