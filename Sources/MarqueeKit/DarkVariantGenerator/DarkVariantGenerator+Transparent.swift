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
    /// How far, in pixels (a square window), a lifted dark mark's
    /// anti-aliased rim (alpha under ``solidAlpha``) reaches past its solid
    /// pixels (``DarkVariantGenerator/darkInkMarks(of:darkBelow:)``).
    static let markRim = 2
    /// A translucent dark part (under half of it opaque) is still a mark
    /// when it is strokes, not a blob: under this share of its pixels lie
    /// ``strokeDepth`` pixels or more inside it along both axes (text set at
    /// 60 % opacity, strokes 4–8 px wide: none; a soft shadow's core, a
    /// blob: most).
    static let maxStrokeInterior = 0.2
    /// See ``maxStrokeInterior``.
    static let strokeDepth = 5
    /// A translucent mark's alpha is flat: at least this share of it lies
    /// within 1 level of its most common alpha (a subtitle at alpha 92:
    /// about 0.8; a soft shadow's core ramps from 128 to 140: under 0.3).
    static let flatAlphaShare = 0.5
    /// The faintest alpha a translucent mark's pixels have (text set at
    /// about 20 % opacity and more).
    static let faintAlpha: UInt8 = 48
    /// The fewest pixels of a faint mark: an i's dot in 40 px text has about 12 at alpha 48 or more.
    static let minFaintMarkPixels = 8
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
  /// - In content that is not dark flat ink as a whole, each solid part
  ///   (4-connected, alpha ≥ 128) that is dark flat ink on its own and
  ///   smaller than ``GraphicsTuning/productArea`` of the picture, mostly
  ///   opaque (a letter
  ///   of a black wordmark beside a gradient mark or a photo) is lifted the
  ///   same way, with its anti-aliased rim
  ///   (``TransparentTuning/markRim`` pixels): left as it is, it would
  ///   show at about 1.1:1 on the dark surface (``darkInkMarks(of:darkBelow:)``).
  ///   A larger dark flat part is a product's silhouette and keeps its
  ///   colours, as a shaded one does.
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
      // Dark flat marks beside other content (a black wordmark beside a
      // gradient mark or a photo) are lifted on their own.
      let marks = darkInkMarks(of: image, darkBelow: inkThreshold)
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
            if let marks, marks[i / 4], p[i + 3] != 0 {
              let lifted = liftInk((p[i], p[i + 1], p[i + 2]), visibleLuma: visibleLuma, knee: Tune.darkChromaKnee)
              p[i] = lifted.0
              p[i + 1] = lifted.1
              p[i + 2] = lifted.2
            } else if p[i + 3] != 0 {
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

  /// The pixels of the dark flat marks of a transparent picture whose
  /// content as a whole is not dark flat ink: each 4-connected part of its
  /// solid pixels (alpha ≥ ``TransparentTuning/solidAlpha``) that is dark
  /// (mean luma under `darkBelow`), flat (``TransparentTuning/minInkFlatness``
  /// of it in its ``TransparentTuning/inkPaletteSize`` most common 5-bit
  /// colours), smaller than ``GraphicsTuning/productArea`` of the
  /// picture and at least half opaque (a cut-out's soft black shadow is
  /// solid at its core, alpha 128–140, and stays a shadow) or strokes
  /// (``isStrokes(_:width:height:isSolid:)``: text set translucent), with the
  /// fainter pixels within ``TransparentTuning/markRim`` of it (its
  /// anti-aliasing).
  ///
  /// - Returns: one flag per pixel, or `nil` when there is no such mark.
  func darkInkMarks(of image: RGBAImage, darkBelow threshold: Double) -> [Bool]? {
    typealias Tune = TransparentTuning
    let w = image.width, h = image.height
    var marks = [Bool](repeating: false, count: w * h)
    var visited = [Bool](repeating: false, count: w * h)
    var found = false
    image.pixels.withUnsafeBufferPointer { p in
      let isSolid = { (idx: Int) in p[idx * 4 + 3] >= Tune.solidAlpha }
      let largest = GraphicsTuning.productArea * Double(w * h)
      var members: [Int] = [], stack: [Int] = []
      var counts = [Int32](repeating: 0, count: 1 << 15)
      for start in 0..<(w * h) where isSolid(start) && !visited[start] {
        Self.collectComponent(from: start, width: w, height: h, visited: &visited, members: &members, stack: &stack,
                              inside: isSolid)
        guard Double(members.count) < largest else { continue }
        var lumaSum = 0, opaque = 0
        for idx in members {
          let i = idx * 4
          if p[i + 3] == 255 { opaque += 1 }
          lumaSum += Luma.scaled(p[i], p[i + 1], p[i + 2])
        }
        let meanLuma = Double(lumaSum) / (256 * Double(members.count))
        let flatness = Self.flatness(of: members, pixels: p, counts: &counts)
        guard meanLuma < threshold && flatness >= Tune.minInkFlatness
          && (2 * opaque >= members.count
              || (Self.isFlatAlpha(members, pixels: p) && Self.isStrokes(members, width: w, height: h, isSolid: isSolid)))
        else { continue }
        found = true
        for idx in members { marks[idx] = true }
      }
      // Text set faint (a subtitle at 36 % opacity, alpha 92): parts of
      // pixels from ``TransparentTuning/faintAlpha`` to solid that touch
      // nothing solid (a solid part's anti-aliased rim does), dark, flat
      // in colour and alpha, and strokes, or in the colour and alpha of
      // such a part.
      let isFaint = { (idx: Int) in p[idx * 4 + 3] >= Tune.faintAlpha && !isSolid(idx) }
      var liftedStyles = Set<Int>()
      var heavier: [(style: Int, members: [Int])] = []
      for start in 0..<(w * h) where isFaint(start) && !visited[start] {
        Self.collectComponent(from: start, width: w, height: h, visited: &visited, members: &members, stack: &stack,
                              inside: isFaint)
        guard members.count >= Tune.minFaintMarkPixels, Double(members.count) < largest else { continue }
        var touchesSolid = false, lumaSum = 0
        for idx in members where !touchesSolid {
          let x = idx % w
          for n in [x > 0 ? idx - 1 : -1, x < w - 1 ? idx + 1 : -1, idx - w, idx + w]
          where n >= 0 && n < w * h && isSolid(n) { touchesSolid = true }
          lumaSum += Luma.scaled(p[idx * 4], p[idx * 4 + 1], p[idx * 4 + 2])
        }
        guard !touchesSolid, Double(lumaSum) / (256 * Double(members.count)) < threshold,
              Self.flatness(of: members, pixels: p, counts: &counts) >= Tune.minInkFlatness,
              Self.isFlatAlpha(members, pixels: p)
        else { continue }
        // Its style: its most common colour (5 bits a channel) and alpha.
        let colour = Self.dominantColour(of: members, pixels: p, counts: &counts)
        let style = Int(colour.r >> 3) << 18 | Int(colour.g >> 3) << 13 | Int(colour.b >> 3) << 8
          | Int(Self.alphaMode(of: members, pixels: p))
        guard Self.isStrokes(members, width: w, height: h, isSolid: isFaint) else {
          heavier.append((style, members))
          continue
        }
        liftedStyles.insert(style)
        found = true
        for idx in members { marks[idx] = true }
      }
      // A heavy letter of the same text (a bold O at 80 pt is no strokes)
      // goes with its lighter letters: the same colour at the same alpha.
      for part in heavier where liftedStyles.contains(part.style) {
        for idx in part.members { marks[idx] = true }
      }
      guard found else { return }
      // The anti-aliased rim of each mark.
      let r = Tune.markRim
      let solidMarks = marks
      for idx in 0..<(w * h) where !solidMarks[idx] && p[idx * 4 + 3] != 0 && !isSolid(idx) {
        let x = idx % w, y = idx / w
        search: for ny in max(0, y - r)...min(h - 1, y + r) {
          for nx in max(0, x - r)...min(w - 1, x + r) where solidMarks[ny * w + nx] {
            marks[idx] = true
            break search
          }
        }
      }
    }
    return found ? marks : nil
  }

  /// The share of `members` in its ``TransparentTuning/inkPaletteSize``
  /// most common 5-bit colours. `counts` (32768 bins) is zero on entry and
  /// left so.
  static func flatness(of members: [Int], pixels p: UnsafeBufferPointer<UInt8>, counts: inout [Int32]) -> Double {
    @inline(__always) func bin(_ i: Int) -> Int { Int(p[i] >> 3) << 10 | Int(p[i + 1] >> 3) << 5 | Int(p[i + 2] >> 3) }
    for idx in members { counts[bin(idx * 4)] += 1 }
    var top = [Int32](repeating: 0, count: TransparentTuning.inkPaletteSize)
    for idx in members {
      let b = bin(idx * 4), n = counts[b]
      guard n > 0 else { continue }
      counts[b] = 0
      guard n > top[top.count - 1] else { continue }
      var j = top.count - 1
      while j > 0 && top[j - 1] < n {
        top[j] = top[j - 1]
        j -= 1
      }
      top[j] = n
    }
    return Double(top.reduce(0, +)) / Double(max(members.count, 1))
  }

  /// The most common alpha of a part.
  static func alphaMode(of members: [Int], pixels p: UnsafeBufferPointer<UInt8>) -> UInt8 {
    var histogram = [Int](repeating: 0, count: 256)
    for idx in members { histogram[Int(p[idx * 4 + 3])] += 1 }
    var best = 0
    for a in 1..<256 where histogram[a] > histogram[best] { best = a }
    return UInt8(best)
  }

  /// Whether a part's alpha is one flat level
  /// (``TransparentTuning/flatAlphaShare`` of it within 1 of its most
  /// common alpha): text set translucent is; a soft shadow's alpha ramps.
  static func isFlatAlpha(_ members: [Int], pixels p: UnsafeBufferPointer<UInt8>) -> Bool {
    var histogram = [Int](repeating: 0, count: 256)
    for idx in members { histogram[Int(p[idx * 4 + 3])] += 1 }
    var best = 0
    for a in 1..<255 { best = max(best, histogram[a - 1] + histogram[a] + histogram[a + 1]) }
    return Double(best) >= TransparentTuning.flatAlphaShare * Double(members.count)
  }

  /// Whether a part is strokes (``TransparentTuning/maxStrokeInterior``):
  /// few of its pixels have ``TransparentTuning/strokeDepth`` pixels of it
  /// on every side, along the row and the column.
  static func isStrokes(_ members: [Int], width w: Int, height h: Int, isSolid: (Int) -> Bool) -> Bool {
    let d = TransparentTuning.strokeDepth
    var interior = 0
    for idx in members {
      let x = idx % w, y = idx / w
      guard x >= d, x < w - d, y >= d, y < h - d else { continue }
      var inside = true
      for k in 1...d where !(isSolid(idx - k) && isSolid(idx + k) && isSolid(idx - k * w) && isSolid(idx + k * w)) {
        inside = false
        break
      }
      if inside { interior += 1 }
    }
    return Double(interior) < TransparentTuning.maxStrokeInterior * Double(members.count)
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
