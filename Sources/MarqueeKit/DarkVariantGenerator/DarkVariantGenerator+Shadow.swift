// MARK: - Thresholds

extension DarkVariantGenerator {
  /// Thresholds of the shadow finder, in one place; the reasons are in
  /// ``addShadows(_:to:background:)``.
  ///
  /// Distances are in pixels for a short side of up to about 1100 px and
  /// grow in proportion above that (``ShadowTuning/scale(width:height:)``):
  /// a shadow photographed at 3000 px is three times as gradual per pixel.
  enum ShadowTuning {
    /// A shadow is a darker version of the backdrop: each channel may stray
    /// from `background · Y / Yb` by at most `base + perDepth · depth`
    /// levels. A few levels for JPEG chroma noise, more in deep parts,
    /// where a real shadow picks up light bounced off the product (the
    /// corpus mug's shadow turns slightly blue near the base).
    static let chromaBase = 6.0
    /// Extra chroma allowed per level of depth.
    static let chromaPerDepth = 0.1
    /// Nothing darker than this fraction of the backdrop luma is a shadow:
    /// the dark contact line under a product belongs to the product.
    static let minLumaFraction = PictureLook.softShadeMinFraction
    /// Neighbouring pixels on a shadow path differ by at most
    /// `max(stepBase, stepPerDepth · depth)` levels: a shadow is smooth, so
    /// a sharp edge (a product's outline, its contact line) ends the path.
    static let stepBase = 5.0
    /// Relative part of the step limit.
    static let stepPerDepth = 0.25
    /// A path is a shadow once it is this many levels below the backdrop:
    /// a light grey that would glare on the surface. Shallower paths are
    /// only shadow when they lead to such a core (the shadow's rim).
    static let coreDepth = 12
    /// ...and once it is at least this long (pixels, times the distance
    /// scale): a light product's shaded side can drop 12 levels within a
    /// few pixels of the backdrop before the kink rule ends the path there.
    static let minCoreLength = 8
    /// Enclaves of candidates left between shadow, backdrop and the
    /// subject's coloured or dark parts join the shadow when they cover at
    /// most 1/`enclaveAreaDivisor` of the image (1 %): the faint tips of a
    /// shadow, not a large white product part...
    static let enclaveAreaDivisor = 100
    /// ...and when at least this fraction of their border with the shadow
    /// is smooth (neighbours within `enclaveBorderStep` levels): a shadow's
    /// tip fades into the rest of it, a product meets its shadow at an
    /// edge.
    static let enclaveSmoothBorder = 0.9
    /// Largest luma step across a smooth enclave border.
    static let enclaveBorderStep = 3
    /// An enclave may share at most this fraction of its border (and at
    /// least 2 pixels) with light candidates the floor rule kept out: the
    /// faint rim of a shadow may touch a white product's corner, a part of
    /// the product itself shares a long border with the rest of it.
    static let enclaveSubjectBorder = 0.05
    /// The *pace* of a path is its distance from the backdrop per level of
    /// depth gained (pixels per level). Outside the core a path dies when
    /// its pace gets slower than `kinkRatio` times the fastest pace it had:
    /// a shadow deepens at a steady or growing rate (a soft ramp, convex or
    /// gently dome-shaped), while a light product's edge drops a few levels
    /// within a pixel and then flattens into the body: the *kink*.
    static let kinkRatio = 2.0
    /// Only gains of at least this many levels count toward the fastest
    /// pace: over one or two levels, quantization alone can halve or
    /// double a measured pace.
    static let minPaceGain = 3
    /// A path may come back up from the deepest level it reached by at
    /// most `max(backtrackBase, backtrackFraction · deepest)` levels (noise
    /// and the flat top of a dome); more, and it has left the shadow.
    static let backtrackBase = 3.0
    /// Relative part of the backtrack allowance.
    static let backtrackFraction = 0.25
    /// A pixel already reached is taken over by a later path whose pace
    /// margin (allowed minus current pixels per level) is larger by more
    /// than this, at most `maxVisits` times: the first path to arrive is
    /// the shortest, not always the healthiest.
    static let revisitMargin = 0.25
    /// Most arrivals accepted per pixel; bounds the work.
    static let maxVisits: UInt8 = 6
    /// A takeover is refused when the new path's ancestry cannot be checked
    /// within this many steps (it might run through the pixel itself).
    static let maxAncestorCheck = 256
    /// Until a path has a fastest pace, it may be at most this slow
    /// (pixels per level, times the distance scale): at the tip of a soft
    /// shadow the first level below the fill tolerance can take 6-8 px.
    static let maxInitialPace = 8
    /// In a column without subject, shadow may reach this fraction of the
    /// image height (1 / divisor) above the nearest subject column's
    /// floor; see
    /// ``DarkVariantGenerator/subjectBounds(width:height:mask:depths:)``.
    static let floorRiseDivisor = 20
    /// ...and at least this many pixels.
    static let minFloorRise = 8
    /// Shadow pixels below the subject's floor must lie in a horizontal run
    /// of such pixels at least twice this wide (times the distance scale);
    /// see
    /// ``DarkVariantGenerator/subjectBounds(width:height:mask:depths:)``.
    static let floorSpread = 8

    /// Distance scale: 1 up to a 1125 px short side, then the short side
    /// over 750 px, rounded (4 at 3000 px).
    static func scale(width: Int, height: Int) -> Int {
      max(1, (min(width, height) + 375) / 750)
    }
  }
}

// MARK: - Shadow finder

extension DarkVariantGenerator {
  /// Finds soft shadows connected to the backdrop and marks them in `mask`
  /// as ``MaskState/shadow``.
  ///
  /// A soft drop shadow under a product is darker than the backdrop flood
  /// fill's tolerance, so the fill leaves it with the subject and it would
  /// stay light grey, glaring on the dark surface. But a white product on
  /// white (the corpus mug meets the backdrop at 255 → 254 → 251 and then
  /// stays at 250-251 for hundreds of pixels) is also a light neutral region
  /// touching the backdrop, and eating it is the worst possible result.
  /// Colour cannot tell them apart; the profile seen from the backdrop can:
  /// a shadow keeps getting darker at a steady or growing rate, while a
  /// product's edge steps down within a pixel or two and then flattens
  /// into the body, which is lit and shaded on its own terms.
  ///
  /// Where a shadow may be: shadows lie on the floor, below the subject,
  /// so only *candidates* below the subject's lowest coloured or dark part
  /// in their column are searched (``subjectBounds(width:height:mask:depths:)``:
  /// the white mug's body is above its logo and its dark contact line);
  /// candidates are pixels darker than the backdrop but not darker than
  /// 55 % of it, whose colour is the backdrop's scaled down within
  /// `6 + 0.1 · depth` levels (``ShadowTuning``).
  ///
  /// The search is a breadth-first walk from the backdrop's boundary. Each
  /// path carries its length, the deepest level it reached and its fastest
  /// *pace* (pixels per level gained, counted once it gained 3 levels):
  ///
  /// 1. Neighbours on a path differ by at most `max(5, 0.25 · depth)`
  ///    levels, so sharp edges end it.
  /// 2. The kink rule: a path dies when its pace gets more than 2 times
  ///    slower than its fastest (before it has one: slower than 8 px per
  ///    level). A shadow that deepens steadily, faster and faster, or
  ///    slowly less fast (a dome) passes; a light product's edge, which
  ///    drops a few levels within a pixel and then flattens, dies there.
  /// 3. A path may come back from its deepest level by at most
  ///    `max(3, 0.25 · deepest)`: more, and it has crossed the shadow or
  ///    left it for a light product standing in it.
  /// 4. A path never enters from above the subject's top (the backdrop over
  ///    a cup's rim), except by drifting sideways.
  /// 5. The first path to reach a pixel is the shortest, not always the
  ///    healthiest: a path with clearly more pace margin takes it over (at
  ///    most 6 times, never through the pixel's own descendants).
  ///
  /// A path at least 12 levels deep (``ShadowTuning/coreDepth``) and 8 px
  /// long is shadow, with every pixel it came through and the reached
  /// pixels beside them that are closer to the backdrop and not deeper (the
  /// rim). Paths that died first (a product's edge) leave their pixels with
  /// the subject. Last, small leftover patches that blend into the shadow
  /// without an edge (the faint tip of a shadow, its rim beside a rounded
  /// corner) join it.
  ///
  /// Known limits: a light neutral product whose only coloured or dark
  /// parts are above a white lower part, or that has none at all, keeps
  /// its shadow (the safe side); where the rim of a shadow meets a light
  /// neutral part of the product without any edge, a sliver of either can
  /// go the wrong way; a shadow cast upward (a light from below) is not
  /// found. Work is O(pixels): the whole light-background treatment takes
  /// about 0.06 s for the 1 MP corpus mug and 0.85 s for a 12 MP product
  /// shot in a release build.
  ///
  /// - Parameters:
  ///   - image: The image.
  ///   - mask: The backdrop mask; shadow pixels are marked in it.
  ///   - background: The backdrop colour.
  func addShadows(
    _ image: RGBAImage, to mask: inout [UInt8], background: RGB8
  ) {
    let w = image.width
    let h = image.height
    let yb = Luma.exact(
      Double(background.r), Double(background.g), Double(background.b))
    guard yb > 1 else { return }
    let depths = shadowCandidateDepths(image, mask: mask, background: background)
    guard
      let bounds = subjectBounds(
        width: w, height: h, mask: mask, depths: depths)
    else { return }
    var tracer = ShadowTracer(width: w, height: h, depths: depths, bounds: bounds)
    tracer.seed(mask)
    tracer.grow(mask)
    tracer.commit(&mask)
    tracer.joinEnclaves(&mask)
  }

  /// Where shadows may be, and the subject's top row per column, for
  /// ``addShadows(_:to:background:)``. Shadows lie on the floor, below the
  /// subject: a candidate with subject below it in its column is part of
  /// the subject (the lit body of a white mug above its dark contact
  /// line), never shadow; and a path may only go down from a seed below
  /// the subject's top (the backdrop between a product's rounded corner
  /// and its shadow), not from the backdrop above it (over a cup's rim).
  ///
  /// The subject here is what cannot be shadow: pixels that are neither
  /// backdrop nor candidates (coloured, dark, or lighter than the
  /// backdrop), counted only where two such pixels are stacked, so a stray
  /// JPEG speck does not count. Light neutral parts of a subject (a white
  /// mug's body) are not counted, so its coloured or dark parts (the logo,
  /// the contact line under the base) decide where its floor is. A column
  /// without subject takes the nearest subject column's floor, raised by
  /// a twentieth of the image height (the tips of a shadow reaching out
  /// beside the product; a cup's rim far above is not a shadow). A pixel
  /// below its column's floor is allowed only inside a horizontal run of
  /// such pixels at least `2 · floorSpread + 1` wide: a few columns where
  /// the contact line happens to be light would otherwise open thin gaps
  /// into the body, while the floor beside a rounded corner is followed
  /// exactly.
  ///
  /// - Returns: `allowed`, one flag per pixel, and `ceiling`, the topmost
  ///   subject row per column (`Int.max` without subject); `nil` when no
  ///   column has a subject pixel: a subject that is all light neutral
  ///   tones gets no shadow treatment, the safe side.
  func subjectBounds(
    width w: Int, height h: Int, mask: [UInt8], depths: [UInt8]
  ) -> (allowed: [Bool], ceiling: [Int])? {
    var floor = [Int](repeating: -1, count: w)
    var ceiling = [Int](repeating: Int.max, count: w)
    var any = false
    @inline(__always) func isSubject(_ idx: Int) -> Bool {
      mask[idx] == MaskState.other && depths[idx] == .max
    }
    for x in 0..<w {
      var y = h - 1
      while y > 0 {
        if isSubject(y * w + x) && isSubject((y - 1) * w + x) {
          floor[x] = y
          any = true
          break
        }
        y -= 1
      }
      guard floor[x] >= 0 else { continue }
      y = 0
      while y < h - 1 {
        if isSubject(y * w + x) && isSubject((y + 1) * w + x) {
          ceiling[x] = y
          break
        }
        y += 1
      }
    }
    guard any else { return nil }
    // A column without subject takes the floor of the nearest subject
    // column, raised by a twentieth of the height: the tip of a shadow
    // reaching out beside the product lies at about the product's floor,
    // while a light neutral part of the subject (a cup's rim, the lit side
    // of its body, in columns where it has no logo) reaches far above it.
    let rise = max(ShadowTuning.minFloorRise, h / ShadowTuning.floorRiseDivisor)
    var nearest = [Int](repeating: -1, count: w)
    var distance = [Int](repeating: Int.max, count: w)
    var last = -1
    for x in 0..<w {
      if floor[x] >= 0 { last = x }
      if last >= 0 {
        nearest[x] = last
        distance[x] = x - last
      }
    }
    last = -1
    for x in stride(from: w - 1, through: 0, by: -1) {
      if floor[x] >= 0 { last = x }
      if last >= 0 && last - x < distance[x] {
        nearest[x] = last
        distance[x] = last - x
      }
    }
    for x in 0..<w where floor[x] < 0 && nearest[x] >= 0 {
      floor[x] = max(-1, floor[nearest[x]] - rise)
    }
    let minRun =
      2 * ShadowTuning.floorSpread * ShadowTuning.scale(width: w, height: h)
      + 1
    var allowed = [Bool](repeating: false, count: w * h)
    for y in 0..<h {
      let row = y * w
      var x = 0
      while x < w {
        guard y > floor[x] else {
          x += 1
          continue
        }
        var end = x
        while end < w && y > floor[end] { end += 1 }
        if end - x >= min(minRun, w) {
          for xx in x..<end { allowed[row + xx] = true }
        }
        x = end
      }
    }
    return (allowed, ceiling)
  }

  /// Depth below the backdrop (luma levels, 0...254) of every pixel that
  /// could be part of a shadow, and of every backdrop pixel; `UInt8.max`
  /// for the others (see ``ShadowTuning`` for the colour test).
  func shadowCandidateDepths(
    _ image: RGBAImage, mask: [UInt8], background: RGB8
  ) -> [UInt8] {
    typealias T = ShadowTuning
    let n = image.width * image.height
    let yb = Luma.exact(
      Double(background.r), Double(background.g), Double(background.b))
    let bgR = Double(background.r) / yb
    let bgG = Double(background.g) / yb
    let bgB = Double(background.b) / yb
    let minLuma = Int((yb * T.minLumaFraction).rounded())
    let ybInt = Int(yb.rounded())
    var depth = [UInt8](repeating: .max, count: n)
    image.pixels.withUnsafeBufferPointer { p in
      mask.withUnsafeBufferPointer { m in
        depth.withUnsafeMutableBufferPointer { d in
          for idx in 0..<n {
            let i = idx * 4
            let y = Luma.integer(p[i], p[i + 1], p[i + 2])
            if m[idx] == MaskState.backdrop {
              d[idx] = UInt8(max(0, min(254, ybInt - y)))
              continue
            }
            guard y >= minLuma, y < ybInt else { continue }
            let yd = Double(y)
            let allowed = T.chromaBase + T.chromaPerDepth * (yb - yd)
            if abs(Double(p[i]) - bgR * yd) <= allowed
              && abs(Double(p[i + 1]) - bgG * yd) <= allowed
              && abs(Double(p[i + 2]) - bgB * yd) <= allowed
            {
              d[idx] = UInt8(min(254, ybInt - y))
            }
          }
        }
      }
    }
    return depth
  }
}
