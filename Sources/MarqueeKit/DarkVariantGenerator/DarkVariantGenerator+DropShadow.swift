// MARK: - Drop shadows of graphics

extension DarkVariantGenerator {
  /// The soft drop shadows cast on a graphic's light ground (a card's, a
  /// button's, a badge's), for
  /// ``invertGraphics(_:kept:products:productsDimmed:mask:analysis:)``.
  ///
  /// Inverted like ink, a grey shadow turns lighter than the dark surface:
  /// a light glow offset from the card, which no dark theme draws. Dark
  /// themes keep a shadow darker than its ground (or drop it). So a shadow
  /// is mapped the way the ground-recoloured treatment maps a product's
  /// shadow: `out = ground′ · Y / Yg`, where `ground′` is the ground's dark
  /// colour and `Y / Yg` the pixel's luma over the ground's
  /// (``DarkVariantGenerator/darkenLightBackground(_:analysis:)``).
  ///
  /// A shadow is `PictureLook`'s soft shade (the definition the legibility
  /// rule uses to leave shade out of the marks) reached from the ground
  /// through pixels that are not kept (a product keeps its own shadow), no
  /// lighter than the ground, and a darker version of it: each channel
  /// within `ShadowTuning.chromaBase + ShadowTuning.chromaPerDepth · depth`
  /// levels of `ground · Y / Yg` (a grey shadow on a white page, a deeper
  /// pink on a pink one; not a coloured shape). The thickness scales with
  /// the picture (`ShadowTuning.scale`).
  ///
  /// - Parameters:
  ///   - pixels: the light picture, RGBA.
  ///   - isGround: the ground pixels.
  ///   - keep: pixels a product keeps.
  ///   - ground: the ground colour.
  /// - Returns: per pixel, its luma over the ground's (0–1) for a shadow
  ///   pixel and −1 elsewhere; `nil` when there is no shadow.
  static func dropShadows(
    _ pixels: UnsafeBufferPointer<UInt8>, width w: Int, height h: Int, isGround: [Bool], keep: [Bool], ground: RGB8
  ) -> [Float]? {
    let groundLuma = Luma.exact(Double(ground.r), Double(ground.g), Double(ground.b))
    guard groundLuma > 1 else { return nil }
    var input = [Int16](repeating: PictureLook.SoftShadeInput.excluded, count: w * h)
    for idx in 0..<(w * h) where !keep[idx] {
      let i = idx * 4
      let luma = Luma.integer(pixels[i], pixels[i + 1], pixels[i + 2])
      if isGround[idx] {
        input[idx] = PictureLook.SoftShadeInput.ground(luma)
        continue
      }
      guard isShadeColour(pixels[i], pixels[i + 1], pixels[i + 2], luma: luma, of: ground, groundLuma: groundLuma)
      else { continue }
      input[idx] = Int16(luma)
    }
    guard let shade = PictureLook.softShade(input, width: w, height: h, scale: ShadowTuning.scale(width: w, height: h))
    else { return nil }
    var ratios = [Float](repeating: -1, count: w * h)
    for idx in 0..<(w * h) where shade[idx] { ratios[idx] = Float(min(Double(input[idx]) / groundLuma, 1)) }
    return ratios
  }

  /// Whether a colour of luma `luma` could be the shade of a ground of
  /// colour `ground` and exact luma `groundLuma` (> 1): no lighter than the
  /// ground, and each channel within `ShadowTuning.chromaBase +
  /// ShadowTuning.chromaPerDepth · depth` levels of `ground · Y / Yg` (a
  /// grey shadow on a white page, a deeper pink on a pink one; not a
  /// coloured shape). Black is the shade of every ground: how dark a shade
  /// may be is the caller's rule (`PictureLook.softShadeMinFraction`).
  static func isShadeColour(_ r: UInt8, _ g: UInt8, _ b: UInt8, luma: Int, of ground: RGB8,
                            groundLuma: Double) -> Bool {
    let y = Double(luma)
    guard y <= groundLuma + 1 else { return false }
    let ratio = y / groundLuma
    let allowed = ShadowTuning.chromaBase + ShadowTuning.chromaPerDepth * (groundLuma - y)
    return abs(Double(r) - Double(ground.r) * ratio) <= allowed
      && abs(Double(g) - Double(ground.g) * ratio) <= allowed
      && abs(Double(b) - Double(ground.b) * ratio) <= allowed
  }

  /// Whether a colour is a soft shade of the ground: its shade colour
  /// (``isShadeColour(_:_:_:luma:of:groundLuma:)``) and no darker than
  /// `PictureLook.softShadeMinFraction` of the ground's luma, the
  /// definition `PictureLook`'s soft shade and the shadow finder share (a
  /// shadow lets some light through; black ink is no shade).
  static func isSoftShade(_ r: UInt8, _ g: UInt8, _ b: UInt8, of ground: RGB8, groundLuma: Double) -> Bool {
    let luma = Luma.integer(r, g, b)
    return Double(luma) >= PictureLook.softShadeMinFraction * groundLuma
      && isShadeColour(r, g, b, luma: luma, of: ground, groundLuma: groundLuma)
  }
}
