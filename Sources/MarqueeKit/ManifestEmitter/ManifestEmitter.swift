import Foundation

// MARK: - ManifestEmitter

/// Writes banners.json, the contract the carousel client parses
/// (docs/playback-constraints.md §1).
///
/// Each item carries the seven contract keys (`type`, `url`, `cover_url`,
/// `duration`, `autoplay`, `muted`, `link`) plus extras the client ignores:
///
/// - video: `id`, `hls_url`, `mp4_url`, `cover_jpeg_url`, `cover_dark_url`,
///   `cover_dark_jpeg_url`, `width`, `height`, `dark_policy`;
/// - image: `id`, `jpeg_url`, `dark_url`, `dark_jpeg_url`, `width`,
///   `height`, `sources` (the width ladder: `width`, `height`, `url`,
///   `jpeg_url`), `dark_policy`;
/// - both: the placeholder a slot paints before its picture arrives
///   (`Placeholder`): `thumbhash` and `dark_thumbhash` (ThumbHash, base64),
///   `color` and `dark_color` (`#RRGGBB`, the average as shown on
///   `background` and on `dark_surface`).
///
/// `dark_policy` says where the item's dark pictures came from:
/// `"generated"` (made from the light ones), `"designer"` (the job's
/// `dark.image`) or `"same"` (every dark file byte-identical to its light
/// file); `marquee verify` judges the dark files by it.
///
/// URLs are the base URL followed by the bundle-relative path with every
/// segment percent-encoded (RFC 3986 unreserved characters kept), or just
/// the encoded relative path when there is no base URL. Output is UTF-8,
/// pretty-printed with sorted keys and a trailing newline, identical for
/// identical input.
public struct ManifestEmitter: Sendable {
  /// The base URL as given; `nil` writes relative URLs.
  public let baseURL: String?

  /// Creates an emitter.
  ///
  /// - Parameter baseURL: Absolute `http`/`https` URL of the bundle root
  ///   (`Job.baseURL`); a missing trailing `/` is added. `nil` for URLs
  ///   relative to banners.json. Checked by `render(_:)`.
  public init(baseURL: String?, surfaces: PictureLook.Surfaces? = nil) {
    self.baseURL = baseURL
    self.surfaces = surfaces
  }

  /// The light and dark surfaces the bundle's images and dark variants were
  /// made for, written as `"surfaces": {"dark": "#1C1C1E", "light":
  /// "#FFFFFF"}` (an extra key the client may ignore; `marquee verify`
  /// judges "darker as shown" on them). `nil` writes none.
  public var surfaces: PictureLook.Surfaces?

  // MARK: - API

  /// Renders banners.json for `entries`, in the given order.
  ///
  /// - Parameter entries: What the stages produced, one per banner.
  /// - Returns: The UTF-8 JSON document, ending in a newline.
  /// - Throws: `MarqueeError` (`invalidManifest`) when the base URL is not an absolute http(s)
  ///   URL, or an entry would break the contract: a duplicate or empty id,
  ///   an empty or non-relative path, a `url` with the wrong file type,
  ///   `autoplay` without `muted`, a duration that is not finite and
  ///   positive (after rounding to milliseconds), a width or height below 1,
  ///   or a `link` that is not an absolute http(s) URL.
  public func render(_ entries: [ManifestEntry]) throws(MarqueeError) -> Data {
    let prefix = try urlPrefix()
    var items: [ManifestJSON] = []
    var seen: Set<String> = []
    for (index, entry) in entries.enumerated() {
      let path = "banners[\(index)]"
      guard !entry.id.isEmpty else {
        throw MarqueeError.manifest(path: path + ".id", id: nil, reason: "the banner id is empty")
      }
      guard seen.insert(entry.id).inserted else {
        throw MarqueeError.manifest(path: path + ".id", id: entry.id, reason: "duplicate banner id")
      }
      var builder = ManifestItemBuilder(path: path, id: entry.id, prefix: prefix)
      switch entry {
      case .video(let video): try builder.addVideo(video)
      case .image(let image): try builder.addImage(image)
      }
      items.append(.object(builder.members))
    }
    var members: [String: ManifestJSON] = ["banners": .array(items)]
    if let surfaces {
      members["surfaces"] = .object(["light": .string(surfaces.light.hex), "dark": .string(surfaces.dark.hex)])
    }
    let document = ManifestJSON.object(members)
    return Data(document.rendered().utf8)
  }

  /// The URL for a bundle-relative path: the base URL (with a trailing `/`)
  /// plus the path with each segment percent-encoded.
  ///
  /// - Parameter path: A bundle-relative path such as `video/spring/master.m3u8`.
  /// - Returns: The URL text.
  /// - Throws: `MarqueeError` (`invalidManifest`) (path `""`) if the base URL or the path is
  ///   unusable.
  public func url(forBundlePath path: String) throws(MarqueeError) -> String {
    let prefix = try urlPrefix()
    if let problem = Self.problem(withBundlePath: path) {
      throw MarqueeError.manifest(path: "", id: nil, reason: "\(JobJSON.quoted(path)): \(problem)")
    }
    return prefix + Self.percentEncodedPath(path)
  }

  // MARK: - URLs

  /// The base URL with a trailing `/`, or `""`.
  private func urlPrefix() throws(MarqueeError) -> String {
    guard var base = baseURL else { return "" }
    if let problem = HTTPURLRule.problem(with: base) {
      throw MarqueeError.manifest(path: "", id: nil, reason: "base URL \(JobJSON.quoted(base)): \(problem)")
    }
    if let components = URLComponents(string: base), components.query != nil || components.fragment != nil {
      throw MarqueeError.manifest(path: "", id: nil, reason: "base URL \(JobJSON.quoted(base)) must not have a query or fragment")
    }
    if !base.hasSuffix("/") { base += "/" }
    return base
  }

  /// Why `path` is not a usable bundle-relative path, or `nil`.
  static func problem(withBundlePath path: String) -> String? {
    if path.isEmpty { return "the path is empty" }
    if path.hasPrefix("/") { return "must be relative to the bundle root, not start with '/'" }
    for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
      if segment.isEmpty { return "has an empty segment ('//' or a trailing '/')" }
      if segment == "." || segment == ".." { return "must not contain '.' or '..' segments" }
    }
    return nil
  }

  /// Percent-encodes each `/`-separated segment, keeping RFC 3986
  /// unreserved characters (`A-Z a-z 0-9 - . _ ~`); other bytes of the UTF-8
  /// encoding become `%XX` with upper-case hex.
  static func percentEncodedPath(_ path: String) -> String {
    path.split(separator: "/", omittingEmptySubsequences: false)
      .map { percentEncodedSegment(String($0)) }
      .joined(separator: "/")
  }

  static func percentEncodedSegment(_ segment: String) -> String {
    let hex = Array("0123456789ABCDEF")
    var out = ""
    for byte in segment.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        out.append("%")
        out.append(hex[Int(byte >> 4)])
        out.append(hex[Int(byte & 0x0F)])
      }
    }
    return out
  }

  /// Seconds at millisecond precision, rounded *down* (a nanosecond of
  /// slack absorbs binary noise such as 0.9999999), so the client, which
  /// schedules from `duration`, never seeks past the end of the media.
  static func roundedDuration(_ seconds: Double) -> Double {
    (seconds * 1000 + 1e-6).rounded(.down) / 1000
  }


  /// File extensions (lower-case) the client accepts for `url`.
  static let videoURLExtensions: Set<String> = ["mp4", "m3u8"]
  static let imageURLExtensions: Set<String> = ["jpg", "jpeg", "png", "webp"]
}

// MARK: - Item building

/// Builds one banners.json item, checking each value as it goes.
private struct ManifestItemBuilder {
  let path: String
  let id: String
  let prefix: String
  var members: [String: ManifestJSON] = [:]

  init(path: String, id: String, prefix: String) {
    self.path = path
    self.id = id
    self.prefix = prefix
  }

  func fail(_ key: String, _ reason: String) -> MarqueeError {
    MarqueeError.manifest(path: key.isEmpty ? path : "\(path).\(key)", id: id, reason: reason)
  }

  func url(_ bundlePath: String, key: String) throws(MarqueeError) -> String {
    if let problem = ManifestEmitter.problem(withBundlePath: bundlePath) {
      throw fail(key, "\(problem) (path \(JobJSON.quoted(bundlePath)))")
    }
    return prefix + ManifestEmitter.percentEncodedPath(bundlePath)
  }

  mutating func set(_ key: String, url bundlePath: String) throws(MarqueeError) {
    members[key] = .string(try url(bundlePath, key: key))
  }

  mutating func setURL(_ bundlePath: String, allowedExtensions: Set<String>) throws(MarqueeError) {
    let text = try url(bundlePath, key: "url")
    let ext = (bundlePath as NSString).pathExtension.lowercased()
    guard allowedExtensions.contains(ext) else {
      throw fail(
        "url",
        "the client expects a \(allowedExtensions.sorted().map { "." + $0 }.joined(separator: "/")) file, found \(JobJSON.quoted(bundlePath))")
    }
    members["url"] = .string(text)
  }

  mutating func setSize(width: Int, height: Int, key: String = "") throws(MarqueeError) {
    guard width >= 1, height >= 1 else {
      throw fail(key.isEmpty ? "width" : key, "width and height must be at least 1, found \(width)x\(height)")
    }
    members["width"] = .integer(width)
    members["height"] = .integer(height)
  }

  mutating func setLink(_ link: String?) throws(MarqueeError) {
    guard let link else { return }
    if let problem = HTTPURLRule.problem(with: link) { throw fail("link", problem) }
    members["link"] = .string(link)
  }

  mutating func addVideo(_ video: VideoManifestEntry) throws(MarqueeError) {
    members["type"] = .string("video")
    members["id"] = .string(id)
    let main = video.urlChoice == .hls ? video.playlistPath : video.mp4Path
    try setURL(main, allowedExtensions: ManifestEmitter.videoURLExtensions)
    try set("hls_url", url: video.playlistPath)
    try set("mp4_url", url: video.mp4Path)
    try set("cover_url", url: video.coverPath)
    try set("cover_jpeg_url", url: video.coverJPEGPath)
    try set("cover_dark_url", url: video.darkCoverPath)
    try set("cover_dark_jpeg_url", url: video.darkCoverJPEGPath)
    if let avif = video.coverAVIFPath { try set("cover_avif_url", url: avif) }
    if let avif = video.darkCoverAVIFPath { try set("cover_dark_avif_url", url: avif) }
    members["dark_policy"] = .string(video.darkPolicy.rawValue)
    setPlaceholder(video.placeholder)

    let duration = ManifestEmitter.roundedDuration(video.duration)
    guard video.duration.isFinite, duration > 0 else {
      throw fail("duration", "must be a finite number of seconds above 0 (at millisecond precision), found \(video.duration)")
    }
    members["duration"] = .double(duration)
    guard !video.autoplay || video.muted else {
      throw fail("muted", "autoplay requires muted (iOS only autoplays muted video)")
    }
    members["autoplay"] = .bool(video.autoplay)
    members["muted"] = .bool(video.muted)
    try setSize(width: video.width, height: video.height)
    try setLink(video.link)
  }

  mutating func setPlaceholder(_ placeholder: Placeholder?) {
    guard let placeholder else { return }
    members["thumbhash"] = .string(placeholder.thumbHash)
    members["dark_thumbhash"] = .string(placeholder.darkThumbHash)
    members["color"] = .string(placeholder.colour)
    members["dark_color"] = .string(placeholder.darkColour)
  }

  mutating func addImage(_ image: ImageManifestEntry) throws(MarqueeError) {
    members["type"] = .string("image")
    members["id"] = .string(id)
    try setURL(image.path, allowedExtensions: ManifestEmitter.imageURLExtensions)
    try set("jpeg_url", url: image.jpegPath)
    try set("dark_url", url: image.darkPath)
    try set("dark_jpeg_url", url: image.darkJPEGPath)
    if let avif = image.avifPath { try set("avif_url", url: avif) }
    if let avif = image.darkAVIFPath { try set("dark_avif_url", url: avif) }
    members["dark_policy"] = .string(image.darkPolicy.rawValue)
    setPlaceholder(image.placeholder)
    try setSize(width: image.width, height: image.height)
    try setLink(image.link)

    var sources: [ManifestJSON] = []
    for (index, rung) in image.widths.enumerated() {
      let key = "sources[\(index)]"
      guard rung.width >= 1, rung.height >= 1 else {
        throw fail(key, "width and height must be at least 1, found \(rung.width)x\(rung.height)")
      }
      var source: [String: ManifestJSON] = [
        "width": .integer(rung.width),
        "height": .integer(rung.height),
        "url": .string(try url(rung.webpPath, key: key + ".url")),
        "jpeg_url": .string(try url(rung.jpegPath, key: key + ".jpeg_url")),
      ]
      if let avif = rung.avifPath { source["avif_url"] = .string(try url(avif, key: key + ".avif_url")) }
      sources.append(.object(source))
    }
    members["sources"] = .array(sources)
  }
}
