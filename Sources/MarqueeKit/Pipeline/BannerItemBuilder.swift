import Foundation

/// Builds one banner into the staging bundle: the stage chain for its kind.
struct BannerItemBuilder: Sendable {
  let settings: JobSettings
  let staging: URL

  var limits: InputLimits {
    InputLimits(maxFileSize: settings.maxFileSize, maxPixels: settings.maxPixels, maxDuration: settings.maxDuration)
  }

  var darkVariants: DarkVariantGenerator {
    let s = settings.darkSurface
    return DarkVariantGenerator(options: .init(surface: DarkSurface(r: s.r, g: s.g, b: s.b)))
  }

  /// Runs the item; never throws: a failure becomes the outcome, and the
  /// item's partial files are removed.
  func build(_ spec: BannerSpec, parallelItems: Int) -> ItemOutcome {
    let start = Date()
    let folder = spec.kind == .video ? "videos/\(spec.id)" : "images/\(spec.id)"
    do {
      let (entry, warnings, summary) = try spec.kind == .video
        ? buildVideo(spec, folder: folder, parallelItems: parallelItems)
        : buildImage(spec, folder: folder)
      return ItemOutcome(id: spec.id, kind: spec.kind, entry: entry, failure: nil, warnings: warnings,
                         seconds: Date().timeIntervalSince(start), summary: summary)
    } catch {
      try? FileManager.default.removeItem(at: staging.appendingPathComponent(folder))
      let reason: String
      switch error {
      case let e as TranscodeError: reason = e.reason
      case let e as MediaIOError: reason = e.description
      case let e as ItemFailure: reason = e.reason
      case let e as ImageRenderError: reason = e.message
      default: reason = "\(error)"
      }
      return ItemOutcome(id: spec.id, kind: spec.kind, entry: nil,
                         failure: ItemFailure(id: spec.id, source: spec.sourceText, reason: reason),
                         warnings: [], seconds: Date().timeIntervalSince(start), summary: "")
    }
  }

  private func buildVideo(_ spec: BannerSpec, folder: String, parallelItems: Int) throws -> (ManifestEntry, [String], String) {
    let built = try VideoBannerBuilder(settings: settings, darkVariants: darkVariants)
      .build(spec, bundleRoot: staging, folder: folder)
    return (.video(built.entry), built.warnings, built.summary)
  }
}
