import Foundation

/// The rules a dark variant must meet, judged the way a viewer sees it. The
/// dark-variant generator checks its own output with them (and tries its
/// next method when one fails), and `marquee verify` fails a published
/// variant that breaks one.
///
/// Both pictures are read as shown (`ShownPicture`: the light variant on
/// `background`, the dark one on `dark_surface`, at most 800 px on the
/// longer side).
///
/// - **Legible.** The *marks* of the light picture (text, line art, icons,
///   small shapes) keep a visible contrast against their own local ground.
///   The picture is cut into square tiles (`legibilityTileDivisor`: a
///   sixteenth of the shorter side, at least 8 px). In a tile whose ground
///   dominates (its most common luma band, ±8 levels, covers at least half
///   the tile), the marks are the pixels with at least `markContrast`
///   (2:1) WCAG contrast against the ground's median and at least
///   two such neighbours (a stroke, not dither or grain), and not soft shade
///   (`PictureLook+SoftShade`: a card's drop shadow, a glow). Each mark
///   pixel needs, in the dark variant, a contrast against the median of the
///   same ground pixels in the dark variant of at least
///   `min(0.6 · min(C_light, 4.5), 2)`, where `C_light` is its contrast in
///   the light picture: dark ink left on a dark ground (about 1.2:1) fails,
///   inverted ink and dimmed ink pass. A tile fails when under 75 % of its
///   mark pixels pass; the picture is illegible when at least 2 tiles, and
///   at least 10 % of the tiles with marks, fail.
///   A *large shape* is not a mark: when the pixels that differ from a
///   tile's ground as its marks do hold a square `shapeThickness` (2.5)
///   tiles wide within a tile of it (a product, a panel, a caption bar, the
///   page between heavy letters), its edge is counted apart
///   (`LegibilityReport.faintShapeTiles`), and so are the marks within two
///   tiles of such an edge on another ground (a contact shadow), and
///   only reported: a navy mug on the dark surface is a softer case than
///   text. A letter's stroke is never that thick (300 pt display type:
///   about 1.5 tiles), so heavy type left black on a ground turned dark
///   fails. A mark pixel within two pixels of a photograph's body (mark
///   pixels whose eight neighbours are marks, spanning `photoMarkSpread`
///   levels there: a photo in a white frame that turned dark), or joined
///   through marks to such a body or to a photograph's tile (at least
///   `photoTileBands` luma bands each holding `photoTileBandShare` of it:
///   the crushed black along a photo's edge), is part of the photograph,
///   not a mark; a caption beside it is counted. A ground
///   that is mostly transparency (the surface showing through) is left
///   out too, and so are see-through pixels: a cut-out's silhouette is
///   not a mark of the picture.
/// - **No glare** (`PictureLook+Glare`): at most 25 % of the dark variant
///   near white (luma 225 or more).
/// - **Photos stay photos.** When the light picture is a photograph
///   (`DarkVariantGenerator.classify`), the dark variant's luma correlates
///   with the light one's: Pearson r of the shown luma at least
///   `minPhotoCorrelation` (0.8), measured on the photographic part (light
///   grounds, such as a caption bar, left out: `lumaCorrelation`). Dimming
///   keeps r at 1; an inverted photo falls far below 0.
///
/// WCAG 2 contrast: `(L1 + 0.05) / (L2 + 0.05)` on relative luminance (WCAG
/// 2.1, "contrast ratio"); 4.5:1 is the level for body text (SC 1.4.3),
/// 3:1 for graphical objects (SC 1.4.11).
extension PictureLook {
  /// Marks differ from their ground by at least this WCAG contrast.
  public static let markContrast: Float = 2
  /// A mark keeps at least this fraction of its light contrast…
  public static let keptContrastFraction: Float = 0.6
  /// …counting the light contrast at most at this ratio…
  public static let countedContrastCap: Float = 4.5
  /// …or this ratio, whichever is lower.
  public static let sufficientContrast: Float = 2.0
  /// A tile's ground is its most common luma band when it covers at least
  /// this share of the tile.
  public static let groundShare = 0.5
  /// The tile side is the working picture's shorter side over this (at
  /// least 8 px).
  public static let legibilityTileDivisor = 16
  /// A tile fails when fewer than this share of its mark pixels pass.
  public static let tilePassShare = 0.75
  /// The picture is illegible when at least this share of its mark tiles
  /// (and at least `minFailingTiles`) fail.
  public static let maxFailingTileShare = 0.10
  /// The fewest failing tiles that make a picture illegible.
  public static let minFailingTiles = 2
  /// A mark pixel is part of a photograph, not ink, when the interior
  /// marks (all eight neighbours marks too) within this many pixels of
  /// it…
  public static let photoMarkRadius = 2
  /// …at least this many of them…
  public static let photoMarkMinInterior = 6
  /// …span this many luma levels or more in the light picture. A
  /// stroke's core is one ink (60–90 px letters in a q12 JPEG left dark on
  /// a ground turned dark still fail every tile); a photo's body spreads,
  /// and keeps its spread through lossy coding, which smooths fine texture
  /// away.
  public static let photoMarkSpread: UInt8 = 24
  /// A large shape holds a square this many tiles wide (see
  /// `legibility`): heavy display type's strokes are about 1.5 tiles; a
  /// product 4.5 tiles across holds a square of 3.2.
  public static let shapeThickness = 2.5
  /// Marks whose tone (their luma band and the two beside it) spans a
  /// connected region of at least this share of the picture are a region,
  /// not marks: the page's margin round a black card, seen from the card.
  /// A letter of 300 pt display type is under 2 % of a 1170x658 banner.
  public static let largeRegionShare = 0.1
  /// A tile is a photograph's when at least this many of its 8-level luma
  /// bands…
  public static let photoTileBands = 10
  /// …each hold this share of it: a photo spreads over its levels; text,
  /// line art and flat art keep a few inks with their anti-aliasing spread
  /// thinly between (and a JPEG's ringing near the ground's own bands).
  public static let photoTileBandShare = 0.015
  /// Pearson r a photograph's dark variant keeps with it…
  public static let minPhotoCorrelation = 0.8
  /// The photographs inside a picture that is not one (a polaroid on a
  /// page, a product photo in a card) are measured on the photographic
  /// tiles' pixels between these shown luma levels: a photo's midtones,
  /// leaving out what may be ink or ground (black or white text over it,
  /// a page meeting it inside a tile)…
  public static let photoTileMidtones: ClosedRange<UInt8> = 32...191
  /// …when at least this many such pixels are found (at working size)…
  public static let minPhotoTilePixels = 2000
  /// …and their r must stay above this: a photo inverted correlates
  /// negatively (−1.00 for a polaroid's photo inverted whole), one kept or
  /// dimmed near 1; graphics with a photo-like texture partly inverted land
  /// between (a generated animated sticker 0.78, a JPEG's noisy soft
  /// shadow 0.33), and are the other rules' business.
  public static let minPhotoTileCorrelation = 0.0
  /// …in tiles where this share of the pixels are rough: midtones, with
  /// their neighbours across, whose luma's second difference (left − 2 ×
  /// own + right) is at least `photoTileRoughStep` levels. Photos' tiles
  /// measured 0.12–0.6 (median 0.4); a soft drop shadow's ramp, even
  /// through JPEG, 0–0.05.
  public static let photoTileRoughShare = 0.1
  /// …and at least this share of the tile's pixels are midtones.
  public static let photoTileMidtoneShare = 0.5
  /// See `photoTileRoughShare`.
  public static let photoTileRoughStep = 6
  /// …when the light picture's luma has at least this standard deviation
  /// (levels); a flatter picture has nothing to invert.
  public static let photoSpread = 8.0
  /// The luma from which a tile's dominant ground is a light ground that
  /// the r rule leaves out (a caption bar, a split layout's panel).
  public static let lightGroundLuma = 200
  /// The share of a tile that light ground covers for the r rule to leave
  /// it out: a quarter, so that tiles of heavy text on a caption bar go
  /// too (inverted, they would outweigh a whole photo's grain).
  public static let lightGroundShare = 0.25
  /// A tile with at least this share of light pixels (the light band and
  /// the one under it) between two light-ground tiles is left out too:
  /// heavy letters on a caption bar.
  public static let textGroundShare = 0.1
  /// The least share of the picture the r rule is measured on; below it,
  /// on the whole picture.
  public static let minPhotographicShare = 0.2
  /// A tile whose most common luma band, ±1 band, covers this share of it
  /// is flat: the inside of a heavy letter's stroke.
  public static let flatTileShare = 0.9
  /// …and dark: its band under this luma (a photo's flat sky is not ink).
  public static let flatInkLuma = 64
  /// A neighbour step in this range (levels) is texture…
  public static let textureStep = 2...24
  /// …and the r rule applies when at least this share of the measured
  /// pixels has it. Measured on pictures at half size: the corpus photos
  /// 31–78 %, the tests' grainy, blurred test pattern 16–18 % counting its
  /// white caption bar or half, flat graphics (a card on a brand page, a
  /// settings screenshot) 0 %.
  public static let minTexturedShare = 0.1

  /// The contrast a mark with light contrast `light` needs in the dark
  /// variant.
  @inline(__always)
  public static func requiredContrast(light: Float) -> Float {
    min(keptContrastFraction * min(light, countedContrastCap), sufficientContrast)
  }

  /// What the legibility rule found.
  public struct LegibilityReport: Sendable, Equatable {
    /// Tiles with marks on a dominant ground (large-shape edges excluded).
    public var markTiles = 0
    /// Of those, the tiles whose marks lost their contrast.
    public var failingTiles = 0
    /// Edges of large shapes that lost their contrast (reported only).
    public var faintShapeTiles = 0
    /// The worst failing tile: its centre as fractions of the width and
    /// height, the median light and dark contrast of its marks.
    public var worst: (x: Double, y: Double, light: Float, dark: Float)?

    /// Whether the marks stay legible (see `PictureLook`'s notes).
    public var isLegible: Bool {
      failingTiles < PictureLook.minFailingTiles
        || Double(failingTiles) < PictureLook.maxFailingTileShare * Double(markTiles)
    }

    public static func == (a: Self, b: Self) -> Bool {
      a.markTiles == b.markTiles && a.failingTiles == b.failingTiles && a.faintShapeTiles == b.faintShapeTiles
    }
  }

  /// A tile's ground, as both rules read it: its most common 8-level luma
  /// band (`mode`, 0–31) and how many pixels lie in that band or the two
  /// beside it (`ground`). `bands` gets the tile's 32 band counts.
  static func tileGround(_ picture: ShownPicture, x0: Int, y0: Int, x1: Int, y1: Int,
                         bands: inout [Int]) -> (mode: Int, ground: Int) {
    let w = picture.width
    for b in 0..<32 { bands[b] = 0 }
    for y in y0..<y1 {
      for x in x0..<x1 { bands[Int(picture.luma[y * w + x] >> 3)] += 1 }
    }
    var mode = 0
    for b in 1..<32 where bands[b] > bands[mode] { mode = b }
    let ground = bands[mode] + (mode > 0 ? bands[mode - 1] : 0) + (mode < 31 ? bands[mode + 1] : 0)
    return (mode, ground)
  }

  /// Measures the legibility rule on two pictures of the same working size.
  ///
  /// - Parameter lightSoftShade: `softShade(of: light)` when the caller has
  ///   it (the generator judges several candidates against one light
  ///   picture); read here otherwise.
  static func legibility(light: ShownPicture, dark: ShownPicture, lightSoftShade: [Bool]?? = nil) -> LegibilityReport {
    precondition(light.width == dark.width && light.height == dark.height, "legibility: sizes differ")
    let w = light.width, h = light.height
    let side = max(8, min(w, h) / legibilityTileDivisor)
    let tilesX = (w + side - 1) / side, tilesY = (h + side - 1) / side
    struct Tile {
      var groundBand = -1
      var markBand = -1
      var marks = 0
      var passing = 0
      var lightContrast: Float = 0
      var darkContrast: Float = 0
      var groundLuminance: Float = 0
    }
    var tiles = [Tile](repeating: Tile(), count: tilesX * tilesY)
    var bandCount = [Int](repeating: 0, count: 32)
    var darkHistogram = [Int](repeating: 0, count: 256)
    var lightHistogram = [Int](repeating: 0, count: 256)
    var lightContrasts: [Float] = []
    var candidate = [Bool](repeating: false, count: side * side)
    var interior = [Bool](repeating: false, count: side * side)
    var darkContrasts: [Float] = []
    // Per pixel: a mark's light and dark contrast (0 elsewhere); whether it
    // links a component (a mark candidate, or in a photographic tile), and
    // whether it is photographic (a photo's textured body, or its tile).
    var markLight = [Float](repeating: 0, count: w * h)
    var markDark = [Float](repeating: 0, count: w * h)
    var linked = [Bool](repeating: false, count: w * h)
    var photographic = [Bool](repeating: false, count: w * h)
    let soft = lightSoftShade ?? softShade(of: light)
    for ty in 0..<tilesY {
      for tx in 0..<tilesX {
        let x0 = tx * side, y0 = ty * side
        let x1 = min(w, x0 + side), y1 = min(h, y0 + side)
        let area = (x1 - x0) * (y1 - y0)
        let (mode, ground) = tileGround(light, x0: x0, y0: y0, x1: x1, y1: y1, bands: &bandCount)
        var tile = Tile()
        var spread = 0
        for b in 0..<32 where Double(bandCount[b]) >= photoTileBandShare * Double(area) { spread += 1 }
        if spread >= photoTileBands {
          for y in y0..<y1 { for x in x0..<x1 { linked[y * w + x] = true; photographic[y * w + x] = true } }
        }
        tile.groundBand = Double(ground) >= groundShare * Double(area) ? mode : -1
        // A ground that is mostly the surface showing through transparency
        // is not the picture's: marks on it are the alpha treatment's
        // business (a cut-out's silhouette is the soft case).
        var seeThrough = 0
        for y in y0..<y1 {
          for x in x0..<x1 where !light.opaque[y * w + x] && abs(Int(light.luma[y * w + x] >> 3) - mode) <= 1 { seeThrough += 1 }
        }
        if seeThrough * 2 > ground { tile.groundBand = -1 }
        guard tile.groundBand >= 0, ground < area else {
          tiles[ty * tilesX + tx] = tile
          continue
        }
        // The ground: the median luma of its pixels in each picture.
        for i in 0..<256 { lightHistogram[i] = 0; darkHistogram[i] = 0 }
        for y in y0..<y1 {
          for x in x0..<x1 {
            let o = y * w + x
            if abs(Int(light.luma[o] >> 3) - mode) <= 1 {
              lightHistogram[Int(light.luma[o])] += 1
              darkHistogram[Int(dark.luma[o])] += 1
            }
          }
        }
        func median(_ histogram: [Int]) -> Float {
          var seen = 0, level = 0
          while level < 255 {
            seen += histogram[level]
            if seen * 2 >= ground { break }
            level += 1
          }
          return ShownPicture.luminance(ofLuma: level)
        }
        let groundLight = median(lightHistogram)
        tile.groundLuminance = groundLight
        let groundDark = median(darkHistogram)
        lightContrasts.removeAll(keepingCapacity: true)
        darkContrasts.removeAll(keepingCapacity: true)
        // Mark candidates first; a mark pixel needs two mark neighbours
        // (a stroke, not dither or grain).
        let tw = x1 - x0
        for y in y0..<y1 {
          for x in x0..<x1 {
            let o = y * w + x
            candidate[(y - y0) * tw + (x - x0)] =
              light.opaque[o] && abs(Int(light.luma[o] >> 3) - mode) > 1
              && ShownPicture.contrast(light.luminance[o], groundLight) >= markContrast
              && !(soft?[o] ?? false)
            if candidate[(y - y0) * tw + (x - x0)] { linked[o] = true }
          }
        }
        // Interior candidates: all eight neighbours are candidates too (the
        // body of a photograph, the core of a heavy stroke).
        let th = y1 - y0
        for ly in 0..<th {
          for lx in 0..<tw {
            var all = candidate[ly * tw + lx] && lx > 0 && ly > 0 && lx < tw - 1 && ly < th - 1
            if all {
              for ny in (ly - 1)...(ly + 1) where all {
                for nx in (lx - 1)...(lx + 1) where !candidate[ny * tw + nx] { all = false }
              }
            }
            interior[ly * tw + lx] = all
          }
        }
        do {
          for y in y0..<y1 {
            for x in x0..<x1 {
              let o = y * w + x
              let lx = x - x0, ly = y - y0
              guard candidate[ly * tw + lx] else { continue }
              var neighbours = 0
              for ny in max(0, ly - 1)...min(y1 - y0 - 1, ly + 1) {
                for nx in max(0, lx - 1)...min(tw - 1, lx + 1) where candidate[ny * tw + nx] { neighbours += 1 }
              }
              guard neighbours >= 3 else { continue }  // itself and two others
              // Part of a photograph (its edge against a frame that turned
              // dark): the interior within `photoMarkRadius` spans
              // `photoMarkSpread` levels or more. A stroke's core is one ink.
              var lo: UInt8 = 255, hi: UInt8 = 0, inside = 0
              let r = photoMarkRadius
              for ny in max(0, ly - r)...min(th - 1, ly + r) {
                for nx in max(0, lx - r)...min(tw - 1, lx + r) where interior[ny * tw + nx] {
                  let v = light.luma[(y0 + ny) * w + x0 + nx]
                  lo = min(lo, v); hi = max(hi, v)
                  inside += 1
                }
              }
              if inside >= photoMarkMinInterior && hi - lo >= photoMarkSpread {
                photographic[o] = true
                continue
              }
              let cl = ShownPicture.contrast(light.luminance[o], groundLight)
              // The best contrast within one pixel: coding moves an edge by
              // a pixel, it does not make a stroke vanish. Against one
              // ground, contrast only grows away from it, so the best is at
              // the lightest or the darkest of the nine.
              var lightest: Float = 0, darkest: Float = 1
              for dy in max(0, y - 1)...min(h - 1, y + 1) {
                for dx in max(0, x - 1)...min(w - 1, x + 1) {
                  let l = dark.luminance[dy * w + dx]
                  lightest = max(lightest, l)
                  darkest = min(darkest, l)
                }
              }
              let cd = max(1, ShownPicture.contrast(lightest, groundDark), ShownPicture.contrast(darkest, groundDark))
              markLight[o] = cl
              markDark[o] = cd
            }
          }
        }
        tiles[ty * tilesX + tx] = tile
      }
    }
    // A mark connected to a photograph (its textured body, or a tile of
    // it) is part of that photograph: the crushed black of a photo's edge
    // against a mat that turned dark. Heavy letters connect to nothing
    // but their page.
    var component = [Int32](repeating: -1, count: w * h)
    var componentIsPhoto: [Bool] = []
    var stack: [Int] = []
    for start in 0..<(w * h) where linked[start] && component[start] < 0 {
      let label = Int32(componentIsPhoto.count)
      var photo = false
      component[start] = label
      stack.append(start)
      while let o = stack.popLast() {
        if photographic[o] { photo = true }
        let x = o % w, y = o / w
        for ny in max(0, y - 1)...min(h - 1, y + 1) {
          for nx in max(0, x - 1)...min(w - 1, x + 1) {
            let q = ny * w + nx
            if linked[q] && component[q] < 0 { component[q] = label; stack.append(q) }
          }
        }
      }
      componentIsPhoto.append(photo)
    }
    for ty in 0..<tilesY {
      for tx in 0..<tilesX {
        var tile = tiles[ty * tilesX + tx]
        guard tile.groundBand >= 0 else { continue }
        let x0 = tx * side, y0 = ty * side
        let x1 = min(w, x0 + side), y1 = min(h, y0 + side)
        let area = (x1 - x0) * (y1 - y0)
        lightContrasts.removeAll(keepingCapacity: true)
        darkContrasts.removeAll(keepingCapacity: true)
        bandCount.withUnsafeMutableBufferPointer { bands in
          for b in 0..<32 { bands[b] = 0 }
          for y in y0..<y1 {
            for x in x0..<x1 {
              let o = y * w + x
              let cl = markLight[o]
              guard cl > 0, !componentIsPhoto[Int(component[o])] else { continue }
              let cd = markDark[o]
              tile.marks += 1
              if cd >= requiredContrast(light: cl) { tile.passing += 1 }
              lightContrasts.append(cl)
              darkContrasts.append(cd)
              bands[Int(light.luma[o] >> 3)] += 1
            }
          }
          var markMode = 0
          for b in 1..<32 where bands[b] > bands[markMode] { markMode = b }
          tile.markBand = markMode
        }
        if tile.marks < max(4, area / 50) {
          tile.marks = 0
        } else {
          lightContrasts.sort()
          darkContrasts.sort()
          tile.lightContrast = lightContrasts[lightContrasts.count / 2]
          tile.darkContrast = darkContrasts[darkContrasts.count / 2]
        }
        tiles[ty * tilesX + tx] = tile
      }
    }
    // A large shape: its marks are thick, or one large region. The pixels
    // that differ from the tile's ground as its marks do (`markContrast`)
    // hold a square `shapeThickness` tiles wide within a tile of it, or
    // the marks' tone spans a connected region of `largeRegionShare` of
    // the picture. A letter's stroke, however heavy, is thinner (display
    // type at 300 pt: about 1.5 tiles) and a letter smaller; a product, a
    // panel, a caption bar, the page and its margin round a card are not.
    var isShape = [Bool](repeating: false, count: tiles.count)
    let square = Int((shapeThickness * Double(side)).rounded())
    // Regions of one tone (8-level luma bands within one of a band `b`,
    // 4-connected), labelled per band on first use, and their sizes.
    var regionLabels: [Int: [Int32]] = [:]
    var regionSizes: [Int: [Int]] = [:]
    var fill: [Int] = []
    func isLargeRegion(_ tx: Int, _ ty: Int) -> Bool {
      let b = tiles[ty * tilesX + tx].markBand
      if regionLabels[b] == nil {
        var labels = [Int32](repeating: -1, count: w * h)
        var sizes: [Int] = []
        light.luma.withUnsafeBufferPointer { luma in
          light.opaque.withUnsafeBufferPointer { opaque in
            labels.withUnsafeMutableBufferPointer { labels in
              func inTone(_ o: Int) -> Bool { labels[o] < 0 && opaque[o] && abs(Int(luma[o] >> 3) - b) <= 1 }
              for start in 0..<(w * h) where inTone(start) {
                let label = Int32(sizes.count)
                var size = 0
                labels[start] = label
                fill.append(start)
                while let o = fill.popLast() {
                  size += 1
                  let x = o % w
                  if x > 0 && inTone(o - 1) { labels[o - 1] = label; fill.append(o - 1) }
                  if x < w - 1 && inTone(o + 1) { labels[o + 1] = label; fill.append(o + 1) }
                  if o >= w && inTone(o - w) { labels[o - w] = label; fill.append(o - w) }
                  if o + w < w * h && inTone(o + w) { labels[o + w] = label; fill.append(o + w) }
                }
                sizes.append(size)
              }
            }
          }
        }
        regionLabels[b] = labels
        regionSizes[b] = sizes
      }
      guard let labels = regionLabels[b], let sizes = regionSizes[b] else { return false }
      let x0 = tx * side, y0 = ty * side
      var largest = 0
      for y in y0..<min(h, y0 + side) {
        for x in x0..<min(w, x0 + side) where markLight[y * w + x] > 0 && labels[y * w + x] >= 0 {
          largest = max(largest, sizes[Int(labels[y * w + x])])
        }
      }
      return Double(largest) >= largeRegionShare * Double(w * h)
    }
    // Each tile with marks reads a window of 9x9 tiles round it. A
    // summed-area table of the pixels that differ from one ground is built
    // per window, or once over the whole picture for a ground whose
    // windows together cover more pixels than the picture has (a page's
    // text): a square's sum is the same in either table.
    func window(_ tx: Int, _ ty: Int) -> (x0: Int, y0: Int, x1: Int, y1: Int) {
      (max(0, tx - 4) * side, max(0, ty - 4) * side, min(w, (tx + 5) * side), min(h, (ty + 5) * side))
    }
    var windowArea: [Float: Int] = [:]
    for ty in 0..<tilesY {
      for tx in 0..<tilesX where tiles[ty * tilesX + tx].marks > 0 {
        let win = window(tx, ty)
        guard square <= min(win.x1 - win.x0, win.y1 - win.y0) else { continue }
        windowArea[tiles[ty * tilesX + tx].groundLuminance, default: 0] += (win.x1 - win.x0) * (win.y1 - win.y0)
      }
    }
    /// The summed-area table of the opaque pixels differing from `ground`
    /// by `markContrast`, over x0..<x1, y0..<y1, into `table`: row stride
    /// `x1 - x0 + 1`, entry (x, y) the count above and left of it.
    func differingTable(ground: Float, x0: Int, y0: Int, x1: Int, y1: Int, into table: inout [Int32]) {
      let ww = x1 - x0, wh = y1 - y0, stride = ww + 1
      table.removeAll(keepingCapacity: true)
      table.append(contentsOf: repeatElement(0, count: stride * (wh + 1)))
      light.luminance.withUnsafeBufferPointer { luminance in
        light.opaque.withUnsafeBufferPointer { opaque in
          table.withUnsafeMutableBufferPointer { t in
            for y in 0..<wh {
              var row: Int32 = 0
              let line = (y0 + y) * w + x0
              for x in 0..<ww {
                if opaque[line + x] && ShownPicture.contrast(luminance[line + x], ground) >= markContrast { row += 1 }
                t[(y + 1) * stride + x + 1] = t[y * stride + x + 1] + row
              }
            }
          }
        }
      }
    }
    var wholeTables: [Float: [Int32]] = [:]
    var windowTable: [Int32] = []
    for ty in 0..<tilesY {
      for tx in 0..<tilesX {
        let tile = tiles[ty * tilesX + tx]
        guard tile.marks > 0 else { continue }
        let (wx0, wy0, wx1, wy1) = window(tx, ty)
        let ww = wx1 - wx0, wh = wy1 - wy0
        guard square <= min(ww, wh) else { continue }
        let ground = tile.groundLuminance
        let stride: Int, originX: Int, originY: Int
        let usesWhole = windowArea[ground, default: 0] > w * h
        if usesWhole {
          if wholeTables[ground] == nil {
            var whole: [Int32] = []
            differingTable(ground: ground, x0: 0, y0: 0, x1: w, y1: h, into: &whole)
            wholeTables[ground] = whole
          }
          (stride, originX, originY) = (w + 1, wx0, wy0)
        } else {
          differingTable(ground: ground, x0: wx0, y0: wy0, x1: wx1, y1: wy1, into: &windowTable)
          (stride, originX, originY) = (ww + 1, 0, 0)
        }
        let full = Int32(square * square)
        // Squares that reach the tiles beside this one.
        let nearX = (max(0, (tx - 1) * side) - wx0)..<(min(w, (tx + 2) * side) - wx0)
        let nearY = (max(0, (ty - 1) * side) - wy0)..<(min(h, (ty + 2) * side) - wy0)
        var thick = false
        func scan(_ t: UnsafeBufferPointer<Int32>) {
          for y in max(0, nearY.lowerBound - square + 1)...min(wh - square, nearY.upperBound - 1) where !thick {
            let top = (originY + y) * stride + originX, bottom = (originY + y + square) * stride + originX
            for x in max(0, nearX.lowerBound - square + 1)...min(ww - square, nearX.upperBound - 1) {
              let sum = t[bottom + x + square] - t[top + x + square] - t[bottom + x] + t[top + x]
              if sum == full { thick = true; break }
            }
          }
        }
        if usesWhole, let whole = wholeTables[ground] {
          whole.withUnsafeBufferPointer(scan)
        } else {
          windowTable.withUnsafeBufferPointer(scan)
        }
        isShape[ty * tilesX + tx] = thick || isLargeRegion(tx, ty)
      }
    }
    var report = LegibilityReport()
    var worstScore: Float = .infinity
    for ty in 0..<tilesY {
      for tx in 0..<tilesX {
        let tile = tiles[ty * tilesX + tx]
        guard tile.marks > 0 else { continue }
        // Marks beside a large shape's edge belong to it (a product's
        // contact shadow, its rim), unless that shape is the tile's own
        // ground: ink beside the page between heavy letters is ink.
        var besideShape = isShape[ty * tilesX + tx]
        for ny in max(0, ty - 2)...min(tilesY - 1, ty + 2) {
          for nx in max(0, tx - 2)...min(tilesX - 1, tx + 2) where isShape[ny * tilesX + nx]
            && abs(tiles[ny * tilesX + nx].markBand - tile.groundBand) > 1 { besideShape = true }
        }
        let fails = Double(tile.passing) < tilePassShare * Double(tile.marks)
        if besideShape {
          if fails { report.faintShapeTiles += 1 }
          continue
        }
        report.markTiles += 1
        guard fails else { continue }
        report.failingTiles += 1
        let score = tile.darkContrast / requiredContrast(light: tile.lightContrast)
        if score < worstScore {
          worstScore = score
          report.worst = ((Double(tx) + 0.5) * Double(side) / Double(w), (Double(ty) + 0.5) * Double(side) / Double(h),
                          tile.lightContrast, tile.darkContrast)
        }
      }
    }
    return report
  }

  /// The soft shade of a shown picture (`PictureLook+SoftShade`). Its
  /// ground is the flat light part of the picture: opaque pixels of luma
  /// `lightGroundLuma` or more whose 3x3 neighbourhood spans at most
  /// `softGroundRange` levels (a page, a card, the flat tail of a shadow).
  /// Every other opaque pixel may be shade.
  static func softShade(of picture: ShownPicture) -> [Bool]? {
    let w = picture.width, h = picture.height
    guard w > 0, h > 0 else { return nil }
    var input = [Int16](repeating: SoftShadeInput.excluded, count: w * h)
    // The 3x3 range from running minima and maxima: three across each
    // row, then three down.
    var rowMin = [UInt8](repeating: 0, count: w * h)
    var rowMax = [UInt8](repeating: 0, count: w * h)
    picture.luma.withUnsafeBufferPointer { luma in
      rowMin.withUnsafeMutableBufferPointer { lo in
        rowMax.withUnsafeMutableBufferPointer { hi in
          for y in 0..<h {
            let base = y * w
            for x in 0..<w {
              let a = luma[base + max(0, x - 1)], b = luma[base + x], c = luma[base + min(w - 1, x + 1)]
              lo[base + x] = min(a, b, c)
              hi[base + x] = max(a, b, c)
            }
          }
          let light = UInt8(lightGroundLuma), range = UInt8(softGroundRange)
          picture.opaque.withUnsafeBufferPointer { opaque in
            input.withUnsafeMutableBufferPointer { out in
              for y in 0..<h {
                let up = max(0, y - 1) * w, row = y * w, down = min(h - 1, y + 1) * w
                for x in 0..<w where opaque[row + x] {
                  let l = luma[row + x]
                  if l >= light {
                    let least = min(lo[up + x], lo[row + x], lo[down + x])
                    let most = max(hi[up + x], hi[row + x], hi[down + x])
                    if most - least <= range {
                      out[row + x] = SoftShadeInput.ground(Int(l))
                      continue
                    }
                  }
                  out[row + x] = Int16(l)
                }
              }
            }
          }
        }
      }
    }
    return softShade(input, width: w, height: h, scale: 1)
  }

  /// Pearson's r between the shown luma of two pictures of the same working
  /// size over the light picture's photographic tiles (the legibility
  /// rule's tiles with `photoTileBands` luma bands each holding
  /// `photoTileBandShare` of the tile, mostly midtones and rough:
  /// `photoTileMidtoneShare`, `photoTileRoughShare`),
  /// counting their pixels whose light
  /// luma lies in `photoTileMidtones`; 1 when there are fewer than
  /// `minPhotoTilePixels` of them, or they are nearly flat
  /// (`photoSpread`). A photo kept or dimmed keeps r near 1; an inverted
  /// one falls below 0.
  static func photoTileCorrelation(light: ShownPicture, dark: ShownPicture) -> Double {
    let w = light.width, h = light.height
    let side = max(8, min(w, h) / legibilityTileDivisor)
    let tilesX = (w + side - 1) / side, tilesY = (h + side - 1) / side
    var bandCount = [Int](repeating: 0, count: 32)
    var n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0
    for ty in 0..<tilesY {
      for tx in 0..<tilesX {
        let x0 = tx * side, y0 = ty * side, x1 = min(w, x0 + side), y1 = min(h, y0 + side)
        _ = tileGround(light, x0: x0, y0: y0, x1: x1, y1: y1, bands: &bandCount)
        let area = Double((x1 - x0) * (y1 - y0))
        guard bandCount.filter({ Double($0) >= photoTileBandShare * area }).count >= photoTileBands else { continue }
        // A photo's tile is rough; a soft shadow's or a gradient's ramp
        // spans as many bands but is smooth (its second difference ~0).
        // …and mostly midtones: text on a page is mostly page.
        var midtones = 0
        for y in y0..<y1 { for x in x0..<x1 where photoTileMidtones.contains(light.luma[y * w + x]) { midtones += 1 } }
        guard Double(midtones) >= photoTileMidtoneShare * area else { continue }
        var rough = 0
        for y in y0..<y1 where x1 - x0 >= 3 {
          for x in (x0 + 1)..<(x1 - 1) {
            let o = y * w + x
            let a = light.luma[o - 1], b = light.luma[o], c = light.luma[o + 1]
            // Among midtones only: a letter's anti-aliased edge between ink
            // and ground is not a photo's grain.
            guard photoTileMidtones.contains(a) && photoTileMidtones.contains(b) && photoTileMidtones.contains(c) else { continue }
            if abs(Int(a) - 2 * Int(b) + Int(c)) >= photoTileRoughStep { rough += 1 }
          }
        }
        guard Double(rough) >= photoTileRoughShare * area else { continue }
        for y in y0..<y1 {
          for x in x0..<x1 where photoTileMidtones.contains(light.luma[y * w + x]) {
            let a = Double(light.luma[y * w + x]), b = Double(dark.luma[y * w + x])
            n += 1; sx += a; sy += b; sxx += a * a; syy += b * b; sxy += a * b
          }
        }
      }
    }
    guard n >= Double(minPhotoTilePixels) else { return 1 }
    let vx = sxx - sx * sx / n, vy = syy - sy * sy / n
    guard vx > n * photoSpread * photoSpread, vy > n * 1e-3 else { return 1 }
    return (sxy - sx * sy / n) / (vx * vy).squareRoot()
  }

  /// Pearson's r between the shown luma of two pictures of the same working
  /// size, over the light picture's photographic part; 1 when that part is
  /// nearly flat (`photoSpread`).
  ///
  /// The photographic part leaves out the *light-ground tiles*: tiles (the
  /// legibility rule's) whose most common luma band, ±1 band, covers at
  /// least `lightGroundShare` of the tile at luma `lightGroundLuma` or more: a
  /// white caption bar, the white half of a split layout, paper behind
  /// text; then, until no tile joins, tiles with `textGroundShare` of
  /// light pixels that have at least two left-out tiles beside them (heavy
  /// letters on the bar), and flat dark tiles (`flatTileShare` in one band
  /// ±1 under `flatInkLuma`) beside one
  /// (the inside of a 200 px price's strokes on the white half). Dark
  /// mode may turn those into dark panels (their text inverted)
  /// while the photo beside them is dimmed. When under
  /// `minPhotographicShare` of the picture is left, every pixel counts, so
  /// an inverted light photograph (a foggy sky, a snow field) still fails.
  static func lumaCorrelation(light: ShownPicture, dark: ShownPicture) -> Double {
    let w = light.width, h = light.height
    let side = max(8, min(w, h) / legibilityTileDivisor)
    let tilesX = (w + side - 1) / side, tilesY = (h + side - 1) / side
    // Each tile: is it light ground, what share of it is light, is it flat.
    var lightGround = [Bool](repeating: false, count: tilesX * tilesY)
    var lightShare = [Double](repeating: 0, count: tilesX * tilesY)
    var flat = [Bool](repeating: false, count: tilesX * tilesY)
    var bandCount = [Int](repeating: 0, count: 32)
    let lightBand = lightGroundLuma / 8
    for ty in 0..<tilesY {
      for tx in 0..<tilesX {
        let x0 = tx * side, y0 = ty * side, x1 = min(w, x0 + side), y1 = min(h, y0 + side)
        let (mode, ground) = tileGround(light, x0: x0, y0: y0, x1: x1, y1: y1, bands: &bandCount)
        let area = Double((x1 - x0) * (y1 - y0))
        lightGround[ty * tilesX + tx] = mode >= lightBand && Double(ground) >= lightGroundShare * area
        lightShare[ty * tilesX + tx] = Double(bandCount[(lightBand - 1)...].reduce(0, +)) / area
        flat[ty * tilesX + tx] = mode < flatInkLuma / 8 && Double(ground) >= flatTileShare * area
      }
    }
    // Heavy text on a light ground (a caption bar's letters) fills some
    // tiles nearly whole: a tile with some light ground between two
    // light-ground neighbours goes with them.
    var leftOut = lightGround
    // Heavy text on a light ground (a caption bar's letters, a 200 px price
    // on a split layout's white half) fills some tiles nearly whole: a tile
    // with some light ground and two left-out neighbours goes with them,
    // and so does a flat dark tile (a stroke's inside) beside one, until
    // no tile joins.
    var joined = true
    while joined {
      joined = false
      for ty in 0..<tilesY {
        for tx in 0..<tilesX where !leftOut[ty * tilesX + tx] {
          let t = ty * tilesX + tx
          guard lightShare[t] >= textGroundShare || flat[t] else { continue }
          var around = 0
          if tx > 0, leftOut[t - 1] { around += 1 }
          if tx < tilesX - 1, leftOut[t + 1] { around += 1 }
          if ty > 0, leftOut[t - tilesX] { around += 1 }
          if ty < tilesY - 1, leftOut[t + tilesX] { around += 1 }
          if around >= 2 || (flat[t] && around >= 1) {
            leftOut[t] = true
            joined = true
          }
        }
      }
    }
    var counted = [Bool](repeating: true, count: w * h)
    var excluded = 0
    for ty in 0..<tilesY {
      for tx in 0..<tilesX where leftOut[ty * tilesX + tx] {
        let x0 = tx * side, y0 = ty * side, x1 = min(w, x0 + side), y1 = min(h, y0 + side)
        for y in y0..<y1 {
          for x in x0..<x1 { counted[y * w + x] = false }
        }
        excluded += (x1 - x0) * (y1 - y0)
      }
    }
    // A tile beside a left-out one that holds its edge (a split layout's
    // white half meeting the photo inside a tile): its light pixels are
    // that ground, not the photo's.
    for ty in 0..<tilesY {
      for tx in 0..<tilesX where !leftOut[ty * tilesX + tx] {
        let t = ty * tilesX + tx
        guard (tx > 0 && leftOut[t - 1]) || (tx < tilesX - 1 && leftOut[t + 1])
                || (ty > 0 && leftOut[t - tilesX]) || (ty < tilesY - 1 && leftOut[t + tilesX]) else { continue }
        let x0 = tx * side, y0 = ty * side, x1 = min(w, x0 + side), y1 = min(h, y0 + side)
        for y in y0..<y1 {
          for x in x0..<x1 where Int(light.luma[y * w + x]) >= (lightBand - 1) * 8 {
            counted[y * w + x] = false
            excluded += 1
          }
        }
      }
    }
    let useAll = Double(w * h - excluded) < minPhotographicShare * Double(w * h)
    var n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0
    var textured = 0
    for i in 0..<light.luma.count where useAll || counted[i] {
      let x = Double(light.luma[i]), y = Double(dark.luma[i])
      n += 1; sx += x; sy += y; sxx += x * x; syy += y * y; sxy += x * y
      // Texture: a step to the right neighbour of a few levels, as grain,
      // foliage or skin have; flat fills and their edges have none or one
      // large one.
      if i % w < w - 1 {
        let step = abs(Int(light.luma[i]) - Int(light.luma[i + 1]))
        if step >= textureStep.lowerBound && step <= textureStep.upperBound { textured += 1 }
      }
    }
    guard n > 0 else { return 1 }
    // Flat graphics (a brand-coloured page, buttons, cards): nothing there
    // is a photograph to keep.
    guard Double(textured) >= minTexturedShare * n else { return 1 }
    let vx = sxx - sx * sx / n, vy = syy - sy * sy / n
    // Nothing to invert: a flat card's coding noise correlates with nothing.
    guard vx > n * photoSpread * photoSpread, vy > n * 1e-3 else { return 1 }
    return (sxy - sx * sy / n) / (vx * vy).squareRoot()
  }

  /// The judgement of one dark variant against its light picture.
  public struct DarkVariantJudgement: Sendable, Equatable {
    /// The legibility rule's findings.
    public var legibility: LegibilityReport
    /// The share of the dark variant near white (`glareShare`).
    public var glareShare: Double
    /// Pearson r of the shown luma; checked only for photographs.
    public var correlation: Double
    /// Pearson r of the shown luma over the photographic tiles' midtones
    /// (`photoTileCorrelation`); checked when the picture is not a
    /// photograph (a photo placed in graphics), 1 when it has none.
    public var photoTileCorrelation: Double = 1
    /// Whether the light picture is a photograph (the r rule applies).
    public var isPhotograph: Bool
    /// Whether the dark variant is darker as shown (`isDarker`).
    public var isDarker: Bool

    /// Each broken rule, in words, for a warning or a verify failure.
    public var problems: [String] {
      var out: [String] = []
      if !legibility.isLegible {
        var text = "text or line art is illegible: \(legibility.failingTiles) of \(legibility.markTiles) areas with marks lost their contrast"
        if let worst = legibility.worst {
          text += String(format: " (worst at %.0f %% across, %.0f %% down: %.1f:1 against its ground, %.1f:1 in the light picture; at least %.1f:1 needed)",
                         worst.x * 100, worst.y * 100, worst.dark, worst.light, PictureLook.requiredContrast(light: worst.light))
        }
        out.append(text)
      }
      if glareShare > PictureLook.maxGlareShare {
        out.append(String(format: "it glares: %.0f %% of it is near white (luma 225 or more) on the dark surface, at most %.0f %% allowed",
                          glareShare * 100, PictureLook.maxGlareShare * 100))
      }
      if isPhotograph && correlation < PictureLook.minPhotoCorrelation {
        out.append(String(format: "the photograph is no longer a photograph: its luma correlates with the light one's at r = %.2f (at least %.2f)",
                          correlation, PictureLook.minPhotoCorrelation))
      }
      if !isPhotograph && photoTileCorrelation <= PictureLook.minPhotoTileCorrelation {
        out.append(String(format: "a photograph in it is inverted: the luma of its photographic areas correlates with the light one's at r = %.2f (above %.2f needed)",
                          photoTileCorrelation, PictureLook.minPhotoTileCorrelation))
      }
      if !isDarker { out.append("it is not darker as shown than the light picture") }
      return out
    }

    /// Whether every rule holds.
    public var passes: Bool { problems.isEmpty }

    /// How far it is from passing, for choosing the least bad of several
    /// variants: 0 when it passes.
    var shortfall: Double {
      var s = 0.0
      if !legibility.isLegible { s += 1 + Double(legibility.failingTiles) / Double(max(1, legibility.markTiles)) }
      s += max(0, glareShare - PictureLook.maxGlareShare) * 4
      if isPhotograph { s += max(0, PictureLook.minPhotoCorrelation - correlation) * 4 }
      if !isPhotograph && photoTileCorrelation <= PictureLook.minPhotoTileCorrelation {
        s += (PictureLook.minPhotoTileCorrelation - photoTileCorrelation + 0.01) * 4
      }
      if !isDarker { s += 0.5 }
      return s
    }
  }

  /// Judges a dark variant against its light picture.
  ///
  /// - Parameters:
  ///   - light: the light picture, RGBA sRGB, straight alpha.
  ///   - dark: its dark variant, the same size.
  ///   - surfaces: `light` is shown on `surfaces.light`, `dark` on
  ///     `surfaces.dark`.
  ///   - isPhotograph: whether `light` is a photograph
  ///     (`DarkVariantGenerator.classify` says `.photograph`).
  /// - Returns: what each rule found. Two pictures of different sizes are
  ///   judged on glare and darkness alone (legible and correlated).
  public static func judgeDarkVariant(light: RGBAImage, dark: RGBAImage, surfaces: Surfaces,
                                      isPhotograph: Bool) -> DarkVariantJudgement {
    judgeDarkVariant(light: light, dark: dark, surfaces: surfaces, isPhotograph: isPhotograph, shownLight: nil)
  }

  /// `judgeDarkVariant(light:dark:surfaces:isPhotograph:)` with the light
  /// picture's `ShownPicture` already made (the generator judges several
  /// candidates against one light picture), and the dark one's when the
  /// caller has it (the generator's darker-as-shown pass made it).
  static func judgeDarkVariant(light: RGBAImage, dark: RGBAImage, surfaces: Surfaces,
                               isPhotograph: Bool, shownLight known: ShownPicture?,
                               shownDark knownDark: ShownPicture? = nil,
                               lightSoftShade: [Bool]?? = nil) -> DarkVariantJudgement {
    guard light.width == dark.width, light.height == dark.height else {
      return DarkVariantJudgement(legibility: LegibilityReport(), glareShare: glareShare(dark, on: surfaces.dark),
                                  correlation: 1, isPhotograph: isPhotograph,
                                  isDarker: darkerAsShown(light: light, dark: dark, surfaces: surfaces).isDarker)
    }
    // One pass over each picture: the working picture, its mean luma and
    // its glare count.
    let shownLight = known ?? ShownPicture(light, on: surfaces.light)
    let shownDark = knownDark ?? ShownPicture(dark, on: surfaces.dark)
    return DarkVariantJudgement(
      legibility: legibility(light: shownLight, dark: shownDark, lightSoftShade: lightSoftShade),
      glareShare: shownDark.glareShare,
      correlation: isPhotograph ? lumaCorrelation(light: shownLight, dark: shownDark) : 1,
      photoTileCorrelation: isPhotograph ? 1 : photoTileCorrelation(light: shownLight, dark: shownDark),
      isPhotograph: isPhotograph, isDarker: isDarker(shownDark: shownDark.meanLuma, shownLight: shownLight.meanLuma))
  }
}
