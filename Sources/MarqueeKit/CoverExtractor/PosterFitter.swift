import Foundation

/// Turns a poster still supplied by the job (`"cover": {"image": …}`) into
/// a cover: exactly the video's output size, upright, sRGB, opaque.
///
/// The poster is read like an image source (`ImageSource`: format by
/// content, the job's file-size and pixel limits, EXIF orientation applied,
/// the ICC profile or HEIF nclx converted to sRGB with Little CMS), then:
///
/// - **cover-cropped, centred**: scaled by the larger of
///   `width / posterWidth` and `height / posterHeight`, so it fills the
///   whole video frame, and the overflow cut equally from both sides of the
///   long axis. That is what an aspect-fill client (`AVLayerVideoGravity
///   .resizeAspectFill`, CSS `object-fit: cover`) does with the video, so the
///   picture does not jump when the first frame replaces the cover;
/// - resized with Lanczos (`ImageResampler`, premultiplied when there is
///   alpha);
/// - flattened onto `background`, as an image banner's JPEG is.
public struct PosterFitter: Sendable {
  /// The formats a poster may be in.
  public static let formats: Set<ImageFormat> = [.jpeg, .png, .webp, .heif]

  public var limits: InputLimits
  /// The light surface transparent posters are flattened onto.
  public var background: RGBColor

  public init(limits: InputLimits, background: RGBColor) {
    self.limits = limits
    self.background = background
  }

  /// Opens the poster and checks its format and limits without decoding
  /// (what `validate` and the cover stage both do first).
  ///
  /// - Throws: `MediaIOError` for a missing, unreadable, unknown, animated
  ///   or over-limit file.
  public func open(_ url: URL) throws(MediaIOError) -> ImageSource {
    try Self.openStill(url, limits: limits, what: "poster")
  }

  /// Opens a still the job supplies (a poster, a designer's dark picture)
  /// and checks it without decoding: the image sources' limits
  /// (`ImageSource.open`: file size, pixels), one of `formats` by content,
  /// and not an animation.
  ///
  /// - Parameter what: the picture's name in messages (`"poster"`,
  ///   `"dark picture"`).
  /// - Throws: `MediaIOError` for a missing, unreadable, unknown, animated
  ///   or over-limit file (`kind == .limit` for a limit).
  public static func openStill(_ url: URL, limits: InputLimits, what: String) throws(MediaIOError) -> ImageSource {
    let source = try ImageSource.open(path: url.path, limits: limits)
    let header = source.header
    guard formats.contains(header.format) else {
      throw MediaIOError(kind: .unsupported, function: what, context: url.lastPathComponent,
                         reason: "is \(header.format.rawValue); a \(what) is a JPEG, PNG, WebP or HEIC still")
    }
    guard !header.isAnimated else {
      throw MediaIOError(kind: .unsupported, function: what, context: url.lastPathComponent,
                         reason: "is an animation; a \(what) is a still")
    }
    return source
  }

  /// The poster fitted to `width × height`.
  ///
  /// - Returns: the cover picture (opaque RGBA sRGB), decoding warnings,
  ///   and what its decoder concealed (`DecodedPicture.damage`; the caller
  ///   applies `DamagedStill`).
  /// - Throws: `MediaIOError` from opening, decoding or resizing.
  public func fit(_ url: URL, width: Int, height: Int) throws(MediaIOError)
    -> (image: RGBAImage, warnings: [String], damage: String?)
  {
    let decoded = try open(url).decodeStill()
    return (try fit(decoded.image, width: width, height: height), decoded.warnings, decoded.damage)
  }

  /// A decoded still fitted to `width × height`: cover-cropped, centred
  /// (`cropRect`), resized with Lanczos and flattened onto `background`.
  ///
  /// - Parameter picture: upright RGBA sRGB, straight alpha, any size.
  /// - Returns: an opaque `width × height` picture.
  /// - Throws: `MediaIOError` from resizing.
  public func fit(_ picture: RGBAImage, width: Int, height: Int) throws(MediaIOError) -> RGBAImage {
    let crop = Self.cropRect(sourceWidth: picture.width, sourceHeight: picture.height,
                             width: width, height: height)
    let cut = picture.cropped(x: crop.x, y: crop.y, width: crop.width, height: crop.height)
    var fitted = try ImageResampler.resize(cut, width: width, height: height)
    if fitted.hasTransparency {
      fitted = DarkVariantGenerator().flattened(fitted, onto: background)
    }
    return fitted
  }

  /// The centred rectangle of a `sourceWidth × sourceHeight` picture with
  /// the aspect ratio of `width × height` (cover-crop), in source pixels.
  /// Both sides are at least 1.
  public static func cropRect(sourceWidth sw: Int, sourceHeight sh: Int, width: Int, height: Int)
    -> (x: Int, y: Int, width: Int, height: Int)
  {
    // Compare sw/sh with width/height without rounding.
    if sw * height > width * sh {
      // The poster is wider: keep its height, cut the sides.
      let cw = max(1, min(sw, Int((Double(sh) * Double(width) / Double(height)).rounded())))
      return ((sw - cw) / 2, 0, cw, sh)
    } else {
      let ch = max(1, min(sh, Int((Double(sw) * Double(height) / Double(width)).rounded())))
      return (0, (sh - ch) / 2, sw, ch)
    }
  }
}
