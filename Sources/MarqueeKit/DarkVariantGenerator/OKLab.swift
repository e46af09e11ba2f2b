import Foundation

extension DarkVariantGenerator {
  /// A colour in OKLab (Björn Ottosson, "A perceptual color space for image
  /// processing", 2020): `l` is perceived lightness 0 (black) to 1 (white),
  /// `a` and `b` the green–red and blue–yellow opponent axes; chroma is
  /// `hypot(a, b)` and hue its angle. Equal steps of `l` look equally large,
  /// so "invert the lightness, keep hue and chroma" is one subtraction.
  ///
  /// Conversions go through linear sRGB (IEC 61966-2-1) and the published
  /// LMS matrices; sRGB-encoded 0–255 in and out.
  struct OKLab: Sendable, Equatable {
    var l: Double
    var a: Double
    var b: Double

    /// Chroma, the distance from the neutral axis (about 0.32 at most for
    /// sRGB colours).
    var chroma: Double { (a * a + b * b).squareRoot() }

    /// The colour of sRGB-encoded `r`, `g`, `b` (0–255).
    init(r: UInt8, g: UInt8, b: UInt8) {
      let lin = ShownPicture.linear
      let lr = Double(lin[Int(r)]), lg = Double(lin[Int(g)]), lb = Double(lin[Int(b)])
      let lms0 = cbrt(0.4122214708 * lr + 0.5363325363 * lg + 0.0514459929 * lb)
      let lms1 = cbrt(0.2119034982 * lr + 0.6806995451 * lg + 0.1073969566 * lb)
      let lms2 = cbrt(0.0883024619 * lr + 0.2817188376 * lg + 0.6299787005 * lb)
      l = 0.2104542553 * lms0 + 0.7936177850 * lms1 - 0.0040720468 * lms2
      a = 1.9779984951 * lms0 - 2.4285922050 * lms1 + 0.4505937099 * lms2
      self.b = 0.0259040371 * lms0 + 0.7827717662 * lms1 - 0.8086757660 * lms2
    }

    init(l: Double, a: Double, b: Double) {
      self.l = l
      self.a = a
      self.b = b
    }

    /// Linear sRGB of this colour, unclamped (outside 0…1 when out of gamut).
    var linearRGB: (Double, Double, Double) {
      let l0 = l + 0.3963377774 * a + 0.2158037573 * b
      let m0 = l - 0.1055613458 * a - 0.0638541728 * b
      let s0 = l - 0.0894841775 * a - 1.2914855480 * b
      let l3 = l0 * l0 * l0, m3 = m0 * m0 * m0, s3 = s0 * s0 * s0
      return (4.0767416621 * l3 - 3.3077115913 * m3 + 0.2309699292 * s3,
              -1.2684380046 * l3 + 2.6097574011 * m3 - 0.3413193965 * s3,
              -0.0041960863 * l3 - 0.7034186147 * m3 + 1.7076147010 * s3)
    }

    /// The sRGB-encoded colour (0–255). Out-of-gamut colours keep their
    /// lightness and hue and lose chroma until they fit (halved at most
    /// eight times, then clamped).
    var encoded: (UInt8, UInt8, UInt8) {
      var c = self
      var rgb = c.linearRGB
      var tries = 0
      while tries < 8, min(rgb.0, rgb.1, rgb.2) < -0.0005 || max(rgb.0, rgb.1, rgb.2) > 1.0005 {
        c.a *= 0.7
        c.b *= 0.7
        rgb = c.linearRGB
        tries += 1
      }
      func byte(_ v: Double) -> UInt8 { Luma.byte(Luma.encoded(fromLinear: v)) }
      return (byte(rgb.0), byte(rgb.1), byte(rgb.2))
    }
  }
}
