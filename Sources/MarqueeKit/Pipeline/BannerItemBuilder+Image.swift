import Foundation

extension BannerItemBuilder {
  /// Image banners: the `ImageRenderer` stage (orientation, colour to sRGB,
  /// width ladder, WebP + JPEG, dark variants, animation caps) into
  /// `images/<id>/` of the staging bundle; the entry's paths are relative
  /// to that folder.
  func buildImage(_ spec: BannerSpec, folder: String) throws -> (ManifestEntry, [String], String) {
    let set = try ImageRenderer(options: .init(settings: settings))
      .render(source: spec.source, id: spec.id, bundleRoot: staging)
    let widths = set.widths.map { "\($0.width)x\($0.height)" }.joined(separator: ", ")
    let animation = set.isAnimated ? String(format: ", %d frames, %.2f s", set.frameCount, Double(set.animationDuration) / 1000) : ""
    let summary = "\(set.sourceSummary) → \(widths) WebP + JPEG\(animation), dark: \(set.darkKind), \(set.darkMethod.rawValue)"
    return (.image(set.manifestEntry(id: spec.id, link: spec.link)), set.warnings, summary)
  }
}
