// MARK: - Thresholds

extension DarkVariantGenerator {
  /// Constants of the edge decontamination; the reasons are in
  /// ``decontaminateEdges(_:output:mask:dim:bandWidth:)``.
  enum EdgeTuning {
    /// Below this contrast (largest channel difference) between the inner
    /// subject colour and the local background, the estimated background
    /// fraction is scaled down in proportion: one level of JPEG noise on a
    /// 4-level edge (a white mug on white) would otherwise read as a 25 %
    /// background share and print a dark speckled outline.
    static let fullContrast = 24.0
    /// Extra window radius beyond the band, so a band pixel always sees
    /// some interior pixels.
    static let windowMargin = 2
  }
}

// MARK: - Edge decontamination

extension DarkVariantGenerator {
  /// Replaces the light-background share of the subject's edge pixels by
  /// the mapped surface.
  ///
  /// An anti-aliased (or slightly blurred, or JPEG-ringing) edge pixel is a
  /// mix `p = (1 − α)·F + α·B` of the subject colour `F` and the light
  /// background `B`. Left as it is, it is a light fringe around the subject
  /// on the dark surface (the tolerance fill takes only pixels within a few
  /// levels of `B`; an edge pixel 40 % white is far outside it). So for
  /// each subject pixel within `bandWidth` pixels (8-connected) of the
  /// backdrop or shadow mask:
  ///
  /// 1. `B` is the mean original colour of the mask pixels in a window of
  ///    radius `bandWidth + 2`, and `M` the mean of their mapped colours (a
  ///    shadow's local colour and its mapped colour, near a shadow).
  /// 2. The inner subject colour `S` is the interior pixel (farther than
  ///    the band from the mask) in the window that best explains `p` as a
  ///    mix of itself and `B`: the smallest distance from `p` to the
  ///    segment `S…B`. Near a two-coloured subject this picks the colour
  ///    on the right side. With no interior pixel in reach (a hairline),
  ///    the window's subject pixel farthest from `B` stands in.
  /// 3. `α` is the position of `p`'s projection on that segment, 0 at `S`
  ///    and 1 at `B`, scaled down when `S` and `B` differ by less than
  ///    ``EdgeTuning/fullContrast`` levels (noise on a white product).
  /// 4. Since the subject is dimmed linearly, the dimmed mix with `B`
  ///    replaced by `M` is `dim·p + α·(M − dim·B)`: exact, no need to
  ///    estimate `F` (which is unstable when `α` is near 1).
  ///
  /// The work is O(edge pixels · window); interior and mask pixels are not
  /// touched.
  ///
  /// - Parameters:
  ///   - image: The original image.
  ///   - output: The mapped and dimmed pixels, changed in place.
  ///   - mask: The backdrop and shadow mask.
  ///   - dim: The subject's dim factor.
  ///   - bandWidth: Width of the edge band in pixels, 0 turns it off.
  func decontaminateEdges(
    _ image: RGBAImage, output: inout [UInt8], mask: [UInt8], dim: Double,
    bandWidth: Int
  ) {
    guard bandWidth > 0 else { return }
    let (ring, edges) = Self.edgeRings(mask: mask, width: image.width, height: image.height, bandWidth: bandWidth)
    guard !edges.isEmpty else { return }
    let radius = bandWidth + EdgeTuning.windowMargin
    image.pixels.withUnsafeBufferPointer { src in
      ring.withUnsafeBufferPointer { r in
        output.withUnsafeMutableBufferPointer { out in
          for e in edges {
            let window = EdgeWindow(edge: Int(e), width: image.width, height: image.height, radius: radius,
                                    source: src, ring: r)
            window.unmix(into: out, dim: dim)
          }
        }
      }
    }
  }

  /// `ring[idx]`: 0 for mask pixels, k (1...bandWidth) for subject pixels k
  /// steps (8-connected) from the mask, `EdgeWindow.interior` for the rest;
  /// and the band's pixels in the order they were found.
  static func edgeRings(mask: [UInt8], width w: Int, height h: Int, bandWidth: Int) -> ([UInt8], [Int32]) {
    let interior = EdgeWindow.interior
    var ring = [UInt8](repeating: interior, count: w * h)
    var edges: [Int32] = []
    mask.withUnsafeBufferPointer { m in
      ring.withUnsafeMutableBufferPointer { r in
        for idx in 0..<(w * h) where m[idx] != MaskState.other { r[idx] = 0 }
        for k in 1...bandWidth {
          let previous = UInt8(k - 1)
          for y in 0..<h {
            for x in 0..<w {
              let idx = y * w + x
              guard r[idx] == interior else { continue }
              if touches(previous, x: x, y: y, width: w, height: h, ring: UnsafeBufferPointer(r)) {
                r[idx] = UInt8(k)
                edges.append(Int32(idx))
              }
            }
          }
        }
      }
    }
    return (ring, edges)
  }

  /// Whether one of the 8 neighbours of (x, y) has ring value `value`.
  @inline(__always)
  private static func touches(_ value: UInt8, x: Int, y: Int, width w: Int, height h: Int,
                              ring r: UnsafeBufferPointer<UInt8>) -> Bool {
    for dy in -1...1 {
      let yy = y + dy
      guard yy >= 0 && yy < h else { continue }
      for dx in -1...1 {
        let xx = x + dx
        guard xx >= 0 && xx < w else { continue }
        if r[yy * w + xx] == value { return true }
      }
    }
    return false
  }

  /// The window around one edge pixel `p`: the local background `B` (mask
  /// pixels, with their mapped colour `M`) and the inner subject colour `S`
  /// that best explains `p` as a mix of the two.
  struct EdgeWindow {
    static let interior = UInt8(255)
    let idx: Int
    let x0: Int, x1: Int, y0: Int, y1: Int
    let w: Int
    let src: UnsafeBufferPointer<UInt8>
    let r: UnsafeBufferPointer<UInt8>

    init(edge idx: Int, width w: Int, height h: Int, radius: Int, source: UnsafeBufferPointer<UInt8>,
         ring: UnsafeBufferPointer<UInt8>) {
      self.idx = idx
      self.w = w
      let x = idx % w
      let y = idx / w
      x0 = max(0, x - radius)
      x1 = min(w - 1, x + radius)
      y0 = max(0, y - radius)
      y1 = min(h - 1, y + radius)
      src = source
      r = ring
    }

    /// Replaces the background's share of `p` with the mapped background:
    /// `dim·p + α·(M − dim·B)`.
    func unmix(into out: UnsafeMutableBufferPointer<UInt8>, dim: Double) {
      guard let (b, mapped) = background(mapped: UnsafeBufferPointer(out)) else { return }
      let i = idx * 4
      let p = (Double(src[i]), Double(src[i + 1]), Double(src[i + 2]))
      guard let found = innerFit(p: p, b: b) else { return }
      let alpha =
        found.alpha * min(1, found.contrast / EdgeTuning.fullContrast)
      guard alpha > 0 else { return }
      out[i] = Luma.byte(dim * p.0 + alpha * (mapped.0 - dim * b.0))
      out[i + 1] = Luma.byte(dim * p.1 + alpha * (mapped.1 - dim * b.1))
      out[i + 2] = Luma.byte(dim * p.2 + alpha * (mapped.2 - dim * b.2))
    }

    /// Local background and its mapped colour: the means over the window's
    /// mask pixels; nil when there are none.
    private func background(mapped out: UnsafeBufferPointer<UInt8>)
      -> ((Double, Double, Double), (Double, Double, Double))?
    {
      var bSum = (0, 0, 0)
      var mSum = (0, 0, 0)
      var bCount = 0
      for yy in y0...y1 {
        for xx in x0...x1 {
          let j = yy * w + xx
          guard r[j] == 0 else { continue }
          let i = j * 4
          bSum.0 += Int(src[i])
          bSum.1 += Int(src[i + 1])
          bSum.2 += Int(src[i + 2])
          mSum.0 += Int(out[i])
          mSum.1 += Int(out[i + 1])
          mSum.2 += Int(out[i + 2])
          bCount += 1
        }
      }
      guard bCount > 0 else { return nil }
      let c = Double(bCount)
      return ((Double(bSum.0) / c, Double(bSum.1) / c, Double(bSum.2) / c),
              (Double(mSum.0) / c, Double(mSum.1) / c, Double(mSum.2) / c))
    }

    /// The inner subject colour that best explains `p`: `p`'s position on
    /// the segment S→B (0 at S) and the segment's contrast. With no interior
    /// pixel in reach (a hairline), the window's subject pixel farthest from
    /// `B` stands in.
    private func innerFit(p: (Double, Double, Double), b: (Double, Double, Double))
      -> (alpha: Double, contrast: Double)?
    {
      var best: (alpha: Double, contrast: Double)?
      var bestResidual = Double.infinity
      var farthest: (Double, Double, Double)?
      var farthestDistance = -1.0
      for yy in y0...y1 {
        for xx in x0...x1 {
          let j = yy * w + xx
          let ringValue = r[j]
          guard ringValue != 0 else { continue }
          let k = j * 4
          let s = (Double(src[k]), Double(src[k + 1]), Double(src[k + 2]))
          let bs = (b.0 - s.0, b.1 - s.1, b.2 - s.2)
          let length2 = bs.0 * bs.0 + bs.1 * bs.1 + bs.2 * bs.2
          if ringValue != Self.interior {
            if length2 > farthestDistance {
              farthestDistance = length2
              farthest = s
            }
            continue
          }
          guard length2 >= 1 else { continue }
          let ps = (p.0 - s.0, p.1 - s.1, p.2 - s.2)
          let t = min(
            max((ps.0 * bs.0 + ps.1 * bs.1 + ps.2 * bs.2) / length2, 0),
            1)
          let e0 = ps.0 - t * bs.0
          let e1 = ps.1 - t * bs.1
          let e2 = ps.2 - t * bs.2
          let residual = e0 * e0 + e1 * e1 + e2 * e2
          if residual < bestResidual {
            bestResidual = residual
            best = (t, max(abs(bs.0), abs(bs.1), abs(bs.2)))
          }
        }
      }
      if best == nil, let s = farthest, farthestDistance >= 1 {
        let bs = (b.0 - s.0, b.1 - s.1, b.2 - s.2)
        let ps = (p.0 - s.0, p.1 - s.1, p.2 - s.2)
        let t = min(
          max(
            (ps.0 * bs.0 + ps.1 * bs.1 + ps.2 * bs.2)
              / farthestDistance, 0), 1)
        best = (t, max(abs(bs.0), abs(bs.1), abs(bs.2)))
      }
      return best
    }
  }
}
