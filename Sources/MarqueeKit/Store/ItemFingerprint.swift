import Foundation

/// The content address of one banner's outputs: SHA-256 of the source bytes,
/// the item kind, every setting that affects the outputs, the encoder
/// settings fixed by the pipeline, the codec library versions and Marquee's
/// output-format version.
///
/// Two items with the same fingerprint produce byte-identical outputs, so a
/// rebuild reuses them and their URLs never change; anything that could
/// change a byte changes the fingerprint. Settings that only change
/// banners.json (`link`, `autoplay`, `muted`, the banner id, `base_url`)
/// are left out: they are applied when the bundle is assembled. So is
/// `allow_damaged_sources` (`permissionSettings`): it changes no byte, only
/// whether a damaged source may be published, which reuse checks against
/// the health the stored item records (`StoredItem.health`).
public struct ItemFingerprint: Sendable, Equatable {
  /// Bump when any stage changes what it writes for the same input
  /// (transcoder, covers, dark variants, images): every item is rebuilt.
  /// The Marquee version is part of the fingerprint too, so every release
  /// rebuilds once; `build --rebuild` forces it in between.
  ///
  /// 4: the HLS sound decoded from one sample after the pictures
  /// (`AudioDecodeDelay`). 5: libx264 without AVX-512 (`X264Capabilities`).
  /// On an AVX-512 machine a rendition whose width is not a multiple of 128
  /// pixels (960x540) could hold bytes that depended on uninitialised
  /// memory; its URLs must not name those bytes any more.
  /// 6: a source between two rungs is its own top rendition (and a rung
  /// within 15 % of its pixels is dropped), constant-rate sources under
  /// 12 fps keep their rate, a GIF's pixel-aspect byte is ignored, and a
  /// damaged picture is never a cover; and dark variants judged as a viewer
  /// sees them (legible, no glare), graphics inverted.
  /// 7: dark variants of mixed pictures (a photo with a light panel), JPEG
  /// halos, dark panels with labels and tinted grounds.
  /// 8: every item's placeholder (`thumbhash`, `dark_thumbhash`, `color`,
  /// `dark_color`); dark variants judged as coded, flat graphics and
  /// calendars, logos and light cards on transparency, several light fills.
  /// 9: heavy type left dark on a ground turned dark is illegible (a
  /// ground-recoloured price card is no longer published); a photo's own
  /// light backdrop (a polaroid's frame) is a graphic of its own, its
  /// caption inverted.
  /// 10: round and convex dark badges kept (small ones lifted to a dark
  /// grey chip), JPEG rim specks turned dark, a photo inside graphics never
  /// inverted, a heavy price across a split layout's photo; and a corrected
  /// top rendition encoded on one libx264 thread (its bytes repeat).
  /// 11: a dark badge, pill or disc in a JPEG is measured on its ink alone,
  /// so the ringing round its rim neither turns it into a light disc nor
  /// leaves specks of page round it.
  /// 12: a flat dark shape taken for a product (a navy, deep red or dark
  /// green disc or tag of 2 % of the picture or more) is lifted off the
  /// dark surface like a dark panel, so the picture is inverted rather than
  /// dimmed to a grey page.
  /// 13: the page a JPEG's ringing closes off round a flat dark shape
  /// turns dark, as round a dark panel (no light rim).
  /// 14: a dark panel or flat dark shape is lifted to its WCAG contrast
  /// against the dark surface measured on relative luminance (a navy pill
  /// had 1.8:1, under the legibility rule's 2:1); a flat dark shape is one
  /// under that rule's 2:1 (not an OKLab lightness on which a JPEG's deep
  /// red disc fell either side), flat also when its few smooth pixels
  /// spread; a lift is never dimmed after.
  /// 15: the soft shade of the ground that the page reaches round a flat
  /// product (a badge's or a pill's drop shadow) is the page's, a shadow
  /// on it, not a light crescent kept with the product.
  /// 16: a card's drop shadow on the page is no photograph inside the card
  /// (no light crescent round a dark card); a JPEG's few flat text colours
  /// are no shading (a white card on cream turns dark at any quality); a
  /// dark flat wordmark beside a shaded mark or a photo on transparency is
  /// lifted on its own.
  /// 17: outlined type keeps its fill, its outline inverted (not a dimmed
  /// grey page).
  /// 18: a keylined sticker's white label is no outline, and a 16 px
  /// keyline is one.
  /// 19: the page seen through a light product's handle (its body a step
  /// darker a few pixels behind the rim) turns dark with the page.
  /// 20: only a hole the page lies just past (a handle's wall, 10 % of
  /// the product's shorter side) is see-through; a white mark on the body
  /// stays.
  /// 21: a flat fill's outline counts by its width (2 px or more on
  /// average) as well as its share, so a large outlined box's outline turns
  /// light; what lies round a photograph's light panel (a brand-blue page
  /// round a white card) is kept dimmed with the photo, not lifted as ink.
  /// 22: a photograph with a light panel tries `graphics inverted` (the
  /// panel inverted, the rest kept) before `dimmed`.
  /// 23: a part lighter than the ground with no edge (a vignette's bright
  /// centre) becomes the surface, not a raised card; resizing reads and
  /// writes planar RGBA, which filters alpha like the colours (alpha within
  /// 2 levels of before; opaque pictures byte-identical).
  /// 24: a dark label on a brand-coloured fill inside inverted graphics (a
  /// black "Check in" on a yellow pill in a white card) keeps its dark tone
  /// when that stands off the kept fill better than inverted light.
  /// 25: a flat light tile whose label is the page's colour knocked out of
  /// it (a white logo on a light grey tile) is a panel and turns dark; dark
  /// text set translucent on transparency (alpha 48–127, strokes) is lifted
  /// with the other ink; a photograph's saturated light area (a yellow
  /// bar) is no light panel.
  /// 26: a graphic's drop shadows are sought from the open page only, so a
  /// grey tile round a knocked-out white label is no shadow; a heavy
  /// translucent letter goes with the lighter letters of its text.
  /// 27: soft shade stops at an edge (a lighter neighbour more than a
  /// soft step and `softEdgeStep` levels above), so a path no longer creeps
  /// along a grey letter's anti-aliased rim into it; flat grey shapes
  /// holding no glyph label are flat ink, so display type set in one grey
  /// is inverted letter by letter alike.
  /// 28: an outline's anti-aliasing into the page is no fill touching it,
  /// so grey type in a black outline keeps its fill in every letter (a D, a
  /// G); the dark band round a counter the part encloses is outline too.
  /// 29: every ladder ends with a variant for weak networks
  /// (`WeakNetworkRung`: 144p, 80 kbit/s video cap over a half-second
  /// buffer, 56 kbit/s AAC-LC, a measured peak of at most 192 kbit/s),
  /// listed last.
  /// 30: every video's sound brought to `audio_loudness` (−16 LUFS by
  /// default) by one gain, its true peak as encoded held at −1 dBTP
  /// (`LoudnessAdjustment`).
  /// 31: an HEVC twin of every rendition (`video_codecs`), in the same
  /// master playlist.
  /// 32: an AVIF twin of every still image width and video cover, with its
  /// dark variant (`image_formats`), its quantizer matched to the WebP's
  /// SSIM (`AVIFQualityMatch`).
  public static let outputFormatVersion = 33

  /// Marquee's version (`marquee --version`).
  public static let marqueeVersion = "0.2.0"

  /// x264 threads per rendition. Fixed, never derived from `--jobs` or the
  /// core count, because libx264's output depends on its thread count
  /// (frame threads change rate-control decisions): the same job must
  /// encode to the same bytes on every machine and with any `--jobs`.
  /// Parallelism comes from building items concurrently.
  public static let encoderThreads = VideoBannerBuilder.defaultEncoderThreads

  /// The canonical text that is hashed (besides the source bytes).
  public let canonicalSettings: String
  /// SHA-256 of the source file, hex.
  public let sourceDigest: String
  /// SHA-256 of `canonicalSettings` and `sourceDigest`, hex (64 characters).
  public let hash: String

  /// The first 16 hex digits, used in asset folder names.
  public var shortHash: String { String(hash.prefix(16)) }

  /// - Parameters:
  ///   - posterDigest: SHA-256 (hex) of the poster file when the cover is
  ///   one (`CoverPolicy.image`); its bytes and path are part of the hash.
  ///   - darkDigest: SHA-256 (hex) of the designer's dark picture when the
  ///   banner has one (`DarkPolicy.image`); its bytes and path are part of
  ///   the hash, as the policy is (`canonicalSettings`).
  public init(spec: BannerSpec, settings: JobSettings, sourceDigest: String, posterDigest: String? = nil,
              darkDigest: String? = nil) {
    var text = Self.canonicalSettings(spec: spec, settings: settings)
    if let posterDigest { text += "poster-sha256=\(posterDigest)\n" }
    if let darkDigest { text += "dark-sha256=\(darkDigest)\n" }
    canonicalSettings = text
    self.sourceDigest = sourceDigest
    hash = SHA256.hash(text + "source-sha256=\(sourceDigest)\n").hex
  }

  /// Settings only video outputs depend on (left out of image fingerprints).
  static let videoOnlySettings: Set<String> = ["segmentDuration", "maxHeight", "videoURL", "renditions", "mp4Height",
                                                 "videoCRF", "videoTargetSSIM", "audioLoudness",
                                                 "videoCodecs"]
  /// Settings that decide whether an item may be published, never what its
  /// outputs hold (left out of every fingerprint): a clean item is reused
  /// whichever way they are set.
  static let permissionSettings: Set<String> = ["allowDamagedSources", "maxBundleBytes", "maxItemBytes"]
  /// Settings only image outputs depend on (left out of video fingerprints).
  static let imageOnlySettings: Set<String> = ["imageWidth", "imageWidths", "background"]

  /// One `key=value` line per input, in a fixed order.
  ///
  /// Every stored property of `JobSettings` is included by reflection, so a
  /// setting added later is part of the fingerprint without anyone having
  /// to remember it here; only the settings known to concern the other
  /// kind alone are left out. Values are written with
  /// `String(describing:)`: Swift's shortest round-trip form for doubles
  /// (2 and 2.0 are the same), `#RRGGBB` for colours.
  static func canonicalSettings(spec: BannerSpec, settings: JobSettings) -> String {
    var lines = [
      "marquee-item",
      "output-format=\(outputFormatVersion)",
      "marquee=\(marqueeVersion)",
      "libraries=\(MediaLibraries.versionSummary)",
      "kind=\(spec.kind.rawValue)",
    ]
    let excluded = (spec.kind == .video ? imageOnlySettings : videoOnlySettings).union(permissionSettings)
    for child in Mirror(reflecting: settings).children {
      guard let label = child.label, !excluded.contains(label) else { continue }
      lines.append("settings.\(label)=\(String(describing: child.value))")
    }
    if spec.kind == .video {
      let cover: String =
        switch spec.cover {
        case .auto: "auto"
        case .first: "first"
        case .at(let seconds): "at:\(seconds)"
        case .image(_, let text): "image:\(text)"
        }
      lines.append("cover=\(cover)")
      // A poster is flattened onto the background like an image source.
      if case .image = spec.cover { lines.append("settings.background=\(settings.background)") }
      lines.append("encoder_threads=\(encoderThreads)")
      lines.append("encoder_effort=\(EncoderEffort.summary)")
    }
    // Only a policy other than the default adds lines, so the items that
    // generate their dark variants keep the fingerprints (and URLs) they
    // had before the policy existed.
    switch spec.dark {
    case .generated: break
    case .same: lines.append("dark=same")
    case .image(_, let text): lines.append("dark=image:\(text)")
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
