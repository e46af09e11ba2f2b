import Foundation

// MARK: - Banners

extension JobDocumentValidator {
  /// Every key a banner accepts.
  static let bannerKeys = ["id", "type", "source", "link", "autoplay", "muted", "cover", "dark"]
  /// The keys that only video banners accept.
  static let videoOnlyKeys = ["autoplay", "muted", "cover"]
  static let maxIDLength = 64
  /// Schemes that are URLs even without `//` (`data:`, `file:` …).
  static let wellKnownSchemes: Set<String> = [
    "data", "file", "http", "https", "ftp", "rtmp", "rtsp", "blob", "javascript", "mailto",
  ]

  /// Validates the `banners` array. Adds a warning for more than
  /// `recommendedMaxBanners` items.
  func banners(_ value: Any?, settings: JobSettings, warnings: inout [String]) throws(JobError) -> [BannerSpec] {
    let path = "banners"
    guard let value else {
      throw fail(path, "missing; every job needs a \"banners\" array with at least one banner")
    }
    guard let items = value as? [Any] else { throw mismatch("an array of banners", found: value, at: path) }
    guard !items.isEmpty else { throw fail(path, "needs at least one banner") }

    // Every banner is checked, so one run reports a problem per banner; the
    // first is thrown with the others in `JobError.more`.
    var specs: [BannerSpec] = []
    var problems: [JobError] = []
    var firstUse: [String: String] = [:]  // id → JSON path of the banner
    for (index, item) in items.enumerated() {
      let spec: BannerSpec
      do { spec = try banner(item, at: JobJSON.path(path, index: index), settings: settings) } catch {
        problems.append(error)
        continue
      }
      if let earlier = firstUse[spec.id] {
        problems.append(fail(
          JobJSON.path(spec.jsonPath, key: "id"),
          "duplicate id \(JobJSON.quoted(spec.id)), already used by \(earlier); ids name output files and must be unique"))
        continue
      }
      firstUse[spec.id] = spec.jsonPath
      specs.append(spec)
    }
    if var first = problems.first {
      first.more = Array(problems.dropFirst())
      throw first
    }
    if specs.count > Self.recommendedMaxBanners {
      warnings.append(
        "\(file): banners: \(specs.count) banners; the carousel client keeps at most about \(Self.recommendedMaxBanners) items, so some may never be shown")
    }
    return specs
  }

  /// Validates one banner object.
  func banner(_ value: Any, at parent: String, settings: JobSettings) throws(JobError) -> BannerSpec {
    let object = try self.object(value, at: parent)
    try checkKeys(of: object, allowed: Self.bannerKeys, at: parent) { key in
      JobDocumentValidator.settingsKeys.contains(key)
        ? "\(JobJSON.quoted(key)) is a job-wide setting: put it in \"settings\"" : nil
    }
    func path(_ key: String) -> String { JobJSON.path(parent, key: key) }

    let id = try bannerID(object["id"], at: path("id"))

    guard let typeValue = object["type"] else {
      throw fail(path("type"), "missing; every banner needs \"type\": \"video\" or \"image\"")
    }
    let typeText = try string(typeValue, at: path("type"))
    guard let kind = BannerKind(rawValue: typeText) else {
      throw fail(path("type"), "expected \"video\" or \"image\", found \(JobJSON.quoted(typeText))")
    }

    let (source, sourceText) = try self.source(object["source"], at: path("source"))

    var link: String?
    if let value = object["link"] {
      let text = try string(value, at: path("link"))
      if let problem = HTTPURLRule.problem(with: text) { throw fail(path("link"), problem) }
      link = text
    }

    var dark = DarkPolicy.generated
    if let value = object["dark"] { dark = try self.dark(value, at: path("dark")) }

    if kind == .image {
      if let key = Self.videoOnlyKeys.first(where: { object[$0] != nil }) {
        throw fail(path(key), "applies only to video banners; remove it from this image banner")
      }
      return BannerSpec(
        id: id, kind: kind, source: source, sourceText: sourceText, link: link,
        autoplay: false, muted: true, cover: .auto, dark: dark, jsonPath: parent)
    }

    var autoplay = true
    if let value = object["autoplay"] { autoplay = try bool(value, at: path("autoplay")) }
    var muted = true
    if let value = object["muted"] { muted = try bool(value, at: path("muted")) }
    var cover = CoverPolicy.auto
    if let value = object["cover"] { cover = try self.cover(value, at: path("cover"), settings: settings) }
    if autoplay && !muted {
      let why = object["autoplay"] == nil ? "autoplay is on by default, and " : ""
      throw fail(
        path("muted"),
        "\(why)iOS only autoplays muted video: set \"muted\": true, or \"autoplay\": false")
    }
    return BannerSpec(
      id: id, kind: kind, source: source, sourceText: sourceText, link: link,
      autoplay: autoplay, muted: muted, cover: cover, dark: dark, jsonPath: parent)
  }

  // MARK: - Banner fields

  private func bannerID(_ value: Any?, at path: String) throws(JobError) -> String {
    guard let value else { throw fail(path, "missing; every banner needs an \"id\"") }
    let id = try string(value, at: path)
    if let problem = Self.idProblem(id) { throw fail(path, problem) }
    return id
  }

  /// Why `id` cannot be a banner's `id`, or `nil`: it starts with a-z or
  /// 0-9, uses only a-z, 0-9, `_` and `-`, and has at most `maxIDLength`
  /// characters (it names output files). The one rule the reader and
  /// `marquee init` (`BannerIDSlugger`) use.
  static func idProblem(_ id: String) -> String? {
    let scalars = Array(id.unicodeScalars)
    func isLowerOrDigit(_ scalar: Unicode.Scalar) -> Bool {
      ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
    }
    let wellFormed =
      !scalars.isEmpty && isLowerOrDigit(scalars[0])
      && scalars.allSatisfy { isLowerOrDigit($0) || $0 == "_" || $0 == "-" }
    guard wellFormed else {
      return "must start with a-z or 0-9 and use only a-z, 0-9, '_' and '-' (it names output files), found \(JobJSON.quoted(id))"
    }
    guard scalars.count <= maxIDLength else {
      return "must be at most \(maxIDLength) characters, found \(scalars.count)"
    }
    return nil
  }

  /// A local file path, resolved against the job file's folder.
  private func source(_ value: Any?, at path: String) throws(JobError) -> (URL, String) {
    guard let value else { throw fail(path, "missing; every banner needs a \"source\" file") }
    let text = try string(value, at: path)
    guard !text.isEmpty else { throw fail(path, "must not be empty") }
    guard !text.unicodeScalars.contains("\0") else { throw fail(path, "must not contain a NUL character") }
    if let scheme = HTTPURLRule.scheme(of: text) {
      // "clip:1.mov" is a legal file name that merely looks like a URL.
      let looksLikeURL = text.contains("://") || Self.wellKnownSchemes.contains(scheme)
      let fix =
        looksLikeURL
        ? "download the file and give its local path"
        : "write \(JobJSON.quoted("./" + text)) for a file whose name contains ':'"
      throw fail(path, "must be a local file path, not a URL (\(scheme): scheme); \(fix)")
    }
    guard !text.hasSuffix("/") else { throw fail(path, "names a folder; expected a media file") }
    if !allowsOutsideSources, let problem = Self.outsideProblem(text, jobFolder: jobFileURL.absoluteURL.deletingLastPathComponent()) {
      throw fail(path, "\(problem) (\(text)); keep sources in the job file's folder, or set \"allow_outside_sources\": true in \"settings\"")
    }
    let folder = jobFileURL.absoluteURL.deletingLastPathComponent()
    let url: URL
    if text.hasPrefix("/") {
      url = URL(fileURLWithPath: text, isDirectory: false)
    } else {
      url = URL(fileURLWithPath: text, isDirectory: false, relativeTo: folder)
    }
    return (url.absoluteURL.standardizedFileURL, text)
  }

  /// Why a source path as written leaves the job file's folder, or `nil`
  /// when it stays inside: an absolute path elsewhere, or `..` components
  /// that climb above the folder (`a/../b.mp4` stays, `../b.mp4` and
  /// `a/../../b.mp4` leave). The rule reads the path as written; a symbolic
  /// link inside the folder is followed wherever it points (a media folder
  /// may be a link).
  static func outsideProblem(_ text: String, jobFolder: URL) -> String? {
    if text.hasPrefix("/") {
      let folder = jobFolder.standardizedFileURL.path
      let path = URL(fileURLWithPath: text).standardizedFileURL.path
      let prefix = folder.hasSuffix("/") ? folder : folder + "/"
      return path.hasPrefix(prefix) ? nil : "is an absolute path outside the job file's folder"
    }
    var depth = 0
    for component in text.split(separator: "/", omittingEmptySubsequences: true) {
      switch component {
      case ".": continue
      case "..":
        depth -= 1
        if depth < 0 { return "leads out of the job file's folder with '..'" }
      default: depth += 1
      }
    }
    return nil
  }

  /// `"same"` or `{"image": "media/sale-dark.png"}`, exactly; leaving the
  /// key out is the generated dark variant (`"generated"` is refused with
  /// that hint, so there is one way to say it). The picture's path is
  /// resolved like `source`, under the same outside-the-folder rule.
  private func dark(_ value: Any, at path: String) throws(JobError) -> DarkPolicy {
    let expected = "\"same\" or {\"image\": \"media/sale-dark.png\"}"
    if let text = value as? String {
      switch text {
      case "same": return .same
      case "generated":
        throw fail(path, "a generated dark variant is the default: leave \"dark\" out (or give \(expected))")
      default: throw fail(path, "expected \(expected), found \(JobJSON.quoted(text))")
      }
    }
    guard let object = value as? [String: Any] else { throw mismatch(expected, found: value, at: path) }
    try checkKeys(of: object, allowed: ["image"], at: path)
    guard let imageValue = object["image"] else {
      throw fail(path, "missing \"image\": the designer's dark picture, e.g. {\"image\": \"media/sale-dark.png\"}")
    }
    let (url, text) = try source(imageValue, at: JobJSON.path(path, key: "image"))
    return .image(source: url, text: text)
  }

  /// `"auto"`, `"first"`, `{"at": seconds}` or `{"image": "poster.jpg"}`.
  private func cover(_ value: Any, at path: String, settings: JobSettings) throws(JobError) -> CoverPolicy {
    let expected = "\"auto\", \"first\", {\"at\": seconds} or {\"image\": \"poster.jpg\"}"
    if let text = value as? String {
      switch text {
      case "auto": return .auto
      case "first": return .first
      default: throw fail(path, "expected \(expected), found \(JobJSON.quoted(text))")
      }
    }
    guard let object = value as? [String: Any] else { throw mismatch(expected, found: value, at: path) }
    try checkKeys(of: object, allowed: ["at", "image"], at: path)
    if object["at"] != nil && object["image"] != nil {
      throw fail(path, "has both \"at\" and \"image\": a cover is either a frame of the video or a poster, not both")
    }
    if let imageValue = object["image"] {
      let (url, text) = try source(imageValue, at: JobJSON.path(path, key: "image"))
      return .image(source: url, text: text)
    }
    let atPath = JobJSON.path(path, key: "at")
    guard object["at"] != nil else {
      throw fail(path, "missing \"at\" or \"image\": the time of the cover frame in seconds ({\"at\": 1.5}), or a poster still ({\"image\": \"media/poster.jpg\"})")
    }
    let atValue = object["at"]!
    let seconds = try number(atValue, at: atPath)
    guard seconds >= 0 else {
      throw fail(atPath, "must be 0 or more seconds, found \(JobJSON.render(atValue))")
    }
    guard seconds < settings.maxDuration else {
      throw fail(
        atPath,
        "is at or past settings.max_duration (\(Self.format(settings.maxDuration)) s), so no accepted source reaches it")
    }
    return .at(seconds: seconds)
  }
}
