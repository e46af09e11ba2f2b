import Foundation

/// The image-banner stage: turns one source image into a width ladder of
/// WebP + JPEG files and their dark variants under `images/<id>/`.
///
/// One linear pass per banner (sharp's order, which the comments justify):
///
/// 1. **Header and limits.** The file's format is recognised by content and
///    its header parsed (JPEG SOF, PNG IHDR, GIF blocks, WebP chunks, HEIF
///    boxes); file size, pixels and animation size are checked before any
///    decoding, so a 280 MP JPEG or a 4.3 GP PNG is refused at once.
/// 2. **Decode, colour, orientation** (MediaIO `ImageSource`): libjpeg-turbo
///    for JPEG (CMYK/YCCK included, shrink-on-load to the widest rung),
///    libavcodec for PNG and GIF, libwebp for WebP, libheif for HEIF; the
///    embedded ICC profile (or HEIF nclx) converted to sRGB with Little CMS;
///    the EXIF orientation applied to the pixels. The outputs carry no EXIF
///    at all, so the tag cannot be applied twice.
/// 3. **Resize** each rung with Lanczos, premultiplied when there is alpha.
/// 4. **Dark variant** of each resized rung (`DarkVariantGenerator`), or,
///    by the banner's dark policy (`DarkSource`), the designer's picture
///    scaled to the rung (cover-cropped, centred, to the light picture's
///    aspect ratio first when the two differ by more than 1 %, with a
///    warning), or nothing to make: with `same` the dark files are the
///    light files' bytes.
/// 5. **Encode**: WebP keeps alpha; JPEG is flattened onto `background`
///    (normal) or `darkSurface` (dark), never onto black.
/// 6. **Write** all files into a temporary folder that replaces
///    `images/<id>/` only when everything succeeded.
///
/// Animated GIF and WebP become animated WebPs within the client's caps
/// (`maxAnimationFrames`, `maxAnimationBytes` of decoded RGBA at the output
/// size): frames are dropped evenly keeping the total duration, then the
/// size is reduced if the frames still do not fit. The JPEG fallback is the
/// first frame. A designer's dark picture is a still: an animated banner's
/// dark WebP is then that still at each rung's size (dark mode shows it
/// still, as supplied; nothing is animated that the designer did not
/// draw), with a warning; with `same` the dark WebP is the animated one.
public struct ImageRenderer: Sendable {
  /// The options in use.
  public var options: Options

  /// Creates a renderer.
  public init(options: Options = Options()) {
    self.options = options
  }

  // MARK: - API

  /// Renders `source` and writes the files under `bundleRoot/images/<id>/`.
  ///
  /// Files, per rung of the ladder: `w<width>.webp`, `w<width>.jpg`,
  /// `w<width>.dark.webp`, `w<width>.dark.jpg`, and for a still with
  /// `makesAVIF` `w<width>.avif` and `w<width>.dark.avif`. An existing
  /// `images/<id>/` folder is replaced.
  ///
  /// - Parameters:
  ///   - source: a local image file.
  ///   - id: the banner id, used as a folder name (one path segment).
  ///   - bundleRoot: the bundle folder.
  ///   - dark: where the dark files come from (default: generated).
  /// - Returns: what was written; its paths are relative to its `folder`,
  ///   `images/<id>`.
  /// - Throws: `MarqueeError` naming the file and the reason; nothing
  ///   is left behind under `images/<id>/` on failure.
  public func render(source: URL, id: String, bundleRoot: URL,
                     dark: DarkSource = .generated) throws(MarqueeError) -> RenderedImageSet {
    let file = source.lastPathComponent
    try validate(id: id, file: file)
    var (files, set) = try produce(source: source, dark: dark)
    set.folder = "images/\(id)"
    try write(files, folder: set.folder, bundleRoot: bundleRoot, file: file)
    return set
  }

  /// Decodes, resizes and encodes everything in memory.
  ///
  /// - Returns: the file contents keyed by file name, and the description
  ///   of the set (its paths are those names).
  func produce(source: URL, dark: DarkSource = .generated) throws(MarqueeError) -> ([(String, Data)], RenderedImageSet) {
    let file = source.lastPathComponent
    let imageSource: ImageSource
    do {
      imageSource = try ImageSource.open(path: source.path, limits: options.limits,
                                         maxAnimationPixels: options.maxAnimationPixels)
    } catch {
      throw MarqueeError.decoding(error, file: file)
    }
    if imageSource.header.isAnimated {
      return try produceAnimation(imageSource, dark: dark)
    }
    return try produceStill(imageSource, dark: dark)
  }

  // MARK: - Stills

  func produceStill(_ source: ImageSource, dark: DarkSource = .generated) throws(MarqueeError) -> ([(String, Data)], RenderedImageSet) {
    let file = source.name
    let header = source.header
    let ladder = WidthLadder.sizes(sourceWidth: header.width, sourceHeight: header.height, widths: options.widths)
    let widest = ladder.map(\.width).max() ?? header.width
    let picture: DecodedPicture
    do {
      picture = try source.decodeStill(minimumWidth: widest)
    } catch {
      throw MarqueeError.decoding(error, file: file)
    }
    var warnings = picture.warnings
    if let damage = try DamagedStill.check(picture.damage, file: file, allowed: options.allowsDamagedSource) {
      warnings.append(damage)
    }
    let prepared = try prepare(dark, lightWidth: header.width, lightHeight: header.height, widest: widest, warnings: &warnings)
    var files: [(String, Data)] = []
    var renditions: [RenderedImageSet.Rendition] = []
    // The dark variant is made and judged on the widest rung (the
    // banners.json `url`, the one `verify` judges); the others are it,
    // resized, so every width looks alike.
    var chosen: DarkVariant?
    var judgements = DarkJudgements()
    var decodedFiles = DecodedFiles()
    // The AVIF quantizer, chosen on the widest light rung (the first), and
    // the AVIFs not served for being no smaller than their WebPs.
    var avifMatch: AVIFQualityMatch.Choice?
    var avifLeftOut: [RenderedImageSet.AVIFLeftOut] = []
    for rung in ladder.reversed() {
      var encoded: [(String, Data)]?
      let resized: RGBAImage
      do {
        resized = try ImageResampler.resize(picture.image, width: rung.width, height: rung.height)
      } catch {
        throw MarqueeError.encoding(error, file: file, output: "the \(rung.width)x\(rung.height) rendition")
      }
      let rungDark: RungDark
      switch prepared {
      case .generated:
        if let widest = chosen {
          // Narrower widths are the widest dark variant resized, like their
          // light twins: the same look, without darkening again.
          do {
            rungDark = .picture(try ImageResampler.resize(widest.image, width: rung.width, height: rung.height))
          } catch {
            throw MarqueeError.encoding(error, file: file, output: "the \(rung.width)x\(rung.height) dark rendition")
          }
        } else {
          let judged = try codedDarkVariant(of: resized, names: paths(width: rung.width), file: file)
          judgements = judged.judgements
          decodedFiles = judged.decoded
          chosen = judged.variant
          encoded = judged.files
          rungDark = .picture(judged.variant.image)
        }
      case .same:
        rungDark = .sameAsLight
      case .designer(let matched):
        rungDark = .picture(try scaled(matched, width: rung.width, height: rung.height, file: file))
      }
      let names = paths(width: rung.width)
      let rungFiles: [(String, Data)]
      if let encoded { rungFiles = encoded } else { rungFiles = try encodeStill(resized, dark: rungDark, names: names, file: file) }
      files += rungFiles
      var rendition = names.rendition(width: rung.width, height: rung.height)
      if options.makesAVIF {
        // The quantizer is matched on the widest rung (the first), whose
        // light AVIF the match encoded; the other rungs reuse it.
        let fresh = avifMatch == nil
        if fresh {
          let webp = rungFiles.first { $0.0 == names.webp }?.1 ?? Data()
          avifMatch = try matchAVIF(to: webp, of: resized, file: file)
        }
        if let match = avifMatch {
          let pair = try encodeAVIF(resized, dark: rungDark, names: names, quantizer: match.quantizer,
                                    light: fresh ? match.avif : nil, file: file)
          // Served only where both files of the pair are smaller than their
          // WebPs (the dark one is what `?theme=dark` serves for the light).
          let larger = AVIFQualityMatch.notSmaller(pair, than: rungFiles, webpFor: [names.avif: names.webp, names.darkAvif: names.darkWebp])
          if larger.isEmpty {
            files += pair
            rendition.avifPath = names.avif
            rendition.darkAvifPath = names.darkAvif
          } else {
            avifLeftOut += larger.map { RenderedImageSet.AVIFLeftOut(file: $0.avif, avifBytes: $0.avifBytes, webpBytes: $0.webpBytes) }
          }
        }
      }
      renditions.insert(rendition, at: 0)
    }
    var set = RenderedImageSet(
      widths: renditions, isAnimated: false, frameCount: 1, animationDuration: 0,
      sourceWidth: header.width, sourceHeight: header.height, sourceSummary: header.summary,
      darkKind: chosen?.kind ?? .photograph, warnings: unique(warnings + Self.darkWarnings(chosen)), darkPolicy: dark.kind)
    set.darkMethod = chosen?.method ?? .dimmed
    set.darkJudgements = judgements
    set.decodedFiles = decodedFiles
    set.health = picture.damage.map { SourceHealth(damagedStill: $0) }
    set.avif = avifMatch.map {
      RenderedImageSet.AVIFSummary(quantizer: $0.quantizer, avifSSIM: $0.avifSSIM, webpSSIM: $0.webpSSIM, encodes: $0.encodes,
                                   leftOut: avifLeftOut)
    }
    return (files, set)
  }

  // MARK: - AVIF

  /// The AVIF quantizer for the widest light rung (``AVIFQualityMatch``),
  /// its AVIF encoded on the way.
  func matchAVIF(to webp: Data, of picture: RGBAImage, file: String) throws(MarqueeError) -> AVIFQualityMatch.Choice {
    do {
      return try AVIFQualityMatch(show: { self.flatten($0, onto: self.options.background) }).choose(for: picture, webp: webp)
    } catch {
      throw MarqueeError.encoding(error, file: file, output: "\(picture.width)x\(picture.height) AVIF")
    }
  }

  /// The two AVIF files of one still rung at `quantizer`: the light one
  /// (`light` when it is already encoded) and the dark one (the light
  /// bytes with `"dark": "same"`).
  func encodeAVIF(_ image: RGBAImage, dark: RungDark, names: RungPaths, quantizer q: Int, light encoded: Data?,
                  file: String) throws(MarqueeError) -> [(String, Data)] {
    let qa = AVIFQualityMatch.alphaQuantizer(for: q)
    do {
      let light: Data
      if let encoded { light = encoded } else { light = try AVIFEncoder.encode(image, quantizer: q, alphaQuantizer: qa) }
      switch dark {
      case .sameAsLight:
        return [(names.avif, light), (names.darkAvif, light)]
      case .picture(let picture):
        return [(names.avif, light), (names.darkAvif, try AVIFEncoder.encode(picture, quantizer: q, alphaQuantizer: qa))]
      }
    } catch {
      throw MarqueeError.encoding(error, file: file, output: "\(image.width)x\(image.height) AVIF")
    }
  }

  /// The widest rung's dark variant, judged as it is published
  /// (``DarkVariantGenerator/makeCodedDarkVariant(of:encode:judge:)``):
  /// the light files encoded, decoded and read once, each candidate's dark files
  /// encoded, decoded and judged against them as `verify` judges a still
  /// (`DarkVariantCheck` on the WebP pair, and on the JPEG pair unless the
  /// picture is transparent or the JPEGs show the WebPs' pictures).
  ///
  /// - Returns: the variant, the rung's four encoded files, the judgement
  ///   of their pairs and the pictures they decoded to.
  func codedDarkVariant(of image: RGBAImage, names: RungPaths, file: String) throws(MarqueeError)
    -> (variant: DarkVariant, files: [(String, Data)], judgements: DarkJudgements, decoded: DecodedFiles)
  {
    let light = try encodeStill(image, dark: .sameAsLight, names: names, file: file).prefix(2)
    let lightWebPData = light[light.startIndex].1, lightJPEGData = light[light.startIndex + 1].1
    // Each file is hashed once: a candidate's files are looked up by their
    // bytes (a comparison, far cheaper than a hash) when published.
    var digests: [(data: Data, digest: SHA256.Digest)] = []
    func digest(_ data: Data) -> SHA256.Digest {
      if let known = digests.first(where: { $0.data == data }) { return known.digest }
      let computed = SHA256.hash(data)
      digests.append((data, computed))
      return computed
    }
    let lightWebPDigest = digest(lightWebPData), lightJPEGDigest = digest(lightJPEGData)
    let check = DarkVariantCheck(surfaces: PictureLook.Surfaces(light: options.background, dark: options.darkSurface))
    // Each file is decoded once; what it decodes to is recorded under its
    // digest for the placeholder and the build's check.
    var decoded = DecodedFiles()
    func decodedRecording(_ data: Data, _ digest: SHA256.Digest, name: String) -> RGBAImage? {
      let picture = decodedStill(data, name: name)
      if let picture { decoded.record(digest, picture: picture) }
      return picture
    }
    // The light files are read once for every candidate; the JPEG only
    // when a candidate's JPEG pair is judged.
    let lightWebP = decodedRecording(lightWebPData, lightWebPDigest, name: names.webp).map(check.light)
    let transparent = lightWebP?.image.hasTransparency ?? false
    var lightJPEG: (picture: RGBAImage?, alikeWebP: Bool)?
    var lightJPEGRead: DarkVariantCheck.Light?
    var judgements = DarkJudgements()
    let judged = try darkGenerator.makeCodedDarkVariant(
      of: image, encode: { (dark) throws(MarqueeError) in try encodeDark(dark, names: names, file: file) },
      judge: { darkFiles in
        let darkWebPDigest = digest(darkFiles[0].1), darkJPEGDigest = digest(darkFiles[1].1)
        // A file that cannot be decoded is reported by the build's check
        // of its outputs.
        guard let lightWebP, let darkWebP = decodedRecording(darkFiles[0].1, darkWebPDigest, name: names.darkWebp)
        else { return ([], 0) }
        let webp = check.judgement(of: darkWebP, against: lightWebP)
        judgements.record(light: lightWebPDigest, dark: darkWebPDigest, problems: webp.problems)
        guard !transparent else { return (webp.problems, webp.shortfall) }
        if lightJPEG == nil {
          let picture = decodedRecording(lightJPEGData, lightJPEGDigest, name: names.jpeg)
          lightJPEG = (picture, picture.map { CodedAlike.same($0, lightWebP.image) } ?? false)
        }
        guard let lightJPEGPicture = lightJPEG?.picture,
              let darkJPEG = decodedRecording(darkFiles[1].1, darkJPEGDigest, name: names.darkJpeg)
        else { return (webp.problems, webp.shortfall) }
        // What `verify` finds for the JPEG pair: the WebP pair's judgement
        // when the JPEGs show the same pictures, its own otherwise.
        if lightJPEG?.alikeWebP == true && CodedAlike.same(darkJPEG, darkWebP) {
          judgements.record(light: lightJPEGDigest, dark: darkJPEGDigest, problems: webp.problems)
          return (webp.problems, webp.shortfall)
        }
        let jpegLight = lightJPEGRead ?? check.light(lightJPEGPicture)
        lightJPEGRead = jpegLight
        let jpeg = check.judgement(of: darkJPEG, against: jpegLight)
        judgements.record(light: lightJPEGDigest, dark: darkJPEGDigest, problems: jpeg.problems)
        return (webp.problems + jpeg.problems, webp.shortfall + jpeg.shortfall)
      })
    let published = Set([lightWebPDigest, lightJPEGDigest] + judged.files.map { digest($0.1) })
    let files = Array(light) + judged.files
    return (judged.variant, files, judgements.published(published), decoded.published(published))
  }

  /// An encoded still decoded as `verify` decodes it, or `nil`.
  func decodedStill(_ data: Data, name: String) -> RGBAImage? {
    try? ImageSource.open(data: data, path: name, limits: options.limits).decodeStill().image
  }

  /// What a rung's dark files are made of.
  enum RungDark {
    /// A dark picture of the rung's size, encoded like the light one.
    case picture(RGBAImage)
    /// The light files' bytes (`"dark": "same"`).
    case sameAsLight
  }

  /// The four files of one still rung.
  func encodeStill(_ image: RGBAImage, dark: RungDark, names: RungPaths,
                   file: String) throws(MarqueeError) -> [(String, Data)] {
    let webp: Data, jpeg: Data
    do {
      webp = try WebPEncoder.encode(image, quality: options.webpQuality)
      jpeg = try JPEGEncoder.encode(flatten(image, onto: options.background), quality: options.jpegQuality)
    } catch {
      throw MarqueeError.encoding(error, file: file, output: "\(image.width)x\(image.height) WebP/JPEG")
    }
    switch dark {
    case .sameAsLight:
      return [(names.webp, webp), (names.jpeg, jpeg), (names.darkWebp, webp), (names.darkJpeg, jpeg)]
    case .picture(let picture):
      return [(names.webp, webp), (names.jpeg, jpeg)] + (try encodeDark(picture, names: names, file: file))
    }
  }

  /// The two dark files of one still rung: WebP, and JPEG flattened onto
  /// the dark surface.
  func encodeDark(_ picture: RGBAImage, names: RungPaths, file: String) throws(MarqueeError) -> [(String, Data)] {
    do {
      return [
        (names.darkWebp, try WebPEncoder.encode(picture, quality: options.webpQuality)),
        (names.darkJpeg, try JPEGEncoder.encode(flatten(picture, onto: options.darkSurface), quality: options.jpegQuality)),
      ]
    } catch {
      throw MarqueeError.encoding(error, file: file, output: "\(picture.width)x\(picture.height) dark WebP/JPEG")
    }
  }

  // MARK: - The designer's dark picture

  /// A render's dark policy, ready for the rungs.
  enum PreparedDark {
    /// Each rung's dark variant is generated.
    case generated
    /// Each rung's dark files are its light files' bytes.
    case same
    /// The designer's picture, matched to the light picture's aspect
    /// ratio, to scale to each rung.
    case designer(RGBAImage)
  }

  /// `dark` ready for the rungs of a light picture of `lightWidth ×
  /// lightHeight` (upright) whose widest rung is `widest` px wide: the
  /// designer's picture matched to its aspect ratio
  /// (`DesignerDarkPicture.matchingAspect`); its decoding, crop, upscale and
  /// glare warnings added to `warnings`.
  ///
  /// - Throws: `MarqueeError.noCover` (`file` the picture's path as
  ///   written) when the designer's picture is black (`PictureLook.isBlack`,
  ///   the rule covers are held to): nothing in it can be shown.
  func prepare(_ dark: DarkSource, lightWidth: Int, lightHeight: Int, widest: Int,
               warnings: inout [String]) throws(MarqueeError) -> PreparedDark {
    switch dark {
    case .generated: return .generated
    case .same: return .same
    case .designer(let designer):
      let matched = designer.matchingAspect(ofWidth: lightWidth, height: lightHeight)
      let statistics = PictureStatistics(image: matched.picture)
      if PictureLook.isBlack(statistics) {
        throw MarqueeError.noCover(
          "the designer's dark picture (dark.image) is black: \(PictureLook.describeBlack(statistics)); nothing in it can be shown, so supply one with something lit in it",
          source: designer.text)
      }
      warnings += designer.warnings
      if let warning = matched.warning { warnings.append(warning) }
      let upscale = Double(widest) / Double(max(1, matched.picture.width))
      if upscale > Self.designerUpscaleWarning {
        warnings.append(String(format: "dark picture %@ is %dx%d: scaled up %.1fx to the widest width (%d px), it will look blurred; supply one at least %d px wide",
                               designer.text, matched.picture.width, matched.picture.height, upscale, widest, widest))
      }
      if let glare = DesignerDarkPicture.glareWarning(matched.picture, on: options.darkSurface) {
        warnings.append("dark picture \(designer.text) \(glare)")
      }
      return .designer(matched.picture)
    }
  }

  /// A designer's dark picture scaled up by more than this to the widest
  /// width gets a warning (it is used all the same).
  static let designerUpscaleWarning = 1.5

  /// The matched designer picture scaled to one rung's size (Lanczos).
  func scaled(_ picture: RGBAImage, width: Int, height: Int, file: String) throws(MarqueeError) -> RGBAImage {
    do {
      return try ImageResampler.resize(picture, width: width, height: height)
    } catch {
      throw MarqueeError.encoding(error, file: file, output: "the \(width)x\(height) dark picture")
    }
  }

  // MARK: - Shared helpers

  /// The rules a dark variant still breaks, as warnings.
  static func darkWarnings(_ variant: DarkVariant?) -> [String] {
    (variant?.problems ?? []).map { "dark variant (\(variant?.method.rawValue ?? "")): \($0)" }
  }

  var darkGenerator: DarkVariantGenerator {
    let s = options.darkSurface, l = options.background
    return DarkVariantGenerator(options: .init(surface: s,
                                               lightSurface: l))
  }

  /// Composites onto an opaque colour for JPEG (a no-op copy when opaque).
  func flatten(_ image: RGBAImage, onto colour: RGBColor) -> RGBAImage {
    guard image.hasTransparency else { return image }
    return darkGenerator.flattened(image, onto: colour)
  }

  /// Bundle-relative names of one rung's files.
  struct RungPaths {
    var webp, jpeg, darkWebp, darkJpeg: String
    var avif, darkAvif: String

    func rendition(width: Int, height: Int) -> RenderedImageSet.Rendition {
      RenderedImageSet.Rendition(width: width, height: height, webpPath: webp, jpegPath: jpeg,
                                 darkWebpPath: darkWebp, darkJpegPath: darkJpeg)
    }
  }

  /// The four file names of a rung.
  func paths(width: Int) -> RungPaths {
    let base = "w\(width)"
    return RungPaths(webp: "\(base).webp", jpeg: "\(base).jpg", darkWebp: "\(base).dark.webp",
                     darkJpeg: "\(base).dark.jpg", avif: "\(base).avif", darkAvif: "\(base).dark.avif")
  }

  func unique(_ warnings: [String]) -> [String] {
    var seen = Set<String>()
    return warnings.filter { seen.insert($0).inserted }
  }

  // MARK: - Validation and output

  func validate(id: String, file: String) throws(MarqueeError) {
    if let problem = options.problem {
      throw MarqueeError(.invalidRequest, file: file, message: problem)
    }
    let bad = id.isEmpty || id == "." || id == ".." || id.contains("/") || id.contains("\\") || id.contains("\0")
    if bad {
      throw MarqueeError(.invalidRequest, file: file, message: "banner id '\(id)' cannot be used as a folder name")
    }
  }

  /// Writes `files` into a fresh temporary folder next to the target, then
  /// swaps it into place, so a failure leaves no half-written folder.
  func write(_ files: [(String, Data)], folder: String, bundleRoot: URL, file: String) throws(MarqueeError) {
    let fm = FileManager.default
    let target = bundleRoot.appendingPathComponent(folder, isDirectory: true)
    let parent = target.deletingLastPathComponent()
    let temp = parent.appendingPathComponent(".\(target.lastPathComponent).partial-\(UUID().uuidString)", isDirectory: true)
    do {
      try fm.createDirectory(at: temp, withIntermediateDirectories: true)
      for (path, data) in files {
        let name = (path as NSString).lastPathComponent
        try data.write(to: temp.appendingPathComponent(name), options: .atomic)
      }
      if fm.fileExists(atPath: target.path) { try fm.removeItem(at: target) }
      try fm.moveItem(at: temp, to: target)
    } catch {
      try? fm.removeItem(at: temp)
      throw MarqueeError(.writeFailed, file: file, message: "cannot write \(folder)/ under \(bundleRoot.path): \(error.localizedDescription)")
    }
  }
}
