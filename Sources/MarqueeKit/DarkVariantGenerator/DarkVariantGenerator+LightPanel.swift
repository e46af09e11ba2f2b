// MARK: - Light panels in a photograph

extension DarkVariantGenerator {
  /// Constants of ``lightPanel(in:)``.
  enum LightPanelTuning {
    /// A panel's colour is at least this light (integer luma, 0...255).
    static let minLuma = 200
    /// A tile belongs to the panel when at least this share of its pixels
    /// is within ``ClassifierThresholds/backgroundTolerance`` of the
    /// panel's colour (text on the panel takes the rest).
    static let tileShare = 0.5
    /// The panel covers at least this share of the picture: a caption bar
    /// under a photo (a fifth of it), the white half of a split layout.
    static let minArea = 0.08
    /// The panel fills at least this share of its bounding box: a designed
    /// bar, card or half is a rectangle; a blown-out sky over a skyline or
    /// a white wall in a room is not.
    static let minFill = 0.8
    /// The tile side: the shorter side over this, at least 8 px.
    static let tileDivisor = 16
  }

  /// A light, flat, rectangular area of a photograph: a caption bar, the
  /// text half of a split layout, a white card laid over a photo.
  struct LightPanel: Sendable, Equatable {
    /// The panel's colour: the exact mean of its most common 5-bit bin.
    var colour: RGB8
    /// 90th percentile of the largest per-channel distance between the
    /// panel's pixels and `colour` (coding noise), like
    /// ``Analysis/backgroundSpread``.
    var spread: Int
    /// The panel's bounding box in pixels (its tiles', one tile wider all
    /// round), half-open:
    /// `x0..<x1`, `y0..<y1`. Only there is the panel's colour ground: a
    /// clipped white sky in the photo beside it is the photo's.
    var box: (x0: Int, y0: Int, x1: Int, y1: Int) = (0, 0, Int.max, Int.max)

    static func == (a: Self, b: Self) -> Bool {
      a.colour == b.colour && a.spread == b.spread && a.box == b.box
    }

    /// Whether the pixel at `x`, `y` lies in ``box``.
    @inline(__always) func contains(_ x: Int, _ y: Int) -> Bool { x >= box.x0 && x < box.x1 && y >= box.y0 && y < box.y1 }
  }

  /// The largest light panel of a picture the classifier calls a
  /// photograph, or `nil` when it has none.
  ///
  /// The picture's most common 5-bit colour bin among opaque pixels with
  /// luma ``LightPanelTuning/minLuma`` or more is the panel's colour when
  /// tiles dominated by it (``LightPanelTuning/tileShare``) form a
  /// 4-connected group of at least ``LightPanelTuning/minArea`` of the
  /// picture that fills ``LightPanelTuning/minFill`` of its bounding box,
  /// and 90 % of its pixels are within
  /// ``ClassifierThresholds/maxBackgroundSpread`` levels of that colour,
  /// and that colour is neutral or a light tint (OKLab chroma under
  /// ``GraphicsTuning/brandChroma``: a saturated yellow is the photo's).
  /// Such a picture is mixed: its panel (and the text on it) is graphics,
  /// the rest a photograph (``methods(for:)``).
  ///
  /// - Parameter image: the light picture, RGBA sRGB.
  func lightPanel(in image: RGBAImage) -> LightPanel? {
    typealias T = LightPanelTuning
    let w = image.width, h = image.height
    guard w >= 16, h >= 16 else { return nil }
    return image.pixels.withUnsafeBufferPointer { p -> LightPanel? in
      // The most common light bin, of colours not saturated (channels
      // spread by under 80 levels: a cream or a pastel is, a yellow bar
      // is not).
      var bins = [Int](repeating: 0, count: 1 << 15)
      var i = 0
      while i < p.count {
        if p[i + 3] >= ClassifierThresholds.opaqueAlpha, Luma.integer(p[i], p[i + 1], p[i + 2]) >= T.minLuma,
           Int(max(p[i], p[i + 1], p[i + 2])) - Int(min(p[i], p[i + 1], p[i + 2])) < 80 {
          bins[Int(p[i] >> 3) << 10 | Int(p[i + 1] >> 3) << 5 | Int(p[i + 2] >> 3)] += 1
        }
        i += 4
      }
      var mode = 0
      for b in 1..<bins.count where bins[b] > bins[mode] { mode = b }
      guard Double(bins[mode]) >= T.minArea * T.tileShare * Double(w * h) else { return nil }
      var sum = (0, 0, 0), n = 0
      i = 0
      while i < p.count {
        if Int(p[i] >> 3) << 10 | Int(p[i + 1] >> 3) << 5 | Int(p[i + 2] >> 3) == mode, p[i + 3] >= ClassifierThresholds.opaqueAlpha {
          sum.0 += Int(p[i]); sum.1 += Int(p[i + 1]); sum.2 += Int(p[i + 2]); n += 1
        }
        i += 4
      }
      let colour = RGB8(r: UInt8(sum.0 / n), g: UInt8(sum.1 / n), b: UInt8(sum.2 / n))
      // A saturated colour is the photo's (a yellow bar, a lit wall), not a
      // panel: a caption bar or card is white, grey or a light tint.
      guard OKLab(r: colour.r, g: colour.g, b: colour.b).chroma < GraphicsTuning.brandChroma else { return nil }
      // Tiles dominated by the colour, and its spread on them.
      let tolerance = ClassifierThresholds.backgroundTolerance
      let side = max(8, min(w, h) / T.tileDivisor)
      let tilesX = (w + side - 1) / side, tilesY = (h + side - 1) / side
      var isPanel = [Bool](repeating: false, count: tilesX * tilesY)
      var distances = [Int](repeating: 0, count: tolerance + 1)
      for ty in 0..<tilesY {
        for tx in 0..<tilesX {
          let x0 = tx * side, y0 = ty * side, x1 = min(w, x0 + side), y1 = min(h, y0 + side)
          var near = 0
          var local = [Int](repeating: 0, count: tolerance + 1)
          for y in y0..<y1 {
            for x in x0..<x1 {
              let j = (y * w + x) * 4
              let d = max(abs(Int(p[j]) - Int(colour.r)), abs(Int(p[j + 1]) - Int(colour.g)), abs(Int(p[j + 2]) - Int(colour.b)))
              if d <= tolerance, p[j + 3] >= ClassifierThresholds.opaqueAlpha { near += 1; local[d] += 1 }
            }
          }
          if Double(near) >= T.tileShare * Double((x1 - x0) * (y1 - y0)) {
            isPanel[ty * tilesX + tx] = true
            for d in 0...tolerance { distances[d] += local[d] }
          }
        }
      }
      // The largest 4-connected group of panel tiles.
      var seen = [Bool](repeating: false, count: isPanel.count)
      var best: (area: Int, fill: Double, box: (x0: Int, y0: Int, x1: Int, y1: Int)) = (0, 0, (0, 0, 0, 0))
      for start in 0..<isPanel.count where isPanel[start] && !seen[start] {
        var stack = [start], area = 0
        var minX = tilesX, maxX = 0, minY = tilesY, maxY = 0
        seen[start] = true
        while let t = stack.popLast() {
          let tx = t % tilesX, ty = t / tilesX
          let x0 = tx * side, y0 = ty * side
          area += (min(w, x0 + side) - x0) * (min(h, y0 + side) - y0)
          minX = min(minX, tx); maxX = max(maxX, tx); minY = min(minY, ty); maxY = max(maxY, ty)
          for (nx, ny) in [(tx - 1, ty), (tx + 1, ty), (tx, ty - 1), (tx, ty + 1)]
          where nx >= 0 && ny >= 0 && nx < tilesX && ny < tilesY && isPanel[ny * tilesX + nx] && !seen[ny * tilesX + nx] {
            seen[ny * tilesX + nx] = true
            stack.append(ny * tilesX + nx)
          }
        }
        let boxArea = (min(w, (maxX + 1) * side) - minX * side) * (min(h, (maxY + 1) * side) - minY * side)
        if area > best.area {
          // Its tiles' box, one tile wider all round: the tiles on the
          // panel's edge are half photo and may not count as panel tiles.
          best = (area, Double(area) / Double(boxArea),
                  (max(0, minX - 1) * side, max(0, minY - 1) * side, min(w, (maxX + 2) * side), min(h, (maxY + 2) * side)))
        }
      }
      guard Double(best.area) >= T.minArea * Double(w * h), best.fill >= T.minFill else { return nil }
      let total = distances.reduce(0, +)
      var seenShare = 0, spread = 0
      while spread < tolerance {
        seenShare += distances[spread]
        if seenShare * 10 >= total * 9 { break }
        spread += 1
      }
      // A designed panel is flat, as a light ground is
      // (`ClassifierThresholds.maxBackgroundSpread`); a washed-out photo's
      // fog or snow is not.
      guard spread <= ClassifierThresholds.maxBackgroundSpread else { return nil }
      return LightPanel(colour: colour, spread: spread, box: best.box)
    }
  }
}
