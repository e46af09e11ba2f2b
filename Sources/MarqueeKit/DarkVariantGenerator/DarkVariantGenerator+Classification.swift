// MARK: - Thresholds

extension DarkVariantGenerator {
  /// The classifier's thresholds, in one place; the reasons are in
  /// ``DarkVariantGenerator/classify(_:)``.
  enum ClassifierThresholds {
    /// Ring width as a fraction of each side (at least one pixel). Wide enough
    /// to get thousands of samples on a cover, narrow enough to stay clear of
    /// a centred subject.
    static let ringFraction = 0.03
    /// A pixel with alpha below this counts as transparent.
    static let opaqueAlpha: UInt8 = 128
    /// More than this fraction of transparent ring pixels → `.transparent`.
    static let transparentRingFraction = 0.5
    /// The background must be lighter than this luma (0...255).
    static let lightBackgroundLuma = 200
    /// Per-channel distance within which a pixel "is" the background colour:
    /// covers JPEG ringing and the faint vignetting of a studio sweep.
    static let backgroundTolerance = 12
    /// Fraction of opaque ring pixels that must be background.
    static let minRingAgreement = 0.7
    /// Largest mean luma step between neighbouring background pixels in the
    /// ring.
    static let maxRingRoughness = 2.5
    /// Fraction of the whole image that must be background.
    static let minBackgroundCoverage = 0.25
    /// Largest ``Analysis/backgroundSpread`` (90th percentile of how far
    /// the ring's backdrop pixels stray from its colour): a designed ground
    /// stays within 0–5 levels (JPEG noise at quality 20–30 included, a
    /// blurred paper texture 5), a photographed surface does not (snow,
    /// fog, a stone floor brightened: 10–11), and inverting one turns the
    /// photograph into a negative. A gradient or vignette strays too; it is
    /// flattened first (``groundField(of:)``).
    static let maxBackgroundSpread = 8
  }

  /// An sRGB-encoded colour without alpha.
  struct RGB8: Sendable, Equatable {
    var r: UInt8
    var g: UInt8
    var b: UInt8

    /// Integer luma, 0...255.
    var luma: Int { Luma.integer(r, g, b) }
  }

  /// What the classifier measured, kept for the treatment that follows and
  /// for tests.
  struct Analysis: Sendable, Equatable {
    /// The decision.
    var kind: ImageContentKind
    /// Fraction of ring pixels with alpha < 128.
    var ringTransparency: Double
    /// Per-channel median of the opaque ring pixels (black if there are none).
    var background: RGB8
    /// Fraction of opaque ring pixels within tolerance of `background`.
    var ringAgreement: Double
    /// Mean luma step between horizontally neighbouring background pixels in
    /// the ring.
    var ringRoughness: Double
    /// 90th percentile of the per-channel distance (largest of the three)
    /// between background pixels of the ring and `background`: 0 for a
    /// clipped white backdrop, a few levels for JPEG noise or a sweep.
    var backgroundSpread: Int
    /// Fraction of all pixels within tolerance of `background`; only measured
    /// when the ring is light and uniform, 0 otherwise.
    var backgroundCoverage: Double
    /// A photograph's light panel (a caption bar, a split layout's text
    /// half), when ``DarkVariantGenerator/lightPanel(in:)`` found one.
    var panel: LightPanel? = nil
    /// A transparent picture whose solid content is dark flat ink (a logo,
    /// a wordmark, handwriting: ``DarkVariantGenerator/inkAnalysis(of:)``).
    var darkInk = false
    /// A transparent picture whose solid content is a light card holding
    /// text (``DarkVariantGenerator/InkAnalysis/isLightCard``).
    var lightCard = false
    /// The share of the picture that is flat light fill
    /// (``DarkVariantGenerator/flatGraphicGround(of:ring:)``), when that
    /// found a flat graphic.
    var flatLightShare = 0.0
  }
}

extension DarkVariantGenerator {
  /// Measures the border ring and decides the content kind; see
  /// ``classify(_:)`` for the rules.
  func analyze(_ image: RGBAImage) -> Analysis {
    typealias T = ClassifierThresholds
    let ring = BorderRing(image: image)
    return image.pixels.withUnsafeBufferPointer { p in
      let census = ring.census(p)
      let opaque = census.count - census.transparent
      let ringTransparency = Double(census.transparent) / Double(max(census.count, 1))
      if ringTransparency > T.transparentRingFraction || opaque == 0 {
        return Analysis(
          kind: .transparent, ringTransparency: ringTransparency,
          background: RGB8(r: 0, g: 0, b: 0), ringAgreement: 0,
          ringRoughness: 0, backgroundSpread: 0, backgroundCoverage: 0)
      }
      let backdrop = BackdropColour(colour: census.median(opaque: opaque))
      let fit = ring.agreement(p, with: backdrop)
      var analysis = Analysis(
        kind: .photograph, ringTransparency: ringTransparency,
        background: backdrop.colour, ringAgreement: Double(fit.agreeing) / Double(opaque),
        ringRoughness: fit.roughness, backgroundSpread: fit.spread, backgroundCoverage: 0)
      guard backdrop.colour.luma > T.lightBackgroundLuma,
        analysis.ringAgreement >= T.minRingAgreement,
        analysis.ringRoughness <= T.maxRingRoughness,
        analysis.backgroundSpread <= T.maxBackgroundSpread
      else { return analysis }
      analysis.backgroundCoverage = backdrop.coverage(p, pixels: image.width * image.height)
      if analysis.backgroundCoverage >= T.minBackgroundCoverage {
        analysis.kind = .lightBackground
      }
      return analysis
    }
  }
}

extension DarkVariantGenerator {
  /// Constants of ``flatGraphicGround(of:)``.
  enum FlatGraphicTuning {
    /// A pixel is flat when its 3x3 neighbourhood spans at most this many
    /// luma levels (`PictureLook.softGroundRange`: paper, a card, a
    /// rendered gradient; never a photograph's sensor noise or texture).
    static let flatRange = PictureLook.softGroundRange
    /// A flat pixel counts as light from this luma: pastel fills and the
    /// pale end of a sky-blue gradient (`#5DADE2` is 160).
    static let lightLuma = 160
    /// A picture is a flat graphic when at least this share of its pixels
    /// are flat and light. Rendered banners measure 0.80–0.98 (a product
    /// grid, a pastel map, a zebra table, a gradient sky with text); the
    /// corpus photographs 0.00–0.28 (a phone photo with a bright sky).
    static let minShare = 0.6
    /// A picture with a light panel (``DarkVariantGenerator/lightPanel(in:)``)
    /// is a flat graphic only from this share: a calendar or a map whose
    /// grey header or sea reads as a panel measures 0.86–0.98, a split
    /// layout whose photo takes a third to a half of it 0.64–0.76.
    static let minShareWithPanel = 0.8
    /// Pixels between samples, both ways: the share and the ground's colour
    /// are read on every second pixel of every second row.
    static let sampleStep = 2
  }

  /// The ground of a flat graphic that the border ring did not recognise:
  /// a table whose zebra rows reach the edges, a pastel map. Such a picture is drawn, not photographed:
  /// most of it is flat light fills (``FlatGraphicTuning``), and a viewer
  /// reads it as text and shapes on light fills, which dark mode inverts,
  /// never as a photo to dim into a grey slab.
  ///
  /// - Parameter image: An opaque picture the ring called a photograph.
  /// - Returns: An analysis of kind `.lightBackground` whose ground is the
  ///   most common flat light colour (luma over 200, the classifier's light
  ///   bound; quantised to 16 levels a channel, then the per-channel median
  ///   within that bin), or `nil` when the picture is not a flat graphic or
  ///   that ground covers less than a quarter of it (the classifier's
  ///   `minBackgroundCoverage`: a band of a sky gradient is no ground).
  func flatGraphicGround(of image: RGBAImage, ring analysis: Analysis) -> Analysis? {
    typealias T = FlatGraphicTuning
    let w = image.width, h = image.height
    guard w >= 3, h >= 3 else { return nil }
    var luma = [UInt8](repeating: 0, count: w * h)
    var bins = [Int](repeating: 0, count: 4096)
    var sampled = 0, flatLight = 0
    image.pixels.withUnsafeBufferPointer { p in
      luma.withUnsafeMutableBufferPointer { y in
        for i in 0..<(w * h) { y[i] = UInt8(Luma.integer(p[4 * i], p[4 * i + 1], p[4 * i + 2])) }
        for row in stride(from: 1, to: h - 1, by: T.sampleStep) {
          for x in stride(from: 1, to: w - 1, by: T.sampleStep) {
            let i = row * w + x
            sampled += 1
            guard p[4 * i + 3] >= ClassifierThresholds.opaqueAlpha, Int(y[i]) >= T.lightLuma else { continue }
            var lo = y[i], hi = y[i]
            for q in [i - w - 1, i - w, i - w + 1, i - 1, i + 1, i + w - 1, i + w, i + w + 1] {
              lo = min(lo, y[q]); hi = max(hi, y[q])
            }
            guard Int(hi) - Int(lo) <= T.flatRange else { continue }
            flatLight += 1
            if Int(y[i]) > ClassifierThresholds.lightBackgroundLuma {
              bins[(Int(p[4 * i]) >> 4) << 8 | (Int(p[4 * i + 1]) >> 4) << 4 | Int(p[4 * i + 2]) >> 4] += 1
            }
          }
        }
      }
    }
    guard sampled > 0, Double(flatLight) >= T.minShare * Double(sampled),
      let top = bins.indices.max(by: { bins[$0] < bins[$1] }), bins[top] > 0
    else { return nil }
    // The ground: the per-channel median of the light pixels in that bin.
    var census = (r: [Int](repeating: 0, count: 256), g: [Int](repeating: 0, count: 256), b: [Int](repeating: 0, count: 256))
    var inBin = 0
    image.pixels.withUnsafeBufferPointer { p in
      for i in stride(from: 0, to: w * h * 4, by: 4)
      where (Int(p[i]) >> 4) << 8 | (Int(p[i + 1]) >> 4) << 4 | Int(p[i + 2]) >> 4 == top {
        census.r[Int(p[i])] += 1; census.g[Int(p[i + 1])] += 1; census.b[Int(p[i + 2])] += 1
        inBin += 1
      }
    }
    let ground = RGB8(r: histogramMedian(census.r, count: inBin), g: histogramMedian(census.g, count: inBin),
                      b: histogramMedian(census.b, count: inBin))
    // Its spread: the 90th percentile of the largest channel distance of
    // the pixels near it (within the classifier's backdrop tolerance), so
    // a JPEG's noise on the fill is ground too.
    var distances = [Int](repeating: 0, count: ClassifierThresholds.backgroundTolerance + 1)
    var near = 0
    image.pixels.withUnsafeBufferPointer { p in
      let gr = Int(ground.r), gg = Int(ground.g), gb = Int(ground.b)
      for i in stride(from: 0, to: w * h * 4, by: 4 * T.sampleStep) {
        let d = max(abs(Int(p[i]) - gr), abs(Int(p[i + 1]) - gg), abs(Int(p[i + 2]) - gb))
        if d <= ClassifierThresholds.backgroundTolerance { distances[d] += 1; near += 1 }
      }
    }
    var spread = 0, seen = 0
    while spread < distances.count - 1 {
      seen += distances[spread]
      if seen * 10 >= near * 9 { break }
      spread += 1
    }
    var flat = analysis
    flat.kind = .lightBackground
    flat.background = ground
    flat.backgroundSpread = max(T.flatRange, spread)
    flat.flatLightShare = Double(flatLight) / Double(sampled)
    flat.backgroundCoverage = image.pixels.withUnsafeBufferPointer {
      BackdropColour(colour: ground).coverage($0, pixels: w * h)
    }
    // A ground that is a narrow band of a gradient (a sky) is no ground to
    // recolour: the picture stays a photograph, dimmed whole.
    return flat.backgroundCoverage >= ClassifierThresholds.minBackgroundCoverage ? flat : nil
  }
}

/// The border ring the classifier reads (`ClassifierThresholds.ringFraction`
/// of each side, at least one pixel), pass by pass over RGBA bytes.
private struct BorderRing {
  typealias T = DarkVariantGenerator.ClassifierThresholds
  let width: Int
  let height: Int
  let ringX: Int
  let ringY: Int

  init(image: RGBAImage) {
    width = image.width
    height = image.height
    ringX = max(1, Int((Double(width) * T.ringFraction).rounded()))
    ringY = max(1, Int((Double(height) * T.ringFraction).rounded()))
  }

  /// Pass 1: how many ring pixels, how many transparent, and per-channel
  /// histograms of the opaque ones.
  struct Census {
    var count = 0
    var transparent = 0
    var red = [Int](repeating: 0, count: 256)
    var green = [Int](repeating: 0, count: 256)
    var blue = [Int](repeating: 0, count: 256)

    /// The per-channel median of the `opaque` opaque pixels.
    func median(opaque: Int) -> DarkVariantGenerator.RGB8 {
      .init(r: histogramMedian(red, count: opaque), g: histogramMedian(green, count: opaque),
            b: histogramMedian(blue, count: opaque))
    }
  }

  func census(_ p: UnsafeBufferPointer<UInt8>) -> Census {
    var c = Census()
    forEachRingRun(w: width, h: height, ringX: ringX, ringY: ringY) { start, end in
      var i = start * 4
      let stop = end * 4
      while i < stop {
        c.count += 1
        if p[i + 3] < T.opaqueAlpha {
          c.transparent += 1
        } else {
          c.red[Int(p[i])] += 1
          c.green[Int(p[i + 1])] += 1
          c.blue[Int(p[i + 2])] += 1
        }
        i += 4
      }
    }
    return c
  }

  /// Pass 2: how many ring pixels are backdrop, the mean luma step between
  /// horizontally neighbouring backdrop pixels, and the 90th percentile of
  /// their distance to the backdrop colour.
  func agreement(_ p: UnsafeBufferPointer<UInt8>, with backdrop: BackdropColour)
    -> (agreeing: Int, roughness: Double, spread: Int)
  {
    let tol = T.backgroundTolerance
    var agreeing = 0
    var spreadHistogram = [Int](repeating: 0, count: tol + 1)
    var stepSum = 0
    var steps = 0
    forEachRingRun(w: width, h: height, ringX: ringX, ringY: ringY) { start, end in
      var i = start * 4
      let stop = end * 4
      var previousLuma = -1  // luma of the previous pixel if backdrop
      while i < stop {
        if let distance = backdrop.distance(p, i) {
          agreeing += 1
          spreadHistogram[distance] += 1
          let y = DarkVariantGenerator.Luma.integer(p[i], p[i + 1], p[i + 2])
          if previousLuma >= 0 {
            stepSum += abs(y - previousLuma)
            steps += 1
          }
          previousLuma = y
        } else {
          previousLuma = -1
        }
        i += 4
      }
    }
    var spread = 0
    var below = 0
    while spread < tol {
      below += spreadHistogram[spread]
      if below * 10 >= agreeing * 9 { break }
      spread += 1
    }
    return (agreeing, steps > 0 ? Double(stepSum) / Double(steps) : 0, spread)
  }
}

/// The ring's median colour, and which pixels match it: opaque and within
/// `ClassifierThresholds.backgroundTolerance` on every channel.
private struct BackdropColour {
  typealias T = DarkVariantGenerator.ClassifierThresholds
  let colour: DarkVariantGenerator.RGB8

  /// The largest channel distance of the pixel at byte `i` to the colour,
  /// or nil when it is not backdrop.
  @inline(__always) func distance(_ p: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int? {
    guard p[i + 3] >= T.opaqueAlpha else { return nil }
    let d = max(abs(Int(p[i]) - Int(colour.r)), abs(Int(p[i + 1]) - Int(colour.g)), abs(Int(p[i + 2]) - Int(colour.b)))
    return d <= T.backgroundTolerance ? d : nil
  }

  /// Pass 3: the fraction of all `pixels` that are backdrop.
  func coverage(_ p: UnsafeBufferPointer<UInt8>, pixels: Int) -> Double {
    var covered = 0
    var i = 0
    while i < p.count {
      if distance(p, i) != nil { covered += 1 }
      i += 4
    }
    return Double(covered) / Double(pixels)
  }
}

/// Calls `body` with each horizontal run of ring pixels as a half-open range
/// of pixel indices `start..<end`, row by row, each pixel exactly once.
///
/// The ring is the top and bottom `ringY` rows and the left and right
/// `ringX` columns; when the ring covers a whole row the row is one run.
@inline(__always)
private func forEachRingRun(
  w: Int, h: Int, ringX: Int, ringY: Int, _ body: (Int, Int) -> Void
) {
  for y in 0..<h {
    let row = y * w
    if y < ringY || y >= h - ringY || 2 * ringX >= w {
      body(row, row + w)
    } else {
      body(row, row + ringX)
      body(row + w - ringX, row + w)
    }
  }
}

/// The lower median of values counted in a 256-bin histogram.
private func histogramMedian(_ histogram: [Int], count: Int) -> UInt8 {
  let half = (count + 1) / 2
  var seen = 0
  for (value, n) in histogram.enumerated() {
    seen += n
    if seen >= half { return UInt8(value) }
  }
  return 255
}
