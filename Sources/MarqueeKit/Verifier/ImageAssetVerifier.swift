import Foundation

/// An image banner as banners.json (or a store record) describes it.
struct ImageAssets: Sendable {
  struct File: Sendable {
    /// The banners.json key, e.g. `url` or `sources[1].jpeg_url`.
    var key: String
    var path: String
    /// The size banners.json states for it, when it states one.
    var width: Int?
    var height: Int?
  }
  var id: String
  /// `url` first.
  var files: [File]
  /// Where the dark files came from (`dark_policy`), which decides how
  /// they are judged (`DarkPolicyCheck`).
  var darkPolicy: DarkPolicyKind = .generated
  /// `thumbhash`, `dark_thumbhash`, `color`, `dark_color`; nil when the
  /// item has none of them.
  var placeholder: Placeholder? = nil
}

/// Checks an image banner's files: present, decodable, the stated size, a
/// dark variant beside `url`, and animations within the client's caps
/// (docs/playback-constraints.md §5); the dark files by the item's
/// `dark_policy` (`DarkPolicyCheck`).
struct ImageAssetVerifier {
  /// The client caps an animation at 20 decoded frames…
  static let maxAnimationFrames = 20
  /// …and 10 MB of decoded RGBA.
  static let maxAnimationBytes = 10 * 1024 * 1024
  /// A bundle's files are untrusted like any input: the default source
  /// limits apply (40 MP a picture, 2 GiB a file), far above what Marquee
  /// writes, so a small file that decodes to gigabytes is refused from its
  /// header.
  static let openLimits = InputLimits(maxDuration: .infinity)

  let assets: ImageAssets
  let files: AssetFiles
  let decode: Bool
  private(set) var violations: [Violation] = []
  /// Things worth a look that are not violations (a designer's dark
  /// picture that glares), each naming the item and the file.
  private(set) var warnings: [String] = []
  private(set) var fileCount = 0

  init(assets: ImageAssets, files: AssetFiles, decode: Bool) {
    self.assets = assets
    self.files = files
    self.decode = decode
  }

  private mutating func fail(_ path: String, _ problem: String) {
    violations.append(Violation(item: assets.id, file: files.display(path), problem: problem))
  }

  mutating func run() -> [Violation] {
    var seen: Set<String> = []
    for file in assets.files {
      if !file.key.contains("dark") { checkDarkSibling(file.path, key: file.key, size: (file.width, file.height)) }
      // Every key promises its format, also when an earlier key named the
      // same file (whose contents are then checked once).
      if let problem = ImageKeyFormat.problem(key: file.key, path: file.path) { fail(file.path, problem) }
      guard seen.insert(file.path).inserted else { continue }
      check(file)
    }
    if !assets.files.contains(where: { $0.key == "dark_url" }) {
      fail("banners.json", "no dark_url: dark mode needs an explicit dark image URL")
    }
    switch assets.darkPolicy {
    case .generated:
      // Both formats of the widest width: a client without WebP shows the
      // JPEGs. A transparent image's JPEGs are flattened, each on its own
      // surface, so its cut-out silhouette would read as marks there: they
      // are judged through the WebPs, which keep the alpha.
      //
      // A JPEG pair that shows the same pictures as the WebP pair (the
      // same pixels but for coding error: `CodedAlike`) takes the WebP
      // pair's judgement; any other is judged on its own.
      let transparent = pictures["url"]?.hasTransparency ?? false
      var webpProblems: [String]? = nil
      for (lightKey, darkKey) in [("url", "dark_url"), ("jpeg_url", "dark_jpeg_url")] {
        guard let light = pictures[lightKey], let dark = pictures[darkKey] else { continue }
        if lightKey == "jpeg_url" && transparent { continue }
        let problems: [String]
        if let known = judgedProblems(lightKey, darkKey) {
          problems = known
        } else if lightKey == "jpeg_url", let judged = webpProblems, let webpLight = pictures["url"],
           let webpDark = pictures["dark_url"], CodedAlike.same(light, webpLight), CodedAlike.same(dark, webpDark) {
          problems = judged
        } else {
          problems = DarkVariantCheck(surfaces: surfaces).problems(light: light, dark: dark)
        }
        if lightKey == "url" { webpProblems = problems }
        for problem in problems {
          fail(assets.files.first { $0.key == darkKey }?.path ?? "banners.json", "\(darkKey): \(problem)")
        }
      }
      // Every narrower width's dark file (served for `?theme=dark`, and
      // to smaller phones): no glare, darker as shown. They are the widest
      // dark variant resized, judged whole above.
      if decode {
        for (path, light) in narrowerLight.sorted(by: { $0.key < $1.key }) {
          guard let darkPath = RelativePath.darkSibling(of: path), let dark = try? files.image(darkPath, limits: Self.openLimits).decodeStill().image
          else { continue }  // a missing or unreadable sibling is reported by checkDarkSibling
          let shownDark = PictureLook.shownLuma(dark, on: surfaces.dark)
          if shownDark.glareShare > PictureLook.maxGlareShare {
            fail(darkPath, String(format: "?theme=dark: it glares: %.0f %% of it is near white (luma %.0f or more) on the dark surface, at most %.0f %% allowed",
                                  shownDark.glareShare * 100, PictureLook.glareLuma, PictureLook.maxGlareShare * 100))
          }
          if !(transparent && path.hasSuffix(".jpg")),
             !PictureLook.isDarker(shownDark: shownDark.meanLuma, shownLight: PictureLook.shownMeanLuma(light, on: surfaces.light)) {
            fail(darkPath, "?theme=dark: it is not darker as shown than the light picture")
          }
        }
      }
    case .same:
      let named = assets.files.map { (key: $0.key, path: $0.path, isDark: $0.key.contains("dark")) }
      for pair in DarkPolicyCheck.samePairs(named, explicit: ["url": "dark_url", "jpeg_url": "dark_jpeg_url"]) {
        if let problem = DarkPolicyCheck.sameBytesProblem(light: pair.light, dark: pair.dark, key: pair.key, files: files) {
          fail(pair.dark, problem)
        }
      }
    case .designer:
      break  // glare, as a warning, where dark_url is decoded
    }
    if let placeholder = assets.placeholder {
      if decode, let light = pictures["url"], let dark = pictures["dark_url"] {
        // The thumbnails the build made of exactly these files, if any.
        func thumbnail(_ key: String) -> Placeholder.Thumbnail? {
          guard let path = assets.files.first(where: { $0.key == key })?.path, let digest = judgedDigests[path] else { return nil }
          return decoded.thumbnail(for: digest)
        }
        let known = (thumbnail("url"), thumbnail("dark_url"))
        for problem in placeholder.problems(light: light, dark: dark, surfaces: surfaces, thumbnails: known) {
          fail("banners.json", problem)
        }
      }
    } else {
      fail("banners.json", "no thumbhash, dark_thumbhash, color or dark_color: the slot has no placeholder to paint before its picture arrives")
    }
    return violations
  }

  /// The decoded `url`, `dark_url`, `jpeg_url` and `dark_jpeg_url`
  /// pictures, for the dark-variant rules.
  private var pictures: [String: RGBAImage] = [:]
  /// The decoded light files of the narrower widths, by path.
  private var narrowerLight: [String: RGBAImage] = [:]
  /// What images are shown on (`PictureLook`'s dark-variant rules).
  var surfaces = PictureLook.Surfaces.standard
  /// Pairs the build already judged as published (``DarkJudgements``): a
  /// pair whose two files hold exactly the judged bytes takes that
  /// judgement. Empty for `marquee verify`, which judges every pair.
  var judged = DarkJudgements()
  /// Pictures the build already decoded from files it wrote
  /// (``DecodedFiles``): a file with exactly those bytes takes its picture
  /// instead of being decoded again. Empty for `marquee verify`.
  var decoded = DecodedFiles()
  /// The SHA-256 of the `url`, `dark_url`, `jpeg_url` and `dark_jpeg_url`
  /// files as read for decoding, by path, when the build handed over
  /// judgements or pictures to look them up in.
  private var judgedDigests: [String: SHA256.Digest] = [:]

  /// The recorded judgement of the files under `lightKey` and `darkKey`,
  /// read from disk and named by their digests, or nil.
  private func judgedProblems(_ lightKey: String, _ darkKey: String) -> [String]? {
    guard judged.count > 0,
          let lightPath = assets.files.first(where: { $0.key == lightKey })?.path,
          let darkPath = assets.files.first(where: { $0.key == darkKey })?.path,
          let light = judgedDigests[lightPath] ?? digest(of: lightPath),
          let dark = judgedDigests[darkPath] ?? digest(of: darkPath) else { return nil }
    return judged.problems(light: light, dark: dark)
  }

  /// The SHA-256 of the bundle file at `path`, or nil when it cannot be
  /// read or is larger than ``maxJudgedFileBytes``.
  private func digest(of path: String) -> SHA256.Digest? {
    (try? files.open(path).readAll(limit: Self.maxJudgedFileBytes)).map { SHA256.hash($0) }
  }

  /// A file larger than this is judged afresh rather than read whole for
  /// its digest (a still rung's WebP or JPEG is far smaller).
  static let maxJudgedFileBytes: Int64 = 64 << 20

  private mutating func check(_ file: ImageAssets.File) {
    if AVIFFileCheck.isAVIF(file.path) {
      checkAVIF(file)
      return
    }
    guard (files.size(file.path) ?? 0) > 0 else {
      fail(file.path, "\(file.key): image is missing or empty")
      return
    }
    fileCount += 1
    let source: ImageSource
    let data: Data
    do {
      (source, data) = try files.imageAndBytes(file.path, limits: Self.openLimits)
    } catch {
      fail(file.path, "\(file.key): not a readable image: \(error.reason)")
      return
    }
    let header = source.header
    let ext = (file.path as NSString).pathExtension.lowercased()
    let expected: ImageFormat? = switch ext {
      case "webp": .webp
      case "jpg", "jpeg": .jpeg
      case "png": .png
      default: nil
    }
    if let expected, header.format != expected {
      fail(file.path, "\(file.key): the file is \(header.format.rawValue), not what .\(ext) promises")
    }
    if let w = file.width, let h = file.height, header.width != w || header.height != h {
      fail(file.path, "\(file.key): image is \(header.width)x\(header.height) but banners.json says \(w)x\(h)")
    }
    if header.frameCount > Self.maxAnimationFrames {
      fail(file.path, "\(file.key): animation has \(header.frameCount) frames; the client plays at most \(Self.maxAnimationFrames)")
    }
    let decodedBytes = header.frameCount * header.width * header.height * 4
    if header.frameCount > 1 && decodedBytes > Self.maxAnimationBytes {
      fail(file.path, "\(file.key): animation decodes to \(LogLine.bytes(Int64(decodedBytes))); the client's cap is 10 MB")
    }
    if header.orientation != .identity {
      fail(file.path, "\(file.key): carries an EXIF orientation: the pixels must already be upright")
    }
    guard decode else { return }
    do {
      let judgedKey = ["url", "dark_url", "jpeg_url", "dark_jpeg_url"].contains(file.key)
      // Hashed once, and only when there is something to look it up in.
      let digest = judgedKey && (judged.count > 0 || !decoded.isEmpty) && Int64(data.count) <= Self.maxJudgedFileBytes
        ? SHA256.hash(data) : nil
      if let digest { judgedDigests[file.path] = digest }
      let image: RGBAImage
      if let digest, let known = decoded.picture(for: digest) {
        image = known
      } else {
        image = try source.decodeStill().image
      }
      if judgedKey {
        pictures[file.key] = image
      } else if file.key.hasPrefix("sources["), !file.key.contains("dark") {
        narrowerLight[file.path] = image
      }
      if file.key == "dark_url", assets.darkPolicy == .designer,
         let glare = DesignerDarkPicture.glareWarning(image, on: surfaces.dark) {
        warnings.append("\(assets.id): \(files.display(file.path)): dark_url: the designer's dark picture \(glare)")
      }
    } catch {
      fail(file.path, "\(file.key): image does not decode: \(error.reason)")
    }
  }

  /// An AVIF twin (`avif_url`, `dark_avif_url`, `sources[i].avif_url`):
  /// parsed, decoded when decoding, the size banners.json states (its
  /// WebP's). Its dark sibling is checked like every light file's.
  private mutating func checkAVIF(_ file: ImageAssets.File) {
    var size: (width: Int, height: Int)? = nil
    if let w = file.width, let h = file.height { size = (w, h) }
    switch AVIFFileCheck.read(file.path, files: files, size: size, decode: decode) {
    case .success: fileCount += 1
    case .failure(let problem): fail(file.path, "\(file.key): \(problem.text)")
    }
  }

  /// Every light file (`url`, `jpeg_url`, each `sources[i]` width) needs
  /// the dark variant the nginx rule serves for `?theme=dark`.
  private mutating func checkDarkSibling(_ path: String, key: String, size: (Int?, Int?)) {
    guard checkedSiblings.insert(path).inserted else { return }
    var expected: (width: Int, height: Int)? = nil
    if let w = size.0, let h = size.1 { expected = (w, h) }
    if let problem = Self.darkSiblingProblem(of: path, key: key, files: files, size: expected) {
      fail(problem.path, problem.text)
    }
  }

  private var checkedSiblings: Set<String> = []

  /// What is wrong with the `<name>.dark.<ext>` file beside `path` that the
  /// nginx rule (`NginxDarkThemeRule`) serves for `?theme=dark`: missing or
  /// empty, not an image, or not the light file's size (`size`, in pixels,
  /// when known). Nil when it is fine, or when `path` has no extension.
  static func darkSiblingProblem(of path: String, key: String, files: AssetFiles,
                                 size: (width: Int, height: Int)?) -> (path: String, text: String)? {
    guard let dark = RelativePath.darkSibling(of: path) else { return nil }
    guard (files.size(dark) ?? 0) > 0 else {
      return (dark, "\(key)?theme=dark has no dark variant to serve (expected \(dark))")
    }
    if AVIFFileCheck.isAVIF(dark) {
      // Parsed only: the dark AVIF's own key decodes it.
      if case .failure(let problem) = AVIFFileCheck.read(dark, files: files, size: size, decode: false) {
        return (dark, "\(key)?theme=dark: the dark variant: \(problem.text)")
      }
      return nil
    }
    let header: ImageHeader
    do { header = try ImageSource.open(path: files.url(dark).path, limits: openLimits).header } catch {
      return (dark, "\(key)?theme=dark: the dark variant is not a readable image: \(error.reason)")
    }
    if let size, header.width != size.width || header.height != size.height {
      return (dark, "\(key)?theme=dark: the dark variant is \(header.width)x\(header.height), the light file \(size.width)x\(size.height)")
    }
    return nil
  }
}
