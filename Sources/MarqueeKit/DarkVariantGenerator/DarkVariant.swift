// MARK: - Surface colour

/// The opaque colour a dark variant is designed to sit on.
///
/// This is the dark-mode surface of the carousel slot: light backgrounds are
/// recoloured to it, and ``DarkVariantGenerator/flattened(_:onto:)`` composites
/// transparent images onto it for JPEG output. Components are sRGB-encoded,
/// 0...255; `.standard` is `#1C1C1E`. The job's `dark_surface` and
/// `background` are the same type.
public typealias DarkSurface = RGBColor

// MARK: - Classification

/// What kind of picture an image is, as far as darkening it is concerned.
///
/// Each kind gets its own treatment in ``DarkVariantGenerator``; the
/// classification rules are documented on
/// ``DarkVariantGenerator/classify(_:)``.
public enum ImageContentKind: String, Sendable, Equatable, Hashable,
  CaseIterable
{
  /// Flat art or a product shot on a light, clean, uniform background: the
  /// background is replaced by the dark surface, the subject is kept.
  case lightBackground
  /// Anything opaque that is not a clean light background: dimmed and
  /// slightly desaturated as a whole, never inverted.
  case photograph
  /// Most of the border is transparent (logos, icons, cut-outs): alpha is
  /// kept; dark ink is lightened so it stays visible, light content dimmed.
  case transparent
}

// MARK: - Method

/// How a dark variant was made: one method per kind of content, chosen by
/// what the picture is and checked against `PictureLook`'s dark-variant
/// rules (``DarkVariantGenerator/makeDarkVariant(of:)``).
public enum DarkMethod: String, Sendable, Equatable, Hashable, CaseIterable {
  /// Luma scaled to about 72 %, saturation lowered by about 12 %, never
  /// inverted: photographs, and brand-coloured fills (the fill kept,
  /// dimmed, with its text as it was).
  case dimmed = "dimmed"
  /// The light ground (and soft shadows on it) recoloured to the surface,
  /// the subject kept: a product on a plain light ground.
  case groundRecoloured = "ground recoloured"
  /// The light ground recoloured, the subject's graphics (text, line art,
  /// panels, icons) lightness-inverted in OKLab with hue and chroma kept,
  /// its photographic parts kept: text and graphics on a light ground,
  /// with or without a product.
  case graphicsInverted = "graphics inverted"
  /// ``graphicsInverted`` with the products dimmed like a photograph: a
  /// large white product that would otherwise glare.
  case graphicsInvertedProductDimmed = "graphics inverted, product dimmed"
  /// Alpha kept; dark flat ink lightened, other content's highlights
  /// dimmed: logos and cut-outs on transparency.
  case alphaKept = "alpha kept, ink lifted"
}

// MARK: - Result

/// The dark variant of one image and what was done to it.
public struct DarkVariant: Sendable, Equatable {
  /// The darkened image: same width and height as the input, RGBA, sRGB,
  /// straight alpha, alpha bytes identical to the input's.
  public var image: RGBAImage
  /// How the input was classified, which decides the methods tried.
  public var kind: ImageContentKind
  /// The method that made ``image``.
  public var method: DarkMethod = .dimmed
  /// The rules ``image`` still breaks (`PictureLook.judgeDarkVariant`),
  /// in words, when no method met them all: the least bad variant is kept
  /// and these become warnings. Empty normally.
  public var problems: [String] = []
  /// Mean sRGB-encoded BT.709 luma (0...255) of the input, alpha-weighted:
  /// fully transparent pixels do not count; for an opaque image it is the
  /// plain mean. 0 when every pixel is transparent.
  public var meanLumaBefore: Double
  /// The same measure for ``image``. Lower than ``meanLumaBefore`` for
  /// `.lightBackground` and `.photograph`; for `.transparent` dark ink it is
  /// *higher*, because the ink is lightened to stay visible on the surface.
  /// Computed when read (a pass over ``image``): the build never reads it.
  public var meanLumaAfter: Double { DarkVariantGenerator.Luma.mean(of: image) }

  /// Creates a result.
  ///
  /// - Parameters:
  ///   - image: The darkened image.
  ///   - kind: The classification of the input.
  ///   - meanLumaBefore: Alpha-weighted mean luma of the input, 0...255.
  public init(image: RGBAImage, kind: ImageContentKind, meanLumaBefore: Double) {
    self.image = image
    self.kind = kind
    self.meanLumaBefore = meanLumaBefore
  }
}
