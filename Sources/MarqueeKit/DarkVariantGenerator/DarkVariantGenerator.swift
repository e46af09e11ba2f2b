import Foundation

/// Makes the dark-mode variant of a cover or image banner, on pixels.
///
/// The client shows a dark variant in dark mode (`?theme=dark`); it must be
/// darker overall, keep the subject recognisable and not glare, and white
/// backgrounds around products and illustrations are the main offenders
/// (playback constraints §4). So the generator first decides what kind of
/// picture it has (``classify(_:)``) and then applies one treatment:
///
/// - ``ImageContentKind/lightBackground``: the backdrop connected to the
///   border is found by a tight flood fill, soft shadows on it by the shape
///   of their gradient, and both are mapped onto the dark surface (shadows
///   stay proportionally darker than the surface); the subject, and
///   anything that cannot be told from it, is kept (dimmed by at most 5 %),
///   and the light-background share of its anti-aliased edge is replaced by
///   the surface.
/// - ``ImageContentKind/photograph``: luma scaled to about 72 % and
///   saturation lowered by about 12 %; never inverted.
/// - ``ImageContentKind/transparent``: alpha is kept exactly; dark flat ink
///   is lightened (luminance inverted, hue kept) so it shows on the surface;
///   other content keeps its colours, with highlights dimmed slightly.
///
/// Input and output are ``RGBAImage``s: sRGB-encoded, straight alpha. Work is
/// O(pixels) with no per-pixel allocation; a light-background image needs one
/// extra byte per pixel for the background mask.
///
/// ```swift
/// let generator = DarkVariantGenerator()
/// let dark = generator.makeDarkVariant(of: cover)
/// let jpegReady = generator.flattened(dark.image, onto: .standard)
/// ```
public struct DarkVariantGenerator: Sendable {
  /// Tuning of the treatments. The defaults are the product's look; only
  /// ``surface`` is expected to vary between jobs.
  public struct Options: Sendable, Equatable {
    /// The dark surface the variant is shown on; light backgrounds become
    /// this colour. Default `#1C1C1E` (``DarkSurface/standard``).
    public var surface: DarkSurface
    /// The light surface the original is shown on (`background`), for
    /// "darker as shown" (`PictureLook`). Default white.
    public var lightSurface: DarkSurface
    /// Factor applied to a photograph's luma, clamped to 0.3...1. Default
    /// 0.72: a 28 % drop takes a typical daylight photo (mean luma ~130) to
    /// ~95, which no longer glares next to dark UI, while shadows (already
    /// near the surface) lose little detail. A brighter photo is dimmed
    /// more, to a mean of ``DarkVariantGenerator/photoMaxMeanLuma``
    /// (``DarkVariantGenerator/photoLumaScale(meanLuma:)``).
    public var photoLumaScale: Double
    /// Fraction of a photograph's saturation removed, clamped to 0...0.5.
    /// Default 0.12: dimmed colours look louder than the same colours at full
    /// brightness in a dark UI; a little desaturation compensates without
    /// looking washed out.
    public var photoDesaturation: Double
    /// Fraction by which the subject of a light-background image is dimmed,
    /// clamped to 0...0.05. Default 0.04: enough to take the edge off a white
    /// product on a dark surface, small enough to keep its colours.
    public var subjectDim: Double
    /// Width in pixels of the subject's edge band that is decontaminated
    /// (its light-background share replaced by the surface), clamped to
    /// 0...4; 0 turns decontamination off. Default 2: an anti-aliased edge
    /// is 1 px wide, a resized or JPEG-compressed one about 2 px; a wider
    /// band only costs time, since interior pixels come out unchanged.
    public var featherRadius: Int

    /// Creates options; every parameter has the product default.
    ///
    /// - Parameters:
    ///   - surface: The dark surface colour.
    ///   - photoLumaScale: Luma factor for photographs.
    ///   - photoDesaturation: Saturation removed from photographs.
    ///   - subjectDim: Dim of a light-background image's subject.
    ///   - featherRadius: Width of the decontaminated edge band, in pixels.
    public init(
      surface: DarkSurface = .standard,
      lightSurface: DarkSurface = DarkSurface(r: 255, g: 255, b: 255),
      photoLumaScale: Double = 0.72,
      photoDesaturation: Double = 0.12,
      subjectDim: Double = 0.04,
      featherRadius: Int = 2
    ) {
      self.surface = surface
      self.lightSurface = lightSurface
      self.photoLumaScale = photoLumaScale
      self.photoDesaturation = photoDesaturation
      self.subjectDim = subjectDim
      self.featherRadius = featherRadius
    }
  }

  /// The options in use.
  public var options: Options

  /// Creates a generator.
  ///
  /// - Parameter options: Tuning; the defaults are the product's look.
  public init(options: Options = .init()) {
    self.options = options
  }

  // MARK: - API

  /// Classifies `image`, makes its dark variant with the first method for
  /// its kind that meets every rule, and says which.
  ///
  /// The methods tried, in order (``methods(for:)``):
  /// - a photograph: ``DarkMethod/dimmed``; one with a light panel
  ///   (``lightPanel(in:)``: a caption bar, a split layout's text half)
  ///   first ``DarkMethod/graphicsInvertedProductDimmed``, the panel taken
  ///   as the ground, so its text is inverted and the photo dimmed, then
  ///   ``DarkMethod/graphicsInverted``, the rest kept as it is;
  /// - a plain light ground (white, grey, a pale tint):
  ///   ``DarkMethod/graphicsInverted``, then
  ///   ``DarkMethod/graphicsInvertedProductDimmed``, then
  ///   ``DarkMethod/groundRecoloured``, then ``DarkMethod/dimmed``;
  /// - a brand-coloured light ground (OKLab chroma 0.08 or more, a yellow
  ///   card): ``DarkMethod/dimmed`` (the fill kept), then the two
  ///   graphics-inverting methods;
  /// - transparency: ``DarkMethod/alphaKept``, then the two
  ///   graphics-inverting methods on the picture as it shows on the light
  ///   surface, its alpha put back (``restoringAlpha(of:to:against:)``: a
  ///   white price card on transparency), then ``DarkMethod/dimmed``; dark
  ///   flat ink (``inkAnalysis(of:)``: a logo whose purple mark encloses a
  ///   white ring, beside a dark wordmark) tries ``DarkMethod/graphicsInverted``
  ///   first, so the mark keeps its colours and the wordmark turns light.
  ///
  /// A light ground that varies smoothly (a designed gradient, a vignette:
  /// ``groundField(of:)``) is flattened first, so it counts as a plain light
  /// ground and its text is inverted rather than left dark on a dimmed grey
  /// slab.
  ///
  /// Each result is judged by `PictureLook.judgeDarkVariant` (legible, no
  /// glare, photos stay photos, darker as shown: the rules `marquee verify`
  /// checks). A result that is not darker as shown (a light-ink logo on
  /// transparency whose light surface is itself dark) first gets the
  /// photograph dim on top, up to four times. When no method meets every
  /// rule, the least bad result is returned with its ``DarkVariant/problems``.
  ///
  /// - Parameter image: The light original, sRGB, straight alpha.
  /// - Returns: The dark variant (same size, alpha bytes unchanged), its
  ///   classification and method, and the mean luma before and after.
  public func makeDarkVariant(of image: RGBAImage) -> DarkVariant {
    var (work, analysis) = prepared(image)
    if analysis.kind == .photograph { analysis.panel = lightPanel(in: image) }
    var best: (variant: DarkVariant, shortfall: Double)?
    let shownLight = ShownPicture(image, on: surfaces.light)
    let meanBefore = Luma.mean(of: image)
    // The light picture's soft shade, read once for every judgement.
    var lightSoftShade: [Bool]??
    for method in methods(for: analysis) {
      var shownDark: ShownPicture?
      var variant = apply(method, to: work, analysis: analysis, shownLightMean: shownLight.meanLuma, meanLumaBefore: meanBefore,
                          shownDark: &shownDark)
      if lightSoftShade == nil { lightSoftShade = .some(PictureLook.softShade(of: shownLight)) }
      let judgement = PictureLook.judgeDarkVariant(
        light: image, dark: variant.image, surfaces: surfaces, isPhotograph: analysis.kind == .photograph,
        shownLight: shownLight, shownDark: shownDark, lightSoftShade: lightSoftShade)
      if judgement.passes { return variant }
      variant.problems = judgement.problems
      if let kept = best, kept.shortfall <= judgement.shortfall { continue }
      best = (variant, judgement.shortfall)
    }
    return best?.variant ?? apply(.dimmed, to: image, analysis: analysis)
  }

  /// Makes the dark variant of `image` with a method already chosen (for
  /// the other widths of a ladder, or the other frames of an animation,
  /// so every one looks alike), without judging it.
  public func makeDarkVariant(of image: RGBAImage, using method: DarkMethod) -> DarkVariant {
    var (work, analysis) = prepared(image)
    if analysis.kind == .photograph && method != .dimmed { analysis.panel = lightPanel(in: image) }
    guard work != image else { return apply(method, to: image, analysis: analysis) }
    return apply(method, to: work, analysis: analysis, shownLightMean: PictureLook.shownMeanLuma(image, on: surfaces.light),
                 meanLumaBefore: Luma.mean(of: image))
  }

  /// ``makeDarkVariant(of:)`` judged as published: `verify` judges the
  /// decoded WebP and JPEG files, not the generator's pixels, and lossy
  /// coding can move a borderline picture across a rule (a photo's dark
  /// edge against a wide white mat). So each method, in
  /// ``makeDarkVariant(of:)``'s order, is applied, encoded and judged on
  /// its coded files only, and the first whose files break no rule is
  /// returned. When none passes, the one closest to passing (the least
  /// shortfall) is returned, with its coded problems as its
  /// ``DarkVariant/problems``.
  ///
  /// - Parameters:
  ///   - encode: the files published for a dark picture of `image`'s size.
  ///   - judge: the rules those files break as `verify` decodes them
  ///     (`DarkVariantCheck`), in words, and how far they are from passing
  ///     (0 when they pass).
  /// - Returns: the variant and its encoded files.
  /// - Throws: what `encode` throws.
  func makeCodedDarkVariant<Files, E: Error>(
    of image: RGBAImage, encode: (RGBAImage) throws(E) -> Files,
    judge: (Files) -> (problems: [String], shortfall: Double)
  ) throws(E) -> (variant: DarkVariant, files: Files) {
    var (work, analysis) = prepared(image)
    if analysis.kind == .photograph { analysis.panel = lightPanel(in: image) }
    let shownLightMean = PictureLook.shownMeanLuma(image, on: surfaces.light)
    let meanBefore = Luma.mean(of: image)
    var best: (variant: DarkVariant, files: Files, shortfall: Double)?
    for method in methods(for: analysis) {
      var variant = apply(method, to: work, analysis: analysis, shownLightMean: shownLightMean, meanLumaBefore: meanBefore)
      let files = try encode(variant.image)
      let judged = judge(files)
      if judged.problems.isEmpty { return (variant, files) }
      variant.problems = judged.problems
      if let kept = best, kept.shortfall <= judged.shortfall { continue }
      best = (variant, files, judged.shortfall)
    }
    if let best { return (best.variant, best.files) }
    let fallback = apply(.dimmed, to: image, analysis: analysis)
    return (fallback, try encode(fallback.image))
  }

  /// The methods ``makeDarkVariant(of:)`` tries for `image`, in its order.
  public func methodsInOrder(for image: RGBAImage) -> [DarkMethod] {
    var analysis = prepared(image).analysis
    if analysis.kind == .photograph { analysis.panel = lightPanel(in: image) }
    return methods(for: analysis)
  }

  /// The methods to try for a picture, best first (see
  /// ``makeDarkVariant(of:)``).
  func methods(for analysis: Analysis) -> [DarkMethod] {
    switch analysis.kind {
    case .photograph:
      // A photo with a light panel (a caption bar, a split layout): the
      // panel and its text inverted, the photo dimmed; or, when dimming
      // takes a saturated part too close to the dark panel (a red button
      // on a white card over a red page: 1.8:1 dimmed, 4:1 kept), the
      // panel inverted and the rest kept, before the whole is dimmed and
      // the card stays a light slab.
      return analysis.panel == nil ? [.dimmed] : [.graphicsInvertedProductDimmed, .graphicsInverted, .dimmed]
    case .transparent:
      // A drawing in dark flat ink (a logo with a brand-coloured mark, a
      // wordmark) and a light card holding text (a white or frosted price
      // card, opaque or not) are treated as they show on the light
      // surface, region by region, then made see-through again:
      // a brand fill and the white it encloses are kept, the wordmark
      // turns light. The per-colour ink lift cannot tell a white detail
      // inside a brand mark from one inside black ink; it comes first for
      // other content (cut-outs, light icons), whose highlights it dims.
      return analysis.darkInk || analysis.lightCard
        ? [.graphicsInverted, .alphaKept, .graphicsInvertedProductDimmed, .dimmed]
        : [.alphaKept, .graphicsInverted, .graphicsInvertedProductDimmed, .dimmed]
    case .lightBackground:
      let ground = analysis.background
      if OKLab(r: ground.r, g: ground.g, b: ground.b).chroma >= Self.brandFillChroma {
        return [.dimmed, .graphicsInverted, .graphicsInvertedProductDimmed]
      }
      return [.graphicsInverted, .graphicsInvertedProductDimmed, .groundRecoloured, .dimmed]
    }
  }

  /// OKLab chroma from which a light ground is a brand colour whose fill is
  /// kept (a yellow `#FFD400` has 0.17, a pale grey-blue `#F2F2F7` 0.005).
  static let brandFillChroma = 0.08

  /// The two surfaces of the options, for `PictureLook`.
  var surfaces: PictureLook.Surfaces {
    PictureLook.Surfaces(light: options.lightSurface, dark: options.surface)
  }

  /// One method applied, with the darker-as-shown passes.
  ///
  /// - Parameters:
  ///   - shownLightMean: `PictureLook.shownMeanLuma(image, on:
  ///     surfaces.light)` when the caller has it.
  ///   - meanLumaBefore: `Luma.mean(of: image)` when the caller has it.
  func apply(_ method: DarkMethod, to image: RGBAImage, analysis: Analysis, shownLightMean: Double? = nil,
             meanLumaBefore: Double? = nil) -> DarkVariant {
    var unused: ShownPicture?
    return apply(method, to: image, analysis: analysis, shownLightMean: shownLightMean, meanLumaBefore: meanLumaBefore,
                 shownDark: &unused, keepShown: false)
  }

  /// ``apply(_:to:analysis:shownLightMean:meanLumaBefore:)``, which also
  /// hands back the result as shown on the dark surface (the darker-as-shown
  /// pass reads it; the judgement reads it again) when `keepShown`.
  func apply(_ method: DarkMethod, to image: RGBAImage, analysis: Analysis, shownLightMean: Double?,
             meanLumaBefore: Double?, shownDark: inout ShownPicture?, keepShown: Bool = true) -> DarkVariant {
    var output: RGBAImage
    switch method {
    case .dimmed:
      output = darkenPhotograph(image, lumaScale: photoLumaScale(meanLuma: meanLumaBefore ?? Luma.mean(of: image)))
    case .groundRecoloured, .graphicsInverted, .graphicsInvertedProductDimmed:
      if analysis.kind == .transparent {
        // A sticker or card on transparency: what the viewer sees in light
        // mode is the picture on the light surface; that picture is
        // treated, and its alpha put back against the dark surface.
        let (onLight, lightAnalysis) = prepared(flattened(image, onto: options.lightSurface))
        output = restoringAlpha(of: image, to: recolouredGraphics(method, onLight, analysis: lightAnalysis,
                                                                  pageIsOpaque: false),
                                against: options.surface)
      } else {
        output = recolouredGraphics(method, image, analysis: analysis)
      }
    case .alphaKept:
      output = darkenTransparent(image)
    }
    let shownLight = shownLightMean ?? PictureLook.shownMeanLuma(image, on: surfaces.light)
    // The mean luma as shown: from the whole shown picture when the caller
    // keeps it (the same figure, `ShownPicture.meanLuma`).
    func shownMean(_ picture: RGBAImage) -> Double {
      guard keepShown else { return PictureLook.shownMeanLuma(picture, on: surfaces.dark) }
      let shown = ShownPicture(picture, on: surfaces.dark)
      shownDark = shown
      return shown.meanLuma
    }
    var passes = 0
    while passes < 4, !PictureLook.isDarker(shownDark: shownMean(output), shownLight: shownLight) {
      output = darkenPhotograph(output)
      passes += 1
    }
    if keepShown && passes == 4 { shownDark = ShownPicture(output, on: surfaces.dark) }
    var variant = DarkVariant(
      image: output, kind: analysis.kind,
      meanLumaBefore: meanLumaBefore ?? Luma.mean(of: image))
    variant.method = method
    return variant
  }

  /// ``DarkMethod/groundRecoloured`` or a graphics-inverting method on an
  /// opaque picture.
  private func recolouredGraphics(_ method: DarkMethod, _ image: RGBAImage, analysis: Analysis,
                                  pageIsOpaque: Bool = true) -> RGBAImage {
    // A ground the classifier did not call light is estimated afresh.
    // A photograph's light panel is its ground.
    var lightAnalysis = analysis
    if analysis.kind != .lightBackground {
      lightAnalysis.kind = .lightBackground
    }
    if let panel = analysis.panel {
      lightAnalysis.background = panel.colour
      lightAnalysis.backgroundSpread = panel.spread
    }
    let recoloured = recolourLightBackground(image, analysis: lightAnalysis)
    guard method != .groundRecoloured else { return recoloured.image }
    let products = method == .graphicsInvertedProductDimmed ? darkenPhotograph(recoloured.image) : recoloured.image
    return invertGraphics(image, kept: recoloured.image, products: products,
                          productsDimmed: method == .graphicsInvertedProductDimmed, mask: recoloured.mask,
                          analysis: lightAnalysis, pageIsOpaque: pageIsOpaque)
  }

  /// `shown`, an opaque picture as it should look on `surface`, given the
  /// alpha of `original` back: each colour `c` solves
  /// `c·a + surface·(1 − a) = shown` (straight alpha, sRGB-encoded values,
  /// as ``flattened(_:onto:)`` composites), clamped to 0...255, so the
  /// result shown on `surface` is `shown` wherever the clamp allows. Fully
  /// transparent pixels keep `original`'s colour; alpha bytes are
  /// `original`'s.
  func restoringAlpha(of original: RGBAImage, to shown: RGBAImage, against surface: DarkSurface) -> RGBAImage {
    precondition(original.width == shown.width && original.height == shown.height, "restoringAlpha: size")
    var out = original.pixels
    let s = [Int(surface.r), Int(surface.g), Int(surface.b)]
    shown.pixels.withUnsafeBufferPointer { d in
      out.withUnsafeMutableBufferPointer { p in
        for i in stride(from: 0, to: p.count, by: 4) {
          let a = Int(p[i + 3])
          guard a > 0 else { continue }
          for c in 0..<3 {
            let value = (Int(d[i + c]) * 255 - s[c] * (255 - a) + a / 2) / a
            p[i + c] = UInt8(clamping: value)
          }
        }
      }
    }
    return RGBAImage(width: original.width, height: original.height, pixels: out)
  }

  /// How ``makeDarkVariant(of:)`` would classify `image`.
  ///
  /// The rules look at the border ring (the outer 3 % of each side, at least
  /// one pixel) because that is where a background shows:
  ///
  /// 1. More than half of the ring transparent (alpha < 128) →
  ///    `.transparent`.
  /// 2. Otherwise the background colour is estimated as the per-channel
  ///    median of the opaque ring pixels (a median ignores a subject that
  ///    touches the border). The image is `.lightBackground` when all of:
  ///    - the background is light: luma > 200 (of 255). Below that a
  ///      "background" is a mid-tone a photo could equally have, and
  ///      recolouring it would not reduce glare much anyway;
  ///    - the ring is uniform: at least 70 % of its opaque pixels are within
  ///      12 levels (per channel) of the background; product shots and flat
  ///      art have a single backdrop colour, photos change along the edges;
  ///    - the backdrop is clean: the mean luma step between neighbouring
  ///      backdrop pixels in the ring is at most 2.5 levels, and 90 % of
  ///      them are within 8 levels of its colour. Studio sweeps
  ///      and flat art are smooth or clipped white; a bright sky, snow or a
  ///      wall in a photo carries sensor noise and texture;
  ///    - the backdrop is large: at least 25 % of the whole image is within
  ///      12 levels of it. A thin white frame around a photo fails this.
  /// 3. A picture these rules call a photograph whose light ground varies
  ///    smoothly (``groundField(of:)``: a designed gradient) is classified
  ///    again with that ground flattened.
  /// 4. A picture still called a photograph that is mostly flat light
  ///    fills (``flatGraphicGround(of:ring:)``: at least 60 % of its pixels
  ///    flat to 2 luma levels in 3x3 and at luma 160 or more; a zebra table
  ///    whose rows reach the edges, a pastel map) is drawn, not
  ///    photographed: `.lightBackground`, its ground the most common flat
  ///    light colour, when that covers a quarter of it. Photographs measure
  ///    0.28 at most. A photo with a light panel (``lightPanel(in:)``: a
  ///    split layout) stays a photograph unless 80 % of it is flat light
  ///    fill (a calendar whose grey header reads as a panel).
  /// 5. Everything else is `.photograph`, the safe fallback: dimming never
  ///    destroys a subject, while recolouring a wrongly detected background
  ///    could.
  ///
  /// - Parameter image: The image to classify.
  /// - Returns: Its content kind.
  public func classify(_ image: RGBAImage) -> ImageContentKind {
    prepared(image).analysis.kind
  }

  /// Composites `image` onto an opaque background, for formats without
  /// alpha (JPEG).
  ///
  /// Each channel is `(c·a + bg·(255 − a)) / 255`, rounded, on the
  /// sRGB-encoded values with straight alpha; the result is opaque. Blending
  /// encoded values rather than linear light is what UIKit and browsers do
  /// when they draw a straight-alpha image over a colour, so the flattened
  /// file looks like the transparent one shown on that colour.
  ///
  /// - Parameters:
  ///   - image: The image to flatten, straight alpha.
  ///   - background: The opaque colour behind it, usually the dark surface.
  /// - Returns: An image of the same size with every alpha 255.
  public func flattened(_ image: RGBAImage, onto background: DarkSurface)
    -> RGBAImage
  {
    var out = image.pixels
    let bg = (Int(background.r), Int(background.g), Int(background.b))
    out.withUnsafeMutableBufferPointer { p in
      var i = 0
      let end = p.count
      while i < end {
        let a = Int(p[i + 3])
        if a != 255 {
          let ia = 255 - a
          p[i] = UInt8((Int(p[i]) * a + bg.0 * ia + 127) / 255)
          p[i + 1] = UInt8((Int(p[i + 1]) * a + bg.1 * ia + 127) / 255)
          p[i + 2] = UInt8((Int(p[i + 2]) * a + bg.2 * ia + 127) / 255)
          p[i + 3] = 255
        }
        i += 4
      }
    }
    return RGBAImage(width: image.width, height: image.height, pixels: out)
  }

  /// Composites `image` onto ``Options/surface``; see
  /// ``flattened(_:onto:)``.
  ///
  /// - Parameter image: The image to flatten, straight alpha.
  /// - Returns: An opaque image of the same size.
  public func flattened(_ image: RGBAImage) -> RGBAImage {
    flattened(image, onto: options.surface)
  }
}
