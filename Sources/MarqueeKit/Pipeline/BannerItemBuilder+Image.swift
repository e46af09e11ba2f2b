import Foundation

extension BannerItemBuilder {
  /// Image banners: decode, resize to the configured width (never upscale),
  /// WebP + JPEG, and the dark variant of each.
  func buildImage(_ spec: BannerSpec, folder: String) throws -> (ManifestEntry, [String], String) {
    let decoded = try ImageDecoder.decodeFirstFrame(path: spec.source.path, limits: limits)
    let src = decoded.image
    let width = min(settings.imageWidth, src.width)
    let height = max(1, Int((Double(src.height) * Double(width) / Double(src.width)).rounded()))
    let picture = try PixelConverter.resize(src, width: width, height: height)
    let dir = staging.appendingPathComponent(folder, isDirectory: true)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let dark = darkVariants.makeDarkVariant(of: picture)
    let bg = settings.background
    let base = "\(folder)/w\(width)"
    let writes: [(String, Data)] = [
      ("\(base).webp", try WebPEncoder.encode(picture, quality: settings.webpQuality)),
      ("\(base).jpg", try JPEGEncoder.encode(darkVariants.flattened(picture, onto: DarkSurface(r: bg.r, g: bg.g, b: bg.b)),
                                           quality: settings.jpegQuality)),
      ("\(base).dark.webp", try WebPEncoder.encode(dark.image, quality: settings.webpQuality)),
      ("\(base).dark.jpg", try JPEGEncoder.encode(darkVariants.flattened(dark.image), quality: settings.jpegQuality)),
    ]
    for (path, data) in writes { try data.write(to: staging.appendingPathComponent(path), options: .atomic) }
    let entry = ImageManifestEntry(
      id: spec.id, path: "\(base).webp", jpegPath: "\(base).jpg", darkPath: "\(base).dark.webp",
      darkJPEGPath: "\(base).dark.jpg", width: width, height: height, link: spec.link,
      widths: [ImageWidthEntry(width: width, height: height, webpPath: "\(base).webp", jpegPath: "\(base).jpg")])
    return (.image(entry), [], "\(decoded.codecName) \(src.width)x\(src.height) → \(width)x\(height) WebP + JPEG, dark: \(dark.kind)")
  }
}
