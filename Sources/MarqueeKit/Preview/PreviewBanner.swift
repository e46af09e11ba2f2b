import Foundation

/// One banner of `banners.json` as the preview shows it: its files mapped
/// back to bundle-relative paths (percent-decoded, `/`-separated), `nil`
/// where a named file is missing.
struct PreviewBanner: Sendable, Equatable {
  enum Kind: String, Sendable { case video, image }

  /// One width of an image's ladder.
  struct Source: Sendable, Equatable {
    var width: Int
    var height: Int
    var webp: String?
    var jpeg: String?
    /// The `<name>.dark.<ext>` siblings, when the bundle has them.
    var darkWebP: String?
    var darkJPEG: String?
  }

  var id: String
  var kind: Kind
  var width: Int?
  var height: Int?
  var link: String?
  var duration: Double?
  var autoplay: Bool?
  var muted: Bool?
  /// Videos: the cover files, the fast-start MP4 and the master playlist.
  var cover: String?
  var coverJPEG: String?
  var darkCover: String?
  var darkCoverJPEG: String?
  var mp4: String?
  var hls: String?
  /// Images: the served picture, its JPEG and dark variants, the ladder.
  var image: String?
  var imageJPEG: String?
  var darkImage: String?
  var darkImageJPEG: String?
  var sources: [Source] = []
  /// URLs named in `banners.json` with no file behind them.
  var missingFiles: [String] = []
  /// Where the dark pictures came from (`dark_policy`); `nil` when the
  /// item does not say (generated) or says something unknown.
  var darkPolicy: DarkPolicyKind?
  /// The placeholder colours (`color`, `dark_color`), `#RRGGBB`, when the
  /// item has them: each figure is painted with its colour, at the
  /// picture's aspect ratio, before the picture loads.
  var colour: RGBColor?
  var darkColour: RGBColor?
  /// The placeholder ThumbHashes (`thumbhash`, `dark_thumbhash`), base64,
  /// as banners.json gives them: drawn under each figure's picture.
  var thumbHash: String?
  var darkThumbHash: String?

  /// How the dark pictures' captions name their origin: `""` for
  /// generated ones, ` · the designer's picture`, ` · same as light`.
  var darkOrigin: String {
    switch darkPolicy {
    case .designer: " · the designer's picture"
    case .same: " · same as light"
    case .generated, nil: ""
    }
  }

  /// The light picture for the contact sheet: a JPEG when there is one
  /// (decoded by every FFmpeg build), else the WebP.
  var lightPicture: String? { kind == .video ? (coverJPEG ?? cover) : (imageJPEG ?? image) }
  /// The dark picture for the contact sheet.
  var darkPicture: String? {
    kind == .video ? (darkCoverJPEG ?? darkCover) : (darkImageJPEG ?? darkImage)
  }

  // MARK: - Parsing

  /// Parses Marquee's `banners.json` and maps every URL to a bundle file.
  ///
  /// - Throws: ``MarqueeError`` (`.usage`) when the document is not a `{"banners": [...]}`
  ///   object of items with an `id` and a `type` of `video` or `image`.
  static func parse(_ data: Data, bundle: URL) throws(MarqueeError) -> [PreviewBanner] {
    let object: Any
    do { object = try JSONSerialization.jsonObject(with: data) } catch {
      throw MarqueeError(.usage, "banners.json is not valid JSON: \(error.localizedDescription)")
    }
    guard let document = object as? [String: Any], let items = document["banners"] as? [Any] else {
      throw MarqueeError(.usage, "banners.json has no \"banners\" array")
    }
    var resolver = BundlePathResolver(bundle: bundle)
    var banners: [PreviewBanner] = []
    for (index, value) in items.enumerated() {
      guard let item = value as? [String: Any], let id = item["id"] as? String,
        let kind = (item["type"] as? String).flatMap(Kind.init(rawValue:))
      else {
        throw MarqueeError(.usage, "banners[\(index)] has no id or no type video/image")
      }
      var banner = PreviewBanner(id: id, kind: kind)
      banner.width = item["width"] as? Int
      banner.height = item["height"] as? Int
      banner.link = item["link"] as? String
      banner.duration = (item["duration"] as? NSNumber)?.doubleValue
      banner.autoplay = item["autoplay"] as? Bool
      banner.muted = item["muted"] as? Bool
      banner.darkPolicy = (item["dark_policy"] as? String).flatMap(DarkPolicyKind.init(rawValue:))
      banner.colour = (item["color"] as? String).flatMap(RGBColor.init(hex:))
      banner.darkColour = (item["dark_color"] as? String).flatMap(RGBColor.init(hex:))
      banner.thumbHash = item["thumbhash"] as? String
      banner.darkThumbHash = item["dark_thumbhash"] as? String
      func file(_ key: String) -> String? {
        guard let url = item[key] as? String else { return nil }
        guard let path = resolver.path(for: url) else {
          banner.missingFiles.append(url)
          return nil
        }
        return path
      }
      switch kind {
      case .video:
        banner.cover = file("cover_url")
        banner.coverJPEG = file("cover_jpeg_url")
        banner.darkCover = file("cover_dark_url")
        banner.darkCoverJPEG = file("cover_dark_jpeg_url")
        banner.mp4 = file("mp4_url")
        banner.hls = file("hls_url")
      case .image:
        banner.image = file("url")
        banner.imageJPEG = file("jpeg_url")
        banner.darkImage = file("dark_url")
        banner.darkImageJPEG = file("dark_jpeg_url")
        for case let source as [String: Any] in item["sources"] as? [Any] ?? [] {
          var rung = Source(
            width: source["width"] as? Int ?? 0, height: source["height"] as? Int ?? 0)
          if let url = source["url"] as? String {
            rung.webp = resolver.path(for: url)
            if rung.webp == nil { banner.missingFiles.append(url) }
          }
          if let url = source["jpeg_url"] as? String {
            rung.jpeg = resolver.path(for: url)
            if rung.jpeg == nil { banner.missingFiles.append(url) }
          }
          rung.darkWebP = rung.webp.flatMap { resolver.darkSibling(of: $0) }
          rung.darkJPEG = rung.jpeg.flatMap { resolver.darkSibling(of: $0) }
          banner.sources.append(rung)
        }
      }
      banners.append(banner)
    }
    return banners
  }
}

/// Maps URLs of `banners.json` back to files of the bundle.
struct BundlePathResolver {
  let bundle: URL
  /// Number of leading path components (the `base_url` path) that the
  /// first resolved URL needed dropped; tried first for the next ones.
  private var knownPrefix: Int?

  init(bundle: URL) { self.bundle = bundle }

  /// The bundle-relative path of the file `url` names, or `nil` when no
  /// file of the bundle matches.
  ///
  /// An absolute `http(s)` URL is reduced to its path; the path is
  /// percent-decoded *before* it is split into components (so an encoded
  /// `%2F..%2F` is a `..` like any other), and the longest suffix that
  /// names a regular file inside the bundle, reached without a symbolic
  /// link, wins (so `https://cdn/home/videos/a/cover.webp` maps to
  /// `videos/a/cover.webp`). A path with a `..`, `.` or empty component,
  /// a NUL or a backslash after decoding is refused whole: it names no file
  /// of the bundle.
  mutating func path(for url: String) -> String? {
    var path = url
    if let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased() {
      guard scheme == "http" || scheme == "https" else { return nil }
      // `URL.path` is already percent-decoded.
      path = parsed.path
    } else {
      if let query = path.firstIndex(where: { $0 == "?" || $0 == "#" }) {
        path = String(path[..<query])
      }
      guard let decoded = path.removingPercentEncoding else { return nil }
      path = decoded
    }
    guard !path.contains("\0"), !path.contains("\\") else { return nil }
    let components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    let trimmed = components.first == "" ? Array(components.dropFirst()) : components
    guard !trimmed.isEmpty, !trimmed.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) else { return nil }
    var starts = Array(0..<trimmed.count)
    if let known = knownPrefix, known < trimmed.count {
      starts.removeAll { $0 == known }
      starts.insert(known, at: 0)
    }
    for start in starts {
      let candidate = trimmed[start...].joined(separator: "/")
      if isFile(candidate) {
        knownPrefix = start
        return candidate
      }
    }
    return nil
  }

  /// `<name>.dark.<ext>` beside `path`, when the bundle has it.
  func darkSibling(of path: String) -> String? {
    let file = path as NSString
    let ext = file.pathExtension
    guard !ext.isEmpty else { return nil }
    let dark = file.deletingPathExtension + ".dark." + ext
    return isFile(dark) ? dark : nil
  }

  /// A regular file inside the bundle, reached without a symbolic link.
  private func isFile(_ relative: String) -> Bool {
    FileSystem.ownedIdentity(root: bundle, relative)?.isRegularFile == true
  }
}
