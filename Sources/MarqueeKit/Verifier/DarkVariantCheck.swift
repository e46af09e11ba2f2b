/// `verify`'s judgement of a published dark variant: the rules of
/// `PictureLook.judgeDarkVariant` (legible, no glare, photos stay photos,
/// darker as shown), with "is it a photograph" decided by the same
/// classifier the generator uses (`DarkVariantGenerator.classify`), so what
/// `build` publishes passes `verify` and the reverse.
struct DarkVariantCheck {
  /// What the pictures are shown on.
  var surfaces: PictureLook.Surfaces

  /// Each broken rule in words; empty when the dark variant passes.
  ///
  /// - Parameters:
  ///   - light: the decoded light picture (`url`, `cover_url`).
  ///   - dark: the decoded dark variant (`dark_url`, `cover_dark_url`).
  func problems(light: RGBAImage, dark: RGBAImage) -> [String] {
    let generator = DarkVariantGenerator(options: .init(surface: surfaces.dark, lightSurface: surfaces.light))
    return PictureLook.judgeDarkVariant(
      light: light, dark: dark, surfaces: surfaces,
      isPhotograph: generator.classify(light) == .photograph
    ).problems
  }
}
