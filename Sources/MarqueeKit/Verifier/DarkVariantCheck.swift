/// `verify`'s judgement of a published dark variant: the rules of
/// `PictureLook.judgeDarkVariant` (legible, no glare, photos stay photos,
/// darker as shown), with "is it a photograph" decided by the same
/// classifier the generator uses (`DarkVariantGenerator.classify`), so what
/// `build` publishes passes `verify` and the reverse.
struct DarkVariantCheck {
  /// What the pictures are shown on.
  var surfaces: PictureLook.Surfaces

  /// A decoded light picture read once for every dark variant judged
  /// against it: as shown on the light surface, its soft shade, and
  /// whether the generator's classifier calls it a photograph.
  struct Light {
    /// The decoded light picture (`url`, `cover_url`), RGBA sRGB.
    var image: RGBAImage
    /// `image` as shown on the light surface.
    var shown: ShownPicture
    /// `PictureLook.softShade(of: shown)`.
    var softShade: [Bool]?
    /// Whether `image` is a photograph (the r rule applies).
    var isPhotograph: Bool
  }

  /// `light` read for judging.
  func light(_ image: RGBAImage) -> Light {
    let generator = DarkVariantGenerator(options: .init(surface: surfaces.dark, lightSurface: surfaces.light))
    let shown = ShownPicture(image, on: surfaces.light)
    return Light(image: image, shown: shown, softShade: PictureLook.softShade(of: shown),
                 isPhotograph: generator.classify(image) == .photograph)
  }

  /// What each rule finds for the decoded dark variant `dark` of `light`.
  func judgement(of dark: RGBAImage, against light: Light) -> PictureLook.DarkVariantJudgement {
    PictureLook.judgeDarkVariant(
      light: light.image, dark: dark, surfaces: surfaces, isPhotograph: light.isPhotograph,
      shownLight: light.shown, lightSoftShade: .some(light.softShade))
  }

  /// Each broken rule in words; empty when the dark variant passes.
  ///
  /// - Parameters:
  ///   - light: the decoded light picture (`url`, `cover_url`).
  ///   - dark: the decoded dark variant (`dark_url`, `cover_dark_url`).
  func problems(light: RGBAImage, dark: RGBAImage) -> [String] {
    judgement(of: dark, against: self.light(light)).problems
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
