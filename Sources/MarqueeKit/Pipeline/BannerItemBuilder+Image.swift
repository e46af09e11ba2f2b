import Foundation

extension BannerItemBuilder {
  /// Image banners: the `ImageRenderer` stage (orientation, colour to sRGB,
  /// width ladder, WebP + JPEG, dark variants, animation caps) into
  /// `images/<id>/` of the staging bundle; the entry's paths are relative
  /// to that folder.
  ///
  /// The dark files follow the banner's dark policy (`DarkSource`): the
  /// designer's picture is read first, so a bad one fails the item before
  /// the source is decoded.
  func buildImage(_ spec: BannerSpec, folder: String) throws(MarqueeError) -> ItemProduct {
    let dark = try DarkSource.load(for: spec, settings: settings)
    let set = try ImageRenderer(options: .init(settings: settings))
      .render(source: spec.source, id: spec.id, bundleRoot: staging, dark: dark)
    let widths = set.widths.map { "\($0.width)x\($0.height)" }.joined(separator: ", ")
    let animation = set.isAnimated ? String(format: ", %d frames, %.2f s", set.frameCount, Double(set.animationDuration) / 1000) : ""
    let darkText = spec.dark == .generated ? ", dark: \(set.darkKind), \(set.darkMethod.rawValue)"
      : Self.darkSummary(spec.dark, what: "dark")
    let avif = set.avif.map { avif in
      let served = set.widths.contains { $0.avifPath != nil }
      let quality = String(format: "q %d, SSIM %.4f, WebP %.4f", avif.quantizer, avif.avifSSIM, avif.webpSSIM)
      let leftOut = avif.leftOut.map { "\($0.file) \($0.avifBytes) bytes, not under the WebP's \($0.webpBytes)" }
        .joined(separator: "; ")
      if !served { return " (AVIF left out: \(leftOut))" }
      return " + AVIF (\(quality))" + (leftOut.isEmpty ? "" : " (AVIF left out: \(leftOut))")
    } ?? ""
    let summary = "\(set.sourceSummary) → \(widths) WebP + JPEG\(avif)\(animation)\(darkText)"
    return ItemProduct(entry: .image(set.manifestEntry(id: spec.id, link: spec.link)), warnings: set.warnings,
                       summary: summary, health: set.health, darkJudgements: set.darkJudgements,
                       decodedFiles: set.decodedFiles)
  }
}
