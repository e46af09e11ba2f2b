extension DarkVariantGenerator {
  /// Constants of the transparent-image treatment.
  enum TransparentTuning {
    /// Pixels at least this opaque are the "solid" content the decision
    /// looks at; fainter ones are anti-aliasing, glows and drop shadows.
    static let solidAlpha: UInt8 = 128
    /// Content is dark when the mean luma of its solid pixels has less than
    /// this WCAG 2 contrast ratio against the surface: 3:1 is the minimum
    /// for graphical objects (WCAG 2.1 SC 1.4.11). On `#1C1C1E` that is luma
    /// ~102.
    static let inkContrast = 3.0
    /// Saturated ink is lifted at least to this contrast against the
    /// surface, the level for normal text (SC 1.4.3): luma ~131 on
    /// `#1C1C1E`.
    static let visibleContrast = 4.5
    /// Dark content is *ink* (drawn in a few flat colours) when at least
    /// this fraction of its solid pixels falls into its 8 most common
    /// colours (5 bits per channel). Handwriting, icons and logos score
    /// ~0.9-1; a shaded photo cut-out (a dark mug, a person) spreads over
    /// hundreds of colours and scores far lower. Inverting a cut-out would
    /// turn it into a negative, so only ink is lifted.
    static let minInkFlatness = 0.75
    /// Number of dominant colours for ``minInkFlatness``.
    static let inkPaletteSize = 8
    /// Largest dim of light content (applied in full to white).
    static let lightContentDim = 0.10
    /// Below this largest channel value a colour's saturation is faded out:
    /// the hue of a near-black pixel is mostly noise and compression error.
    static let darkChromaKnee = 64.0
    /// Light content is a *card* (a white or frosted price card, a pale
    /// sticker holding text) when its most common colour holds at least
    /// this share of its solid pixels, is a light fill
    /// (``GraphicsTuning/lightFillLightness``, under
    /// ``GraphicsTuning/brandChroma``), the content is flat ink
    /// (``minInkFlatness``), and at least ``GraphicsTuning/minLabelPixels``
    /// solid pixels lie more than ``GraphicsTuning/groundNoise`` levels off
    /// that colour (its text). Dimmed by 10 % such a card stays a light
    /// slab on the dark surface (a white card at alpha 200 shows at luma
    /// 186 on `#1C1C1E`); it is inverted as it shows on the light surface
    /// instead. A shaded cut-out is not flat, a light icon holds nothing.
    static let cardShare = 0.5
  }

  /// What the transparent treatment decided about an image's content.
  struct InkAnalysis: Sendable, Equatable {
    /// Mean luma of the solid pixels (alpha ≥ 128), 0...255; 0 if none.
    var solidMeanLuma: Double
    /// Fraction of solid pixels in the 8 most common colours, 0...1.
    var flatness: Double
    /// Whether the content is dark flat ink that gets lifted.
    var isDarkInk: Bool
    /// Whether the content is a light card holding text
    /// (``TransparentTuning/cardShare``).
    var isLightCard = false
  }

  /// Darkens a `.transparent` image: alpha stays exactly as it is.
  ///
  /// The decision looks at the solid pixels (alpha ≥ 128): their mean luma
  /// is compared with the level that has 3:1 contrast with the surface, and
  /// their colours are checked for flatness (``TransparentTuning``).
  ///
  /// - Dark flat ink (handwriting, black logos, icons) would vanish on the
  ///   dark surface, so every visible pixel is lightened to the target luma
  ///   `(255 − Y)·(1 − sat) + max(Y, visible)·sat`, keeping its hue
  ///   (``Luma/recolour(_:_:_:toLuma:)``). Neutral pixels have their
  ///   luminance inverted, so black ink turns near-white and white details
  ///   inside it turn dark, which keeps the drawing legible; saturated brand
  ///   colours are only raised to 4.5:1 contrast instead of turning pastel.
  /// - Everything else (light artwork, and dark *shaded* content such as a
  ///   product cut-out with its drop shadow) keeps its colours, except that
  ///   highlights are dimmed: each pixel is scaled by
  ///   `1 − 0.10 · smoothstep(threshold, 255, Y)`. White loses 10 %, which
  ///   stops it glaring; content darker than the 3:1 level is not touched,
  ///   so a dark cut-out stays exactly as visible as it was and a
  ///   semi-transparent shadow stays a shadow. The factor changes slowly
  ///   enough that the luma order of pixels is kept.
  ///
  /// Fully transparent pixels are left untouched, colour included.
  func darkenTransparent(_ image: RGBAImage) -> RGBAImage {
    typealias Tune = TransparentTuning
    let surface = options.surface
    let surfaceLuma = Double(Luma.integer(surface.r, surface.g, surface.b))
    let inkThreshold = Luma.level(
      withContrast: Tune.inkContrast, above: surfaceLuma)
    let visibleLuma = Luma.level(
      withContrast: Tune.visibleContrast, above: surfaceLuma)
    let ink = inkAnalysis(of: image)

    var out = image.pixels
    if ink.isDarkInk {
      out.withUnsafeMutableBufferPointer { p in
        // Ink repeats few colours: remember the last conversion, keyed by
        // the packed RGB value (-1: none yet).
        var lastIn = -1
        var lastOut: (UInt8, UInt8, UInt8) = (0, 0, 0)
        var i = 0
        let end = p.count
        while i < end {
          if p[i + 3] != 0 {
            let packed = Int(p[i]) << 16 | Int(p[i + 1]) << 8 | Int(p[i + 2])
            if packed != lastIn {
              lastOut = liftInk(
                (p[i], p[i + 1], p[i + 2]), visibleLuma: visibleLuma,
                knee: Tune.darkChromaKnee)
              lastIn = packed
            }
            p[i] = lastOut.0
            p[i + 1] = lastOut.1
            p[i + 2] = lastOut.2
          }
          i += 4
        }
      }
    } else {
      // Scale factor per luma, in 1/65536.
      var factor = [Int](repeating: 65536, count: 256)
      let span = max(255 - inkThreshold, 1)
      for y in 0..<256 {
        let t = min(max((Double(y) - inkThreshold) / span, 0), 1)
        let smooth = t * t * (3 - 2 * t)
        factor[y] = Int(((1 - Tune.lightContentDim * smooth) * 65536).rounded())
      }
      factor.withUnsafeBufferPointer { f in
        out.withUnsafeMutableBufferPointer { p in
          var i = 0
          let end = p.count
          while i < end {
            if p[i + 3] != 0 {
              let k = f[Luma.integer(p[i], p[i + 1], p[i + 2])]
              p[i] = UInt8((Int(p[i]) * k + 32768) >> 16)
              p[i + 1] = UInt8((Int(p[i + 1]) * k + 32768) >> 16)
              p[i + 2] = UInt8((Int(p[i + 2]) * k + 32768) >> 16)
            }
            i += 4
          }
        }
      }
    }
    return RGBAImage(width: image.width, height: image.height, pixels: out)
  }

  /// ``analyzeInk(_:darkBelow:)`` at the level with 3:1 contrast against
  /// the surface (``TransparentTuning/inkContrast``).
  func inkAnalysis(of image: RGBAImage) -> InkAnalysis {
    let surface = options.surface
    let surfaceLuma = Double(Luma.integer(surface.r, surface.g, surface.b))
    return analyzeInk(image, darkBelow: Luma.level(withContrast: TransparentTuning.inkContrast, above: surfaceLuma))
  }

  /// Measures the solid content of a transparent image: how dark it is and
  /// how flat its colours are.
  ///
  /// - Parameters:
  ///   - image: The image.
  ///   - darkBelow: Luma under which the content counts as dark.
  /// - Returns: The measurements and the ink decision.
  func analyzeInk(_ image: RGBAImage, darkBelow threshold: Double)
    -> InkAnalysis
  {
    typealias Tune = TransparentTuning
    // 5 bits per channel: 32768 colour bins.
    var histogram = [Int](repeating: 0, count: 1 << 15)
    var lumaSum = 0
    var solid = 0
    image.pixels.withUnsafeBufferPointer { p in
      histogram.withUnsafeMutableBufferPointer { hist in
        var i = 0
        let end = p.count
        while i < end {
          if p[i + 3] >= Tune.solidAlpha {
            solid += 1
            lumaSum += Luma.scaled(p[i], p[i + 1], p[i + 2])
            let bin =
              Int(p[i] >> 3) << 10 | Int(p[i + 1] >> 3) << 5
              | Int(p[i + 2] >> 3)
            hist[bin] += 1
          }
          i += 4
        }
      }
    }
    guard solid > 0 else {
      return InkAnalysis(solidMeanLuma: 0, flatness: 0, isDarkInk: false)
    }
    // The few most common bins, by a small insertion list.
    var top = [Int](repeating: 0, count: Tune.inkPaletteSize)
    for n in histogram where n > top[top.count - 1] {
      var j = top.count - 1
      while j > 0 && top[j - 1] < n {
        top[j] = top[j - 1]
        j -= 1
      }
      top[j] = n
    }
    let meanLuma = Double(lumaSum) / (256 * Double(solid))
    let flatness = Double(top.reduce(0, +)) / Double(solid)
    var analysis = InkAnalysis(
      solidMeanLuma: meanLuma, flatness: flatness,
      isDarkInk: meanLuma < threshold && flatness >= Tune.minInkFlatness)
    if !analysis.isDarkInk, flatness >= Tune.minInkFlatness,
       Double(top[0]) >= Tune.cardShare * Double(solid),
       let mode = histogram.indices.max(by: { histogram[$0] < histogram[$1] }) {
      analysis.isLightCard = holdsText(image, fill: mode)
    }
    return analysis
  }

  /// Whether the solid pixels of `image` in the 5-bit colour bin `fill`
  /// are a light fill holding text: their mean colour is a light fill and
  /// at least ``GraphicsTuning/minLabelPixels`` solid pixels lie more than
  /// ``GraphicsTuning/groundNoise`` levels off it in some channel.
  private func holdsText(_ image: RGBAImage, fill bin: Int) -> Bool {
    typealias Tune = TransparentTuning
    var sum = (0, 0, 0), n = 0
    image.pixels.withUnsafeBufferPointer { p in
      var i = 0
      while i < p.count {
        if p[i + 3] >= Tune.solidAlpha, Int(p[i] >> 3) << 10 | Int(p[i + 1] >> 3) << 5 | Int(p[i + 2] >> 3) == bin {
          sum.0 += Int(p[i]); sum.1 += Int(p[i + 1]); sum.2 += Int(p[i + 2]); n += 1
        }
        i += 4
      }
    }
    guard n > 0 else { return false }
    let fill = (sum.0 / n, sum.1 / n, sum.2 / n)
    let lab = OKLab(r: UInt8(fill.0), g: UInt8(fill.1), b: UInt8(fill.2))
    guard lab.l >= GraphicsTuning.lightFillLightness, lab.chroma < GraphicsTuning.brandChroma else { return false }
    let noise = GraphicsTuning.groundNoise
    var text = 0
    image.pixels.withUnsafeBufferPointer { p in
      var i = 0
      while i < p.count && text < GraphicsTuning.minLabelPixels {
        if p[i + 3] >= Tune.solidAlpha, abs(Int(p[i]) - fill.0) > noise || abs(Int(p[i + 1]) - fill.1) > noise
          || abs(Int(p[i + 2]) - fill.2) > noise { text += 1 }
        i += 4
      }
    }
    return text >= GraphicsTuning.minLabelPixels
  }

  /// The lightened colour of one dark-ink pixel; see
  /// ``darkenTransparent(_:)``.
  ///
  /// - Parameters:
  ///   - rgb: The pixel's colour.
  ///   - visibleLuma: Luma with 4.5:1 contrast against the surface.
  ///   - knee: Largest-channel value below which saturation fades out.
  /// - Returns: The new colour.
  func liftInk(
    _ rgb: (UInt8, UInt8, UInt8), visibleLuma: Double, knee: Double
  ) -> (UInt8, UInt8, UInt8) {
    let r = Double(rgb.0)
    let g = Double(rgb.1)
    let b = Double(rgb.2)
    let top = max(r, g, b)
    let bottom = min(r, g, b)
    let saturation = top > 0 ? (top - bottom) / top * min(1, top / knee) : 0
    let y = Luma.exact(r, g, b)
    let target =
      (255 - y) * (1 - saturation) + max(y, visibleLuma) * saturation
    let c = Luma.recolour(r, g, b, toLuma: target)
    return (Luma.byte(c.0), Luma.byte(c.1), Luma.byte(c.2))
  }
}
