import Foundation

/// Makes a video banner's dark cover follow the banner's dark policy, once
/// the video builder has written the cover into the item's folder.
///
/// - `generated`: nothing to do; the cover stage made it.
/// - `same`: `cover.dark.webp` and `cover.dark.jpg` become copies of the
///   bytes of `cover.webp` and `cover.jpg`.
/// - `designer`: the designer's picture fitted like a poster to the
///   cover's size (`DesignerDarkPicture.cover`: cover-cropped, centred),
///   written like a generated dark cover (`CoverExtractor.darkFiles`: WebP,
///   and JPEG on `dark_surface`). A black one fails the item, as a black
///   poster does (a cover is never black); one that glares is a warning.
///
/// The cover stage runs inside the video builder, which always generates a
/// dark cover; this replaces it afterwards, so the policy stays out of the
/// transcoder's chain, at the cost of one dark variant of one picture.
struct DarkCoverWriter: Sendable {
  let settings: JobSettings
  let darkVariants: DarkVariantGenerator

  /// What applying a policy changed besides the files.
  struct Applied: Sendable, Equatable {
    /// For the job author: a crop, glare.
    var warnings: [String] = []
    /// For the item's summary: the cover's AVIF pair left out because the
    /// designer's dark AVIF was not smaller than its WebP; nil otherwise.
    var note: String? = nil
  }

  /// Applies `dark` to the cover files `entry` names.
  ///
  /// - Parameters:
  ///   - dark: the banner's dark policy, its picture read.
  ///   - entry: the built video; its cover paths are relative to
  ///     `itemFolder`, `width × height` is the cover's size. Its AVIF keys
  ///     are cleared (and `cover.avif` removed) when the designer's dark
  ///     AVIF is not smaller than its WebP (``AVIFQualityMatch/notSmaller``).
  ///   - itemFolder: the item's folder.
  /// - Returns: warnings (a crop, glare) and a note for the summary.
  /// - Throws: `MarqueeError.noCover` for a black designer's picture
  ///   (naming it); `MediaIOError` or a file-system error when resizing,
  ///   encoding or writing.
  func apply(_ dark: DarkSource, to entry: inout VideoManifestEntry, itemFolder: URL) throws -> Applied {
    func url(_ path: String) -> URL { itemFolder.appendingPathComponent(path) }
    switch dark {
    case .generated:
      return Applied()
    case .same:
      var pairs = [(entry.coverPath, entry.darkCoverPath), (entry.coverJPEGPath, entry.darkCoverJPEGPath)]
      if let light = entry.coverAVIFPath, let dark = entry.darkCoverAVIFPath { pairs.append((light, dark)) }
      for (light, darkPath) in pairs {
        try Data(contentsOf: url(light)).write(to: url(darkPath), options: .atomic)
      }
      return Applied()
    case .designer(let designer):
      let fitted = try designer.cover(width: entry.width, height: entry.height)
      let statistics = PictureStatistics(image: fitted.image)
      if PictureLook.isBlack(statistics) {
        throw MarqueeError.noCover(
          "the designer's dark picture (dark.image) is black: \(PictureLook.describeBlack(statistics)); a cover is never black, so supply one with something lit in it",
          source: designer.text)
      }
      // The designer's dark AVIF gets the quantizer matched to its own
      // WebP (`CoverExtractor.darkFiles`).
      let files = CoverFiles(webp: entry.coverPath, jpeg: entry.coverJPEGPath, darkWebP: entry.darkCoverPath,
                             darkJPEG: entry.darkCoverJPEGPath, avif: entry.coverAVIFPath, darkAVIF: entry.darkCoverAVIFPath,
                             width: entry.width, height: entry.height, darkKind: .photograph)
      let extractor = CoverExtractor(webpQuality: settings.webpQuality, jpegQuality: settings.jpegQuality,
                                     darkVariants: darkVariants, makesAVIF: settings.makesAVIF)
      var darkFiles = try extractor.darkFiles(fitted.image, files: files)
      var note: String? = nil
      if let light = entry.coverAVIFPath, let darkAVIF = entry.darkCoverAVIFPath {
        let larger = AVIFQualityMatch.notSmaller(darkFiles, than: darkFiles, webpFor: [darkAVIF: entry.darkCoverPath])
        if let found = larger.first {
          // The pair goes together: no cover AVIF at all.
          darkFiles.removeAll { $0.0 == darkAVIF }
          try? FileManager.default.removeItem(at: url(light))
          try? FileManager.default.removeItem(at: url(darkAVIF))
          entry.coverAVIFPath = nil
          entry.darkCoverAVIFPath = nil
          note = "cover AVIF left out: \(found.avif) \(found.avifBytes) bytes, not under the WebP's \(found.webpBytes)"
        }
      }
      for (path, data) in darkFiles {
        try data.write(to: url(path), options: .atomic)
      }
      var warnings = designer.warnings
      if let warning = fitted.warning { warnings.append(warning) }
      // Fitted like a poster: the cover-crop of the picture scaled to the
      // video's size; far smaller, it looks blurred.
      let upscale = max(Double(entry.width) / Double(max(1, designer.image.width)),
                        Double(entry.height) / Double(max(1, designer.image.height)))
      if upscale > ImageRenderer.designerUpscaleWarning {
        warnings.append(String(format: "dark picture %@ is %dx%d: scaled up %.1fx to the video's %dx%d, it will look blurred; supply one at least %dx%d",
                               designer.text, designer.image.width, designer.image.height, upscale, entry.width, entry.height,
                               entry.width, entry.height))
      }
      if let glare = DesignerDarkPicture.glareWarning(fitted.image, on: settings.darkSurface) {
        warnings.append("dark picture \(designer.text) \(glare)")
      }
      return Applied(warnings: warnings, note: note)
    }
  }
}
