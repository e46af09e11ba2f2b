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
    /// At least this share of the border tiles have a light ground that the
    /// fitted surface explains: a card or banner ground runs round the
    /// picture; a bright photo's sky or snow does not reach all four sides.
    static let borderShare = 0.9
    /// At least this share of all tiles have a light ground the surface
    /// explains: a white card on a gradient page covers up to three
    /// quarters of it.
    static let groundTiles = 0.25
    /// A tile's ground is explained by the surface when it lies within this
    /// many levels of it in every channel. A designed gradient or a
    /// vignette is a low-order surface; a product's own shading, a photo's
    /// sky and wall are not, and their tiles are left out of the fit.
    static let maxResidual = 5.0
    /// The border tiles' grounds vary by at least this many levels in some
    /// channel: a gradient or a vignette shows along the edges, while a
    /// flat ground with a light product or card in the middle is one colour
    /// there, and is the classifier's plain light ground already.
    static let minVariation = 6.0
    /// Neighbouring tiles' grounds differ by at most this many levels in
    /// every channel (a gradient from white to `#DDE3EC` over 658 px steps
    /// about 2 levels a tile)…
    static let maxStep = 8.0
    /// …but for this share of the neighbouring pairs. Only pairs of tiles
    /// the fitted surface explains count: a white card on a gradient page
    /// is left out of the fit, and so is its edge.
    static let stepOutliers = 0.03
    /// The lightest ground is at most this much lighter than the darkest,
    /// per channel, as a ratio: flattening scales colours by the ratio, and
    /// a subject on the ground must keep its colours.
    static let maxLift = 1.3
    /// The flattened ground's spread (``Analysis/backgroundSpread``) is at
    /// least this many levels: the surface is a fit, off by a few levels
    /// where the ground curves more (a vignette's bright centre), and that
    /// must still be ground.
    static let flattenedSpread = 3
  }

  /// A light ground whose colour changes smoothly across the picture (a
  /// designed gradient, a vignette, a tinted wash): per channel, a smooth
  /// surface (a cubic polynomial, ``degree``) in the pixel position, fitted to the
  /// tiles' grounds.
  ///
  /// Flattening maps each pixel, per channel, from the surface under it to
  /// the lightest ground colour, ``reference`` (``flattened(_:ground:reference:)``):
  /// the ground becomes one colour, black ink stays black, white stays
  /// white, a product keeps its own shading, and the plain-light-ground
  /// methods then apply
  /// (``DarkVariantGenerator/classify(_:)``).
  struct GroundField: Sendable, Equatable {
    /// Per channel (red, green, blue), the coefficients of the terms
    /// ``exponents`` (`u^i·v^j`), where `u` and `v` run from −1 to 1 across
    /// the width and down the height.
    let coefficients: [[Double]]
    /// The lightest fitted ground at a tile centre, which the ground is
    /// flattened to.
    let reference: RGB8

    /// The surface's value of `channel` at `u`, `v`.
    func value(_ channel: Int, u: Double, v: Double) -> Double {
      let c = coefficients[channel]
      var sum = 0.0
      for (k, (i, j)) in Self.exponents.enumerated() { sum += c[k] * Self.power(u, i) * Self.power(v, j) }
      return sum
    }

    /// The surface's terms `u^i·v^j`, every `i + j` up to ``degree``. Cubic:
    /// a linear gradient, a wash and a vignette are fitted within a few
    /// levels (a cone's tip a little more); a quartic bends into the lit
    /// side of a white product composited on a gradient.
    static let degree = 3
    static let exponents: [(Int, Int)] = (0...degree).flatMap { total in (0...total).map { (total - $0, $0) } }

    @inline(__always) static func power(_ x: Double, _ n: Int) -> Double {
      var r = 1.0
      for _ in 0..<n { r *= x }
      return r
    }

    /// `image` with its ground flattened to ``reference`` (alpha unchanged).
    func flattened(_ image: RGBAImage) -> RGBAImage {
      let w = image.width, h = image.height
      let reference = [Double(self.reference.r), Double(self.reference.g), Double(self.reference.b)]
      var out = image.pixels
      out.withUnsafeMutableBufferPointer { p in
        for y in 0..<h {
          let v = Self.position(y, of: h)
          // Along a row the surface is a polynomial in u: its coefficients.
          var row = [[Double]](repeating: [Double](repeating: 0, count: Self.degree + 1), count: 3)
          for ch in 0..<3 {
            for (k, (i, j)) in Self.exponents.enumerated() { row[ch][i] += coefficients[ch][k] * Self.power(v, j) }
          }
          for x in 0..<w {
            let u = Self.position(x, of: w)
            let i = (y * w + x) * 4
            for ch in 0..<3 {
              var ground = 0.0
              for d in stride(from: Self.degree, through: 0, by: -1) { ground = ground * u + row[ch][d] }
              p[i + ch] = Self.flattened(p[i + ch], ground: ground, reference: reference[ch])
            }
          }
        }
      }
      return RGBAImage(width: w, height: h, pixels: out)
    }

    /// One channel value flattened: values from 0 to the ground under the
    /// pixel are scaled onto 0 to `reference` (black ink stays black, a
    /// product keeps its shading), and values from the ground to 255 onto
    /// `reference` to 255, so white stays white. A white card on a pink
    /// page stays white rather than picking up the page's complement
    /// (scaling alone takes white on a ground lighter in red than the
    /// reference to a cyan).
    @inline(__always) static func flattened(_ value: UInt8, ground: Double, reference: Double) -> UInt8 {
      let v = Double(value), g = min(max(ground, 1), 255)
      let out = v <= g || g >= 255 ? v * reference / g : reference + (v - g) * (255 - reference) / (255 - g)
      return UInt8(min(255, max(0, out.rounded())))
    }

    /// A pixel or tile centre's position `t` (of `n`) from −1 to 1.
    static func position(_ t: Int, of n: Int) -> Double { position(Double(t) + 0.5, of: n) }
    static func position(_ t: Double, of n: Int) -> Double { 2 * t / Double(n) - 1 }
  }

  /// The smoothly varying light ground of `image`, or `nil` when it has
  /// none (see ``GroundFieldTuning`` for each bound).
  ///
  /// Each tile's ground is its most common 8-level luma band and the bands
  /// beside it (the legibility rule's `tileGround`) when that covers half
  /// the tile and is light, as the mean colour of those opaque pixels (read
  /// on a grid of about 16 by 16 samples a tile). The border tiles are read
  /// first, and most pictures stop there. A
  /// cubic polynomial surface is fitted to those grounds by least squares, three
  /// times, each time without the tiles it leaves more than
  /// ``GroundFieldTuning/maxResidual`` off (a product's tiles, a photo's
  /// other surfaces). The picture has a ground field when its border's
  /// grounds vary (``GroundFieldTuning/minVariation``), neighbouring grounds
  /// step gently (``GroundFieldTuning/maxStep``), the tiles the surface
  /// explains take in nearly all the border and a large share of the
  /// picture, and the surface varies by no more than
  /// ``GroundFieldTuning/maxLift``.
  func groundField(of image: RGBAImage) -> GroundField? {
    typealias T = GroundFieldTuning
    let w = image.width, h = image.height
    let side = max(8, min(w, h) / T.tileDivisor)
    let tilesX = (w + side - 1) / side, tilesY = (h + side - 1) / side
    guard tilesX >= 3, tilesY >= 3 else { return nil }
    struct Tile {
      var u: Double
      var v: Double
      var colour: [Double]
      var border: Bool
      /// `ty * tilesX + tx`.
      var index: Int
    }
    // Every `stride`-th pixel of every `stride`-th row: about 16 a side.
    let stride = max(1, side / 16)
    func ground(_ tx: Int, _ ty: Int, _ p: UnsafeBufferPointer<UInt8>, _ bands: inout [Int]) -> Tile? {
      let x0 = tx * side, y0 = ty * side, x1 = min(w, x0 + side), y1 = min(h, y0 + side)
      for b in 0..<32 { bands[b] = 0 }
      var samples = 0
      for y in Swift.stride(from: y0, to: y1, by: stride) {
        for x in Swift.stride(from: x0, to: x1, by: stride) {
          samples += 1
          let i = (y * w + x) * 4
          guard p[i + 3] == 255 else { continue }
          bands[Luma.integer(p[i], p[i + 1], p[i + 2]) >> 3] += 1
        }
      }
      var mode = 0
      for b in 1..<32 where bands[b] > bands[mode] { mode = b }
      let count = bands[mode] + (mode > 0 ? bands[mode - 1] : 0) + (mode < 31 ? bands[mode + 1] : 0)
      guard Double(count) >= T.groundShare * Double(samples) else { return nil }
      var sum = (0, 0, 0), n = 0
      for y in Swift.stride(from: y0, to: y1, by: stride) {
        for x in Swift.stride(from: x0, to: x1, by: stride) {
          let i = (y * w + x) * 4
          guard p[i + 3] == 255, abs(Luma.integer(p[i], p[i + 1], p[i + 2]) >> 3 - mode) <= 1 else { continue }
          sum.0 += Int(p[i]); sum.1 += Int(p[i + 1]); sum.2 += Int(p[i + 2]); n += 1
        }
      }
      let colour = [Double(sum.0) / Double(n), Double(sum.1) / Double(n), Double(sum.2) / Double(n)]
      guard 0.2126 * colour[0] + 0.7152 * colour[1] + 0.0722 * colour[2] >= Double(T.minLuma) else { return nil }
      return Tile(u: GroundField.position((Double(x0) + Double(x1)) / 2, of: w),
                  v: GroundField.position((Double(y0) + Double(y1)) / 2, of: h), colour: colour,
                  border: tx == 0 || ty == 0 || tx == tilesX - 1 || ty == tilesY - 1, index: ty * tilesX + tx)
    }
    // The border first: most pictures (a flat ground, a photo) stop there.
    var tiles: [Tile] = []
    let borderTiles = 2 * (tilesX + tilesY) - 4
    let found = image.pixels.withUnsafeBufferPointer { p -> Bool in
      var bands = [Int](repeating: 0, count: 32)
      for ty in 0..<tilesY {
        for tx in 0..<tilesX where tx == 0 || ty == 0 || tx == tilesX - 1 || ty == tilesY - 1 {
          if let tile = ground(tx, ty, p, &bands) { tiles.append(tile) }
        }
      }
      guard Double(tiles.count) >= T.borderShare * Double(borderTiles) else { return false }
      // The border's grounds vary.
      var low = [Double](repeating: .infinity, count: 3), high = [Double](repeating: -.infinity, count: 3)
      for tile in tiles {
        for ch in 0..<3 { low[ch] = min(low[ch], tile.colour[ch]); high[ch] = max(high[ch], tile.colour[ch]) }
      }
      guard (0..<3).contains(where: { high[$0] - low[$0] >= T.minVariation }) else { return false }
      for ty in 1..<(tilesY - 1) {
        for tx in 1..<(tilesX - 1) {
          if let tile = ground(tx, ty, p, &bands) { tiles.append(tile) }
        }
      }
      return true
    }
    guard found, Double(tiles.count) >= T.groundTiles * Double(tilesX * tilesY) else { return nil }
    // Fit, leave out what the surface does not explain, fit again. The
    // first fit takes every tile; when a card or panel lighter than the
    // ground covers most of the picture that fit follows the card, and the
    // fit starts again from the border tiles alone (the ground runs round
    // the picture).
    let count = GroundField.exponents.count
    func terms(_ t: Tile) -> [Double] { GroundField.exponents.map { GroundField.power(t.u, $0.0) * GroundField.power(t.v, $0.1) } }
    func fitted(from seed: [Bool]) -> (coefficients: [[Double]], inliers: [Bool])? {
      var inliers = seed
      var coefficients: [[Double]] = []
      for _ in 0..<3 {
        var normal = [[Double]](repeating: [Double](repeating: 0, count: count), count: count)
        var right = [[Double]](repeating: [Double](repeating: 0, count: count), count: 3)
        var used = 0
        for (k, tile) in tiles.enumerated() where inliers[k] {
          let f = terms(tile)
          for i in 0..<count {
            for j in 0..<count { normal[i][j] += f[i] * f[j] }
            for ch in 0..<3 { right[ch][i] += f[i] * tile.colour[ch] }
          }
          used += 1
        }
        guard used >= 2 * count, let solved = Self.solve(normal, right) else { return nil }
        coefficients = solved
        let field = GroundField(coefficients: coefficients, reference: RGB8(r: 0, g: 0, b: 0))
        for (k, tile) in tiles.enumerated() {
          inliers[k] = (0..<3).allSatisfy { abs(field.value($0, u: tile.u, v: tile.v) - tile.colour[$0]) <= T.maxResidual }
        }
      }
      let explained = inliers.filter { $0 }.count
      let explainedBorder = zip(tiles, inliers).filter { $0.0.border && $0.1 }.count
      guard Double(explainedBorder) >= T.borderShare * Double(borderTiles),
            Double(explained) >= T.groundTiles * Double(tilesX * tilesY) else { return nil }
      return (coefficients, inliers)
    }
    guard let fit = fitted(from: [Bool](repeating: true, count: tiles.count)) ?? fitted(from: tiles.map(\.border))
    else { return nil }
    let (coefficients, inliers) = fit
    // Neighbouring grounds the surface explains step gently (a card or a
    // product on the ground is left out of the fit, and so are the steps
    // along its edge).
    var byIndex = [Int](repeating: -1, count: tilesX * tilesY)
    for (k, tile) in tiles.enumerated() where inliers[k] { byIndex[tile.index] = k }
    var pairs = 0, steep = 0
    for (k, a) in tiles.enumerated() where inliers[k] {
      let right = a.index % tilesX < tilesX - 1 ? byIndex[a.index + 1] : -1
      let below = a.index + tilesX < byIndex.count ? byIndex[a.index + tilesX] : -1
      for k in [right, below] where k >= 0 {
        pairs += 1
        if (0..<3).contains(where: { abs(a.colour[$0] - tiles[k].colour[$0]) > T.maxStep }) { steep += 1 }
      }
    }
    guard pairs > 0, Double(steep) <= T.stepOutliers * Double(pairs) else { return nil }
    // The surface over the tile centres: its lightest point, its spread.
    let field = GroundField(coefficients: coefficients, reference: RGB8(r: 0, g: 0, b: 0))
    var low = [Double](repeating: .infinity, count: 3), high = [Double](repeating: -.infinity, count: 3)
    var lightest = [0.0, 0.0, 0.0], lightestLuma = -Double.infinity
    for ty in 0..<tilesY {
      for tx in 0..<tilesX {
        let u = GroundField.position((Double(tx * side) + Double(min(w, (tx + 1) * side))) / 2, of: w)
        let v = GroundField.position((Double(ty * side) + Double(min(h, (ty + 1) * side))) / 2, of: h)
        let c = (0..<3).map { min(255, field.value($0, u: u, v: v)) }
        for ch in 0..<3 { low[ch] = min(low[ch], c[ch]); high[ch] = max(high[ch], c[ch]) }
        let l = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
        if l > lightestLuma { lightestLuma = l; lightest = c }
      }
    }
    guard (0..<3).allSatisfy({ low[$0] >= 1 && high[$0] <= T.maxLift * low[$0] }) else { return nil }
    return GroundField(coefficients: coefficients,
                       reference: RGB8(r: UInt8(lightest[0].rounded()), g: UInt8(lightest[1].rounded()),
                                       b: UInt8(lightest[2].rounded())))
  }

  /// Solves `normal · x = right[ch]` for each right-hand side (Gaussian
  /// elimination with partial pivoting); `nil` when `normal` is singular.
  static func solve(_ normal: [[Double]], _ right: [[Double]]) -> [[Double]]? {
    let n = normal.count
    var a = normal
    var b = right
    for col in 0..<n {
      var pivot = col
      for row in (col + 1)..<n where abs(a[row][col]) > abs(a[pivot][col]) { pivot = row }
      guard abs(a[pivot][col]) > 1e-9 else { return nil }
      a.swapAt(col, pivot)
      for ch in 0..<b.count { b[ch].swapAt(col, pivot) }
      for row in (col + 1)..<n {
        let f = a[row][col] / a[col][col]
        for k in col..<n { a[row][k] -= f * a[col][k] }
        for ch in 0..<b.count { b[ch][row] -= f * b[ch][col] }
      }
    }
    return b.map { rhs in
      var x = [Double](repeating: 0, count: n)
      for row in stride(from: n - 1, through: 0, by: -1) {
        var s = rhs[row]
        for k in (row + 1)..<n { s -= a[row][k] * x[k] }
        x[row] = s / a[row][row]
      }
      return x
    }
  }

  /// The picture the methods work on and what the classifier says of it:
  /// `image` itself, or, when it is opaque with a smoothly varying light
  /// ground (``groundField(of:)``) and its flattened form is a plain light
  /// ground, the flattened form. The ring alone may call such a picture a
  /// photograph (a gradient's ends differ) or a light ground whose bright
  /// centre is no ground (a vignette): either way the flattened picture is
  /// the one whose ground is one colour. An opaque picture the ring calls a
  /// photograph that is a flat graphic (``flatGraphicGround(of:ring:)``)
  /// is worked on as it is, as a light ground.
  func prepared(_ image: RGBAImage) -> (image: RGBAImage, analysis: Analysis) {
    var analysis = analyze(image)
    guard analysis.kind != .transparent else {
      let ink = inkAnalysis(of: image)
      analysis.darkInk = ink.isDarkInk
      analysis.lightCard = ink.isLightCard
      return (image, analysis)
    }
    if let field = groundField(of: image) {
      let flat = field.flattened(image)
      var flatAnalysis = analyze(flat)
      if flatAnalysis.kind == .lightBackground {
        flatAnalysis.backgroundSpread = max(flatAnalysis.backgroundSpread, GroundFieldTuning.flattenedSpread)
        return (flat, flatAnalysis)
      }
    }
    // A photo beside or above a light panel (a split layout, a caption
    // bar) stays a photograph: its panel is its ground, and the photo is
    // dimmed (`lightPanel(in:)`). A picture nearly all flat light fill is
    // drawn even when a fill reads as a panel (a calendar's grey header).
    if analysis.kind == .photograph, let graphic = flatGraphicGround(of: image, ring: analysis),
       graphic.flatLightShare >= FlatGraphicTuning.minShareWithPanel || lightPanel(in: image) == nil {
      return (image, graphic)
    }
    return (image, analysis)
  }
}
