/// `verify`'s judgement of a published dark variant: the rules of
/// `PictureLook.judgeDarkVariant` (legible, no glare, photos stay photos,
/// darker as shown), with "is it a photograph" decided by the same
/// classifier the generator uses (`DarkVariantGenerator.classify`), so what
/// `build` publishes passes `verify` and the reverse.
struct DarkVariantCheck {
  /// What the pictures are shown on.
  var surfaces: PictureLook.Surfaces

  /// Each broken rule in words; empty when the dark variant passes.
  ///
  /// - Parameters:
  ///   - light: the decoded light picture (`url`, `cover_url`).
  ///   - dark: the decoded dark variant (`dark_url`, `cover_dark_url`).
  func problems(light: RGBAImage, dark: RGBAImage) -> [String] {
    let generator = DarkVariantGenerator(options: .init(surface: surfaces.dark, lightSurface: surfaces.light))
    return PictureLook.judgeDarkVariant(
      light: light, dark: dark, surfaces: surfaces,
      isPhotograph: generator.classify(light) == .photograph
    ).problems
  }
}

/// Whether two decoded pictures are the same picture but for lossy coding
/// (a WebP and a JPEG of one variant): the same size, a mean absolute luma
/// difference of at most `maxMeanDifference` levels, and at most
/// `maxFarShare` of the pixels more than `farDifference` levels apart.
/// Alpha must match within `farDifference` too. The dark-variant rules
/// count marks by tiles (75 % of a tile's marks, 10 % of the tiles), so a
/// difference this small cannot move a judgement from pass to fail.
enum CodedAlike {
  /// Largest mean absolute luma difference, levels (0–255).
  static let maxMeanDifference = 4.0
  /// A pixel is far from its twin at more than this many levels.
  static let farDifference = 24
  /// Largest share of far pixels.
  static let maxFarShare = 0.01

  static func same(_ a: RGBAImage, _ b: RGBAImage) -> Bool {
    guard a.width == b.width, a.height == b.height, a.pixels.count == b.pixels.count else { return false }
    let pixels = a.width * a.height
    guard pixels > 0 else { return true }
    var total = 0, far = 0
    a.pixels.withUnsafeBufferPointer { p in
      b.pixels.withUnsafeBufferPointer { q in
        var i = 0
        while i + 3 < p.count {
          // Bounded values: wrapping arithmetic, no overflow traps.
          let la = 54 &* Int(p[i]) &+ 183 &* Int(p[i + 1]) &+ 19 &* Int(p[i + 2])
          let lb = 54 &* Int(q[i]) &+ 183 &* Int(q[i + 1]) &+ 19 &* Int(q[i + 2])
          let d = abs(la &- lb) >> 8
          total &+= d
          if d > farDifference || abs(Int(p[i + 3]) &- Int(q[i + 3])) > farDifference { far &+= 1 }
          i &+= 4
        }
      }
    }
    return Double(total) <= maxMeanDifference * Double(pixels) && Double(far) <= maxFarShare * Double(pixels)
  }
}
