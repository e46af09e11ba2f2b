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
  /// ``darkenLightBackground(_:analysis:)``), while a deep shadow core stays
  /// with the subject, like the ground it stands on.
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

  /// Recolours the backdrop of a `.lightBackground` image to the surface.
  ///
  /// 1. Flood fill (scanline, iterative, 4-connected) from every border
  ///    pixel that matches the background, over pixels within
  ///    ``FloodFillTolerance`` of it. The result is a mask: one byte per
  ///    pixel. Only pixels connected to the border are backdrop, so white
  ///    areas enclosed by a subject's outline keep their colour.
  /// 2. Backdrop pixels are mapped by luma ratio: `out = surface · Y / Yb`,
  ///    where `Yb` is the background luma. The pure backdrop becomes exactly
  ///    the surface colour, and the faint part of a shadow or vignette that
  ///    the fill took along stays darker than the surface in the same
  ///    proportion (96 % of the backdrop → 96 % of the surface; on a
  ///    surface of luma 28 a step under ~2 % rounds away), so gradients keep
  ///    their direction and never turn lighter than the surface. A ratio on
  ///    sRGB-encoded values is close to the same ratio in linear light, since
  ///    the sRGB curve is nearly a power law.
  /// 3. The subject is dimmed by ``Options/subjectDim`` (at most 5 %).
  /// 4. The mask is feathered outward by ``Options/featherRadius``: a subject
  ///    pixel with `k` backdrop pixels in its `(2r+1)²` window is blended
  ///    `k/(2r+1)²` toward the mapped colour. Anti-aliased edges mix in the
  ///    old backdrop, and the blend pulls that light fringe toward the
  ///    surface. The feather works only outward, so no backdrop pixel is left
  ///    partly light.
  ///
  /// Known limits, both chosen over the alternative of darkening a subject:
  /// backdrop seen through a hole in the subject (inside a mug handle) is not
  /// connected to the border and stays light, because it cannot be told from
  /// a white subject enclosed by an outline; and the deep core of a shadow
  /// stays light grey, because it cannot be told from a shaded white
  /// product.
  ///
  /// Alpha bytes are copied unchanged.
  func darkenLightBackground(_ image: RGBAImage, analysis: Analysis)
    -> RGBAImage
  {
    let w = image.width
    let h = image.height
    let mask = backdropMask(
      image, background: analysis.background,
      tolerance: FloodFillTolerance.tolerance(for: analysis))

    // One lookup table, four parts of 256: the subject dim per channel
    // value, then the backdrop map of R, G and B per luma.
    let dim = 1 - min(max(options.subjectDim, 0), 0.05)
    let backgroundLuma = Double(max(analysis.background.luma, 1))
    let surface = options.surface
    var table = [UInt8](repeating: 0, count: 1024)
    for v in 0..<256 {
      let ratio = Double(v) / backgroundLuma
      table[v] = Luma.byte(Double(v) * dim)
      table[256 + v] = Luma.byte(Double(surface.r) * ratio)
      table[512 + v] = Luma.byte(Double(surface.g) * ratio)
      table[768 + v] = Luma.byte(Double(surface.b) * ratio)
    }

    let radius = min(max(options.featherRadius, 0), 4)
    let window = (2 * radius + 1) * (2 * radius + 1)
    let half = window / 2
    var out = image.pixels
    // colSum[x]: backdrop pixels in column x, rows y-radius...y+radius.
    var colSum = [Int](repeating: 0, count: w)
    mask.withUnsafeBufferPointer { m in
      table.withUnsafeBufferPointer { t in
        out.withUnsafeMutableBufferPointer { p in
          colSum.withUnsafeMutableBufferPointer { c in
            @inline(__always) func addRow(_ y: Int, _ delta: Int) {
              guard y >= 0 && y < h else { return }
              let row = y * w
              for x in 0..<w where m[row + x] == MaskState.backdrop {
                c[x] += delta
              }
            }
            for y in 0...radius { addRow(y, 1) }

            for y in 0..<h {
              var win = 0
              for x in 0...min(radius, w - 1) { win += c[x] }
              let row = y * w
              for x in 0..<w {
                let idx = row + x
                let i = idx * 4
                let r = Int(p[i])
                let g = Int(p[i + 1])
                let b = Int(p[i + 2])
                if m[idx] == MaskState.backdrop {
                  let l = Luma.integer(p[i], p[i + 1], p[i + 2])
                  p[i] = t[256 + l]
                  p[i + 1] = t[512 + l]
                  p[i + 2] = t[768 + l]
                } else if win > 0 {
                  // Feathered edge: blend dimmed subject toward the map.
                  let l = Luma.integer(p[i], p[i + 1], p[i + 2])
                  let rest = window - win
                  p[i] = UInt8(
                    (Int(t[r]) * rest + Int(t[256 + l]) * win + half) / window)
                  p[i + 1] = UInt8(
                    (Int(t[g]) * rest + Int(t[512 + l]) * win + half) / window)
                  p[i + 2] = UInt8(
                    (Int(t[b]) * rest + Int(t[768 + l]) * win + half) / window)
                } else {
                  p[i] = t[r]
                  p[i + 1] = t[g]
                  p[i + 2] = t[b]
                }
                // Slide the window one column to the right.
                if x + radius + 1 < w { win += c[x + radius + 1] }
                if x - radius >= 0 { win -= c[x - radius] }
              }
              // Slide the column sums one row down.
              addRow(y + radius + 1, 1)
              addRow(y - radius, -1)
            }
          }
        }
      }
    }
    return RGBAImage(width: w, height: h, pixels: out)
  }

  /// States of a pixel in the backdrop mask.
  enum MaskState {
    /// Not part of the backdrop (or not reached yet).
    static let other: UInt8 = 0
    /// Part of the backdrop.
    static let backdrop: UInt8 = 1
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
