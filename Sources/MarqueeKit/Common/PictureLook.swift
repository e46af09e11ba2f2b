import Foundation

/// The one definition of how a picture looks to a viewer: *black*, *flat*
/// and *darker as shown*. The cover selector, the cover stage, the dark
/// variant generator and `marquee verify` all judge pictures here, so what
/// `build` publishes always passes `verify`, and the reverse.
///
/// Every rule reads `PictureStatistics`: luma (BT.709 Y′ on the sRGB- or
/// video-encoded values, full range 0–255) of a box-averaged thumbnail at
/// most 160 px wide, the same for a decoded video frame and for a decoded
/// cover or image file.
///
/// - **Black**: nothing in the picture is visibly lit. The bright tail of
///   the luma histogram (the level the brightest 0.5 % of the thumbnail
///   reach, `PictureStatistics.brightTail`) stays under `litLuma`. A dark but
///   detailed scene is a real picture: the corpus's night-time concert clip
///   (`video-h264-pcm-s16le-1920x1080-50fps.mov`) averages luma 4–5, but its
///   phone lights put the tail at 37–62; the corpus's near-black clip peaks
///   at 8, a black leader at 0–1.
/// - **Flat**: one tone. 96 % of the thumbnail lies within `flatToneRange`
///   levels (`PictureStatistics.toneRange`, 98th minus 2nd percentile) and
///   it has no edges to speak of (`sharpness` under `flatSharpness`): a
///   solid card, a white flash. A card with a logo or a line of text has
///   edges and is not flat.
/// - **Darker as shown**: a dark variant is shown on the app's dark surface
///   (`dark_surface`), the light one on its light surface (`background`);
///   transparent pixels show the surface. The dark variant is darker when its
///   mean luma composited on the dark surface is at most `darkerMargin`
///   above the light variant's composited on the light surface.
public enum PictureLook {
  /// The luma level (0–255, sRGB-encoded) from which a pixel is visibly lit
  /// on a phone screen (about 0.9 % of white's luminance).
  public static let litLuma: Double = 24
  /// The share of the picture whose level is the bright tail: a picture is
  /// lit when at least this fraction of it reaches `litLuma`.
  public static let brightTailFraction: Double = 0.005
  /// A picture is flat when 96 % of it lies within this many luma levels…
  public static let flatToneRange: Double = 10
  /// …and its Laplacian variance (`PictureStatistics.sharpness`) is under
  /// this: grain and compression noise on a solid card stay under 35, a
  /// logo or text on it reaches 60 and more.
  public static let flatSharpness: Double = 60
  /// Luma levels a dark variant may be above its light one before it counts
  /// as brighter (JPEG and WebP coding noise).
  public static let darkerMargin: Double = 2

  /// The two surfaces pictures are shown on: the app's light background
  /// (`background`) and its dark-mode surface (`dark_surface`).
  public struct Surfaces: Sendable, Equatable {
    public var light: RGBColor
    public var dark: RGBColor
    public init(light: RGBColor, dark: RGBColor) {
      self.light = light
      self.dark = dark
    }
    /// The job settings' defaults: white, and iOS's dark system background
    /// `#1C1C1E`.
    public static let standard = Surfaces(light: RGBColor(r: 0xFF, g: 0xFF, b: 0xFF), dark: RGBColor(r: 0x1C, g: 0x1C, b: 0x1E))
    /// The surface a variant is shown on.
    public func surface(dark isDark: Bool) -> RGBColor { isDark ? dark : light }
  }

  /// What a viewer sees in one picture.
  public enum Verdict: String, Sendable, Equatable {
    /// Nothing is visibly lit.
    case black
    /// One tone (a solid card, a flash).
    case flat
    /// Something to look at.
    case picture
  }

  /// The verdict for a picture's statistics.
  public static func verdict(_ s: PictureStatistics) -> Verdict {
    if isBlack(s) { return .black }
    if isFlat(s) { return .flat }
    return .picture
  }

  /// Whether nothing in the picture is visibly lit (see the type's notes).
  public static func isBlack(_ s: PictureStatistics) -> Bool { s.brightTail < litLuma }

  /// Whether the picture is one tone (see the type's notes).
  public static func isFlat(_ s: PictureStatistics) -> Bool {
    s.toneRange < flatToneRange && s.sharpness < flatSharpness
  }

  /// Words for a black picture: what was seen, for an error message.
  public static func describeBlack(_ s: PictureStatistics) -> String {
    String(format: "nothing in it is visibly lit (its brightest 0.5 %% reach luma %.0f of 255, under %.0f; mean %.1f)",
           s.brightTail, litLuma, s.meanLuma)
  }

  /// Words for a flat picture: what was seen, for a warning.
  public static func describeFlat(_ s: PictureStatistics) -> String {
    String(format: "one flat tone (96 %% of it within %.0f luma levels, mean %.0f of 255)", s.toneRange, s.meanLuma)
  }

  /// Mean luma (0–255) of `image` as shown on `surface`: each pixel
  /// composited over the surface by its alpha (sRGB-encoded values, the way
  /// UIKit and browsers blend), then BT.709 luma.
  public static func shownMeanLuma(_ image: RGBAImage, on surface: RGBColor) -> Double {
    shownLuma(image, on: surface).meanLuma
  }

  /// `shownMeanLuma` and `glareShare` of one picture, from one pass over
  /// its pixels.
  ///
  /// - Parameters:
  ///   - image: RGBA, sRGB-encoded, straight alpha; any size.
  ///   - surface: what the picture is shown on.
  /// - Returns: the mean luma as shown (0–255) and the share of its pixels
  ///   (0–1) whose luma as shown is at least `glareLuma`.
  public static func shownLuma(_ image: RGBAImage, on surface: RGBColor) -> (meanLuma: Double, glareShare: Double) {
    let sr = Double(surface.r), sg = Double(surface.g), sb = Double(surface.b)
    let surfaceLuma = 0.2126 * sr + 0.7152 * sg + 0.0722 * sb
    let glareThreshold = Int64(glareLuma * 10000)
    // Opaque pixels sum exactly in integers (weights in 1/10000); only
    // translucent ones need the blend. The sums are bounded (at most
    // 2.55e6 a pixel): wrapping arithmetic, no overflow traps in the loop.
    var opaque: Int64 = 0
    var blended = 0.0
    var glaring = 0
    image.pixels.withUnsafeBufferPointer { p in
      var i = 0
      while i + 3 < p.count {
        if p[i + 3] == 255 {
          let l = 2126 &* Int64(p[i]) &+ 7152 &* Int64(p[i + 1]) &+ 722 &* Int64(p[i + 2])
          opaque &+= l
          if l >= glareThreshold { glaring &+= 1 }
        } else {
          let a = Double(p[i + 3]) / 255
          let l = (0.2126 * Double(p[i]) + 0.7152 * Double(p[i + 1]) + 0.0722 * Double(p[i + 2])) * a + surfaceLuma * (1 - a)
          blended += l
          if l >= glareLuma { glaring &+= 1 }
        }
        i &+= 4
      }
    }
    let pixels = Double(max(1, image.width * image.height))
    return ((Double(opaque) / 10000 + blended) / pixels, Double(glaring) / pixels)
  }

  /// Compares a dark variant with its light original as each is shown.
  ///
  /// - Parameters:
  ///   - light: the light variant, RGBA sRGB (straight alpha).
  ///   - dark: the dark variant, any size (the mean does not depend on it).
  ///   - surfaces: the light variant is shown on `light` (`background`),
  ///     the dark one on `dark` (`dark_surface`).
  /// - Returns: both shown means (0–255) and whether the dark one is darker.
  public static func darkerAsShown(light: RGBAImage, dark: RGBAImage, surfaces: Surfaces)
    -> (light: Double, dark: Double, isDarker: Bool)
  {
    let l = shownMeanLuma(light, on: surfaces.light)
    let d = shownMeanLuma(dark, on: surfaces.dark)
    return (l, d, isDarker(shownDark: d, shownLight: l))
  }

  /// Whether a dark variant whose shown mean luma is `shownDark` is darker
  /// than its light one at `shownLight` (both from `shownMeanLuma`).
  public static func isDarker(shownDark: Double, shownLight: Double) -> Bool {
    shownDark <= shownLight + darkerMargin
  }
}
