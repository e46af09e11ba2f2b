// MARK: - A light ground that varies smoothly

extension DarkVariantGenerator {
  /// Constants of ``groundField(of:)``.
  enum GroundFieldTuning {
    /// The tile side: the shorter side over this, at least 8 px (the
    /// legibility rule's tiles).
    static let tileDivisor = 16
    /// A tile has a ground when its most common 8-level luma band, with the
    /// bands beside it, covers at least this share of it…
    static let groundShare = 0.5
    /// …and that ground is light: integer luma at least this (the
    /// classifier's light-background bound).
    static let minLuma = 200
    /// At least this share of the border tiles have a light ground: a card
    /// or banner ground runs round the picture; a bright photo's sky or snow
    /// does not reach all four sides.
    static let borderShare = 0.9
    /// At least this share of all tiles have a light ground.
    static let groundTiles = 0.4
    /// Neighbouring tiles' grounds differ by at most this many levels in
    /// every channel: a designed gradient (white to `#DDE3EC` over 658 px
    /// steps about 2 levels a tile) or a vignette; a photo's light areas
    /// jump between surfaces.
    static let maxStep = 8
    /// …and at most ``stepOutliers`` of the neighbouring pairs step more (a
    /// tile whose ground is the inside of a letter).
    static let stepOutliers = 0.03
    /// The ground varies by at least this many levels in some channel
    /// (lightest tile to darkest): a flatter ground is the classifier's
    /// plain light ground already.
    static let minVariation = 6
    /// The lightest ground is at most this much lighter than the darkest,
    /// per channel, as a ratio: flattening scales colours by the ratio, and
    /// a subject on the ground must keep its colours.
    static let maxLift = 1.3
  }

  /// A light ground whose colour changes smoothly across the picture (a
  /// designed gradient, a vignette, a tinted wash), as colours at the tile
  /// centres.
  ///
  /// Flattening divides each pixel, per channel, by the ground colour under
  /// it (interpolated bilinearly between tile centres) and multiplies by
  /// the lightest ground colour, ``reference``: the ground becomes one
  /// colour, black ink stays black, and the plain-light-ground methods then
  /// apply (``DarkVariantGenerator/classify(_:)``).
  struct GroundField: Sendable, Equatable {
    /// Tiles across and down, and the tile side in pixels.
    let tilesX: Int
    let tilesY: Int
    let side: Int
    /// Each tile's ground colour (red, green, blue), row by row.
    let colours: [(Double, Double, Double)]
    /// The lightest tile ground, which the ground is flattened to.
    let reference: RGB8

    static func == (a: Self, b: Self) -> Bool {
      a.tilesX == b.tilesX && a.tilesY == b.tilesY && a.side == b.side && a.reference == b.reference
        && zip(a.colours, b.colours).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 && $0.2 == $1.2 }
    }

    /// `image` with its ground flattened to ``reference`` (alpha unchanged).
    func flattened(_ image: RGBAImage) -> RGBAImage {
      let w = image.width, h = image.height
      let reference = (Double(self.reference.r), Double(self.reference.g), Double(self.reference.b))
      var out = image.pixels
      // Per row: each tile column's ground interpolated down to the row,
      // then across to each pixel.
      var column = [(Double, Double, Double)](repeating: (0, 0, 0), count: tilesX)
      out.withUnsafeMutableBufferPointer { p in
        for y in 0..<h {
          let fy = min(max((Double(y) + 0.5) / Double(side) - 0.5, 0), Double(tilesY - 1))
          let ty0 = Int(fy), ty1 = min(ty0 + 1, tilesY - 1)
          let wy = fy - Double(ty0)
          for tx in 0..<tilesX {
            let a = colours[ty0 * tilesX + tx], b = colours[ty1 * tilesX + tx]
            column[tx] = (a.0 + (b.0 - a.0) * wy, a.1 + (b.1 - a.1) * wy, a.2 + (b.2 - a.2) * wy)
          }
          for x in 0..<w {
            let fx = min(max((Double(x) + 0.5) / Double(side) - 0.5, 0), Double(tilesX - 1))
            let tx0 = Int(fx), tx1 = min(tx0 + 1, tilesX - 1)
            let wx = fx - Double(tx0)
            let a = column[tx0], b = column[tx1]
            let g = (a.0 + (b.0 - a.0) * wx, a.1 + (b.1 - a.1) * wx, a.2 + (b.2 - a.2) * wx)
            let i = (y * w + x) * 4
            p[i] = UInt8(min(255, (Double(p[i]) * reference.0 / g.0).rounded()))
            p[i + 1] = UInt8(min(255, (Double(p[i + 1]) * reference.1 / g.1).rounded()))
            p[i + 2] = UInt8(min(255, (Double(p[i + 2]) * reference.2 / g.2).rounded()))
          }
        }
      }
      return RGBAImage(width: w, height: h, pixels: out)
    }
  }

  /// The smoothly varying light ground of `image`, or `nil` when it has
  /// none (see ``GroundFieldTuning`` for each bound).
  ///
  /// Each tile's ground is its most common 8-level luma band and the bands
  /// beside it (the legibility rule's `tileGround`) when that covers half
  /// the tile, as the mean colour of those opaque pixels. The picture has a
  /// ground field when its border tiles nearly all have a light ground, a
  /// large share of all tiles do, neighbouring grounds step gently, and the
  /// ground varies enough to matter. Tiles without a ground (text, a
  /// product) take the mean of their neighbours', spreading inward.
  func groundField(of image: RGBAImage) -> GroundField? {
    typealias T = GroundFieldTuning
    let w = image.width, h = image.height
    let side = max(8, min(w, h) / T.tileDivisor)
    let tilesX = (w + side - 1) / side, tilesY = (h + side - 1) / side
    guard tilesX >= 3, tilesY >= 3 else { return nil }
    var colours = [(Double, Double, Double)?](repeating: nil, count: tilesX * tilesY)
    image.pixels.withUnsafeBufferPointer { p in
      var bands = [Int](repeating: 0, count: 32)
      for ty in 0..<tilesY {
        for tx in 0..<tilesX {
          let x0 = tx * side, y0 = ty * side, x1 = min(w, x0 + side), y1 = min(h, y0 + side)
          for b in 0..<32 { bands[b] = 0 }
          for y in y0..<y1 {
            for x in x0..<x1 {
              let i = (y * w + x) * 4
              guard p[i + 3] == 255 else { continue }
              bands[Luma.integer(p[i], p[i + 1], p[i + 2]) >> 3] += 1
            }
          }
          var mode = 0
          for b in 1..<32 where bands[b] > bands[mode] { mode = b }
          let ground = bands[mode] + (mode > 0 ? bands[mode - 1] : 0) + (mode < 31 ? bands[mode + 1] : 0)
          guard Double(ground) >= T.groundShare * Double((x1 - x0) * (y1 - y0)) else { continue }
          var sum = (0, 0, 0), n = 0
          for y in y0..<y1 {
            for x in x0..<x1 {
              let i = (y * w + x) * 4
              guard p[i + 3] == 255, abs(Luma.integer(p[i], p[i + 1], p[i + 2]) >> 3 - mode) <= 1 else { continue }
              sum.0 += Int(p[i]); sum.1 += Int(p[i + 1]); sum.2 += Int(p[i + 2]); n += 1
            }
          }
          let colour = (Double(sum.0) / Double(n), Double(sum.1) / Double(n), Double(sum.2) / Double(n))
          guard 0.2126 * colour.0 + 0.7152 * colour.1 + 0.0722 * colour.2 >= Double(T.minLuma) else { continue }
          colours[ty * tilesX + tx] = colour
        }
      }
    }
    // Border and overall shares.
    var border = 0, borderGround = 0, grounds = 0
    for ty in 0..<tilesY {
      for tx in 0..<tilesX {
        let has = colours[ty * tilesX + tx] != nil
        if has { grounds += 1 }
        if tx == 0 || ty == 0 || tx == tilesX - 1 || ty == tilesY - 1 {
          border += 1
          if has { borderGround += 1 }
        }
      }
    }
    guard Double(borderGround) >= T.borderShare * Double(border),
          Double(grounds) >= T.groundTiles * Double(tilesX * tilesY) else { return nil }
    // Gentle steps between neighbouring grounds.
    var pairs = 0, steep = 0
    for ty in 0..<tilesY {
      for tx in 0..<tilesX {
        guard let a = colours[ty * tilesX + tx] else { continue }
        for (nx, ny) in [(tx + 1, ty), (tx, ty + 1)] where nx < tilesX && ny < tilesY {
          guard let b = colours[ny * tilesX + nx] else { continue }
          pairs += 1
          if max(abs(a.0 - b.0), abs(a.1 - b.1), abs(a.2 - b.2)) > Double(T.maxStep) { steep += 1 }
        }
      }
    }
    guard pairs > 0, Double(steep) <= T.stepOutliers * Double(pairs) else { return nil }
    // The lightest and darkest grounds.
    var lightest = (0.0, 0.0, 0.0), lightestLuma = -1.0
    var low = (255.0, 255.0, 255.0), high = (0.0, 0.0, 0.0)
    for case let c? in colours {
      let l = 0.2126 * c.0 + 0.7152 * c.1 + 0.0722 * c.2
      if l > lightestLuma { lightestLuma = l; lightest = c }
      low = (min(low.0, c.0), min(low.1, c.1), min(low.2, c.2))
      high = (max(high.0, c.0), max(high.1, c.1), max(high.2, c.2))
    }
    let variation = max(high.0 - low.0, high.1 - low.1, high.2 - low.2)
    guard variation >= Double(T.minVariation),
          lightest.0 <= T.maxLift * low.0, lightest.1 <= T.maxLift * low.1, lightest.2 <= T.maxLift * low.2
    else { return nil }
    // Tiles without a ground take their neighbours' mean, spreading inward.
    var filled = colours
    var missing = filled.indices.filter { filled[$0] == nil }
    while !missing.isEmpty {
      var next: [Int] = []
      var updates: [(Int, (Double, Double, Double))] = []
      for t in missing {
        let tx = t % tilesX, ty = t / tilesX
        var sum = (0.0, 0.0, 0.0), n = 0.0
        for (nx, ny) in [(tx - 1, ty), (tx + 1, ty), (tx, ty - 1), (tx, ty + 1)]
        where nx >= 0 && ny >= 0 && nx < tilesX && ny < tilesY {
          if let c = filled[ny * tilesX + nx] { sum.0 += c.0; sum.1 += c.1; sum.2 += c.2; n += 1 }
        }
        if n > 0 { updates.append((t, (sum.0 / n, sum.1 / n, sum.2 / n))) } else { next.append(t) }
      }
      guard !updates.isEmpty else { return nil }
      for (t, c) in updates { filled[t] = c }
      missing = next
    }
    let reference = RGB8(r: UInt8(lightest.0.rounded()), g: UInt8(lightest.1.rounded()), b: UInt8(lightest.2.rounded()))
    return GroundField(tilesX: tilesX, tilesY: tilesY, side: side, colours: filled.map { $0! }, reference: reference)
  }

  /// The picture the methods work on and what the classifier says of it:
  /// `image` itself, or, when the classifier calls it a photograph but it
  /// has a smoothly varying light ground (``groundField(of:)``) and its
  /// flattened form is a plain light ground, the flattened form.
  func prepared(_ image: RGBAImage) -> (image: RGBAImage, analysis: Analysis) {
    let analysis = analyze(image)
    guard analysis.kind == .photograph, let field = groundField(of: image) else { return (image, analysis) }
    let flat = field.flattened(image)
    let flatAnalysis = analyze(flat)
    guard flatAnalysis.kind == .lightBackground else { return (image, analysis) }
    return (flat, flatAnalysis)
  }
}
