extension DarkVariantGenerator {
  /// Tolerance of the background flood fill.
  ///
  /// The fill takes every pixel connected to the border whose channels are
  /// all within `tolerance` of the estimated background colour, where
  /// `tolerance = clamp(spread + margin, minimum, maximum)` and `spread` is
  /// the 90th percentile of how far the ring's backdrop pixels stray from
  /// the background (``Analysis/backgroundSpread``).
  ///
  /// The bound is absolute and deliberately tight. White products on white
  /// are common, and their edge against the backdrop can be only 3-5 levels
  /// deep and a few pixels wide (the Saleor white-mug shot in the corpus:
  /// 255 → 254 → 251 → 250 at the mug's lit side). A fill that follows
  /// gentle gradients, or accepts "darker versions of the backdrop" to take
  /// soft shadows along, walks straight into such a product and turns it
  /// into a dark blot: the worst possible result. So the fill only takes
  /// what is backdrop within its measured noise; the faint outer part of a
  /// shadow comes along (and stays proportionally darker, see
  /// ``darkenLightBackground(_:analysis:)``); the rest of a soft shadow is
  /// found by a separate search that looks at the shape of the gradient,
  /// not at a colour distance (``addShadows(_:to:background:)``).
  enum FloodFillTolerance {
    /// Added to the measured spread: JPEG ringing near the subject is a few
    /// levels stronger than the noise out in the ring.
    static let margin = 3
    /// Lower bound: tolerates compression noise on a clipped white backdrop.
    static let minimum = 3
    /// Upper bound, the classifier's own backdrop tolerance.
    static let maximum = ClassifierThresholds.backgroundTolerance

    /// The tolerance for a classified image.
    static func tolerance(for analysis: Analysis) -> Int {
      min(max(analysis.backgroundSpread + margin, minimum), maximum)
    }
  }

  /// Recolours the backdrop of a `.lightBackground` image, and the soft
  /// shadows on it, to the surface.
  ///
  /// 1. Flood fill (scanline, iterative, 4-connected) from every border
  ///    pixel that matches the background, over pixels within
  ///    ``FloodFillTolerance`` of it. The result is a mask: one byte per
  ///    pixel. Only pixels connected to the border are backdrop, so white
  ///    areas enclosed by a subject's outline keep their colour.
  /// 2. Soft shadows connected to the backdrop are added to the mask
  ///    (``addShadows(_:to:background:)``): a path from the backdrop that
  ///    keeps getting darker at a steady rate is a shadow, one that steps
  ///    down and flattens is a product's edge.
  /// 3. Backdrop and shadow pixels are mapped by luma ratio:
  ///    `out = surface · Y / Yb`, where `Yb` is the background luma. The
  ///    pure backdrop becomes exactly the surface colour, and a shadow
  ///    becomes darker than the surface in the same proportion as it was
  ///    darker than the backdrop (a shadow at 80 % of the backdrop → 80 %
  ///    of the surface), so gradients keep their direction and nothing
  ///    turns lighter than the surface. A ratio on sRGB-encoded values is
  ///    close to the same ratio in linear light, since the sRGB curve is
  ///    nearly a power law.
  /// 4. The subject is dimmed by ``Options/subjectDim`` (at most 5 %).
  /// 5. Edge decontamination
  ///    (``decontaminateEdges(_:output:mask:dim:bandWidth:)``): the
  ///    anti-aliased pixels along the subject's outline are part light
  ///    backdrop; that part is swapped for the mapped surface, so no light
  ///    fringe remains.
  ///
  /// Known limits, chosen over the alternative of darkening a subject:
  /// backdrop seen through a hole in the subject (inside a mug handle) is not
  /// connected to the border and stays light, because it cannot be told from
  /// a white subject enclosed by an outline; and see
  /// ``addShadows(_:to:background:)`` for shadows.
  ///
  /// Alpha bytes are copied unchanged.
  func darkenLightBackground(_ image: RGBAImage, analysis: Analysis)
    -> RGBAImage
  {
    recolourLightBackground(image, analysis: analysis).image
  }

  /// ``darkenLightBackground(_:analysis:)``, with the backdrop mask it used
  /// (``MaskState``, one byte per pixel).
  func recolourLightBackground(_ image: RGBAImage, analysis: Analysis)
    -> (image: RGBAImage, mask: [UInt8])
  {
    let w = image.width
    let h = image.height
    var mask = backdropMask(
      image, background: analysis.background,
      tolerance: FloodFillTolerance.tolerance(for: analysis))
    // A photograph's light panel is the only ground: the photo's own
    // clipped whites beside it stay the photo's.
    if let panel = analysis.panel {
      for y in 0..<h {
        for x in 0..<w where !panel.contains(x, y) { mask[y * w + x] = MaskState.other }
      }
    }
    addShadows(image, to: &mask, background: analysis.background)

    // One lookup table, four parts of 256: the subject dim per channel
    // value, then the backdrop map of R, G and B per luma.
    let dim = 1 - min(max(options.subjectDim, 0), 0.05)
    let backgroundLuma = Double(max(analysis.background.luma, 1))
    let surface = options.surface
    var table = [UInt8](repeating: 0, count: 1024)
    for v in 0..<256 {
      let ratio = min(Double(v) / backgroundLuma, 1)
      table[v] = Luma.byte(Double(v) * dim)
      table[256 + v] = Luma.byte(Double(surface.r) * ratio)
      table[512 + v] = Luma.byte(Double(surface.g) * ratio)
      table[768 + v] = Luma.byte(Double(surface.b) * ratio)
    }

    var out = image.pixels
    mask.withUnsafeBufferPointer { m in
      table.withUnsafeBufferPointer { t in
        out.withUnsafeMutableBufferPointer { p in
          for idx in 0..<(w * h) {
            let i = idx * 4
            if m[idx] != MaskState.other {
              let l = Luma.integer(p[i], p[i + 1], p[i + 2])
              p[i] = t[256 + l]
              p[i + 1] = t[512 + l]
              p[i + 2] = t[768 + l]
            } else {
              p[i] = t[Int(p[i])]
              p[i + 1] = t[Int(p[i + 1])]
              p[i + 2] = t[Int(p[i + 2])]
            }
          }
        }
      }
    }
    decontaminateEdges(
      image, output: &out, mask: mask, dim: dim,
      bandWidth: min(max(options.featherRadius, 0), 4))
    return (RGBAImage(width: w, height: h, pixels: out), mask)
  }

  /// States of a pixel in the backdrop mask.
  enum MaskState {
    /// Not part of the backdrop (or not reached yet).
    static let other: UInt8 = 0
    /// Part of the backdrop.
    static let backdrop: UInt8 = 1
    /// A soft shadow on the backdrop (``addShadows(_:to:background:)``).
    static let shadow: UInt8 = 2
  }

  /// The backdrop mask: ``MaskState/backdrop`` for pixels connected to the
  /// border (4-connectivity) through pixels whose channels are all within
  /// `tolerance` of `background`; one byte per pixel.
  ///
  /// A scanline flood fill, iterative: a seed is widened to the whole run of
  /// matching pixels in its row, the run is marked, and one new seed is
  /// pushed for each run of unmarked matching pixels directly above and
  /// below it. Every pixel is marked once and looked at a bounded number of
  /// times, so the work is O(pixels); the seed stack holds a few entries per
  /// run boundary (in practice O(width + height), at worst one per pixel).
  /// No recursion.
  ///
  /// - Parameters:
  ///   - image: The image.
  ///   - background: The estimated backdrop colour.
  ///   - tolerance: Largest per-channel distance from `background`.
  /// - Returns: `width * height` mask bytes.
  func backdropMask(
    _ image: RGBAImage, background: RGB8, tolerance: Int
  ) -> [UInt8] {
    let w = image.width
    let h = image.height
    var mask = [UInt8](repeating: MaskState.other, count: w * h)
    let br = Int(background.r)
    let bgG = Int(background.g)
    let bb = Int(background.b)

    image.pixels.withUnsafeBufferPointer { p in
      mask.withUnsafeMutableBufferPointer { m in
        /// Unmarked and within tolerance of the backdrop colour.
        @inline(__always) func open(_ idx: Int) -> Bool {
          guard m[idx] == MaskState.other else { return false }
          let i = idx * 4
          return abs(Int(p[i]) - br) <= tolerance
            && abs(Int(p[i + 1]) - bgG) <= tolerance
            && abs(Int(p[i + 2]) - bb) <= tolerance
        }
        var seeds: [Int] = []
        seeds.reserveCapacity(4 * (w + h))
        /// Pushes one seed per run of open pixels in row `y`, `x0...x1`.
        @inline(__always) func pushRuns(_ y: Int, _ x0: Int, _ x1: Int) {
          let row = y * w
          var inRun = false
          for x in x0...x1 {
            if open(row + x) {
              if !inRun { seeds.append(row + x) }
              inRun = true
            } else {
              inRun = false
            }
          }
        }
        // Seeds: runs along the outermost rows, and the outermost columns.
        pushRuns(0, 0, w - 1)
        if h > 1 { pushRuns(h - 1, 0, w - 1) }
        for y in 0..<h {
          seeds.append(y * w)
          seeds.append(y * w + w - 1)
        }

        while let seed = seeds.popLast() {
          guard open(seed) else { continue }
          let y = seed / w
          let row = y * w
          var left = seed - row
          var right = left
          while left > 0 && open(row + left - 1) { left -= 1 }
          while right < w - 1 && open(row + right + 1) { right += 1 }
          for x in left...right { m[row + x] = MaskState.backdrop }
          if y > 0 { pushRuns(y - 1, left, right) }
          if y < h - 1 { pushRuns(y + 1, left, right) }
        }
      }
    }
    return mask
  }
}
