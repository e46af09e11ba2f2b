import Foundation

/// Files written for one video's cover, paths relative to the bundle root.
public struct CoverFiles: Sendable, Equatable {
  public var webp: String
  public var jpeg: String
  public var darkWebP: String
  public var darkJPEG: String
  /// Cover size in pixels: the video's top rendition size.
  public var width: Int
  public var height: Int
  /// How the dark variant classified the picture.
  public var darkKind: ImageContentKind
  /// The method that made the dark cover.
  public var darkMethod: DarkMethod = .dimmed
  /// The dark-variant rules the dark cover still breaks, in words (empty
  /// normally; see `DarkVariant.problems`).
  public var darkProblems: [String] = []
}

/// Writes a chosen cover picture as WebP and JPEG, with its dark variant
/// beside it at the predictable sibling path `<name>.dark.<ext>`.
///
/// The picture arrives already upright, at the video's output size, in
/// sRGB (converted from the BT.709 limited-range frame the encoder saw), so
/// the cover and the first video frame match pixel for pixel in size.
public struct CoverExtractor: Sendable {
  public var webpQuality: Int
  public var jpegQuality: Int
  public var darkVariants: DarkVariantGenerator

  public init(webpQuality: Int, jpegQuality: Int, darkVariants: DarkVariantGenerator) {
    self.webpQuality = webpQuality
    self.jpegQuality = jpegQuality
    self.darkVariants = darkVariants
  }

  /// Encodes and writes the four cover files.
  ///
  /// - Parameters:
  ///   - picture: the cover, RGBA sRGB, opaque.
  ///   - itemFolder: the item's folder, e.g. `<staging>/videos/spring`.
  /// - Returns: the files, with paths relative to `itemFolder`.
  /// - Throws: `MediaIOError` from the encoders, or a file-system error.
  public func write(_ picture: RGBAImage, into itemFolder: URL) throws -> CoverFiles {
    var files = CoverFiles(webp: "cover.webp", jpeg: "cover.jpg", darkWebP: "cover.dark.webp", darkJPEG: "cover.dark.jpg",
                           width: picture.width, height: picture.height, darkKind: .photograph)
    let light: [(String, Data)] = [
      (files.webp, try WebPEncoder.encode(picture, quality: webpQuality)),
      (files.jpeg, try JPEGEncoder.encode(picture, quality: jpegQuality)),
    ]
    // The dark cover is judged as `verify` judges it: each pair of files
    // decoded (the WebPs, the JPEGs).
    let check = DarkVariantCheck(surfaces: darkVariants.surfaces)
    func decoded(_ data: Data, _ name: String) -> RGBAImage? {
      try? ImageSource.open(data: data, path: name, limits: InputLimits()).decodeStill().image
    }
    let lightPictures = light.map { decoded($0.1, $0.0).map(check.light) }
    let (dark, darkWrites) = try darkVariants.makeCodedDarkVariant(
      of: picture, encode: { (image) throws in try darkFiles(image, files: files) },
      judge: { darkFiles in
        var problems: [String] = [], shortfall = 0.0
        for (lightPicture, darkFile) in zip(lightPictures, darkFiles) {
          guard let lightPicture, let darkPicture = decoded(darkFile.1, darkFile.0) else { continue }
          let judged = check.judgement(of: darkPicture, against: lightPicture)
          problems += judged.problems
          shortfall += judged.shortfall
        }
        return (problems, shortfall)
      })
    files.darkKind = dark.kind
    files.darkMethod = dark.method
    files.darkProblems = dark.problems
    let writes = light + darkWrites
    for (path, data) in writes {
      try data.write(to: itemFolder.appendingPathComponent(path), options: .atomic)
    }
    return files
  }

  /// The dark cover's two files for a dark picture of the cover's size:
  /// WebP, and JPEG flattened onto the dark surface.
  func darkFiles(_ dark: RGBAImage, files: CoverFiles) throws -> [(String, Data)] {
    [
      (files.darkWebP, try WebPEncoder.encode(dark, quality: webpQuality)),
      (files.darkJPEG, try JPEGEncoder.encode(darkVariants.flattened(dark), quality: jpegQuality)),
    ]
  }
}
