import Foundation

extension DarkVariantGenerator {
  /// Luma and colour helpers shared by the dark-variant treatments.
  ///
  /// "Luma" here is BT.709 luma computed on the sRGB-*encoded* values
  /// (Y' = 0.2126 R' + 0.7152 G' + 0.0722 B'), not linear luminance. Encoded
  /// luma is close to perceived lightness, costs no transfer-function lookups,
  /// and scaling all three channels by `k` scales it by exactly `k`, which the
  /// photo treatment relies on to preserve the luma order of pixels.
  enum Luma {
    /// BT.709 weights in 1/256 units: 54 + 183 + 19 = 256, so white stays 255.
    static let weightR = 54
    /// Green weight in 1/256 units.
    static let weightG = 183
    /// Blue weight in 1/256 units.
    static let weightB = 19

    /// Luma in 1/256 units (0...65280): `255 * 256` for white.
    @inline(__always)
    static func scaled(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
      weightR * Int(r) + weightG * Int(g) + weightB * Int(b)
    }

    /// Luma rounded to 0...255.
    @inline(__always)
    static func integer(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
      (scaled(r, g, b) + 128) >> 8
    }

    /// Luma with the exact BT.709 weights, as a `Double` in 0...255.
    @inline(__always)
    static func exact(_ r: Double, _ g: Double, _ b: Double) -> Double {
      0.2126 * r + 0.7152 * g + 0.0722 * b
    }

    /// Alpha-weighted mean luma of an image, 0...255.
    ///
    /// Fully transparent pixels do not count and half-transparent ones count
    /// half; for an opaque image this is the plain mean. Returns 0 when every
    /// pixel is fully transparent.
    static func mean(of image: RGBAImage) -> Double {
      var weighted: Int64 = 0
      var alphaSum: Int64 = 0
      image.pixels.withUnsafeBufferPointer { p in
        var i = 0
        let end = p.count
        while i < end {
          let a = Int64(p[i + 3])
          if a != 0 {
            weighted &+= a &* Int64(scaled(p[i], p[i + 1], p[i + 2]))
            alphaSum &+= a
          }
          i += 4
        }
      }
      guard alphaSum > 0 else { return 0 }
      return Double(weighted) / (256 * Double(alphaSum))
    }

    /// Rounds and clamps a `Double` into a byte, 0...255 (NaN gives 0).
    @inline(__always)
    static func byte(_ value: Double) -> UInt8 {
      guard value > 0 else { return 0 }
      guard value < 254.5 else { return 255 }
      return UInt8(Int(value + 0.5))
    }

    // MARK: - sRGB transfer function (IEC 61966-2-1)

    /// Linear light (0...1) of an sRGB-encoded value (0...255).
    static func linear(fromEncoded v: Double) -> Double {
      let c = min(max(v / 255, 0), 1)
      return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    /// sRGB-encoded value (0...255) of linear light (0...1).
    static func encoded(fromLinear l: Double) -> Double {
      let c = min(max(l, 0), 1)
      let e = c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1 / 2.4) - 0.055
      return e * 255
    }

    /// WCAG 2 relative luminance (0...1) of an sRGB colour: `0.2126 R +
    /// 0.7152 G + 0.0722 B` on linear light (WCAG 2.1, "relative
    /// luminance"), what `PictureLook`'s legibility rule measures a mark
    /// and its ground by. A saturated colour's is lower than its encoded
    /// luma suggests: navy `#1B2A4A` is luma 41 but as dark as a grey of 36.
    static func relativeLuminance(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Double {
      relativeLuminance(encoded: Double(r), Double(g), Double(b))
    }

    /// `relativeLuminance` of encoded channels (0...255) that need not be
    /// whole levels, such as a colour part-way mixed toward white.
    static func relativeLuminance(encoded r: Double, _ g: Double, _ b: Double) -> Double {
      0.2126 * linear(fromEncoded: r) + 0.7152 * linear(fromEncoded: g) + 0.0722 * linear(fromEncoded: b)
    }

    /// The WCAG 2 contrast ratio (at least 1) of two colours:
    /// `(L1 + 0.05) / (L2 + 0.05)` on their relative luminances.
    static func contrast(_ a: (UInt8, UInt8, UInt8), _ b: (UInt8, UInt8, UInt8)) -> Double {
      let la = relativeLuminance(a.0, a.1, a.2), lb = relativeLuminance(b.0, b.1, b.2)
      return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
    }

    /// How far (0...1) `(r, g, b)` is mixed toward white, each encoded
    /// channel `c + t · (255 − c)`, to reach a WCAG 2 contrast of `ratio`
    /// against the darker colour `darker`: 0 when it has that contrast
    /// already, 1 when even white has less. Relative luminance grows with
    /// `t`, so the answer is found by bisection (to 1/65536).
    static func lift(_ r: UInt8, _ g: UInt8, _ b: UInt8, toContrast ratio: Double,
                     above darker: (UInt8, UInt8, UInt8)) -> Double {
      let floor = relativeLuminance(darker.0, darker.1, darker.2)
      let needed = ratio * (floor + 0.05) - 0.05
      @inline(__always) func luminance(_ t: Double) -> Double {
        let up = { (c: UInt8) in Double(c) + t * (255 - Double(c)) }
        return relativeLuminance(encoded: up(r), up(g), up(b))
      }
      guard luminance(0) < needed else { return 0 }
      guard luminance(1) > needed else { return 1 }
      var low = 0.0, high = 1.0
      for _ in 0..<16 {
        let mid = (low + high) / 2
        if luminance(mid) < needed { low = mid } else { high = mid }
      }
      return high
    }

    /// The grey level (sRGB-encoded luma, 0...255) that has the given WCAG 2
    /// contrast ratio against a darker grey of level `darker`.
    ///
    /// WCAG 2 contrast is `(L1 + 0.05) / (L2 + 0.05)` on relative luminance;
    /// treating encoded luma as a grey's encoded value is the usual
    /// approximation for coloured pixels. Clamped to 255 when the ratio cannot
    /// be reached.
    static func level(withContrast ratio: Double, above darker: Double)
      -> Double
    {
      let l2 = linear(fromEncoded: darker)
      let l1 = ratio * (l2 + 0.05) - 0.05
      return encoded(fromLinear: l1)
    }

    // MARK: - Hue-preserving lightness change

    /// A colour with the given luma and, as far as the gamut allows, the hue
    /// and saturation of `(r, g, b)`.
    ///
    /// The colour is first scaled (which keeps hue and HSV saturation); if that
    /// would push a channel past 255 it is scaled only until the largest channel
    /// reaches 255 and then mixed toward white for the remaining luma, which
    /// keeps the hue but lowers saturation (a light colour cannot be as
    /// saturated as a dark one). Black has no hue and becomes a neutral grey.
    ///
    /// - Parameters:
    ///   - r: Red, 0...255.
    ///   - g: Green, 0...255.
    ///   - b: Blue, 0...255.
    ///   - target: Wanted luma, clamped to 0...255.
    /// - Returns: The new colour, each channel in 0...255.
    static func recolour(
      _ r: Double, _ g: Double, _ b: Double, toLuma target: Double
    ) -> (Double, Double, Double) {
      let t = min(max(target, 0), 255)
      let y = exact(r, g, b)
      guard y > 0.5 else { return (t, t, t) }
      let k = t / y
      let top = max(r, g, b)
      if top * k <= 255 { return (r * k, g * k, b * k) }
      let s = 255 / top
      let (r1, g1, b1) = (r * s, g * s, b * s)
      let y1 = exact(r1, g1, b1)
      guard y1 < 254.5 else { return (255, 255, 255) }
      let u = min(max((t - y1) / (255 - y1), 0), 1)
      return (r1 + (255 - r1) * u, g1 + (255 - g1) * u, b1 + (255 - b1) * u)
    }
  }
}
