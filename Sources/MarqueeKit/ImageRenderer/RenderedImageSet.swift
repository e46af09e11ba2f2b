import Foundation

/// What `ImageRenderer.render` wrote for one image banner.
public struct RenderedImageSet: Sendable, Equatable {
  /// One rung of the width ladder: four files of one size.
  public struct Rendition: Sendable, Equatable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// WebP (animated for an animation, alpha kept), relative to the set's `folder`.
    public var webpPath: String
    /// JPEG fallback (first frame of an animation; transparency flattened
    /// onto the background colour), relative to the set's `folder`.
    public var jpegPath: String
    /// Dark variant, WebP, relative to the set's `folder`.
    public var darkWebpPath: String
    /// Dark variant, JPEG (flattened onto the dark surface), relative to the set's `folder`.
    public var darkJpegPath: String
    /// AVIF twin of the WebP (stills with `image_formats` holding `avif`;
    /// nil otherwise), relative to the set's `folder`.
    public var avifPath: String? = nil
    /// Its dark variant, relative to the set's `folder`.
    public var darkAvifPath: String? = nil

    public init(width: Int, height: Int, webpPath: String, jpegPath: String, darkWebpPath: String,
                darkJpegPath: String) {
      self.width = width
      self.height = height
      self.webpPath = webpPath
      self.jpegPath = jpegPath
      self.darkWebpPath = darkWebpPath
      self.darkJpegPath = darkJpegPath
    }
  }

  /// The image's folder relative to the bundle (`images/<id>`); every
  /// path in `widths` is relative to it.
  public var folder: String = ""
  /// The ladder, narrowest first; never empty. The last one is the widest,
  /// whose WebP is the banners.json `url`.
  public var widths: [Rendition]
  /// Whether the outputs are animated WebPs.
  public var isAnimated: Bool
  /// Frames kept for each animated WebP, at most the client's cap (1 for a
  /// still). libwebp's animation encoder merges consecutive identical frames
  /// (adding up their durations), so a file may hold fewer `ANMF` chunks.
  public var frameCount: Int
  /// Total display time of one loop of the animation in milliseconds (0 for
  /// a still); equal to the source's.
  public var animationDuration: Int
  /// Source size, upright (after EXIF orientation), in pixels.
  public var sourceWidth: Int
  public var sourceHeight: Int
  /// The source format as read from the header, e.g. `JPEG progressive, colour`.
  public var sourceSummary: String
  /// How the dark variant treated the picture (of the widest rendition);
  /// meaningful when `darkPolicy` is `generated` only.
  public var darkKind: ImageContentKind
  /// The method that made the dark variants (chosen on the widest
  /// rendition, applied to every width and frame).
  public var darkMethod: DarkMethod = .dimmed
  /// The dark-variant rules' findings for the published widest rung's file
  /// pairs, judged as published, for the build's own check of its outputs
  /// (``DarkJudgements``); empty for animations and other policies.
  public var darkJudgements = DarkJudgements()
  /// The published widest rung's files as the dark-variant judgement
  /// decoded them (``DecodedFiles``); empty for animations and other
  /// policies.
  public var decodedFiles = DecodedFiles()
  /// Things the job author may want to know (profile ignored, frames
  /// dropped, animation downscaled, corrupt-but-decodable data).
  public var warnings: [String]
  /// Where the dark files came from.
  public var darkPolicy: DarkPolicyKind = .generated
  /// A still built from a damaged source under `allow_damaged_sources`
  /// (`SourceHealth.damagedStill`); nil when the source is whole.
  public var health: SourceHealth? = nil
  /// How the AVIFs' quantizer was chosen (``AVIFQualityMatch``); nil when
  /// AVIF is off or the picture is animated.
  public var avif: AVIFSummary? = nil

  /// The AVIF quality match of a set, for the item's summary.
  public struct AVIFSummary: Sendable, Equatable {
    /// libaom's quantizer, 0–63, of every width and the dark variants.
    public var quantizer: Int
    /// SSIM of the widest light AVIF and WebP against the resized source.
    public var avifSSIM: Double
    public var webpSSIM: Double
    /// Encodes the search made.
    public var encodes: Int
    /// The AVIFs not smaller than their WebPs, whose width's pair (light
    /// and dark) was therefore not written; empty when every width has one.
    public var leftOut: [AVIFLeftOut]
  }

  /// An AVIF encoded and not served: its file name and its bytes against
  /// its WebP's.
  public struct AVIFLeftOut: Sendable, Equatable {
    public var file: String
    public var avifBytes: Int
    public var webpBytes: Int
  }

  /// The widest rendition (the banners.json `url`).
  public var widest: Rendition { widths[widths.count - 1] }

  /// The manifest entry for this image banner.
  ///
  /// - Parameters:
  ///   - id: the banner id.
  ///   - link: the tap URL, if any.
  ///   - prefix: a path to put before every path (`folder` for paths
  ///   relative to the bundle; none, the default, for paths relative to the
  ///   image's folder, as the store keeps them), without a trailing `/`.
  public func manifestEntry(id: String, link: String?, prefix: String = "") -> ImageManifestEntry {
    func p(_ path: String) -> String { prefix.isEmpty ? path : "\(prefix)/\(path)" }
    let top = widest
    return ImageManifestEntry(
      id: id, path: p(top.webpPath), jpegPath: p(top.jpegPath), darkPath: p(top.darkWebpPath),
      darkJPEGPath: p(top.darkJpegPath), width: top.width, height: top.height, link: link,
      widths: widths.map {
        var entry = ImageWidthEntry(width: $0.width, height: $0.height, webpPath: p($0.webpPath), jpegPath: p($0.jpegPath))
        entry.avifPath = $0.avifPath.map(p)
        return entry
      },
      darkPolicy: darkPolicy,
      avifPath: top.avifPath.map(p), darkAVIFPath: top.darkAvifPath.map(p))
  }
}
