import Foundation

/// The designer's own dark picture (`"dark": {"image": "media/sale-dark.png"}`),
/// read once and fitted to what the banner needs: every width of an image
/// banner's ladder, or a video's dark cover. It is used as supplied: never
/// judged, recoloured or dimmed.
///
/// Read like a poster, under the image sources' rules and limits
/// (`PosterFitter.openStill`): a JPEG, PNG, WebP or HEIC still within the
/// job's file-size and pixel limits; decoded by `ImageSource` (EXIF
/// orientation applied, the ICC profile or HEIF nclx converted to sRGB);
/// transparency flattened onto `dark_surface`, the surface it is shown on,
/// so the picture is opaque from then on and its WebP and JPEG show the
/// same thing.
///
/// ```swift
/// let dark = try DesignerDarkPicture.load(url, text: "media/sale-dark.png",
///                                         limits: settings.inputLimits, darkSurface: settings.darkSurface)
/// let (picture, warning) = dark.matchingAspect(ofWidth: 1170, height: 658)
/// ```
public struct DesignerDarkPicture: Sendable {
  /// Aspect ratios within 1 % of each other (their quotient within
  /// 0.99...1.01) count as the same: the picture is scaled to each size, a
  /// stretch of at most 1 %, rather than cut. Beyond that it is
  /// cover-cropped to the light picture's aspect ratio, with a warning.
  public static let aspectTolerance = 0.01

  /// The picture: upright, sRGB, opaque, at the file's full size.
  public let image: RGBAImage
  /// Its path exactly as written in the job (`dark.image`), for messages.
  public let text: String
  /// Decoding warnings (a profile ignored, corrupt but decodable data),
  /// each naming the picture.
  public var warnings: [String]

  /// A picture already decoded (tests; `load` is the way in otherwise).
  ///
  /// - Parameters:
  ///   - image: upright, sRGB, opaque RGBA.
  ///   - text: the path as written in the job.
  ///   - warnings: what decoding noticed.
  /// What its decoder concealed (`DecodedPicture.damage`); nil when whole.
  /// `DarkSource.load` applies the damaged-still rule (`DamagedStill`).
  public var damage: String? = nil

  public init(image: RGBAImage, text: String, warnings: [String] = []) {
    self.image = image
    self.text = text
    self.warnings = warnings
  }

  /// Opens, checks, decodes and flattens the designer's picture.
  ///
  /// - Parameters:
  ///   - url: the file (`DarkPolicy.image`'s `source`).
  ///   - text: its path as written in the job.
  ///   - limits: the job's `inputLimits` (file size, pixels).
  ///   - darkSurface: `dark_surface`, what transparency is flattened onto.
  /// - Throws: `MediaIOError` for a missing, unreadable, over-limit,
  ///   unknown, animated or corrupt file (`kind` set where it failed), and
  ///   for a fully transparent one (`.invalidData`: nothing in it can be
  ///   shown).
  public static func load(_ url: URL, text: String, limits: InputLimits,
                          darkSurface: RGBColor) throws(MediaIOError) -> DesignerDarkPicture {
    let decoded = try PosterFitter.openStill(url, limits: limits, what: "dark picture").decodeStill()
    var image = decoded.image
    if image.hasTransparency {
      // Nothing opaque at all: only the surface would show.
      var visible = false
      image.pixels.withUnsafeBufferPointer { p in
        var i = 3
        while i < p.count && !visible { visible = p[i] != 0; i += 4 }
      }
      guard visible else {
        throw MediaIOError(kind: .invalidData, function: "DesignerDarkPicture.load", context: text,
                           reason: "it is fully transparent: nothing in it can be shown")
      }
      image = DarkVariantGenerator().flattened(image, onto: darkSurface)
    }
    var picture = DesignerDarkPicture(image: image, text: text, warnings: decoded.warnings.map { "dark picture \(text): \($0)" })
    picture.damage = decoded.damage
    return picture
  }

  /// How far apart the picture's aspect ratio and `width × height`'s are:
  /// `|(w/h) / (width/height) − 1|`, 0 when they are equal.
  public func aspectMismatch(width: Int, height: Int) -> Double {
    let own = Double(image.width) / Double(image.height)
    let target = Double(width) / Double(max(1, height))
    return abs(own / target - 1)
  }

  /// The picture to scale to each size of a light picture that is
  /// `width × height` (upright pixels): the picture as it is when the
  /// aspect ratios agree within `aspectTolerance`, else its centred
  /// cover-crop to that aspect ratio (`PosterFitter.cropRect`), with a
  /// warning naming both sizes and the crop.
  ///
  /// - Parameter what: the light picture in the warning (`"the image"`,
  ///   `"the video"`).
  public func matchingAspect(ofWidth width: Int, height: Int,
                             what: String = "the image") -> (picture: RGBAImage, warning: String?) {
    guard aspectMismatch(width: width, height: height) > Self.aspectTolerance else { return (image, nil) }
    let crop = PosterFitter.cropRect(sourceWidth: image.width, sourceHeight: image.height, width: width, height: height)
    let cut = image.cropped(x: crop.x, y: crop.y, width: crop.width, height: crop.height)
    let warning = String(
      format: "dark picture %@ is %dx%d (aspect %.3f), %@ %dx%d (%.3f), %.1f %% apart: cover-cropped, centred, to %dx%d",
      text, image.width, image.height, Double(image.width) / Double(image.height), what, width, height,
      Double(width) / Double(max(1, height)), aspectMismatch(width: width, height: height) * 100, crop.width, crop.height)
    return (cut, warning)
  }

  /// The dark cover of a video whose output is `width × height`: fitted
  /// like a poster (`PosterFitter.fit`: cover-cropped, centred, Lanczos),
  /// with the warning of `matchingAspect` when the aspect ratios differ by
  /// more than `aspectTolerance`.
  ///
  /// - Throws: `MediaIOError` from resizing.
  public func cover(width: Int, height: Int) throws(MediaIOError) -> (image: RGBAImage, warning: String?) {
    let (_, warning) = matchingAspect(ofWidth: width, height: height, what: "the video")
    // Opaque already: the fitter's background is never used.
    let fitted = try PosterFitter(limits: InputLimits(), background: RGBColor(r: 0, g: 0, b: 0))
      .fit(image, width: width, height: height)
    return (fitted, warning)
  }
}

// MARK: - Glare

extension DesignerDarkPicture {
  /// Words for a designer's dark picture that glares as shown on `surface`
  /// (`PictureLook.glares`: more than 25 % of it near white), or `nil`:
  /// `glares in dark mode: 68 % of it is near white …; used as supplied`,
  /// for the caller to put the picture's name before. A warning, never a
  /// failure: the picture is the designer's call.
  ///
  /// - Parameters:
  ///   - picture: the dark picture as written (RGBA sRGB), any size.
  ///   - surface: `dark_surface`.
  public static func glareWarning(_ picture: RGBAImage, on surface: RGBColor) -> String? {
    let share = PictureLook.glareShare(picture, on: surface)
    guard share > PictureLook.maxGlareShare else { return nil }
    return String(format: "glares in dark mode: %.0f %% of it is near white (luma %.0f or more) on %@, over %.0f %%; used as supplied",
                  share * 100, PictureLook.glareLuma, surface.hex, PictureLook.maxGlareShare * 100)
  }
}
