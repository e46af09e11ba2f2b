import Foundation

/// Re-checks a built bundle on its own, from its files: the banners.json
/// contract, every referenced file, the HLS playlists and segments, the
/// MP4s, covers and images (docs/playback-constraints.md and the
/// transcoder's HLS rules). `marquee verify` runs it, and `build` runs it on
/// the staged bundle before publishing.
///
/// ```swift
/// let report = BundleVerifier().verify(bundle: URL(fileURLWithPath: "Output/home"))
/// for v in report.violations { print(v) }
/// ```
public struct BundleVerifier: Sendable {
  public var options: VerifyOptions

  public init(options: VerifyOptions = VerifyOptions()) {
    self.options = options
  }

  /// The contract's recommended maximum (the client keeps about ten items).
  static let recommendedMaxItems = 10

  /// Checks the bundle folder `bundle`.
  /// The surfaces a banners.json names (`"surfaces": {"light": "#FFFFFF",
  /// "dark": "#1C1C1E"}`), when it names both well-formed.
  static func surfaces(in root: [String: Any]?) -> PictureLook.Surfaces? {
    guard let object = root?["surfaces"] as? [String: Any],
          let light = (object["light"] as? String).flatMap(RGBColor.init(hex:)),
          let dark = (object["dark"] as? String).flatMap(RGBColor.init(hex:)) else { return nil }
    return PictureLook.Surfaces(light: light, dark: dark)
  }

  public func verify(bundle: URL) -> VerifyReport {
    var report = VerifyReport(violations: [], warnings: [], itemCount: 0, fileCount: 0)
    guard let data = try? FileSystem.readOwnedFile(root: bundle, "banners.json", limit: 16 << 20) else {
      report.violations.append(Violation(item: nil, file: "banners.json", problem: "missing or unreadable"))
      return report
    }
    report.fileCount += 1
    let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    let items = (root?["banners"] as? [Any]) ?? []
    func id(at index: Int) -> String? {
      guard index < items.count else { return nil }
      return (items[index] as? [String: Any])?["id"] as? String ?? "banners[\(index)]"
    }
    for problem in ManifestEmitter.validate(data) {
      report.violations.append(Violation(item: Self.itemIndex(in: problem).flatMap(id(at:)), file: "banners.json", problem: problem))
    }
    if items.count > Self.recommendedMaxItems {
      report.warnings.append("banners.json has \(items.count) items; the client keeps at most about \(Self.recommendedMaxItems)")
    }
    if (AssetFiles(root: bundle, displayPrefix: "").size(NginxDarkThemeRule.fileName) ?? 0) == 0 {
      report.violations.append(Violation(item: nil, file: NginxDarkThemeRule.fileName,
                                         problem: "missing: a static host cannot answer ?theme=dark without it"))
    }
    let resolver = BundleURLResolver(bundle: bundle, items: items)
    if let problem = resolver.baseProblem {
      report.violations.append(Violation(item: nil, file: "banners.json", problem: problem))
    }
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-verify-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let files = AssetFiles(root: bundle, displayPrefix: "")
    for (index, value) in items.enumerated() {
      guard let item = value as? [String: Any] else { continue }
      report.itemCount += 1
      let itemID = id(at: index) ?? "banners[\(index)]"
      var paths: [String: String] = [:]
      for (key, url) in BundleURLResolver.urlKeys(of: item) {
        switch resolver.path(for: url) {
        case .success(let p): paths[key] = p
        case .failure(let problem):
          report.violations.append(Violation(item: itemID, file: "banners.json", problem: "banners[\(index)].\(key): \(problem)"))
        }
      }
      let decode = options.decodeMedia && !isTrusted(paths.values)
      let surfaces = Self.surfaces(in: root) ?? options.surfaces
      let (darkPolicy, policyProblem) = DarkPolicyCheck.policy(of: item, index: index)
      if let policyProblem {
        report.violations.append(Violation(item: itemID, file: "banners.json", problem: policyProblem))
      }
      switch item["type"] as? String {
      case "video":
        var assets = Self.videoAssets(id: itemID, item: item, paths: paths)
        assets.darkPolicy = darkPolicy
        assets.placeholder = Self.placeholder(of: item)
        var verifier = VideoAssetVerifier(assets: assets, files: files, decode: decode,
                                          everyPicture: options.everyPicture, scratch: scratch)
        verifier.surfaces = surfaces
        report.violations += verifier.run()
        report.warnings += verifier.warnings
        report.fileCount += verifier.fileCount
      case "image":
        var assets = Self.imageAssets(id: itemID, item: item, paths: paths)
        assets.darkPolicy = darkPolicy
        assets.placeholder = Self.placeholder(of: item)
        var verifier = ImageAssetVerifier(assets: assets, files: files, decode: decode)
        verifier.surfaces = surfaces
        report.violations += verifier.run()
        report.warnings += verifier.warnings
        report.fileCount += verifier.fileCount
      default:
        break  // the contract check reported it
      }
    }
    return report
  }

  private func isTrusted(_ paths: Dictionary<String, String>.Values) -> Bool {
    guard !options.trustedFolders.isEmpty, !paths.isEmpty else { return false }
    return paths.allSatisfy { p in options.trustedFolders.contains { p.hasPrefix($0 + "/") } }
  }

  /// `banners[3].muted: …` → 3.
  static func itemIndex(in problem: String) -> Int? {
    guard problem.hasPrefix("banners["), let close = problem.firstIndex(of: "]") else { return nil }
    return Int(problem[problem.index(problem.startIndex, offsetBy: 8)..<close])
  }

  /// An item's placeholder keys; nil when it has none of them, and a key
  /// that is missing or not a string reads as `""` (which
  /// `Placeholder.problems` names).
  static func placeholder(of item: [String: Any]) -> Placeholder? {
    let keys = ["thumbhash", "dark_thumbhash", "color", "dark_color"]
    guard keys.contains(where: { item[$0] != nil }) else { return nil }
    let v = keys.map { item[$0] as? String ?? "" }
    return Placeholder(thumbHash: v[0], darkThumbHash: v[1], colour: v[2], darkColour: v[3])
  }

  static func videoAssets(id: String, item: [String: Any], paths: [String: String]) -> VideoAssets {
    let url = paths["url"]
    let isHLS = url.map { ($0 as NSString).pathExtension.lowercased() == "m3u8" } ?? false
    var covers: [(String, String, Bool)] = []
    for (key, dark) in [("cover_url", false), ("cover_jpeg_url", false), ("cover_dark_url", true), ("cover_dark_jpeg_url", true),
                        ("cover_avif_url", false), ("cover_dark_avif_url", true)] {
      if let p = paths[key] { covers.append((key, p, dark)) }
    }
    return VideoAssets(
      id: id, urlPath: url, masterPath: paths["hls_url"] ?? (isHLS ? url : nil),
      mp4Path: paths["mp4_url"] ?? (isHLS ? nil : url), covers: covers,
      width: item["width"] as? Int, height: item["height"] as? Int, duration: JobJSON.number(item["duration"] as Any))
  }

  static func imageAssets(id: String, item: [String: Any], paths: [String: String]) -> ImageAssets {
    let width = item["width"] as? Int, height = item["height"] as? Int
    var files: [ImageAssets.File] = []
    for key in ["url", "jpeg_url", "dark_url", "dark_jpeg_url", "avif_url", "dark_avif_url"] {
      if let p = paths[key] { files.append(.init(key: key, path: p, width: width, height: height)) }
    }
    for (i, source) in ((item["sources"] as? [Any]) ?? []).enumerated() {
      guard let s = source as? [String: Any] else { continue }
      for key in ["url", "jpeg_url", "avif_url"] {
        let k = "sources[\(i)].\(key)"
        if let p = paths[k] { files.append(.init(key: k, path: p, width: s["width"] as? Int, height: s["height"] as? Int)) }
      }
    }
    return ImageAssets(id: id, files: files)
  }
}

/// Maps banners.json URLs to files in the bundle.
///
/// Relative URLs resolve against the bundle folder (where banners.json
/// is). Absolute URLs share one base (the job's `base_url`), found as the
/// prefix that makes the first absolute URL name an existing file; every
/// other absolute URL must start with it.
struct BundleURLResolver {
  let bundle: URL
  /// The base URL, with a trailing `/`, when the bundle uses absolute URLs.
  private(set) var base: String?
  private(set) var baseProblem: String?

  /// The keys that hold URLs of bundle files, with their values.
  static func urlKeys(of item: [String: Any]) -> [(String, String)] {
    var result: [(String, String)] = []
    for key in ["url", "cover_url", "hls_url", "mp4_url", "cover_jpeg_url", "cover_dark_url", "cover_dark_jpeg_url",
                "cover_avif_url", "cover_dark_avif_url", "jpeg_url", "dark_url", "dark_jpeg_url", "avif_url", "dark_avif_url"] {
      if let v = item[key] as? String { result.append((key, v)) }
    }
    for (i, source) in ((item["sources"] as? [Any]) ?? []).enumerated() {
      guard let s = source as? [String: Any] else { continue }
      for key in ["url", "jpeg_url", "avif_url"] {
        if let v = s[key] as? String { result.append(("sources[\(i)].\(key)", v)) }
      }
    }
    return result
  }

  init(bundle: URL, items: [Any]) {
    self.bundle = bundle
    let urls = items.compactMap { $0 as? [String: Any] }.flatMap { Self.urlKeys(of: $0).map(\.1) }
    guard let first = urls.first(where: { $0.contains("://") }) else { return }
    guard let components = URLComponents(string: first) else { return }
    // Percent-encoded segments: the base is cut from the URL as written,
    // so the suffix must be measured as written too (`w1170%2Ewebp` is 12
    // characters of URL for a 10-character name).
    let segments = components.percentEncodedPath.split(separator: "/").map(String.init)
    // The longest suffix of the path that names a bundle file.
    for start in segments.indices {
      let relative = segments[start...].joined(separator: "/").removingPercentEncoding ?? ""
      if !relative.isEmpty, FileSystem.ownedIdentity(root: bundle, relative)?.isRegularFile == true {
        let encodedSuffix = segments[start...].joined(separator: "/")
        base = String(first.dropLast(encodedSuffix.count + (components.percentEncodedQuery.map { $0.count + 1 } ?? 0)
                                        + (components.percentEncodedFragment.map { $0.count + 1 } ?? 0)))
        return
      }
    }
    baseProblem = "no file in the bundle matches \(first): cannot tell the bundle's base URL"
  }

  /// The bundle-relative path of `url`, or why there is none.
  func path(for url: String) -> Result<String, MarqueeError> {
    if url.contains("://") {
      guard let base else { return .failure(MarqueeError(.verification, "\(url) names no file in the bundle")) }
      guard url.hasPrefix(base) else { return .failure(MarqueeError(.verification, "\(url) is not under the bundle's base URL \(base)")) }
      let rest = String(url.dropFirst(base.count))
      guard let path = RelativePath.resolve(Self.stripQuery(rest), against: "banners.json") else {
        return .failure(MarqueeError(.verification, "\(url) leaves the bundle"))
      }
      return .success(path)
    }
    guard let path = RelativePath.resolve(Self.stripQuery(url), against: "banners.json") else {
      return .failure(MarqueeError(.verification, "\(url) leaves the bundle"))
    }
    return .success(path)
  }

  private static func stripQuery(_ s: String) -> String {
    String(s.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
      .split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
  }
}
