internal import CLCMS2
import Foundation

/// Converts decoded pixels to sRGB with Little CMS 2 (liblcms2).
///
/// Every output of the image stage is sRGB (playback constraints §5: a
/// wide-gamut photo must look on the phone as it does in a photo viewer).
/// Sources tagged with an ICC profile (JPEG APP2, PNG iCCP, WebP ICCP, HEIF
/// `colr prof`) or with HEIF `nclx` primaries are converted here; untagged
/// sources are taken as sRGB.
///
/// **Rendering intent: relative colorimetric with black point compensation**
/// (`INTENT_RELATIVE_COLORIMETRIC` + `cmsFLAGS_BLACKPOINTCOMPENSATION`),
/// Photoshop's default for conversions. In-gamut colours keep their exact
/// appearance; out-of-gamut colours (a saturated Display P3 or Adobe RGB
/// red) are clipped to the sRGB gamut edge, which is what an sRGB screen
/// shows anyway. Black point compensation maps a CMYK profile's paper black
/// to sRGB black, so print files do not come out washed out. Perceptual was
/// not chosen because matrix-shaper profiles (P3, Adobe RGB, gray) have no
/// perceptual tables, so it would only change the CMYK case, and v4 sRGB
/// "preference" profiles would then shift colours of images that are
/// already sRGB.
///
/// A profile that Little CMS cannot read, or whose colour space does not
/// match the pixels, is ignored with a warning (the pixels are used as
/// sRGB): a bad profile is never a failure.
public enum ColorManager {
  /// The intent, for documentation and reports.
  public static let intentDescription = "relative colorimetric, black point compensation"

  static let flags = UInt32(cmsFLAGS_BLACKPOINTCOMPENSATION)

  /// The kind of pixels a profile describes.
  enum Space: Equatable {
    case rgb, gray, cmyk
    case other(String)
  }

  /// An open ICC profile (`cmsHPROFILE`), closed in `deinit`.
  final class Profile {
    let handle: cmsHPROFILE

    /// Opens an embedded profile; nil if Little CMS cannot parse it.
    init?(icc: Data) {
      guard !icc.isEmpty, icc.count < Int(UInt32.max) else { return nil }
      let h = icc.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) }
      guard let h else { return nil }
      handle = h
    }

    init?(handle: cmsHPROFILE?) {
      guard let handle else { return nil }
      self.handle = handle
    }

    deinit { cmsCloseProfile(handle) }

    static func sRGB() -> Profile? { Profile(handle: cmsCreate_sRGBProfile()) }

    var space: Space {
      let s = cmsGetColorSpace(handle)
      switch s {
      case cmsSigRgbData: return .rgb
      case cmsSigGrayData: return .gray
      case cmsSigCmykData: return .cmyk
      default:
        let v = s.rawValue
        let chars = [v >> 24, v >> 16, v >> 8, v].map { Character(Unicode.Scalar(UInt8($0 & 0xFF))) }
        return .other(String(chars).trimmingCharacters(in: .whitespaces))
      }
    }

    /// The profile's description tag ("Display P3", "Adobe RGB (1998)").
    var name: String {
      var buffer = [CChar](repeating: 0, count: 256)
      let n = cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", &buffer, UInt32(buffer.count))
      guard n > 0 else { return "unnamed profile" }
      return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
  }

  /// A transfer function for a profile built from HEIF `nclx` values.
  enum Transfer: Equatable {
    case sRGB, bt709, gamma(Double), linear

    func curve() -> OpaquePointer? {
      switch self {
      case .sRGB:
        let p: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        return cmsBuildParametricToneCurve(nil, 4, p)
      case .bt709:
        let p: [Double] = [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081]
        return cmsBuildParametricToneCurve(nil, 4, p)
      case .gamma(let g):
        return cmsBuildParametricToneCurve(nil, 1, [g])
      case .linear:
        return cmsBuildParametricToneCurve(nil, 1, [1.0])
      }
    }
  }

  /// A matrix-shaper RGB profile from chromaticities (CIE xy of red, green,
  /// blue and white) and a transfer function.
  static func rgbProfile(red: (Double, Double), green: (Double, Double), blue: (Double, Double),
                         white: (Double, Double), transfer: Transfer) -> Profile? {
    guard let curve = transfer.curve() else { return nil }
    defer { cmsFreeToneCurve(curve) }
    var wp = cmsCIExyY(x: white.0, y: white.1, Y: 1)
    var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: red.0, y: red.1, Y: 1),
                                    Green: cmsCIExyY(x: green.0, y: green.1, Y: 1),
                                    Blue: cmsCIExyY(x: blue.0, y: blue.1, Y: 1))
    var curves: [OpaquePointer?] = [curve, curve, curve]
    return Profile(handle: cmsCreateRGBProfile(&wp, &primaries, &curves))
  }

  /// A cached source-profile → sRGB transform (`cmsHTRANSFORM`), reused for
  /// every frame of an animation.
  final class Conversion {
    enum Input: Equatable {
      /// RGBA bytes; alpha copied unchanged.
      case rgba
      /// One gray byte per pixel.
      case gray
      /// C, M, Y, K bytes; `inverted` for Adobe's 0 = full ink.
      case cmyk(inverted: Bool)
    }

    let handle: cmsHTRANSFORM
    let input: Input
    /// The source profile's name, for reports.
    let profileName: String

    private init(handle: cmsHTRANSFORM, input: Input, profileName: String) {
      self.handle = handle
      self.input = input
      self.profileName = profileName
    }

    deinit { cmsDeleteTransform(handle) }

    /// Builds the transform from `profile` to sRGB for pixels of kind `input`.
    ///
    /// - Returns: the transform, or a warning explaining why the profile is
    ///   not used.
    static func make(from profile: Profile, input: Input) -> Result<Conversion, MediaIOError> {
      let name = profile.name
      let inFormat: UInt32
      var flags = ColorManager.flags
      switch (input, profile.space) {
      case (.rgba, .rgb):
        inFormat = marquee_TYPE_RGBA_8
        flags |= UInt32(cmsFLAGS_COPY_ALPHA)
      case (.gray, .gray):
        inFormat = marquee_TYPE_GRAY_8
      case (.cmyk(let inverted), .cmyk):
        inFormat = inverted ? marquee_TYPE_CMYK_8_REV : marquee_TYPE_CMYK_8
      case (_, let space):
        return .failure(MediaIOError(kind: .unsupported, function: "cmsCreateTransform", context: "", reason: "the embedded ICC profile '\(name)' is for \(describe(space)) pixels but the picture is \(describe(input)); profile ignored"))
      }
      guard let srgb = Profile.sRGB() else { return .failure(MediaIOError(kind: .unsupported, function: "cmsCreateTransform", context: "", reason: "Little CMS cannot create sRGB")) }
      let outFormat = marquee_TYPE_RGBA_8
      guard let t = cmsCreateTransform(profile.handle, inFormat, srgb.handle, outFormat,
                                       UInt32(INTENT_RELATIVE_COLORIMETRIC), flags) else {
        return .failure(MediaIOError(kind: .unsupported, function: "cmsCreateTransform", context: "", reason: "Little CMS cannot convert from the embedded ICC profile '\(name)'; profile ignored"))
      }
      return .success(Conversion(handle: t, input: input, profileName: name))
    }

    static func describe(_ s: Space) -> String {
      switch s {
      case .rgb: return "RGB"
      case .gray: return "gray"
      case .cmyk: return "CMYK"
      case .other(let sig): return "'\(sig)'"
      }
    }

    static func describe(_ i: Input) -> String {
      switch i {
      case .rgba: return "RGB"
      case .gray: return "gray"
      case .cmyk: return "CMYK"
      }
    }

    /// Converts RGBA pixels in place (input `.rgba`).
    func apply(_ image: inout RGBAImage) {
      precondition(input == .rgba, "RGBA conversion on a non-RGBA transform")
      let count = image.width * image.height
      image.pixels.withUnsafeMutableBytes { buf in
        guard let base = buf.baseAddress else { return }
        run(source: UnsafeRawPointer(base), sourceBytesPerPixel: 4, destination: base, pixelCount: count)
      }
    }

    /// Converts gray or CMYK bytes (`bytesPerPixel` 1 or 4) to an opaque
    /// RGBA image.
    func apply(_ source: UnsafeRawBufferPointer, width: Int, height: Int) -> RGBAImage {
      let count = width * height
      var out = [UInt8](repeating: 255, count: count * 4)
      let bpp = input == .gray ? 1 : 4
      out.withUnsafeMutableBytes { dst in
        guard let from = source.baseAddress, let to = dst.baseAddress, source.count >= count * bpp else { return }
        run(source: from, sourceBytesPerPixel: bpp, destination: to, pixelCount: count)
      }
      // Little CMS leaves the output's extra (alpha) channel as it found it
      // unless asked to copy one; make sure it is opaque.
      var i = 3
      out.withUnsafeMutableBufferPointer { p in
        while i < p.count { p[i] = 255; i += 4 }
      }
      return RGBAImage(width: width, height: height, pixels: out)
    }

    /// `cmsDoTransform` in chunks (its count is 32-bit).
    private func run(source: UnsafeRawPointer, sourceBytesPerPixel: Int, destination: UnsafeMutableRawPointer,
                     pixelCount: Int) {
      let chunk = 1 << 20
      var done = 0
      while done < pixelCount {
        let n = min(chunk, pixelCount - done)
        cmsDoTransform(handle, source + done * sourceBytesPerPixel, destination + done * 4, UInt32(n))
        done += n
      }
    }
  }

  /// Converts an RGBA image tagged with `icc` to sRGB in place.
  ///
  /// A gray profile on an RGBA image (gray PNG expanded to RGBA by the
  /// decoder) is applied to the gray channel, keeping alpha.
  ///
  /// - Returns: warnings (unusable profile); empty when converted.
  static func convertToSRGB(_ image: inout RGBAImage, icc: Data) -> [String] {
    guard let profile = Profile(icc: icc) else {
      return ["the embedded ICC profile (\(icc.count) bytes) cannot be read; treated as sRGB"]
    }
    return convertToSRGB(&image, profile: profile)
  }

  static func convertToSRGB(_ image: inout RGBAImage, profile: Profile) -> [String] {
    if profile.space == .gray {
      switch Conversion.make(from: profile, input: .gray) {
      case .failure(let w): return [w.reason]
      case .success(let conversion): applyGray(conversion, to: &image)
      }
      return []
    }
    switch Conversion.make(from: profile, input: .rgba) {
    case .failure(let w): return [w.reason]
    case .success(let conversion): conversion.apply(&image)
    }
    return []
  }

  /// Runs a gray → sRGB conversion on the R channel of an RGBA image
  /// whose pixels are gray, keeping alpha.
  static func applyGray(_ conversion: Conversion, to image: inout RGBAImage) {
    let count = image.width * image.height
    var gray = [UInt8](repeating: 0, count: count)
    var alpha = [UInt8](repeating: 0, count: count)
    image.pixels.withUnsafeBufferPointer { p in
      gray.withUnsafeMutableBufferPointer { g in
        alpha.withUnsafeMutableBufferPointer { a in
          for i in 0..<count {
            g[i] = p[i * 4]
            a[i] = p[i * 4 + 3]
          }
        }
      }
    }
    var converted = gray.withUnsafeBytes { conversion.apply($0, width: image.width, height: image.height) }
    converted.pixels.withUnsafeMutableBufferPointer { p in
      alpha.withUnsafeBufferPointer { a in
        for i in 0..<count { p[i * 4 + 3] = a[i] }
      }
    }
    image = converted
  }
}

/// A colour problem that does not stop decoding (the pixels are used as sRGB).
