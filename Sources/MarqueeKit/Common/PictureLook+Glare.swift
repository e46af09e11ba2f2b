/// *No glare*: how much of a dark variant stays near white as shown.
///
/// A dark variant is shown on the app's dark surface (`dark_surface`). A
/// pixel glares when its sRGB-encoded BT.709 luma, composited on that
/// surface by its alpha (encoded values, the way UIKit and browsers blend),
/// is at least `glareLuma` (225 of 255). A dark variant glares when more
/// than `maxGlareShare` (25 %) of its pixels do: a white panel or card left
/// as it was, a white backdrop that was not recoloured. A few white
/// highlights, white text and a white logo stay well under that.
extension PictureLook {
  /// sRGB-encoded luma (0–255) from which a pixel is near white.
  public static let glareLuma: Double = 225
  /// The largest share of a dark variant's pixels that may be near white.
  public static let maxGlareShare: Double = 0.25

  /// The fraction (0–1) of `image`'s pixels that are near white
  /// (`glareLuma` or more) when composited on `surface`.
  ///
  /// - Parameters:
  ///   - image: RGBA, sRGB-encoded, straight alpha; any size (0 for an
  ///     empty image).
  ///   - surface: what the picture is shown on.
  public static func glareShare(_ image: RGBAImage, on surface: RGBColor) -> Double {
    shownLuma(image, on: surface).glareShare
  }

  /// Whether a dark variant glares as shown on `surface` (more than
  /// `maxGlareShare` of it near white).
  public static func glares(_ image: RGBAImage, on surface: RGBColor) -> Bool {
    glareShare(image, on: surface) > maxGlareShare
  }
}
