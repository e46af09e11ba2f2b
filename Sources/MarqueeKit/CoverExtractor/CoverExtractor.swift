import Foundation

/// Files written for one video's cover, paths relative to the bundle root.
public struct CoverFiles: Sendable, Equatable {
  public var webp: String
  public var jpeg: String
  public var darkWebP: String
  public var darkJPEG: String
  /// The AVIF twins (`cover.avif`, `cover.dark.avif`); nil with AVIF off.
  public var avif: String? = nil
  public var darkAVIF: String? = nil
  /// The AVIFs' quantizer (``AVIFQualityMatch``, chosen on the light
  /// cover); nil when none was chosen.
  public var avifQuantizer: Int? = nil
  /// The AVIFs not smaller than their WebPs, for which the cover got no
  /// AVIF pair (``AVIFQualityMatch/notSmaller``); empty normally.
  public var avifLeftOut: [RenderedImageSet.AVIFLeftOut] = []
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
  /// Whether the cover and its dark variant get AVIF twins
  /// (`image_formats` holding `avif`).
  public var makesAVIF: Bool

  public init(webpQuality: Int, jpegQuality: Int, darkVariants: DarkVariantGenerator, makesAVIF: Bool = false) {
    self.webpQuality = webpQuality
    self.jpegQuality = jpegQuality
    self.darkVariants = darkVariants
    self.makesAVIF = makesAVIF
  }

  /// Encodes and writes the four cover files, and with `makesAVIF` the
  /// AVIF pair (its quantizer matched to the light WebP's SSIM,
  /// ``AVIFQualityMatch``, and reused for the dark one).
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
    var avif: (String, Data)? = nil
    if makesAVIF {
      let match = try AVIFQualityMatch(show: { self.darkVariants.flattened($0, onto: self.darkVariants.surfaces.light) })
        .choose(for: picture, webp: light[0].1)
      // Not smaller than the WebP: no AVIF pair for this cover.
      if match.isSmallerThanWebP {
        files.avif = "cover.avif"
        files.darkAVIF = "cover.dark.avif"
        files.avifQuantizer = match.quantizer
        avif = ("cover.avif", match.avif)
      } else {
        files.avifLeftOut = [.init(file: "cover.avif", avifBytes: match.avif.count, webpBytes: match.webpBytes)]
      }
    }
    // The dark cover is judged as `verify` judges it: each pair of files
    // decoded (the WebPs, the JPEGs).
    let check = DarkVariantCheck(surfaces: darkVariants.surfaces)
    func decoded(_ data: Data, _ name: String) -> RGBAImage? {
      try? ImageSource.open(data: data, path: name, limits: InputLimits()).decodeStill().image
    }
    let lightPictures = light.map { decoded($0.1, $0.0).map(check.light) }
    // Candidates are judged by their WebP and JPEG; the chosen one's AVIF
    // is encoded once, below.
    var candidateFiles = files
    candidateFiles.darkAVIF = nil
    let (dark, darkWrites) = try darkVariants.makeCodedDarkVariant(
      of: picture, encode: { (image) throws in try darkFiles(image, files: candidateFiles) },
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
    var extra: [(String, Data)] = []
    if let avif, let darkPath = files.darkAVIF, let q = files.avifQuantizer {
      let pair = [avif, (darkPath, try AVIFEncoder.encode(dark.image, quantizer: q, alphaQuantizer: AVIFQualityMatch.alphaQuantizer(for: q)))]
      // The pair is served only when the dark AVIF is smaller than the
      // dark WebP too (`?theme=dark` serves it for the light one).
      let larger = AVIFQualityMatch.notSmaller(pair, than: light + darkWrites,
                                               webpFor: [avif.0: files.webp, darkPath: files.darkWebP])
      if larger.isEmpty {
        extra = pair
      } else {
        files.avif = nil
        files.darkAVIF = nil
        files.avifQuantizer = nil
        files.avifLeftOut = larger.map { .init(file: $0.avif, avifBytes: $0.avifBytes, webpBytes: $0.webpBytes) }
      }
    }
    let writes = light + darkWrites + extra
    for (path, data) in writes {
      try data.write(to: itemFolder.appendingPathComponent(path), options: .atomic)
    }
    return files
  }

  /// The dark cover's files for a dark picture of the cover's size:
  /// WebP, JPEG flattened onto the dark surface, and when `files` names a
  /// dark AVIF, the AVIF at `files.avifQuantizer` (or, when none was
  /// chosen, at the quantizer matched to this dark WebP).
  func darkFiles(_ dark: RGBAImage, files: CoverFiles) throws -> [(String, Data)] {
    let webp = try WebPEncoder.encode(dark, quality: webpQuality)
    var result = [
      (files.darkWebP, webp),
      (files.darkJPEG, try JPEGEncoder.encode(darkVariants.flattened(dark), quality: jpegQuality)),
    ]
    if let path = files.darkAVIF {
      if let q = files.avifQuantizer {
        result.append((path, try AVIFEncoder.encode(dark, quantizer: q, alphaQuantizer: AVIFQualityMatch.alphaQuantizer(for: q))))
      } else {
        let match = try AVIFQualityMatch(show: { self.darkVariants.flattened($0, onto: self.darkVariants.surfaces.dark) })
          .choose(for: dark, webp: webp)
        result.append((path, match.avif))
      }
    }
    return result
  }
}
