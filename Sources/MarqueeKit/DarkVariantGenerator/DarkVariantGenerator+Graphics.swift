import Foundation

// MARK: - Tuning

extension DarkVariantGenerator {
  /// Constants of the graphics treatment (text, line art, UI and flat art on
  /// a light ground); the reasons are in ``LightnessInversion``.
  enum GraphicsTuning {
    /// OKLab lightness black ink becomes: a light grey (about `#E4E4E6`),
    /// bright enough for 12:1 on `#1C1C1E`, short of white's glare.
    static let inkLightness = 0.92
    /// How much lighter than the surface a panel lighter than the ground
    /// becomes (OKLab L): a white card on a grey page turns into a raised
    /// dark card, about iOS's secondary background `#2C2C2E` on `#1C1C1E`.
    static let elevation = 0.06
    /// The share of the ground's lightness over which ink goes from the
    /// surface to ``inkLightness``: near-black ink (OKLab L 0.2 and less on
    /// white) all becomes the light ink.
    static let inkSpan = 0.8
    /// Chroma (OKLab) under which a colour counts as neutral and has its
    /// lightness inverted…
    static let neutralChroma = 0.035
    /// …and from which it counts as a brand colour and keeps its lightness
    /// (within `visible…brandCap`); in between the two blend.
    static let brandChroma = 0.10
    /// The lightest a kept brand colour stays (OKLab L): a yellow at
    /// L 0.93 comes down to a deeper yellow.
    static let brandCap = 0.82
    /// A component of the subject is a photograph when this many distinct
    /// luma levels each hold at least `levelShare` of its pixels
    /// (backdrop-coloured pixels not counted). Text, line art, icons and
    /// UI keep a few flat tones, their anti-aliasing spread thinly over
    /// the levels between; a shaded product spreads over dozens.
    static let photoLevels = 32
    /// See `photoLevels`.
    static let levelShare = 0.004
    /// Components smaller than this are always graphics (specks, dots).
    static let minPhotoPixels = 400
    /// Pixels within this many levels of the ground, in every channel, do
    /// not count toward a component's luma levels: a JPEG's ringing spreads
    /// the ground around flat red letters over dozens of levels (about 30
    /// at quality 60) that are not shading.
    static let groundNoise = 40
    /// Pixels within this many levels, in every channel, of a blend of a
    /// component's most common colour and the ground do not count toward
    /// its luma levels either: anti-aliasing, and the chroma a JPEG smears
    /// around red letters, are blends; a product's shading is not.
    static let blendTolerance = 16
    /// A part whose pixels more than ``groundNoise`` off the ground are at
    /// least this share of it is measured by those pixels alone (its core):
    /// red letters in a JPEG halo. Below it, the part is mostly near the
    /// ground colour (an off-white product) and measured whole.
    static let minCoreShare = 0.35
    /// A flat product's pixels on the blend line from the ground to its
    /// colour, short of this far along, are un-mixed (its soft edge).
    static let unmixedBelow = 0.97
    /// …and within this many pixels of its rim: a soft edge is a few pixels
    /// wide (anti-aliasing 1, a resize or a JPEG about 2, a light blur 4);
    /// inside, a lighter side of the product is its shading, not a blend.
    static let unmixedEdge: UInt8 = 4
    /// A photograph part filling at least this share of its bounding box,
    /// with at least ``insetRim`` of its rim in its most common light
    /// colour, is an inset on its own backdrop
    /// (``recolourOwnBackdrop(of:box:colour:pixels:width:dimmed:)``).
    static let insetFill = 0.9
    /// See ``insetFill``.
    static let insetRim = 0.9
    /// OKLab chroma from which a light ground is tinted (a pastel pink
    /// `#FADADD` about 0.04, a mint `#DFF5E8` 0.03; a grey-blue page
    /// `#F2F2F7` 0.005): its hue is kept on the surface.
    static let tintedGroundChroma = 0.02
    /// A flat dark neutral part filling at least this share of its bounding
    /// box, with at least ``minLabelPixels`` of enclosed ground (a label),
    /// that fills ``darkPanelOutline`` of the box with its label, is a dark
    /// panel and kept: a black ribbon with white text. So is such a part in
    /// a brand colour (OKLab chroma ``brandChroma`` or more): a small green
    /// or red tag with a white label. Heavy
    /// letters fill 0.35–0.6 of their boxes; a rule line encloses nothing.
    static let darkPanelFill = 0.75
    /// See ``darkPanelFill``.
    static let minLabelPixels = 100
    /// …and which, with its label, fills this share of its bounding box: a
    /// ribbon, a badge, a pill button (a pill 300x80 fills 0.94); a bold
    /// B with its counters filled about 0.9.
    static let darkPanelOutline = 0.93
    /// A dark part filling at least this share of its bounding box that is
    /// with its label a solid convex shape (``convexPanelCover``,
    /// ``convexGaps``) is a dark panel whatever its label: a black disc
    /// badge with a white NEW fills about 0.7 of its box (a disc 0.785,
    /// less its letters).
    static let darkPanelDiscFill = 0.6
    /// A solid convex shape covers at least this share of its box with its
    /// label (a disc 0.785, a pill or a rounded square more)…
    static let convexPanelCover = 0.75
    /// …and its rows and columns fall short of single runs by at most this
    /// share of it (anti-aliasing and a JPEG's noise on the rim).
    static let convexGaps = 0.02
    /// How far round a dark panel's box the page is looked for, pixels: the
    /// label pixels on its box's edge that this page reaches through what
    /// is not ink are the page caught in a JPEG's ringing round its rim
    /// (at q30 about 10 pixels wide), not label.
    static let convexOpenMargin = 16
    /// A label part whose rows and columns fall short of single runs by at
    /// least this share of it is a glyph, not a round hole (a 7 about 0.3,
    /// an A's outline more; a disc's hole 0).
    static let glyphGaps = 0.05
    /// WCAG contrast a small dark panel's ink is lifted to against the dark
    /// surface when it has less: a little over the legibility rule's 2:1
    /// for a shape (`PictureLook.sufficientContrast`), so its silhouette
    /// reads (a black badge becomes luma about 80 on `#1C1C1E`).
    static let liftedPanelContrast = 2.2
    /// A dark panel's label is at least this many separate parts its box
    /// encloses (the letters of NEW, of -40 %): a glyph's counters are one
    /// or two (O, 8, B).
    static let minLabelParts = 3
    /// …each of at least this many pixels: a JPEG's specks are not letters
    /// (a 20 px period holds about 16).
    static let minLabelPartPixels = 12
    /// A pixel is in a smooth interior when its four neighbours' luma is
    /// within this many levels of its own.
    static let smoothStep = 12
    /// A solid shape of at least this share of the picture…
    static let productArea = 0.02
    /// Enclosed ground covering at least this share of the picture is a
    /// card, not a hole in a product (a mug's handle, a label's letters
    /// are under 2 %).
    static let enclosedPanelArea = 0.1
    /// How far into a light product (in pixels, 4-connected) its body is
    /// read behind a hole's antialiased rim: a handle's edge ramps from the
    /// page to the body over two to three pixels, five with a JPEG's blur.
    static let holeBodyDepth = 4...6
    /// A part lighter than the ground everywhere whose body, read
    /// ``holeBodyDepth`` inside its rim, is at most this many luma levels
    /// lighter than the ground beside the rim is a swell of the ground (a
    /// vignette's bright centre, a soft spotlight), not a panel: it has no
    /// edge, and becomes the surface with the ground. A white card on a
    /// light grey page steps up 13 levels at its rim (about 6 with a JPEG's
    /// blur); a vignette's centre rises about 1 level in 8 pixels.
    static let swellStep = 3
    /// A hole in a light product whose body, read ``holeBodyDepth`` inside
    /// it, is this many times darker in WCAG contrast than the hole is the
    /// page seen through it (a white mug's handle: 1.7–1.8:1, its body at
    /// luma 192–200 behind a page of 254); a clipped highlight fades into
    /// the body it lies on (a mug's lip: 1.1–1.25:1).
    static let seeThroughStep: Float = 1.5
    /// See ``seeThroughStep``: a white mug's handle hole is 3–8 % of the
    /// mug's box.
    static let minSeeThroughShare = 0.01
    /// …and the page lies past the wall round it, within this share of the
    /// product box's shorter side (a mug's handle is 5–7 % of the mug)…
    static let maxHandleWall = 0.1
    /// …along at least this share of its rim (a handle's hole: its arc,
    /// 0.55–0.63 of the rim, 0.24 in a quality-14 JPEG whose blocks thicken
    /// the wall; a white logo or a highlight streak on the mug's body has
    /// no thin wall, 0–0.05).
    static let minThinWallShare = 0.2
    /// …filling at least this share of its bounding box is a product
    /// (a mug with its handle about 0.7, a disc 0.79); display type at 260
    /// pt and more reaches 2 % of a banner but its letters fill 0.35–0.6 of
    /// their boxes, and stays graphics…
    static let productFill = 0.65
    /// The least share of a part outside a photograph's light panel for it
    /// to be the picture round the panel (kept as a photo is).
    static let aroundPanelShare = 0.5
    /// …or this share when its smooth interior spreads over at least
    /// ``shadedLevels`` luma levels (a product in its soft shadow; flat ink
    /// has one or two)…
    static let shadedProductFill = 0.4
    /// See ``shadedProductFill``.
    static let shadedLevels = 8
    /// How many times darker in luma than its fill an outline is
    /// (``DarkVariantGenerator/outlineOfFill(_:fill:pixels:width:height:isPage:isGround:)``).
    static let outlineDarkness = 3.0
    /// The least share of an outlined fill's part that is its outline…
    static let minOutlineShare = 0.08
    /// …or the least its outline is wide on average (its dark pixels over
    /// the pixels of its part next to the page): a 6 px keyline round a
    /// 300 px box is 7.8 % of the part, and 5.9 px wide.
    static let minOutlineWidth = 2.0
    /// The most of an outlined fill's pixels next to the page that may be
    /// the fill itself (a JPEG's ringing breaks the outline here and there).
    static let fillOnPage = 0.05
    /// The widest an outline is on average: its dark pixels over the
    /// pixels of its part next to the page.
    static let maxOutlineWidth = 24.0
    /// The widest gap, in luma levels, inside one coded tone
    /// (``DarkVariantGenerator/isFewCodedTones(_:floor:)``).
    static let toneGap = 6
    /// The widest span, in luma levels, of one flat colour spread by lossy
    /// coding (``DarkVariantGenerator/isFewCodedTones(_:floor:)``): two
    /// ``smoothStep``s.
    static let codedToneSpan = 24
    /// A dark panel's or a flat dark shape's most common colour is under
    /// this OKLab lightness (black, navy, a deep grey).
    static let inkLightnessBelow = 0.4
    /// A solid shape whose most common colour is neutral, with fewer than
    /// ``shadedLevels`` smooth levels, is flat ink, not a product, when it
    /// is dark (under ``inkLightnessBelow``: display type, a black block),
    /// or grey under this OKLab lightness (about sRGB `#DEDEDE`) and holding
    /// no glyph label: display type set in a grey or a translucent black
    /// (black at 30 % on white shows at `#BBBBBB`, 0.79), whose letters
    /// are inverted alike whatever their shape. Kept as a product, a
    /// compact E beside the inverted A and L came out in another tone (a
    /// light slab, for a light tint). A grey fill holding a glyph (an icon
    /// tile, `#8E8E93`, with a white S knocked out of it: a label of
    /// ``minLabelParts`` parts or one that is not convex, where a letter's
    /// counters are one or two convex holes) stands off the dark surface as
    /// it is and is kept; an off-white product (0.98) is a product.
    static let flatGreyLightnessBelow = 0.9
    /// …unless it is a light panel: its most common colour neutral, and at
    /// most this much OKLab lightness below the ground (coding noise), or
    /// lighter: a white card on a grey page. An off-white product on white
    /// (250, 250, 247 on 255: 0.017 below) is darker than that.
    static let panelLightness = 0.005
    /// A part is a light fill, a panel whatever it holds, when its light
    /// fills (colours of at least this OKLab lightness, about sRGB
    /// `#CFCFCF`: a `#D8D8D8` or `#F2F2F2` tile, a `#E9E9EB` chat bubble, a
    /// peach or mint category tile; more than ``panelLightness`` off the
    /// ground, darker, or tinted and lighter or of another hue; under
    /// ``brandChroma``) cover
    /// at least ``lightFillShare`` of the part together, and the part is flat (fewer than
    /// ``shadedLevels`` smooth levels) or a near rectangle (``insetFill``:
    /// a tile holding a product photo), and it holds something: at least
    /// ``minLabelPixels`` more than ``groundNoise`` levels off its fill (a
    /// label, an icon, a photo), or, when it is flat, that many pixels of
    /// the page's colour it encloses (a white wordmark on a light grey
    /// tile). A shaded product spreads over many colours
    /// and is not a rectangle, an off-white product with a soft edge holds
    /// nothing; a card is its fill plus its text.
    static let lightFillLightness = 0.85
    /// See ``lightFillLightness``: the share the part's light fills hold
    /// together (``DarkVariantGenerator/lightFills(of:pixels:counts:ground:)``).
    static let lightFillShare = 0.5
    /// A colour bin holding at least this share of a part is one of its
    /// fills (four touching pastel tiles hold about a quarter each, the
    /// text on them a few percent).
    static let minFillShare = 0.05
    /// A light fill whose measured smooth pixels (those off the ground by
    /// more than ``groundNoise``) are under this share of it is flat
    /// whatever their levels: a JPEG's noise on a calendar's grid lines
    /// spreads 3,000 pixels of a 314,000-pixel part over thirty levels.
    static let fewSmoothShare = 0.02
    /// A photograph on a light fill (a product picture in a tile) is
    /// smooth over at least this share of it; a JPEG's grid lines and
    /// letters on a calendar's grey fills are thin, and measure 0.03.
    static let minSmoothShare = 0.1
    /// The share of a region inside a graphic that is soft shade of the
    /// page at and above which it is the page's shadow, not a photograph
    /// (``DarkVariantGenerator/keepPhotographs(in:pixels:width:height:page:isPage:keep:)``).
    static let pageShadeShare = 0.75

    /// Whether a part is flat, a fill rather than shading: its smooth
    /// interior (``DarkVariantGenerator/smoothLevels(of:pixels:width:height:ground:ink:histogram:)``)
    /// spreads over fewer than ``shadedLevels`` luma levels, or its smooth
    /// pixels are under ``fewSmoothShare`` of its `count` pixels whatever
    /// their levels (a JPEG's blocks on a flat navy disc at `-q:v 20`: 41
    /// smooth pixels of 31,500 over 11 levels).
    static func isFlat(levels: Int, smooth: Int, of count: Int) -> Bool {
      levels < shadedLevels || Double(smooth) < fewSmoothShare * Double(count)
    }
  }
}

// MARK: - Lightness inversion

extension DarkVariantGenerator {
  /// The colour map of graphics on a light ground, in OKLab.
  ///
  /// - A neutral colour as dark as the ground or darker has its lightness
  ///   inverted about the ground: the ground's own lightness `Lg` becomes
  ///   the surface's `Ls`, ink as dark as `0.2·Lg` or darker (near-black
  ///   text) becomes ``GraphicsTuning/inkLightness``, linearly between:
  ///   `L' = Ls + (Li − Ls)·min(1, (Lg − L)/(0.8·Lg))`. Black text turns
  ///   light, white panels and letter counters turn into the surface.
  /// - A neutral colour lighter than the ground (a white card on a grey
  ///   page) becomes slightly lighter than the surface, up to
  ///   ``GraphicsTuning/elevation``: a raised dark card.
  /// - A saturated colour (chroma from ``GraphicsTuning/brandChroma``) keeps
  ///   its lightness, raised to 4.5:1 against the surface when darker and
  ///   lowered to ``GraphicsTuning/brandCap`` when lighter, so a brand red
  ///   stays that red and a navy turns into a readable blue. In between,
  ///   the two targets blend.
  /// - Hue and chroma are kept (`a`, `b` unchanged), chroma reduced only
  ///   where the result leaves the sRGB gamut.
  struct LightnessInversion {
    let groundL: Double
    let surfaceL: Double
    let inkL: Double
    let visibleL: Double
    /// The surface's own tint, given to the ground and faded out toward the
    /// ink, so the ground becomes exactly the surface colour.
    let surfaceA: Double
    let surfaceB: Double

    init(ground: RGB8, surface: DarkSurface) {
      groundL = max(OKLab(r: ground.r, g: ground.g, b: ground.b).l, 0.05)
      let s = OKLab(r: surface.r, g: surface.g, b: surface.b)
      surfaceL = s.l
      surfaceA = s.a
      surfaceB = s.b
      inkL = max(GraphicsTuning.inkLightness, surfaceL + 0.3)
      let surfaceLuma = Double(Luma.integer(surface.r, surface.g, surface.b))
      let visible = Luma.byte(Luma.level(withContrast: TransparentTuning.visibleContrast, above: surfaceLuma))
      visibleL = OKLab(r: visible, g: visible, b: visible).l
    }

    /// The mapped colour of sRGB-encoded `r`, `g`, `b`.
    func map(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (UInt8, UInt8, UInt8) {
      let c = OKLab(r: r, g: g, b: b)
      let neutral: Double
      if c.l <= groundL {
        neutral = surfaceL + (inkL - surfaceL) * min(1, (groundL - c.l) / (groundL * GraphicsTuning.inkSpan))
      } else {
        neutral = surfaceL + GraphicsTuning.elevation * min(1, (c.l - groundL) / max(1 - groundL, 0.01))
      }
      let brand = min(max(c.l, visibleL), max(GraphicsTuning.brandCap, visibleL))
      let t = min(max((c.chroma - GraphicsTuning.neutralChroma) / (GraphicsTuning.brandChroma - GraphicsTuning.neutralChroma), 0), 1)
      let s = t * t * (3 - 2 * t)
      let l = neutral * (1 - s) + brand * s
      let tint = (1 - s) * max(0, 1 - (l - surfaceL) / max(inkL - surfaceL, 0.01))
      return OKLab(l: l, a: c.a + surfaceA * tint, b: c.b + surfaceB * tint).encoded
    }
  }

  /// The ``DarkMethod/graphicsInverted`` treatment of a light-ground image.
  ///
  /// The picture is split into its ground (pixels within the flood fill's
  /// tolerance of the ground colour, ``FloodFillTolerance``) and the
  /// 4-connected components of everything else. A component is kept as a
  /// *product* when either
  /// - it is a photograph: at least ``GraphicsTuning/minPhotoPixels``
  ///   pixels whose smooth interior (pixels whose four neighbours are within
  ///   ``GraphicsTuning/smoothStep`` luma levels, so anti-aliased edges do
  ///   not count) spreads over ``GraphicsTuning/photoLevels`` luma levels or
  ///   more (a shaded product with its shadow), or
  /// - it is a large solid shape that is not a light panel: at least
  ///   ``GraphicsTuning/productArea`` of the picture, filling at least
  ///   ``GraphicsTuning/productFill`` of its bounding box (or
  ///   ``GraphicsTuning/shadedProductFill`` when it is shaded a little: a
  ///   product in its soft shadow; huge display type is flat and less
  ///   compact, and stays graphics), not flat dark neutral ink (a heavy
  ///   letter, a black block), and not a light
  ///   panel: its most common colour is coloured or darker than the ground
  ///   (a flat-coloured product, a dark phone, an off-white mug).
  ///
  /// Products take the ground-recoloured treatment's pixels (`kept`: the
  /// subject kept, its shadow mapped onto the surface, its edge
  /// decontaminated), and so do the backdrop the flood fill reached from
  /// the border and ground-coloured areas a product encloses within its
  /// bounding box (a white mug's clipped highlight; a frame that reaches
  /// past its photo is the graphic's ground). Everything else gets
  /// ``LightnessInversion/map(_:_:_:)``: letters and their counters, lines
  /// and the paper they enclose, icons, cards and buttons.
  ///
  /// - Parameters:
  ///   - image: the light picture.
  ///   - kept: the ground-recoloured treatment of the same picture, for the
  ///     backdrop.
  ///   - products: what products become: `kept`, or `kept` dimmed.
  ///   - productsDimmed: whether `products` is `kept` dimmed.
  ///   - mask: the backdrop mask that treatment used.
  ///   - analysis: the classifier's findings (ground colour, spread).
  ///   - pageIsOpaque: whether the page is the picture's own (false for a
  ///     picture on transparency, flattened on the light surface: ground a
  ///     mark encloses is then part of it, not the page seen through it).
  ///   - insets: whether a photograph on its own light backdrop has that
  ///     backdrop treated too (``recolourOwnBackdrop(of:box:colour:pixels:width:dimmed:)``).
  /// - Returns: the pixels, RGBA, alpha unchanged.
  func invertGraphics(_ image: RGBAImage, kept: RGBAImage, products: RGBAImage, productsDimmed: Bool, mask: [UInt8],
                      analysis: Analysis, insets: Bool = true, pageIsOpaque: Bool = true) -> RGBAImage
  {
    let w = image.width, h = image.height
    let ground = analysis.background
    let inversion = LightnessInversion(ground: ground, surface: options.surface)
    let tolerance = FloodFillTolerance.tolerance(for: analysis)
    var output = image.pixels
    var isGround = [Bool](repeating: false, count: w * h)
    var keep = [Bool](repeating: false, count: w * h)
    // The kept part (a product, or a photograph in a graphic) each kept
    // pixel belongs to: its index in `enclosingBoxes`, its bounding box.
    var productOf = [Int32](repeating: -1, count: w * h)
    var enclosingBoxes: [(minX: Int, minY: Int, maxX: Int, maxY: Int)] = []
    var labelled: [Bool] = []
    var visited = [Bool](repeating: false, count: w * h)
    var members: [Int] = []
    var stack: [Int] = []
    var histogram = [Int](repeating: 0, count: 256)
    var colours = [Int32](repeating: 0, count: 1 << 15)

    /// Collects the 4-connected component of `start` over pixels where
    /// `inside` holds into `members`.
    func collect(_ start: Int, _ inside: (Int) -> Bool) {
      Self.collectComponent(from: start, width: w, height: h, visited: &visited, members: &members, stack: &stack,
                            inside: inside)
    }

    image.pixels.withUnsafeBufferPointer { p in
      // Ground pixels, and the inversion of every pixel.
      var cache: [UInt32: (UInt8, UInt8, UInt8)] = [:]
      var lastKey: UInt32 = .max
      var last: (UInt8, UInt8, UInt8) = (0, 0, 0)
      let gr = Int(ground.r), gg = Int(ground.g), gb = Int(ground.b)
      output.withUnsafeMutableBufferPointer { out in
        isGround.withUnsafeMutableBufferPointer { isGround in
          for y in 0..<h {
            for x in 0..<w {
              let idx = y * w + x
              let i = idx * 4
              isGround[idx] = (analysis.panel?.contains(x, y) ?? true)
                && abs(Int(p[i]) - gr) <= tolerance && abs(Int(p[i + 1]) - gg) <= tolerance
                && abs(Int(p[i + 2]) - gb) <= tolerance
              let key = UInt32(p[i]) << 16 | UInt32(p[i + 1]) << 8 | UInt32(p[i + 2])
              if key != lastKey {
                if let hit = cache[key] {
                  last = hit
                } else {
                  last = inversion.map(p[i], p[i + 1], p[i + 2])
                  cache[key] = last
                }
                lastKey = key
              }
              out[i] = last.0
              out[i + 1] = last.1
              out[i + 2] = last.2
            }
          }
        }
      }
      // Products.
      let groundL = inversion.groundL
      let groundExactLuma = Luma.exact(Double(ground.r), Double(ground.g), Double(ground.b))
      var flatProducts: [(region: [Int], ink: RGB8)] = []
      // A small dark panel's ink lifted to stand off the dark surface, by
      // the index of its flat product, with its box.
      var liftedPanels: [Int: (ink: RGB8, box: (minX: Int, minY: Int, maxX: Int, maxY: Int))] = [:]
      let surfaceDark = inversion.map(ground.r, ground.g, ground.b)
      var insetPhotographs: [(region: [Int], box: (minX: Int, minY: Int, maxX: Int, maxY: Int), colour: RGB8)] = []
      var keptBoxes: [(minX: Int, minY: Int, maxX: Int, maxY: Int)] = []
      // Ground round a dark panel that the page reaches past its rim's
      // ringing (``PageReach``).
      var caughtPage = [Bool](repeating: false, count: w * h)
      for start in 0..<(w * h) where !isGround[start] && !visited[start] {
        collect(start) { !isGround[$0] }
        guard members.count >= GraphicsTuning.minPhotoPixels else { continue }
        if Self.isSwell(members, of: ground, pixels: p, width: w, height: h, isGround: isGround) {
          // No panel: it becomes the surface with the ground round it,
          // never a raised card with no edge.
          for idx in members {
            output[idx * 4] = surfaceDark.0
            output[idx * 4 + 1] = surfaceDark.1
            output[idx * 4 + 2] = surfaceDark.2
          }
          continue
        }
        var minX = w, maxX = 0, minY = h, maxY = 0
        for idx in members {
          let x = idx % w, y = idx / w
          minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
        }
        let ink = Self.dominantColour(of: members, pixels: p, counts: &colours)
        let (smooth, levels) = Self.smoothLevels(of: members, pixels: p, width: w, height: h, ground: ground,
                                                 ink: RGB8(r: ink.r, g: ink.g, b: ink.b), histogram: &histogram)
        // A few flat colours spread by a JPEG (outlined type's fill and
        // outline) rather than shading.
        let fewTones = Self.isFewCodedTones(histogram, floor: max(2, Int(Double(smooth) * GraphicsTuning.levelShare)))
        var isPhotograph = smooth >= GraphicsTuning.minPhotoPixels && levels >= GraphicsTuning.photoLevels
        // Its core: the pixels clearly off the ground. A JPEG's ringing and
        // chroma bleeding join a halo to every letter, which fills the gaps
        // of a line of text; the halo is ground, not shape. A part that is
        // mostly near the ground (an off-white product) is all core.
        let noise = GraphicsTuning.groundNoise
        var core = 0
        for idx in members {
          let i = idx * 4
          if abs(Int(p[i]) - Int(ground.r)) > noise || abs(Int(p[i + 1]) - Int(ground.g)) > noise
            || abs(Int(p[i + 2]) - Int(ground.b)) > noise { core += 1 }
        }
        let n = Double(core) >= GraphicsTuning.minCoreShare * Double(members.count) ? core : members.count
        let fill = Double(n) / Double((maxX - minX + 1) * (maxY - minY + 1))
        // A shape shaded or shadowed a little (a few smooth levels) may be
        // less compact: a flat product standing in its soft shadow.
        let compact = fill >= GraphicsTuning.productFill
          || (fill >= GraphicsTuning.shadedProductFill && levels >= GraphicsTuning.shadedLevels)
        var isSolidShape = Double(n) >= GraphicsTuning.productArea * Double(w * h) && compact
        // With a photograph's light panel taken as the ground (a caption
        // bar, a split layout's text half, a white card on a brand-blue
        // page), what lies mostly round the panel is the picture the panel
        // sits on, kept (dimmed) like a photo: inverted as graphics, a
        // flat brand-blue page round a white card was lifted to 4.5:1
        // against the surface, lighter than in light mode and than its own
        // button.
        if let panel = analysis.panel {
          var outside = 0
          for idx in members where !panel.contains(idx % w, idx / w) { outside += 1 }
          if Double(outside) >= GraphicsTuning.aroundPanelShare * Double(members.count) { isSolidShape = true }
        }
        // A light fill a little off the page (a light grey or pastel tile, a
        // chat bubble, a zebra row, an icon's circle on a white page, a row
        // of touching pastel tiles on a pale blue one) is a panel, whatever
        // it holds: its text is inverted with it, and a photo in it (a
        // product picture in a tile) is kept.
        let fills = Self.lightFills(of: members, pixels: p, counts: &colours,
                                    ground: OKLab(r: ground.r, g: ground.g, b: ground.b))
        if fills.share >= GraphicsTuning.lightFillShare
          && (GraphicsTuning.isFlat(levels: levels, smooth: smooth, of: members.count)
              || fill >= GraphicsTuning.insetFill
              || Double(Self.smoothPixels(of: members, offFills: fills.colours, pixels: p, width: w, height: h))
                < GraphicsTuning.minSmoothShare * Double(members.count)) {
          var content = 0
          for idx in members where content < GraphicsTuning.minLabelPixels {
            let i = idx * 4
            let off = fills.colours.allSatisfy { c in
              abs(Int(p[i]) - Int(c.r)) > noise || abs(Int(p[i + 1]) - Int(c.g)) > noise
                || abs(Int(p[i + 2]) - Int(c.b)) > noise
            }
            if off { content += 1 }
          }
          // A flat fill's label may be the page's own colour, enclosed (a
          // white logo and wordmark on a light grey tile: the ground the
          // tile encloses, not the tile's pixels).
          if content < GraphicsTuning.minLabelPixels && GraphicsTuning.isFlat(levels: levels, smooth: smooth, of: members.count) {
            content += Self.enclosedGround(inX: minX...maxX, y: minY...maxY, width: w, isGround: isGround, mask: mask,
                                           upTo: GraphicsTuning.minLabelPixels - content)
          }
          if content >= GraphicsTuning.minLabelPixels {
            isPhotograph = false
            isSolidShape = false
          }
        } else if isPhotograph, Self.isRaisedCard(members, colour: RGB8(r: ink.r, g: ink.g, b: ink.b), share: ink.share,
                                                  ground: OKLab(r: ground.r, g: ground.g, b: ground.b),
                                                  pixels: p, width: w, height: h, histogram: &histogram) {
          // A white card on a grey page with a soft drop shadow: the
          // shadow's ramp is not a photograph, and the card turns into a
          // raised dark card with its text light.
          isPhotograph = false
          isSolidShape = false
        }
        // Whether the part holds a glyph label: ground it encloses in
        // ``GraphicsTuning/minLabelParts`` parts or more, or in a part that
        // is not convex (a letter's counters are one or two convex holes).
        let holdsGlyphLabel = {
          let shapes = Self.labelPartShapes(inX: minX...maxX, y: minY...maxY, width: w,
                                            isLabel: { isGround[$0] && mask[$0] != MaskState.backdrop },
                                            minPixels: GraphicsTuning.minLabelPartPixels)
          return shapes.parts >= GraphicsTuning.minLabelParts || shapes.nonConvex >= 1
        }
        if isSolidShape && !isPhotograph {
          // A light panel (a card as light as its page or lighter) is
          // graphics: judged by its most common colour, not its text.
          let mode = ink
          let dominant = OKLab(r: mode.r, g: mode.g, b: mode.b)
          let isLightPanel = dominant.chroma < GraphicsTuning.neutralChroma
            && dominant.l >= groundL - GraphicsTuning.panelLightness
          // Flat neutral ink (a heavy letter, a QR code's block, display
          // type in a light grey tint) is text however large; a product has
          // some shading or colour.
          let isFlatNeutral = dominant.chroma < GraphicsTuning.neutralChroma && levels < GraphicsTuning.shadedLevels
          let isFlatInk = isFlatNeutral
            && (dominant.l < GraphicsTuning.inkLightnessBelow
                || (dominant.l < GraphicsTuning.flatGreyLightnessBelow && !holdsGlyphLabel()))
          isSolidShape = !isLightPanel && !isFlatInk
        }
        // A dark panel with a light label (a black ribbon or badge with
        // white text) is dark mode already: kept, its label with it (the
        // ground it encloses), not turned into a light slab.
        var isDarkPanel = false
        // A label of a dark panel or shape is light: closer to the ground's
        // tone than to the ink's (a JPEG's white letters on black ring a few
        // levels under the page). Its ink is off the ground and darker than
        // a label (a JPEG's ringing just outside a black disc's rim is
        // lighter, and is the page's).
        let groundLuma = Luma.integer(ground.r, ground.g, ground.b)
        let labelLuma = min(groundLuma - tolerance, (groundLuma + Luma.integer(ink.r, ink.g, ink.b) + 1) / 2)
        let isInk = { (idx: Int) in
          !isGround[idx] && Luma.integer(p[idx * 4], p[idx * 4 + 1], p[idx * 4 + 2]) < labelLuma
        }
        let pageReach = {
          PageReach(around: minX...maxX, minY...maxY, width: w, height: h,
                    isBackdrop: { mask[$0] == MaskState.backdrop }, isInk: isInk)
        }
        // The page a JPEG's ringing closed off round a dark shape stays the
        // page: its ground, its off-ground blocks further than the rim's
        // blend (``GraphicsTuning/unmixedEdge``) from the ink, and what is
        // mostly page in that blend (lighter than halfway from a label to
        // the ground).
        let markPageRound = { (reach: PageReach) in
          Self.markCaughtPage(inX: minX...maxX, y: minY...maxY, width: w, height: h, pixels: p, isInk: isInk,
                              reach: reach, pageLuma: (labelLuma + groundLuma) / 2, isGround: isGround,
                              caught: &caughtPage)
        }
        // Outlined type (yellow letters in a black outline, a sticker with
        // a dark keyline): a flat fill that stands off the dark surface as
        // it is, held off the page by a dark outline. Its fill is kept (the
        // brand colour, letter by letter alike, whatever their size), its
        // outline inverted to light with the page's other ink; kept black,
        // the outline is lost on the dark surface (1.2:1), and inverted, a
        // yellow turns khaki.
        var outline: [Int] = []
        if !isPhotograph && (GraphicsTuning.isFlat(levels: levels, smooth: smooth, of: members.count) || fewTones)
            && Luma.contrast((ink.r, ink.g, ink.b), surfaceDark) >= Double(PictureLook.sufficientContrast) {
          outline = Self.outlineOfFill(members, fill: RGB8(r: ink.r, g: ink.g, b: ink.b), pixels: p, width: w,
                                       height: h, isPage: { isGround[$0] && mask[$0] == MaskState.backdrop }, isGround: { isGround[$0] })
          isSolidShape = isSolidShape || !outline.isEmpty
        }
        // (Its fill is measured on its ink too: a badge's soft drop shadow
        // joins its part and widens its box, 0.59 for a disc.)
        if !isPhotograph && !isSolidShape
            && (fill >= GraphicsTuning.darkPanelDiscFill
                || Self.inkFill(of: members, width: w, pixels: p, below: labelLuma) >= GraphicsTuning.darkPanelDiscFill) {
          let colour = OKLab(r: ink.r, g: ink.g, b: ink.b)
          // A brand-coloured pill or tag with a light label (a green NEW,
          // a red -20 %) is kept the same way: its colour is the brand's and
          // its label stays light, as on the large buttons.
          // A dark tinted one (a navy disc) is a dark panel too.
          if colour.l < GraphicsTuning.inkLightnessBelow || colour.chroma >= GraphicsTuning.brandChroma {
            // Its label: the ground it encloses, and what is light (white
            // letters on an off-white page are off the ground, so part of
            // the panel's own pixels).
            // (A light pixel near the open page is the rim's ringing or a
            // JPEG's blocks in the corners of a rounded icon, not label.)
            let nearPage = Self.nearBackdrop(inX: minX...maxX, y: minY...maxY, width: w, height: h,
                                             within: Int(GraphicsTuning.unmixedEdge), mask: mask)
            let boxWidth = maxX - minX + 1
            let isLabel = { (idx: Int) in
              guard mask[idx] != MaskState.backdrop else { return false }
              if isGround[idx] { return true }
              guard Luma.integer(p[idx * 4], p[idx * 4 + 1], p[idx * 4 + 2]) >= labelLuma else { return false }
              let x = idx % w, y = idx / w
              guard x >= minX, x <= maxX, y >= minY, y <= maxY else { return false }
              return !nearPage[(y - minY) * boxWidth + x - minX]
            }
            let reach = pageReach()
            var label = 0, enclosedGround = 0
            for y in minY...maxY {
              for x in minX...maxX where isLabel(y * w + x) {
                label += 1
                if isGround[y * w + x] { enclosedGround += 1 }
              }
            }
            // With its label it is a rectangle (a ribbon) whose label is
            // three parts or more: a bold B with its counters filled is no
            // rectangle, and one whose label is one or two holes is a glyph
            // (a bold 8, its two counters, in a calendar cell whose ground
            // fills the corners of its box). Or it is a solid convex shape
            // whose edge is all its own (a disc, an oval, a pill, a rounded
            // square), whatever its label: a black disc with a white 7.
            let box = Double((maxX - minX + 1) * (maxY - minY + 1))
            let isRectangle = fill >= GraphicsTuning.darkPanelFill
              && Double(members.count + enclosedGround) >= GraphicsTuning.darkPanelOutline * box
            let shapes = label >= GraphicsTuning.minLabelPixels
              ? Self.labelPartShapes(inX: minX...maxX, y: minY...maxY, width: w, isLabel: isLabel,
                                     minPixels: GraphicsTuning.minLabelPartPixels) : (parts: 0, nonConvex: 0)
            let parts = shapes.parts
            // A round glyph with its counter (a bold o, an O, a 0) is convex
            // too: its label is one convex hole, where a badge's label is
            // letters (a 7, AB) or several parts.
            let glyphLabel = parts >= GraphicsTuning.minLabelParts || shapes.nonConvex >= 1
            isSolidShape = parts >= 1
              && ((isRectangle && parts >= GraphicsTuning.minLabelParts)
                  || (glyphLabel && Self.isSolidConvexShape(inX: minX...maxX, y: minY...maxY, width: w,
                                                            isInk: isInk, isLabel: isLabel,
                                                            isOpen: reach.contains)))
            isDarkPanel = isSolidShape
            if isDarkPanel { markPageRound(reach) }
          }
        }
        guard isPhotograph || isSolidShape else {
          // Graphics, inverted; a photograph placed on it (a thumbnail in a
          // card) is kept all the same.
          if n >= 2 * GraphicsTuning.minPhotoPixels {
            for box in keepPhotographs(in: members, pixels: p, width: w, height: h, page: ground, isPage: isGround,
                                       keep: &keep) {
              for y in box.minY...box.maxY {
                for x in box.minX...box.maxX where keep[y * w + x] && productOf[y * w + x] < 0 {
                  productOf[y * w + x] = Int32(enclosingBoxes.count)
                }
              }
              enclosingBoxes.append(box)
              labelled.append(false)
            }
          }
          // A dark label on a brand-coloured fill (black "Check in" on a
          // yellow pill): the fill keeps its colour, so the label keeps its
          // dark tone when that stands off the mapped fill better than the
          // inverted light one (1.4:1 on the yellow).
          // Such a pill may sit on a panel the part is (a white card): its
          // parts off the panel's colour are looked at one by one.
          for part in Self.partsOff(RGB8(r: ink.r, g: ink.g, b: ink.b), in: members, width: w, height: h, pixels: p) {
            Self.keepDarkLabel(of: part, inversion: inversion, tolerance: tolerance, pixels: p, output: &output,
                               counts: &colours)
          }
          continue
        }
        // Whether the ground it encloses is a label (a red badge's white
        // letters: several parts), which stays with it whatever its tone.
        // A dark panel's label is a label however many parts it has (the 7
        // on a disc).
        // A flat dark shape large enough to be taken for a product (a navy,
        // deep red or dark green disc or tag of 2 % of the picture or
        // more): flat (``GraphicsTuning/isFlat(levels:smooth:of:)``, so a
        // shaded product photo keeps its own tones) and under the WCAG
        // contrast the legibility rule asks of a mark against the dark
        // surface (`PictureLook.sufficientContrast`, 2:1, on relative
        // luminance: `#8B0000` has 1.7:1 on `#1C1C1E`, navy 1.2:1; a red or
        // a brand blue of 2:1 or more stands off the surface as it is). It
        // is lifted like a dark panel, and the page a JPEG's ringing closed
        // off round it stays the page.
        let inkContrast = Luma.contrast((ink.r, ink.g, ink.b), surfaceDark)
        let isFlatDarkShape = isSolidShape && !isPhotograph && !isDarkPanel
          && GraphicsTuning.isFlat(levels: levels, smooth: smooth, of: members.count)
          && inkContrast < Double(PictureLook.sufficientContrast)
        if isFlatDarkShape { markPageRound(pageReach()) }
        // A flat product's drop shadow (a red badge's soft grey shadow)
        // joins its part, and the ground-recoloured treatment's shadow
        // finder looks only below a subject, so the shadow's faint rim
        // round the badge would be kept as it is: a light crescent on the
        // dark surface. Soft shade of the ground
        // (``isSoftShade(_:_:_:of:groundLuma:)``) that the page reaches
        // without crossing the product's own colours is the page's, a
        // shadow on it (``dropShadows(_:width:height:isGround:keep:ground:)``)
        // or page inverted. A product whose own colour is a shade of the
        // ground (a grey shape, a white mug) keeps all of its pixels.
        if groundExactLuma > 1 && !isPhotograph
            && !Self.isSoftShade(ink.r, ink.g, ink.b, of: ground, groundLuma: groundExactLuma) {
          let isShade = { (idx: Int) in
            mask[idx] == MaskState.other
              && Self.isSoftShade(p[idx * 4], p[idx * 4 + 1], p[idx * 4 + 2], of: ground, groundLuma: groundExactLuma)
          }
          let reach = PageReach(around: minX...maxX, minY...maxY, width: w, height: h,
                                isBackdrop: { mask[$0] == MaskState.backdrop },
                                isInk: { !isGround[$0] && mask[$0] != MaskState.shadow && !isShade($0) })
          for idx in members where reach.contains(idx) && isShade(idx) { caughtPage[idx] = true }
        }
        labelled.append(isDarkPanel || Self.labelParts(inX: minX...maxX, y: minY...maxY, width: w,
                                                       isLabel: { isGround[$0] && mask[$0] != MaskState.backdrop })
                          >= GraphicsTuning.minLabelParts)
        for idx in outline { caughtPage[idx] = true }
        for idx in members where !caughtPage[idx] { keep[idx] = true; productOf[idx] = Int32(enclosingBoxes.count) }
        keptBoxes.append((minX, minY, maxX, maxY))
        enclosingBoxes.append((minX, minY, maxX, maxY))
        if !isPhotograph {
          // A dark panel smaller than a region (``PictureLook/largeRegionShare``:
          // a badge, a pill, not a card or a full-width ribbon) whose ink
          // is as dark as the surface is lifted to
          // ``GraphicsTuning/liftedPanelContrast`` against it, toward
          // white: a black NEW disc becomes a dark grey chip, a navy one a
          // lighter navy, its label as it was. Left black on the dark
          // surface, its silhouette would be lost (1.2:1). So is a flat dark
          // shape (`isFlatDarkShape`).
          if ((isDarkPanel && inkContrast < GraphicsTuning.liftedPanelContrast) || isFlatDarkShape)
              && Double(members.count) < PictureLook.largeRegionShare * Double(w * h) {
            let lift = Luma.lift(ink.r, ink.g, ink.b, toContrast: GraphicsTuning.liftedPanelContrast, above: surfaceDark)
            let up = { (c: UInt8) in Luma.byte(Double(c) + lift * (255 - Double(c))) }
            liftedPanels[flatProducts.count] = (RGB8(r: up(ink.r), g: up(ink.g), b: up(ink.b)), (minX, minY, maxX, maxY))
          }
          flatProducts.append((members, RGB8(r: ink.r, g: ink.g, b: ink.b)))
        } else if insets {
          insetPhotographs.append((members, (minX, minY, maxX, maxY), RGB8(r: ink.r, g: ink.g, b: ink.b)))
        }
      }
      // Ground enclosed by a product stays with it: a mug handle's hole, a
      // dark panel's label. It lies inside the product's bounding box: a
      // polaroid's white frame, drawn round its photo by a hairline, reaches
      // past the photo and is the graphic's ground, dark with its caption
      // light. Ground as large as a card
      // (``GraphicsTuning/enclosedPanelArea`` of the picture or more: a
      // white card on a brand-coloured page) is the ground itself: it turns
      // dark with its text light.
      for start in 0..<(w * h) where isGround[start] && mask[start] != MaskState.backdrop && !visited[start] {
        collect(start) { isGround[$0] && mask[$0] != MaskState.backdrop }
        if Double(members.count) >= GraphicsTuning.enclosedPanelArea * Double(w * h) { continue }
        var minX = w, maxX = 0, minY = h, maxY = 0
        var touched = Set<Int32>()
        var rimLuma = 0, rim = 0, ownLuma = 0
        for idx in members {
          let x = idx % w, y = idx / w
          minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
          ownLuma += Luma.integer(p[idx * 4], p[idx * 4 + 1], p[idx * 4 + 2])
          for n in [x > 0 ? idx - 1 : -1, x < w - 1 ? idx + 1 : -1, idx - w, idx + w]
          where n >= 0 && n < w * h && keep[n] && productOf[n] >= 0 {
            touched.insert(productOf[n])
            rimLuma += Luma.integer(p[n * 4], p[n * 4 + 1], p[n * 4 + 2])
            rim += 1
          }
        }
        // A hole whose rim is far darker than it (2:1 or more, the mark
        // contrast) is the page seen through a dark product (a navy mug's
        // handle), and turns dark with the page, unless it is a label; a
        // light product's own ground-coloured part (a white mug's clipped
        // highlight) has a light rim. On a transparent page an opaque hole
        // is part of the mark (the white inside a logo).
        let holeLuminance = ShownPicture.luminance(ofLuma: ownLuma / members.count)
        let seeThrough = rim > 0 && pageIsOpaque
          && ShownPicture.contrast(holeLuminance, ShownPicture.luminance(ofLuma: rimLuma / rim))
            >= PictureLook.markContrast
        // A hole in a light product whose body, a few pixels behind the
        // rim's antialiasing, steps down from the page's tone is the page
        // too (a white mug's handle, ``GraphicsTuning/seeThroughStep``; a
        // body darker than the mark contrast is a label's ground, the red
        // behind a badge's white letters whose antialiased rim is lighter),
        // labelled or not, when it is as large as a handle
        // (``GraphicsTuning/minSeeThroughShare`` of the product's box; a
        // label's letters are smaller); a clipped highlight fades into the
        // body it lies on and stays with it.
        let seenThroughBody = !seeThrough && rim > 0 && pageIsOpaque
          && (Self.bodyLuma(behind: members, width: w, height: h, pixels: p, depth: GraphicsTuning.holeBodyDepth,
                            inside: { keep[$0] && productOf[$0] >= 0 }).map {
                let step = ShownPicture.contrast(holeLuminance, ShownPicture.luminance(ofLuma: $0))
                return step >= GraphicsTuning.seeThroughStep && step < PictureLook.markContrast
              } ?? false)
        // A speck of ground a few pixels from the page (a JPEG's ringing
        // round a dark badge's rim closes it off) is the page, not a label,
        // and so is ground the page reaches past a dark panel's ringing.
        let speck = members.contains { caughtPage[$0] } || members.count < GraphicsTuning.minLabelPixels && members.contains { idx in
          let x = idx % w, y = idx / w, r = Int(GraphicsTuning.unmixedEdge)
          for ny in max(0, y - r)...min(h - 1, y + r) {
            for nx in max(0, x - r)...min(w - 1, x + r) where mask[ny * w + nx] == MaskState.backdrop { return true }
          }
          return false
        }
        let enclosed = !speck && touched.contains { k in
          let box = enclosingBoxes[Int(k)]
          return minX >= box.minX && maxX <= box.maxX && minY >= box.minY && maxY <= box.maxY
            && (seenThroughBody
                  ? (labelled[Int(k)] && Double(members.count)
                       < GraphicsTuning.minSeeThroughShare * Double((box.maxX - box.minX + 1) * (box.maxY - box.minY + 1)))
                    || Self.thinWallShare(of: members, width: w, height: h,
                                          within: max(1, Int(GraphicsTuning.maxHandleWall
                                                             * Double(min(box.maxX - box.minX, box.maxY - box.minY) + 1))),
                                          isPage: { mask[$0] == MaskState.backdrop }) < GraphicsTuning.minThinWallShare
                  : labelled[Int(k)] || !seeThrough)
        }
        if enclosed { for idx in members { keep[idx] = true } }
      }
      // Parts enclosed by what a product keeps stay with it: the counters
      // of a dark panel's label (the insides of A, R, 0, % in its white
      // letters), the red inside the white letters of a red badge.
      // Such a part lies inside its product's bounding box, so only those
      // boxes are searched.
      for box in keptBoxes {
        for y in box.minY...box.maxY {
          for x in box.minX...box.maxX {
            let idx = y * w + x
            if !isGround[idx] && !keep[idx] { visited[idx] = false }
          }
        }
      }
      for box in keptBoxes {
        for y in box.minY...box.maxY {
          for x in box.minX...box.maxX {
            let start = y * w + x
            guard !isGround[start] && !keep[start] && !visited[start] && !caughtPage[start] else { continue }
            collect(start) { !isGround[$0] && !keep[$0] }
            var enclosed = true
            for idx in members {
              let x = idx % w
              guard x > 0, x < w - 1, idx >= w, idx + w < w * h,
                    !(isGround[idx - 1] && !keep[idx - 1]), !(isGround[idx + 1] && !keep[idx + 1]),
                    !(isGround[idx - w] && !keep[idx - w]), !(isGround[idx + w] && !keep[idx + w])
              else { enclosed = false; break }
            }
            if enclosed { for idx in members { keep[idx] = true } }
          }
        }
      }
      // A card's or a button's drop shadow stays a shadow: darker than the
      // ground's dark colour in proportion, never an inverted light glow.
      // It is cast on the open page: the page's colour a tile encloses (a
      // white label knocked out of a grey tile) casts no shade round it.
      let openPage = (0..<(w * h)).map { isGround[$0] && mask[$0] == MaskState.backdrop }
      if let shadows = Self.dropShadows(p, width: w, height: h, isGround: openPage, keep: keep, ground: ground) {
        let groundDark = inversion.map(ground.r, ground.g, ground.b)
        for idx in 0..<(w * h) where shadows[idx] >= 0 {
          let i = idx * 4, ratio = Double(shadows[idx])
          output[i] = Luma.byte(Double(groundDark.0) * ratio)
          output[i + 1] = Luma.byte(Double(groundDark.1) * ratio)
          output[i + 2] = Luma.byte(Double(groundDark.2) * ratio)
        }
      }
      // A tinted ground (a pastel pink, a mint) keeps its hue on the
      // surface through the inversion, backdrop included; a neutral one's
      // backdrop takes the ground-recoloured pixels.
      let tinted = OKLab(r: ground.r, g: ground.g, b: ground.b).chroma >= GraphicsTuning.tintedGroundChroma
      kept.pixels.withUnsafeBufferPointer { k in
        products.pixels.withUnsafeBufferPointer { d in
          for idx in 0..<(w * h) where keep[idx] || (mask[idx] == MaskState.backdrop && !tinted) {
            let i = idx * 4
            let source = keep[idx] ? d : k
            output[i] = source[i]
            output[i + 1] = source[i + 1]
            output[i + 2] = source[i + 2]
          }
        }
      }
      // A flat product's edge blended with the ground (anti-aliasing, a
      // blur, a feathered or semi-transparent edge flattened on white) is
      // un-mixed: the share of ink it holds, over the ground's dark colour,
      // so no light halo is left around it. A photograph's own light
      // shading is not touched.
      // Lifted panels: every kept pixel in the panel's box (its ink, the
      // counters of its label's letters) moves toward the lifted ink as far
      // as it was ink in the light picture, not label. It starts from the
      // kept picture, never the dimmed products: the lift is what makes it
      // stand off the surface, and dimming it after would take it back
      // under the contrast it was lifted to (a navy pill beside a photo
      // that is dimmed: 1.8:1).
      let groundLightLuma = Double(Luma.integer(ground.r, ground.g, ground.b))
      kept.pixels.withUnsafeBufferPointer { k in
        for (index, panel) in liftedPanels {
          let ink = flatProducts[index].ink
          let inkLuma = Double(Luma.integer(ink.r, ink.g, ink.b))
          guard groundLightLuma - inkLuma >= 1 else { continue }
          let box = panel.box
          for y in box.minY...box.maxY {
            for x in box.minX...box.maxX where keep[y * w + x] {
              let i = (y * w + x) * 4
              let t = min(max((Double(Luma.integer(p[i], p[i + 1], p[i + 2])) - inkLuma) / (groundLightLuma - inkLuma), 0), 1)
              output[i] = Luma.byte(Double(k[i]) + (1 - t) * (Double(panel.ink.r) - Double(ink.r)))
              output[i + 1] = Luma.byte(Double(k[i + 1]) + (1 - t) * (Double(panel.ink.g) - Double(ink.g)))
              output[i + 2] = Luma.byte(Double(k[i + 2]) + (1 - t) * (Double(panel.ink.b) - Double(ink.b)))
            }
          }
        }
      }
      if !flatProducts.isEmpty {
        let groundDark = inversion.map(ground.r, ground.g, ground.b)
        let groundLuma = Luma.integer(ground.r, ground.g, ground.b)
        let depth = Self.edgeDepth(of: flatProducts.map(\.region), width: w, height: h, band: GraphicsTuning.unmixedEdge,
                                   outside: { !keep[$0] })
        for (k, (region, ink)) in flatProducts.enumerated() {
          let line = BlendLine(from: ground, to: ink)
          let inkDark = liftedPanels[k]?.ink ?? productColour(ink, dimmed: productsDimmed)
          // Soft shadows keep their own proportional mapping; the inside of
          // the product keeps its own shading (a lighter side is not a
          // blend with the ground).
          // A pixel of the rim as light as the ground or lighter, off the
          // blend (a JPEG's ringing round a black disc), is ground: it
          // would be a light speck on the dark surface.
          let inkLuma = Luma.integer(ink.r, ink.g, ink.b)
          for idx in region where mask[idx] == MaskState.other && depth[idx] <= GraphicsTuning.unmixedEdge {
            let i = idx * 4
            var position = line.position(of: p[i], p[i + 1], p[i + 2])
            if position == nil && inkLuma < groundLuma - tolerance
              && Luma.integer(p[i], p[i + 1], p[i + 2]) >= groundLuma - tolerance { position = 0 }
            guard let t = position, t < GraphicsTuning.unmixedBelow else { continue }
            output[i] = UInt8((Double(inkDark.r) * t + Double(groundDark.0) * (1 - t)).rounded())
            output[i + 1] = UInt8((Double(inkDark.g) * t + Double(groundDark.1) * (1 - t)).rounded())
            output[i + 2] = UInt8((Double(inkDark.b) * t + Double(groundDark.2) * (1 - t)).rounded())
          }
        }
      }
      // A photograph set in the picture on its own light backdrop (a
      // product shot pasted on a grey page): its backdrop goes dark too.
      for part in insetPhotographs {
        guard let recoloured = recolourOwnBackdrop(of: part.region, box: part.box, colour: part.colour, pixels: p,
                                                   width: w, dimmed: productsDimmed) else { continue }
        for (k, idx) in part.region.enumerated() {
          let i = idx * 4
          output[i] = recoloured[k].r
          output[i + 1] = recoloured[k].g
          output[i + 2] = recoloured[k].b
        }
      }
    }
    return RGBAImage(width: w, height: h, pixels: output)
  }

  /// How far each pixel of the given regions lies inside its region, in
  /// 4-connected steps from a pixel outside it for which `outside` holds (0
  /// on that rim), counted up to `band`; `UInt8.max` beyond `band`, outside
  /// every region, and toward other pixels (ground a product encloses and
  /// keeps: the white letters of a red badge, whose edge is not the ground's
  /// blend).
  static func edgeDepth(of regions: [[Int]], width w: Int, height h: Int, band: UInt8,
                        outside: (Int) -> Bool) -> [UInt8] {
    var label = [Int32](repeating: 0, count: w * h)
    for (k, region) in regions.enumerated() { for idx in region { label[idx] = Int32(k + 1) } }
    var depth = [UInt8](repeating: .max, count: w * h)
    var frontier: [Int] = []
    for region in regions {
      for idx in region {
        let x = idx % w, l = label[idx]
        @inline(__always) func rim(_ n: Int) -> Bool { label[n] != l && outside(n) }
        if (x > 0 && rim(idx - 1)) || (x < w - 1 && rim(idx + 1)) || (idx >= w && rim(idx - w))
          || (idx + w < w * h && rim(idx + w)) {
          depth[idx] = 0
          frontier.append(idx)
        }
      }
    }
    var d: UInt8 = 0
    while d < band, !frontier.isEmpty {
      d += 1
      var next: [Int] = []
      for idx in frontier {
        let x = idx % w, l = label[idx]
        @inline(__always) func step(_ n: Int) {
          if label[n] == l && depth[n] == .max { depth[n] = d; next.append(n) }
        }
        if x > 0 { step(idx - 1) }
        if x < w - 1 { step(idx + 1) }
        if idx >= w { step(idx - w) }
        if idx + w < w * h { step(idx + w) }
      }
      frontier = next
    }
    return depth
  }

  /// The pixels of a photograph set in a graphic on its own light backdrop
  /// (a white square around a product shot, a polaroid's frame, on a grey
  /// page), treated as a graphic of its own: its backdrop recoloured to the
  /// surface as the ground-recoloured treatment does for a whole picture,
  /// its photograph kept, and what else stands on the backdrop (the
  /// polaroid's caption) inverted
  /// (``invertGraphics(_:kept:products:productsDimmed:mask:analysis:insets:)``,
  /// without nested insets); `nil` when the part is not such an inset.
  ///
  /// The part is an inset when it is a near rectangle (it fills
  /// ``GraphicsTuning/insetFill`` of its bounding box), its rim (its
  /// members on the bounding box's edge) is nearly all (``GraphicsTuning/insetRim``)
  /// within ``FloodFillTolerance/maximum`` of its most common colour, that
  /// colour is light (the classifier's light-background luma), and the
  /// part, cut out with the page around it painted in that colour, is
  /// classified a plain light ground. A white product standing on the page
  /// is none of that: its rim is its own shaded edge.
  ///
  /// - Returns: one colour per member of `region`, in its order.
  func recolourOwnBackdrop(of region: [Int], box: (minX: Int, minY: Int, maxX: Int, maxY: Int), colour: RGB8,
                           pixels p: UnsafeBufferPointer<UInt8>, width w: Int, dimmed: Bool) -> [RGB8]? {
    let cw = box.maxX - box.minX + 1, ch = box.maxY - box.minY + 1
    guard colour.luma > ClassifierThresholds.lightBackgroundLuma,
          Double(region.count) >= GraphicsTuning.insetFill * Double(cw * ch) else { return nil }
    var inside = [Bool](repeating: false, count: cw * ch)
    for idx in region { inside[(idx / w - box.minY) * cw + idx % w - box.minX] = true }
    var rim = 0, agreeing = 0
    let tolerance = FloodFillTolerance.maximum
    for idx in region {
      let x = idx % w - box.minX, y = idx / w - box.minY
      guard x == 0 || y == 0 || x == cw - 1 || y == ch - 1 else { continue }
      rim += 1
      let i = idx * 4
      if abs(Int(p[i]) - Int(colour.r)) <= tolerance && abs(Int(p[i + 1]) - Int(colour.g)) <= tolerance
        && abs(Int(p[i + 2]) - Int(colour.b)) <= tolerance { agreeing += 1 }
    }
    guard rim > 0, Double(agreeing) >= GraphicsTuning.insetRim * Double(rim) else { return nil }
    var pixels = [UInt8](repeating: 255, count: cw * ch * 4)
    for y in 0..<ch {
      for x in 0..<cw {
        let o = (y * cw + x) * 4
        if inside[y * cw + x] {
          let i = ((y + box.minY) * w + x + box.minX) * 4
          pixels[o] = p[i]; pixels[o + 1] = p[i + 1]; pixels[o + 2] = p[i + 2]
        } else {
          pixels[o] = colour.r; pixels[o + 1] = colour.g; pixels[o + 2] = colour.b
        }
      }
    }
    let crop = RGBAImage(width: cw, height: ch, pixels: pixels)
    let analysis = analyze(crop)
    guard analysis.kind == .lightBackground else { return nil }
    let (recoloured, mask) = recolourLightBackground(crop, analysis: analysis)
    let subject = dimmed ? darkenPhotograph(recoloured) : recoloured
    // The inset is a graphic of its own: its photograph kept, what else
    // stands on its backdrop (a polaroid's caption) inverted with it.
    let treated = invertGraphics(crop, kept: recoloured, products: subject, productsDimmed: dimmed, mask: mask,
                                 analysis: analysis, insets: false)
    return region.map { idx in
      let c = (idx / w - box.minY) * cw + idx % w - box.minX
      return RGB8(r: treated.pixels[c * 4], g: treated.pixels[c * 4 + 1], b: treated.pixels[c * 4 + 2])
    }
  }

  /// What a flat product's colour becomes: the ground-recoloured
  /// treatment's subject dim (``Options/subjectDim``), then the photograph
  /// dim when products are dimmed.
  func productColour(_ colour: RGB8, dimmed: Bool) -> RGB8 {
    let dim = 1 - min(max(options.subjectDim, 0), 0.05)
    var one = RGBAImage(width: 1, height: 1, pixels: [Luma.byte(Double(colour.r) * dim), Luma.byte(Double(colour.g) * dim),
                                                      Luma.byte(Double(colour.b) * dim), 255])
    if dimmed { one = darkenPhotograph(one) }
    return RGB8(r: one.pixels[0], g: one.pixels[1], b: one.pixels[2])
  }

  /// Marks the photographs inside a graphics component as kept: the
  /// component's pixels farther than ``ClassifierThresholds/backgroundTolerance``
  /// from its most common colour (its panel) split into 4-connected regions,
  /// and a region whose smooth interior spreads over
  /// ``GraphicsTuning/photoLevels`` luma levels or more, on at least
  /// ``GraphicsTuning/minPhotoPixels`` smooth pixels that make up
  /// ``GraphicsTuning/minSmoothShare`` of it, is a photograph. Text, icons
  /// and grid lines on the panel are flat or thin and stay graphics. A
  /// region that fades into the page (it touches a pixel of `isPage`) and
  /// is mostly soft shade of the page (``isSoftShade(_:_:_:of:groundLuma:)``
  /// of `page`, at least ``GraphicsTuning/pageShadeShare`` of it: a
  /// JPEG's noise takes a tenth of a shadow off the shade's colours) is the
  /// card's drop shadow on the page, however many levels its ramp spreads
  /// over: the shadow finder maps it
  /// (``dropShadows(_:width:height:isGround:keep:ground:)``), where kept it
  /// would stay a light crescent round the dark card. A photograph in a
  /// card sits on the card's own colour.
  /// - Returns: the bounding box of each photograph kept.
  func keepPhotographs(in members: [Int], pixels p: UnsafeBufferPointer<UInt8>, width w: Int, height h: Int,
                       page: RGB8, isPage: [Bool], keep: inout [Bool]) -> [(minX: Int, minY: Int, maxX: Int, maxY: Int)] {
    let pageLuma = Luma.exact(Double(page.r), Double(page.g), Double(page.b))
    var boxes: [(minX: Int, minY: Int, maxX: Int, maxY: Int)] = []
    var colours = [Int32](repeating: 0, count: 1 << 15)
    let mode = Self.dominantColour(of: members, pixels: p, counts: &colours)
    let panel = (Int(mode.r), Int(mode.g), Int(mode.b))
    let tolerance = ClassifierThresholds.backgroundTolerance + 4
    var inside = Set<Int>()
    for idx in members {
      let i = idx * 4
      if abs(Int(p[i]) - panel.0) > tolerance || abs(Int(p[i + 1]) - panel.1) > tolerance
        || abs(Int(p[i + 2]) - panel.2) > tolerance { inside.insert(idx) }
    }
    guard inside.count >= GraphicsTuning.minPhotoPixels else { return [] }
    var seen = Set<Int>()
    var histogram = [Int](repeating: 0, count: 256)
    for start in inside where !seen.contains(start) {
      var region: [Int] = []
      var stack = [start]
      seen.insert(start)
      while let idx = stack.popLast() {
        region.append(idx)
        let x = idx % w
        for n in [x > 0 ? idx - 1 : -1, x < w - 1 ? idx + 1 : -1, idx - w, idx + w]
        where n >= 0 && inside.contains(n) && !seen.contains(n) {
          seen.insert(n)
          stack.append(n)
        }
      }
      guard region.count >= GraphicsTuning.minPhotoPixels else { continue }
      let (smooth, levels) = Self.smoothLevels(of: region, pixels: p, width: w, height: h,
                                               ground: RGB8(r: mode.r, g: mode.g, b: mode.b), ink: nil, histogram: &histogram)
      guard smooth >= GraphicsTuning.minPhotoPixels, levels >= GraphicsTuning.photoLevels,
            Double(smooth) >= GraphicsTuning.minSmoothShare * Double(region.count) else { continue }
      let fadesIntoPage = region.contains { idx in
        let x = idx % w
        return (x > 0 && isPage[idx - 1]) || (x < w - 1 && isPage[idx + 1])
          || (idx >= w && isPage[idx - w]) || (idx + w < w * h && isPage[idx + w])
      }
      if pageLuma > 1 && fadesIntoPage {
        let shade = region.reduce(0) { count, idx in
          Self.isSoftShade(p[idx * 4], p[idx * 4 + 1], p[idx * 4 + 2], of: page, groundLuma: pageLuma) ? count + 1 : count
        }
        guard Double(shade) < GraphicsTuning.pageShadeShare * Double(region.count) else { continue }
      }
      var box = (minX: w, minY: h, maxX: 0, maxY: 0)
      for idx in region {
        keep[idx] = true
        let x = idx % w, y = idx / w
        box = (min(box.minX, x), min(box.minY, y), max(box.maxX, x), max(box.maxY, y))
      }
      boxes.append(box)
    }
    return boxes
  }

  /// How many ground pixels in the box `xs`×`ys` the flood fill from the
  /// border did not reach (the page's colour enclosed by a part), counted
  /// up to `limit`.
  static func enclosedGround(inX xs: ClosedRange<Int>, y ys: ClosedRange<Int>, width w: Int, isGround: [Bool],
                             mask: [UInt8], upTo limit: Int) -> Int {
    var count = 0
    for y in ys {
      for x in xs where isGround[y * w + x] && mask[y * w + x] != MaskState.backdrop {
        count += 1
        if count >= limit { return count }
      }
    }
    return count
  }

  /// Keeps the dark label of a brand-coloured fill dark.
  ///
  /// When the part's most common colour, its fill, is a brand colour (OKLab
  /// chroma ``GraphicsTuning/brandChroma`` or more), ``LightnessInversion``
  /// keeps its lightness; its pixels darker than it by more than
  /// `tolerance` luma levels are its label. If the label's own colour has
  /// more WCAG contrast against the mapped fill than its inverted colour
  /// has, each label pixel on the blend line from the fill to the label
  /// (``BlendLine``, anti-aliasing included) becomes the same blend of the
  /// mapped fill and the label's own colour, in `output` (RGBA).
  static func keepDarkLabel(of members: [Int], inversion: LightnessInversion, tolerance: Int,
                            pixels p: UnsafeBufferPointer<UInt8>, output: inout [UInt8], counts: inout [Int32]) {
    let mode = dominantColour(of: members, pixels: p, counts: &counts)
    let fill = RGB8(r: mode.r, g: mode.g, b: mode.b)
    guard OKLab(r: fill.r, g: fill.g, b: fill.b).chroma >= GraphicsTuning.brandChroma else { return }
    let fillLuma = Luma.integer(fill.r, fill.g, fill.b)
    let label = members.filter { Luma.integer(p[$0 * 4], p[$0 * 4 + 1], p[$0 * 4 + 2]) < fillLuma - tolerance }
    guard label.count >= GraphicsTuning.minLabelPixels else { return }
    let colour = dominantColour(of: label, pixels: p, counts: &counts)
    let mappedFill = inversion.map(fill.r, fill.g, fill.b)
    let mappedLabel = inversion.map(colour.r, colour.g, colour.b)
    guard Luma.contrast((colour.r, colour.g, colour.b), mappedFill) > Luma.contrast(mappedLabel, mappedFill) else { return }
    let line = BlendLine(from: fill, to: RGB8(r: colour.r, g: colour.g, b: colour.b))
    let own = (Double(colour.r), Double(colour.g), Double(colour.b))
    let mapped = (Double(mappedFill.0), Double(mappedFill.1), Double(mappedFill.2))
    for idx in members {
      let i = idx * 4
      guard let t = line.position(of: p[i], p[i + 1], p[i + 2]), t > 0 else { continue }
      output[i] = UInt8((mapped.0 * (1 - t) + own.0 * t).rounded())
      output[i + 1] = UInt8((mapped.1 * (1 - t) + own.1 * t).rounded())
      output[i + 2] = UInt8((mapped.2 * (1 - t) + own.2 * t).rounded())
    }
  }

  /// The parts of `members` (4-connected) whose pixels are off `colour`
  /// by more than ``GraphicsTuning/groundNoise`` in some channel, of at
  /// least ``GraphicsTuning/minLabelPixels`` pixels, when `members` holds
  /// at least that many strongly coloured pixels (channels spread by 40
  /// levels or more); none otherwise.
  static func partsOff(_ colour: RGB8, in members: [Int], width w: Int, height h: Int,
                       pixels p: UnsafeBufferPointer<UInt8>) -> [[Int]] {
    @inline(__always) func isColoured(_ i: Int) -> Bool {
      let r = p[i], g = p[i + 1], b = p[i + 2]
      return Int(max(r, g, b)) - Int(min(r, g, b)) >= 40
    }
    var coloured = 0
    for idx in members where isColoured(idx * 4) { coloured += 1 }
    guard coloured >= GraphicsTuning.minLabelPixels else { return [] }
    let noise = GraphicsTuning.groundNoise
    var off = Set<Int>()
    for idx in members {
      let i = idx * 4
      if abs(Int(p[i]) - Int(colour.r)) > noise || abs(Int(p[i + 1]) - Int(colour.g)) > noise
        || abs(Int(p[i + 2]) - Int(colour.b)) > noise { off.insert(idx) }
    }
    var parts: [[Int]] = []
    var stack: [Int] = []
    while let start = off.first {
      off.remove(start)
      var part = [start]
      stack = [start]
      while let idx = stack.popLast() {
        let x = idx % w
        for n in [x > 0 ? idx - 1 : -1, x < w - 1 ? idx + 1 : -1, idx - w, idx + w]
        where n >= 0 && n < w * h && off.remove(n) != nil {
          part.append(n)
          stack.append(n)
        }
      }
      if part.count >= GraphicsTuning.minLabelPixels { parts.append(part) }
    }
    return parts
  }

  /// Whether `members` (a part off the ground) is a swell of the ground
  /// (``GraphicsTuning/swellStep``): every pixel lighter than the ground
  /// `ground`, and its body, a few pixels inside its rim, hardly lighter
  /// than the ground pixels on that rim. A part too thin to have a body (a
  /// white hairline) is a mark, not a swell.
  static func isSwell(_ members: [Int], of ground: RGB8, pixels p: UnsafeBufferPointer<UInt8>, width w: Int,
                      height h: Int, isGround: [Bool]) -> Bool {
    let groundLuma = Luma.integer(ground.r, ground.g, ground.b)
    for idx in members where Luma.integer(p[idx * 4], p[idx * 4 + 1], p[idx * 4 + 2]) <= groundLuma { return false }
    var rim = Set<Int>()
    for idx in members {
      let x = idx % w
      for n in [x > 0 ? idx - 1 : -1, x < w - 1 ? idx + 1 : -1, idx - w, idx + w]
      where n >= 0 && n < w * h && isGround[n] { rim.insert(n) }
    }
    guard !rim.isEmpty else { return false }
    var rimLuma = 0
    for idx in rim { rimLuma += Luma.integer(p[idx * 4], p[idx * 4 + 1], p[idx * 4 + 2]) }
    let inside = Set(members)
    guard let body = bodyLuma(behind: Array(rim), width: w, height: h, pixels: p, depth: GraphicsTuning.holeBodyDepth,
                              inside: { inside.contains($0) })
    else { return false }
    return body - rimLuma / rim.count <= GraphicsTuning.swellStep
  }

  /// The mean luma of the pixels `depth` steps (4-connected, counted from
  /// 1 at the region's rim) away from `region` through pixels where
  /// `inside` holds: what lies behind a hole's antialiased rim. Nil when
  /// no pixel lies that deep (a hairline round the hole).
  static func bodyLuma(behind region: [Int], width w: Int, height h: Int, pixels p: UnsafeBufferPointer<UInt8>,
                       depth: ClosedRange<Int>, inside: (Int) -> Bool) -> Int? {
    var seen = Set(region)
    var frontier = region, next: [Int] = []
    var sum = 0, count = 0
    for step in 1...depth.upperBound {
      next.removeAll(keepingCapacity: true)
      for idx in frontier {
        let x = idx % w
        for n in [x > 0 ? idx - 1 : -1, x < w - 1 ? idx + 1 : -1, idx - w, idx + w]
        where n >= 0 && n < w * h && inside(n) && seen.insert(n).inserted {
          next.append(n)
          if depth.contains(step) {
            sum += Luma.integer(p[n * 4], p[n * 4 + 1], p[n * 4 + 2])
            count += 1
          }
        }
      }
      swap(&frontier, &next)
    }
    return count > 0 ? sum / count : nil
  }

  /// The share of `region`'s rim (the pixels 4-adjacent to it outside it)
  /// from which a pixel where `isPage` holds lies at most `steps` steps
  /// away (4-connected, outside the region): how much of a hole's wall is
  /// thin, the page just past it. Each pixel is reached from its nearest
  /// rim pixel (a breadth-first walk from the whole rim at once).
  static func thinWallShare(of region: [Int], width w: Int, height h: Int, within steps: Int,
                            isPage: (Int) -> Bool) -> Double {
    var origin: [Int: Int32] = [:]
    for idx in region { origin[idx] = -1 }
    var rim: [Int] = []
    for idx in region {
      let x = idx % w
      for n in [x > 0 ? idx - 1 : -1, x < w - 1 ? idx + 1 : -1, idx - w, idx + w]
      where n >= 0 && n < w * h && origin[n] == nil {
        origin[n] = Int32(rim.count)
        rim.append(n)
      }
    }
    guard !rim.isEmpty else { return 0 }
    var thin = [Bool](repeating: false, count: rim.count)
    var frontier = rim, next: [Int] = []
    for _ in 0..<steps {
      next.removeAll(keepingCapacity: true)
      for idx in frontier {
        guard let from = origin[idx], from >= 0 else { continue }
        if isPage(idx) { thin[Int(from)] = true; continue }
        let x = idx % w
        for n in [x > 0 ? idx - 1 : -1, x < w - 1 ? idx + 1 : -1, idx - w, idx + w]
        where n >= 0 && n < w * h && origin[n] == nil {
          origin[n] = from
          next.append(n)
        }
      }
      swap(&frontier, &next)
    }
    return Double(thin.lazy.filter { $0 }.count) / Double(rim.count)
  }

  /// Collects the 4-connected component of `start` over pixels where
  /// `inside` holds into `members` (emptied first), marking each in
  /// `visited`; `stack` is scratch space, left empty.
  static func collectComponent(from start: Int, width w: Int, height h: Int, visited: inout [Bool],
                               members: inout [Int], stack: inout [Int], inside: (Int) -> Bool) {
    members.removeAll(keepingCapacity: true)
    visited[start] = true
    stack.append(start)
    while let idx = stack.popLast() {
      members.append(idx)
      let x = idx % w
      if x > 0, !visited[idx - 1], inside(idx - 1) { visited[idx - 1] = true; stack.append(idx - 1) }
      if x < w - 1, !visited[idx + 1], inside(idx + 1) { visited[idx + 1] = true; stack.append(idx + 1) }
      if idx >= w, !visited[idx - w], inside(idx - w) { visited[idx - w] = true; stack.append(idx - w) }
      if idx + w < w * h, !visited[idx + w], inside(idx + w) { visited[idx + w] = true; stack.append(idx + w) }
    }
  }

  /// The outline of a flat fill (outlined type, a sticker's keyline) and
  /// everything between it and the fill, or none: the part's pixels off
  /// `fill` (by more than ``GraphicsTuning/groundNoise`` in some channel),
  /// when at least ``GraphicsTuning/minOutlineShare`` of the part, or
  /// ``GraphicsTuning/minOutlineWidth`` times the pixels next to the open
  /// page, is at least ``GraphicsTuning/outlineDarkness`` times darker in
  /// luma than the fill, no more than ``GraphicsTuning/maxOutlineWidth`` times the
  /// pixels next to the open page (a 4-neighbour for which `isPage`
  /// holds: ground the page reaches from the border, not a white label the
  /// fill encloses), and at most
  /// ``GraphicsTuning/fillOnPage`` of those are the fill with no dark
  /// neighbour (a fill-coloured pixel beside the outline is the outline's
  /// anti-aliasing into the page: a grey fill's tone lies between black and
  /// white): the outline is a band that holds the fill off the page all
  /// round. A shaded product, or a letter in one colour, meets the page
  /// with its own colour; a photo beside a white panel meets the page on
  /// one side only (its dark pixels are 90 times its rim, an outline's 3 to
  /// 6). The outline returned is what the page reaches through pixels off
  /// the fill, and the dark band round ground the part encloses (`isGround`:
  /// an outlined D's counter).
  static func outlineOfFill(_ region: [Int], fill: RGB8, pixels p: UnsafeBufferPointer<UInt8>, width w: Int,
                            height h: Int, isPage: (Int) -> Bool, isGround: (Int) -> Bool) -> [Int] {
    let noise = GraphicsTuning.groundNoise
    let fillLuma = Double(Luma.integer(fill.r, fill.g, fill.b))
    @inline(__always) func isDark(_ n: Int) -> Bool {
      Double(Luma.integer(p[n * 4], p[n * 4 + 1], p[n * 4 + 2])) * GraphicsTuning.outlineDarkness <= fillLuma
    }
    var rim = 0, fillOnRim = 0, dark = 0
    var outline: [Int] = []
    for idx in region {
      let i = idx * 4
      let x = idx % w
      let isFill = abs(Int(p[i]) - Int(fill.r)) <= noise && abs(Int(p[i + 1]) - Int(fill.g)) <= noise
        && abs(Int(p[i + 2]) - Int(fill.b)) <= noise
      if !isFill { outline.append(idx) }
      if isDark(idx) { dark += 1 }
      let onPage = (x > 0 && isPage(idx - 1)) || (x < w - 1 && isPage(idx + 1))
        || (idx >= w && isPage(idx - w)) || (idx + w < w * h && isPage(idx + w))
      if onPage {
        rim += 1
        // A pixel of the fill's colour beside a dark one is the outline's
        // anti-aliased edge blending into the page (a grey fill's tone
        // falls between black and white, most often along curves: a D's,
        // a G's), not the fill meeting the page.
        let besideOutline = (x > 0 && isDark(idx - 1)) || (x < w - 1 && isDark(idx + 1))
          || (idx >= w && isDark(idx - w)) || (idx + w < w * h && isDark(idx + w))
        if isFill && !besideOutline { fillOnRim += 1 }
      }
    }
    guard rim > 0,
          Double(dark) >= GraphicsTuning.minOutlineShare * Double(region.count)
            || Double(dark) >= GraphicsTuning.minOutlineWidth * Double(rim),
          Double(dark) <= GraphicsTuning.maxOutlineWidth * Double(rim),
          Double(fillOnRim) <= GraphicsTuning.fillOnPage * Double(rim) else { return [] }
    // Only what the page side reaches without crossing the fill, and the
    // dark band round ground the part encloses (a D's counter, outlined
    // like its outside): a white label inside the fill (a sticker's NEW),
    // whose rim blends the fill into white and is not dark, is no outline.
    let offFill = Set(outline)
    var reached = Set<Int>()
    var stack = outline.filter { idx in
      let x = idx % w
      if (x > 0 && isPage(idx - 1)) || (x < w - 1 && isPage(idx + 1))
        || (idx >= w && isPage(idx - w)) || (idx + w < w * h && isPage(idx + w)) { return true }
      return isDark(idx) && ((x > 0 && isGround(idx - 1)) || (x < w - 1 && isGround(idx + 1))
        || (idx >= w && isGround(idx - w)) || (idx + w < w * h && isGround(idx + w)))
    }
    reached.formUnion(stack)
    while let idx = stack.popLast() {
      let x = idx % w
      for n in [x > 0 ? idx - 1 : -1, x < w - 1 ? idx + 1 : -1, idx - w, idx + w]
      where n >= 0 && n < w * h && offFill.contains(n) && !reached.contains(n) {
        reached.insert(n)
        stack.append(n)
      }
    }
    // With it, a pixel of the fill's colour between that band and the
    // ground: the band's anti-aliasing (the counter would keep it as the
    // light rim of a label).
    let blend = region.filter { idx in
      guard !reached.contains(idx) else { return false }
      let x = idx % w
      let neighbours = [x > 0 ? idx - 1 : -1, x < w - 1 ? idx + 1 : -1, idx - w, idx + w].filter { $0 >= 0 && $0 < w * h }
      return neighbours.contains { isGround($0) } && neighbours.contains { reached.contains($0) }
    }
    return outline.filter { reached.contains($0) } + blend
  }

  /// The share of the bounding box of a part's ink (its pixels under
  /// luma `below`) that the ink fills.
  static func inkFill(of region: [Int], width w: Int, pixels p: UnsafeBufferPointer<UInt8>, below: Int) -> Double {
    var minX = Int.max, maxX = Int.min, minY = Int.max, maxY = Int.min, count = 0
    for idx in region where Luma.integer(p[idx * 4], p[idx * 4 + 1], p[idx * 4 + 2]) < below {
      let x = idx % w, y = idx / w
      minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
      count += 1
    }
    guard count > 0 else { return 0 }
    return Double(count) / Double((maxX - minX + 1) * (maxY - minY + 1))
  }

  /// How photographic a region is: its smooth pixels (not on the picture's
  /// edge, all four neighbours within ``GraphicsTuning/smoothStep`` luma
  /// levels, so anti-aliased edges do not count; not within
  /// ``GraphicsTuning/groundNoise`` of `ground` in every channel, so coding
  /// noise on the ground does not count; not a blend of `ink` and
  /// `ground` within ``GraphicsTuning/blendTolerance``, so a JPEG's chroma
  /// bleeding around red letters does not count), and how many luma levels
  /// each hold at least ``GraphicsTuning/levelShare`` of them (at least 2).
  ///
  /// - Parameters:
  ///   - ground: the colour the region sits on.
  ///   - ink: the region's most common colour, or `nil`.
  ///   - histogram: 256 counts, overwritten (scratch space).
  static func smoothLevels(of region: [Int], pixels p: UnsafeBufferPointer<UInt8>, width w: Int, height h: Int,
                           ground: RGB8, ink: RGB8?, histogram: inout [Int]) -> (smooth: Int, levels: Int) {
    let noise = GraphicsTuning.groundNoise
    let (gr, gg, gb) = (Int(ground.r), Int(ground.g), Int(ground.b))
    let blend = ink.map { BlendLine(from: ground, to: $0) }
    for i in 0..<256 { histogram[i] = 0 }
    var smooth = 0
    for idx in region {
      let x = idx % w, y = idx / w
      guard x > 0, x < w - 1, y > 0, y < h - 1 else { continue }
      let i = idx * 4
      if abs(Int(p[i]) - gr) <= noise && abs(Int(p[i + 1]) - gg) <= noise && abs(Int(p[i + 2]) - gb) <= noise { continue }
      if let blend, blend.position(of: p[i], p[i + 1], p[i + 2]) != nil { continue }
      let l = Luma.integer(p[i], p[i + 1], p[i + 2])
      @inline(__always) func near(_ n: Int) -> Bool {
        let j = n * 4
        return abs(Luma.integer(p[j], p[j + 1], p[j + 2]) - l) <= GraphicsTuning.smoothStep
      }
      guard near(idx - 1), near(idx + 1), near(idx - w), near(idx + w) else { continue }
      histogram[l] += 1
      smooth += 1
    }
    let floor = max(2, Int(Double(smooth) * GraphicsTuning.levelShare))
    return (smooth, histogram.reduce(0) { $0 + ($1 >= floor ? 1 : 0) })
  }

  /// How many of a region's pixels are smooth (not on the picture's edge,
  /// all four neighbours within ``GraphicsTuning/smoothStep`` luma levels)
  /// and off every one of `fills` by more than
  /// ``GraphicsTuning/blendTolerance`` in some channel: the shading of a
  /// photograph on the fills, and the cores of the letters on them, but
  /// not the fills' own noise (a q10 JPEG's spreads three pastel tiles
  /// over thirty levels).
  static func smoothPixels(of region: [Int], offFills fills: [RGB8], pixels p: UnsafeBufferPointer<UInt8>,
                           width w: Int, height h: Int) -> Int {
    let tolerance = GraphicsTuning.blendTolerance
    var smooth = 0
    for idx in region {
      let x = idx % w, y = idx / w
      guard x > 0, x < w - 1, y > 0, y < h - 1 else { continue }
      let i = idx * 4
      let onFill = fills.contains { c in
        abs(Int(p[i]) - Int(c.r)) <= tolerance && abs(Int(p[i + 1]) - Int(c.g)) <= tolerance
          && abs(Int(p[i + 2]) - Int(c.b)) <= tolerance
      }
      if onFill { continue }
      let l = Luma.integer(p[i], p[i + 1], p[i + 2])
      @inline(__always) func near(_ n: Int) -> Bool {
        let j = n * 4
        return abs(Luma.integer(p[j], p[j + 1], p[j + 2]) - l) <= GraphicsTuning.smoothStep
      }
      if near(idx - 1), near(idx + 1), near(idx - w), near(idx + w) { smooth += 1 }
    }
    return smooth
  }

  /// For each pixel of a box (row by row), whether a pixel of the open page
  /// (`MaskState.backdrop`) lies within `within` pixels of it, across and
  /// down (a square window, clipped to the picture).
  static func nearBackdrop(inX xs: ClosedRange<Int>, y ys: ClosedRange<Int>, width w: Int, height h: Int,
                           within r: Int, mask: [UInt8]) -> [Bool] {
    near(inX: xs, y: ys, width: w, height: h, within: r) { mask[$0] == MaskState.backdrop }
  }

  /// For each pixel of a box (row by row), whether a pixel for which
  /// `isTarget` holds (given its index) lies within `within` pixels of it,
  /// across and down (a square window, clipped to the picture).
  static func near(inX xs: ClosedRange<Int>, y ys: ClosedRange<Int>, width w: Int, height h: Int,
                   within r: Int, isTarget: (Int) -> Bool) -> [Bool] {
    // Rows widened first (over the box's rows and r more above and below),
    // then columns.
    let y0 = max(0, ys.lowerBound - r), y1 = min(h - 1, ys.upperBound + r)
    let bw = xs.count
    var rows = [Bool](repeating: false, count: bw * (y1 - y0 + 1))
    for y in y0...y1 {
      var last = Int.min / 2
      // The nearest page pixel to the left and to the right of each x.
      var left = [Int](repeating: Int.min / 2, count: bw)
      for x in max(0, xs.lowerBound - r)...xs.upperBound {
        if isTarget(y * w + x) { last = x }
        if x >= xs.lowerBound { left[x - xs.lowerBound] = last }
      }
      last = Int.max / 2
      for x in stride(from: min(w - 1, xs.upperBound + r), through: xs.lowerBound, by: -1) {
        if isTarget(y * w + x) { last = x }
        if x <= xs.upperBound {
          let i = x - xs.lowerBound
          rows[(y - y0) * bw + i] = x - left[i] <= r || last - x <= r
        }
      }
    }
    var near = [Bool](repeating: false, count: bw * ys.count)
    for y in ys {
      for i in 0..<bw {
        var hit = false
        for yy in max(y0, y - r)...min(y1, y + r) where rows[(yy - y0) * bw + i] { hit = true; break }
        near[(y - ys.lowerBound) * bw + i] = hit
      }
    }
    return near
  }

  /// Whether a box's body makes a solid convex shape with an edge of its
  /// own. Its body is what `isInk` holds for, and the `isLabel` pixels
  /// within its ink's extent along both their row and their column (the
  /// white letters on a disc; not the page caught between a JPEG's ringing
  /// just outside its rim). The body covers at least
  /// ``GraphicsTuning/convexPanelCover`` of its own bounding box (a disc
  /// 0.785); each row and each column of it is one run, short of it by at
  /// most ``GraphicsTuning/convexGaps`` of it in all (a bold 8's waist or a
  /// B's notch leaves gaps; a disc, an oval, a pill or a rounded square
  /// none); and at most that share of its bounding box's edge is `isLabel`
  /// (a glyph in a cell, whose ground fills the corners of its box, has its
  /// label on the edge), not counting `isOpen` pixels (the page caught in
  /// a JPEG's ringing round a disc, ``PageReach``). Indices into a picture
  /// `width` wide.
  static func isSolidConvexShape(inX xs: ClosedRange<Int>, y ys: ClosedRange<Int>, width w: Int,
                                 isInk: (Int) -> Bool, isLabel: (Int) -> Bool,
                                 isOpen: (Int) -> Bool) -> Bool {
    let bw = xs.count, bh = ys.count
    guard bw >= 8 && bh >= 8 else { return false }
    var filled = [Bool](repeating: false, count: bw * bh)
    var rowFirst = [Int](repeating: bw, count: bh), rowLast = [Int](repeating: -1, count: bh)
    var columnFirst = [Int](repeating: bh, count: bw), columnLast = [Int](repeating: -1, count: bw)
    var count = 0
    for r in 0..<bh {
      for c in 0..<bw where isInk((ys.lowerBound + r) * w + xs.lowerBound + c) {
        filled[r * bw + c] = true
        count += 1
        rowFirst[r] = min(rowFirst[r], c); rowLast[r] = c
        columnFirst[c] = min(columnFirst[c], r); columnLast[c] = max(columnLast[c], r)
      }
    }
    for r in 0..<bh where rowLast[r] > rowFirst[r] {
      for c in rowFirst[r]...rowLast[r] where !filled[r * bw + c] && r > columnFirst[c] && r < columnLast[c]
        && isLabel((ys.lowerBound + r) * w + xs.lowerBound + c) {
        filled[r * bw + c] = true
        count += 1
      }
    }
    // Measured on the box of its body: a JPEG's ringing round a disc joins
    // its part and widens its box by a few pixels.
    var top = bh, bottom = -1, left = bw, right = -1
    for r in 0..<bh {
      for c in 0..<bw where filled[r * bw + c] {
        top = min(top, r); bottom = max(bottom, r); left = min(left, c); right = max(right, c)
      }
    }
    guard bottom >= top else { return false }
    let tightWidth = right - left + 1, tightHeight = bottom - top + 1
    guard Double(count) >= GraphicsTuning.convexPanelCover * Double(tightWidth * tightHeight) else { return false }
    var gaps = 0
    for r in 0..<bh {
      var first = -1, last = -1, n = 0
      for c in 0..<bw where filled[r * bw + c] { if first < 0 { first = c }; last = c; n += 1 }
      if first >= 0 { gaps += last - first + 1 - n }
    }
    for c in 0..<bw {
      var first = -1, last = -1, n = 0
      for r in 0..<bh where filled[r * bw + c] { if first < 0 { first = r }; last = r; n += 1 }
      if first >= 0 { gaps += last - first + 1 - n }
    }
    guard Double(gaps) <= GraphicsTuning.convexGaps * Double(count) else { return false }
    let x0 = xs.lowerBound + left, x1 = xs.lowerBound + right
    let y0 = ys.lowerBound + top, y1 = ys.lowerBound + bottom
    var edgeLabel = 0
    for (x, y) in (x0...x1).flatMap({ [($0, y0), ($0, y1)] }) + (y0...y1).flatMap({ [(x0, $0), (x1, $0)] })
    where !isOpen(y * w + x) && isLabel(y * w + x) {
      edgeLabel += 1
    }
    return Double(edgeLabel) <= GraphicsTuning.convexGaps * Double(2 * (tightWidth + tightHeight))
  }

  /// Marks in `caught` the page a JPEG's ringing closed off round a dark
  /// shape in a box: of the pixels `reach` holds (the open page's reach
  /// past the ringing, ``PageReach``), its ground, what lies further than
  /// the rim's blend (``GraphicsTuning/unmixedEdge``) from the ink, and
  /// what in that blend is mostly page (luma `pageLuma` or more: halfway
  /// from a label to the ground). Indices into a picture `width` by
  /// `height`, RGBA `pixels`.
  static func markCaughtPage(inX xs: ClosedRange<Int>, y ys: ClosedRange<Int>, width w: Int, height h: Int,
                             pixels p: UnsafeBufferPointer<UInt8>, isInk: (Int) -> Bool, reach: PageReach, pageLuma: Int,
                             isGround: [Bool], caught: inout [Bool]) {
    let nearInk = near(inX: xs, y: ys, width: w, height: h, within: Int(GraphicsTuning.unmixedEdge), isTarget: isInk)
    let boxWidth = xs.count
    for y in ys {
      for x in xs where reach.contains(y * w + x) {
        let idx = y * w + x
        if isGround[idx] || !nearInk[(y - ys.lowerBound) * boxWidth + x - xs.lowerBound]
            || Luma.integer(p[idx * 4], p[idx * 4 + 1], p[idx * 4 + 2]) >= pageLuma {
          caught[idx] = true
        }
      }
    }
  }

  /// The number of 4-connected parts of the pixels in a box for which
  /// `isLabel` holds that the box encloses (none of their pixels on its
  /// edge), of `minPixels` or more; indices into a picture `width` wide.
  static func labelParts(inX xs: ClosedRange<Int>, y ys: ClosedRange<Int>, width w: Int,
                         isLabel: (Int) -> Bool, minPixels: Int = 1) -> Int {
    labelPartShapes(inX: xs, y: ys, width: w, isLabel: isLabel, minPixels: minPixels).parts
  }

  /// `labelParts(inX:y:width:isLabel:minPixels:)`, and how many of those
  /// parts are not convex: their rows and columns fall short of single runs
  /// by ``GraphicsTuning/glyphGaps`` of the part or more (a 7, an A, the
  /// letters of GO; a glyph's counter, the round hole of a bold o, is
  /// convex).
  static func labelPartShapes(inX xs: ClosedRange<Int>, y ys: ClosedRange<Int>, width w: Int,
                              isLabel: (Int) -> Bool, minPixels: Int = 1) -> (parts: Int, nonConvex: Int) {
    let bw = xs.count, bh = ys.count
    var seen = [Bool](repeating: false, count: bw * bh)
    var stack: [(Int, Int)] = []
    var part: [(Int, Int)] = []
    var parts = 0, nonConvex = 0
    for by in 0..<bh {
      for bx in 0..<bw where !seen[by * bw + bx] && isLabel((ys.lowerBound + by) * w + xs.lowerBound + bx) {
        seen[by * bw + bx] = true
        stack.append((bx, by))
        part.removeAll(keepingCapacity: true)
        var enclosed = true
        while let (x, y) = stack.popLast() {
          part.append((x, y))
          if x == 0 || y == 0 || x == bw - 1 || y == bh - 1 { enclosed = false }
          for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
          where nx >= 0 && ny >= 0 && nx < bw && ny < bh && !seen[ny * bw + nx]
            && isLabel((ys.lowerBound + ny) * w + xs.lowerBound + nx) {
            seen[ny * bw + nx] = true
            stack.append((nx, ny))
          }
        }
        guard enclosed && part.count >= minPixels else { continue }
        parts += 1
        // Row and column runs: the span of each row and column less its
        // pixels.
        var rows: [Int: (Int, Int, Int)] = [:], columns: [Int: (Int, Int, Int)] = [:]
        for (x, y) in part {
          let r = rows[y] ?? (x, x, 0), c = columns[x] ?? (y, y, 0)
          rows[y] = (min(r.0, x), max(r.1, x), r.2 + 1)
          columns[x] = (min(c.0, y), max(c.1, y), c.2 + 1)
        }
        let gaps = rows.values.reduce(0) { $0 + $1.1 - $1.0 + 1 - $1.2 } + columns.values.reduce(0) { $0 + $1.1 - $1.0 + 1 - $1.2 }
        if Double(gaps) >= GraphicsTuning.glyphGaps * Double(part.count) { nonConvex += 1 }
      }
    }
    return (parts, nonConvex)
  }

  /// The colours between a ground and an ink: anti-aliasing, a blurred or
  /// feathered edge, a JPEG's chroma bleeding.
  struct BlendLine {
    let ground: (Double, Double, Double)
    let step: (Double, Double, Double)
    /// The channel along which the line is longest.
    let axis: Int
    let span: Int

    init(from ground: RGB8, to ink: RGB8) {
      self.ground = (Double(ground.r), Double(ground.g), Double(ground.b))
      let d = (Int(ink.r) - Int(ground.r), Int(ink.g) - Int(ground.g), Int(ink.b) - Int(ground.b))
      step = (Double(d.0), Double(d.1), Double(d.2))
      span = max(abs(d.0), abs(d.1), abs(d.2))
      axis = abs(d.0) == span ? 0 : abs(d.1) == span ? 1 : 2
    }

    /// Where `r`, `g`, `b` lies on the line (0 the ground, 1 the ink), or
    /// `nil` when it is farther than ``GraphicsTuning/blendTolerance`` from
    /// it in some channel, or the line is too short to tell.
    func position(of r: UInt8, _ g: UInt8, _ b: UInt8) -> Double? {
      let tolerance = Double(GraphicsTuning.blendTolerance)
      guard Double(span) >= 2 * tolerance else { return nil }
      let c = (Double(r), Double(g), Double(b))
      let along = axis == 0 ? (c.0 - ground.0) / step.0 : axis == 1 ? (c.1 - ground.1) / step.1 : (c.2 - ground.2) / step.2
      let t = min(max(along, 0), 1)
      guard abs(ground.0 + t * step.0 - c.0) <= tolerance, abs(ground.1 + t * step.1 - c.1) <= tolerance,
            abs(ground.2 + t * step.2 - c.2) <= tolerance else { return nil }
      return t
    }
  }

  /// The light fills of a region: the 5-bit-per-channel bins that each hold
  /// at least ``GraphicsTuning/minFillShare`` of it and whose colour (the
  /// exact mean of the bin's pixels) is a light fill: OKLab lightness at
  /// least ``GraphicsTuning/lightFillLightness``, chroma under
  /// ``GraphicsTuning/brandChroma``, and either darker than the ground by
  /// more than ``GraphicsTuning/panelLightness`` (a grey or pastel tile on
  /// white) or tinted (OKLab chroma ``GraphicsTuning/neutralChroma`` or
  /// more) and more than ``GraphicsTuning/panelLightness`` off it, lighter
  /// (a cream tile on a pale blue one) or of another hue (a mint tile as
  /// light as a pale blue page). A neutral fill lighter than the ground (a
  /// white mug's own white backdrop on a grey page) is none.
  /// Touching tiles of several pastels are one part of several fills.
  ///
  /// - Parameter counts: scratch space, 32768 zeros (left zero).
  /// - Returns: the fills' colours and the share of the region they hold
  ///   together (0–1).
  static func lightFills(of region: [Int], pixels p: UnsafeBufferPointer<UInt8>, counts: inout [Int32],
                         ground: OKLab) -> (colours: [RGB8], share: Double) {
    guard !region.isEmpty else { return ([], 0) }
    @inline(__always) func bin(_ i: Int) -> Int { Int(p[i] >> 3) << 10 | Int(p[i + 1] >> 3) << 5 | Int(p[i + 2] >> 3) }
    let least = Int32(max(1, (GraphicsTuning.minFillShare * Double(region.count)).rounded(.up)))
    var bins: [Int] = []
    counts.withUnsafeMutableBufferPointer { c in
      for idx in region {
        let b = bin(idx * 4)
        c[b] += 1
        if c[b] == least { bins.append(b) }
      }
      for idx in region { c[bin(idx * 4)] = 0 }
    }
    guard !bins.isEmpty else { return ([], 0) }
    var sums = [(Int, Int, Int, Int)](repeating: (0, 0, 0, 0), count: bins.count)
    for idx in region {
      let i = idx * 4
      guard let k = bins.firstIndex(of: bin(i)) else { continue }
      sums[k].0 += Int(p[i]); sums[k].1 += Int(p[i + 1]); sums[k].2 += Int(p[i + 2]); sums[k].3 += 1
    }
    var colours: [RGB8] = [], held = 0
    for s in sums {
      let c = RGB8(r: UInt8(s.0 / s.3), g: UInt8(s.1 / s.3), b: UInt8(s.2 / s.3))
      let lab = OKLab(r: c.r, g: c.g, b: c.b)
      let distance = ((lab.l - ground.l) * (lab.l - ground.l) + (lab.a - ground.a) * (lab.a - ground.a)
                      + (lab.b - ground.b) * (lab.b - ground.b)).squareRoot()
      // Darker than the ground, or tinted and off it (lighter, or of
      // another hue): a neutral fill lighter than the ground is a white
      // card or a white product's backdrop (`isLightPanel`, or a product
      // shot on its own white square), never one of these.
      let darker = lab.l < ground.l - GraphicsTuning.panelLightness
      let tintedOff = distance > GraphicsTuning.panelLightness && lab.chroma >= GraphicsTuning.neutralChroma
      guard lab.l >= GraphicsTuning.lightFillLightness, lab.chroma < GraphicsTuning.brandChroma,
            darker || tintedOff else { continue }
      colours.append(c)
      held += s.3
    }
    return (colours, Double(held) / Double(region.count))
  }

  /// Whether a part is a card lighter than its page standing in its own
  /// soft drop shadow (a white UI card on a `#F2F2F2` page): its most
  /// common colour is neutral and lighter than the ground, holds at least
  /// ``GraphicsTuning/lightFillShare`` of the part, and inside the bounding
  /// box of that colour (within ``ClassifierThresholds/backgroundTolerance``
  /// in every channel) the rest (its text, icons, rules) is flat: fewer
  /// than ``GraphicsTuning/shadedLevels`` smooth luma levels, with at least
  /// ``GraphicsTuning/minLabelPixels`` of it. The shadow lies outside the
  /// card's box; a white product on its own white square (a mug shot
  /// pasted on a grey page) is shaded inside it, and stays a photograph.
  static func isRaisedCard(_ region: [Int], colour: RGB8, share: Double, ground: OKLab, pixels p: UnsafeBufferPointer<UInt8>,
                           width w: Int, height h: Int, histogram: inout [Int]) -> Bool {
    let lab = OKLab(r: colour.r, g: colour.g, b: colour.b)
    guard share >= GraphicsTuning.lightFillShare, lab.chroma < GraphicsTuning.neutralChroma,
          lab.l > ground.l + GraphicsTuning.panelLightness else { return false }
    let noise = ClassifierThresholds.backgroundTolerance
    @inline(__always) func isFill(_ i: Int) -> Bool {
      abs(Int(p[i]) - Int(colour.r)) <= noise && abs(Int(p[i + 1]) - Int(colour.g)) <= noise
        && abs(Int(p[i + 2]) - Int(colour.b)) <= noise
    }
    var minX = w, maxX = 0, minY = h, maxY = 0
    for idx in region where isFill(idx * 4) {
      let x = idx % w, y = idx / w
      minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
    }
    guard minX <= maxX else { return false }
    let inside = region.filter { idx in
      let x = idx % w, y = idx / w
      return x >= minX && x <= maxX && y >= minY && y <= maxY && !isFill(idx * 4)
    }
    guard inside.count >= GraphicsTuning.minLabelPixels else { return false }
    let (smooth, levels) = smoothLevels(of: inside, pixels: p, width: w, height: h, ground: colour, ink: nil,
                                        histogram: &histogram)
    return levels < GraphicsTuning.shadedLevels
      || isFewCodedTones(histogram, floor: max(2, Int(Double(smooth) * GraphicsTuning.levelShare)))
  }

  /// Whether a histogram of smooth luma levels (as ``smoothLevels(of:pixels:width:height:ground:ink:histogram:)``
  /// leaves it) is a few flat tones spread by lossy coding: the levels
  /// holding at least `floor` pixels, joined across gaps of up to
  /// ``GraphicsTuning/toneGap`` levels, make fewer than
  /// ``GraphicsTuning/shadedLevels`` tones, none spanning more than
  /// ``GraphicsTuning/codedToneSpan`` levels. A JPEG spreads each flat
  /// colour of a card's text (near-black, red, grey) over 10 to 23 levels
  /// at quality 10 to 75, so counting levels alone takes the card for a
  /// photograph; shading (a white mug turning grey) is one run 100 levels
  /// wide.
  static func isFewCodedTones(_ histogram: [Int], floor: Int) -> Bool {
    var tones = 0, start = -1, last = -1
    for level in 0..<histogram.count where histogram[level] >= floor {
      if last >= 0 && level - last <= GraphicsTuning.toneGap {
        last = level
        continue
      }
      if last >= 0 && last - start > GraphicsTuning.codedToneSpan { return false }
      tones += 1
      start = level
      last = level
    }
    if last >= 0 && last - start > GraphicsTuning.codedToneSpan { return false }
    return tones >= 1 && tones < GraphicsTuning.shadedLevels
  }

  /// A region's most common colour: the 5-bit-per-channel bin holding most
  /// of its pixels, as the exact mean of the pixels in that bin, and the
  /// share of the region's pixels in that bin (0–1).
  ///
  /// - Parameter counts: scratch space, 32768 zeros (left zero).
  static func dominantColour(of region: [Int], pixels p: UnsafeBufferPointer<UInt8>, counts: inout [Int32])
    -> (r: UInt8, g: UInt8, b: UInt8, share: Double)
  {
    @inline(__always) func bin(_ i: Int) -> Int { Int(p[i] >> 3) << 10 | Int(p[i + 1] >> 3) << 5 | Int(p[i + 2] >> 3) }
    // `counts` is all zero on entry and left so: only the bins touched are
    // counted, compared and cleared.
    var mode = 0, best: Int32 = 0
    counts.withUnsafeMutableBufferPointer { c in
      for idx in region {
        let b = bin(idx * 4)
        c[b] += 1
        if c[b] > best || (c[b] == best && b < mode) { best = c[b]; mode = b }
      }
      for idx in region { c[bin(idx * 4)] = 0 }
    }
    var sum = (0, 0, 0), n = 0
    for idx in region where bin(idx * 4) == mode {
      let i = idx * 4
      sum.0 += Int(p[i]); sum.1 += Int(p[i + 1]); sum.2 += Int(p[i + 2])
      n += 1
    }
    let d = max(n, 1)
    return (UInt8(sum.0 / d), UInt8(sum.1 / d), UInt8(sum.2 / d), Double(n) / Double(max(region.count, 1)))
  }

}

/// What the open page reaches round a box through what is not ink: the
/// backdrop pixels within ``DarkVariantGenerator/GraphicsTuning/convexOpenMargin``
/// of it and what they reach, 4-connected, without crossing ink. Page caught
/// between a JPEG's ringing and a dark disc's rim is reached; a badge's
/// label, enclosed by its ink, is not, nor the ground of a cell closed off
/// by its hairline.
struct PageReach {
  private let x0: Int, y0: Int, x1: Int, y1: Int, width: Int, pictureWidth: Int
  private var reached: [Bool]

  /// - Parameters: the box (inclusive pixel ranges) in a picture `width` by
  ///   `height`; `isBackdrop` and `isInk` take a pixel's index.
  init(around xs: ClosedRange<Int>, _ ys: ClosedRange<Int>, width w: Int, height h: Int,
       isBackdrop: (Int) -> Bool, isInk: (Int) -> Bool) {
    let m = DarkVariantGenerator.GraphicsTuning.convexOpenMargin
    x0 = max(0, xs.lowerBound - m); x1 = min(w - 1, xs.upperBound + m)
    y0 = max(0, ys.lowerBound - m); y1 = min(h - 1, ys.upperBound + m)
    width = x1 - x0 + 1
    pictureWidth = w
    reached = [Bool](repeating: false, count: width * (y1 - y0 + 1))
    var stack: [Int] = []
    for y in y0...y1 {
      for x in x0...x1 where isBackdrop(y * w + x) {
        reached[(y - y0) * width + x - x0] = true
        stack.append(y * w + x)
      }
    }
    while let idx = stack.popLast() {
      let x = idx % w, y = idx / w
      for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
      where nx >= x0 && nx <= x1 && ny >= y0 && ny <= y1 && !reached[(ny - y0) * width + nx - x0]
        && !isInk(ny * w + nx) {
        reached[(ny - y0) * width + nx - x0] = true
        stack.append(ny * w + nx)
      }
    }
  }

  /// Whether the page reaches the pixel at `idx` (false outside the box and
  /// its margin).
  func contains(_ idx: Int) -> Bool {
    let x = idx % pictureWidth, y = idx / pictureWidth
    guard x >= x0, x <= x1, y >= y0, y <= y1 else { return false }
    return reached[(y - y0) * width + x - x0]
  }
}
