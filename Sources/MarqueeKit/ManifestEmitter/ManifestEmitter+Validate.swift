import Foundation

// MARK: - Contract check

extension ManifestEmitter {
  /// Checks a banners.json document against the client contract
  /// (docs/playback-constraints.md §1) and lists every violation.
  ///
  /// Independent of how the file was made, so it serves both as a test
  /// oracle for `render(_:)` and for `marquee verify`. Extra keys are
  /// allowed (the client ignores them); the checks are:
  ///
  /// - the document is JSON with no repeated keys, an object with a
  ///   `banners` array of objects;
  /// - `type` is `"video"` or `"image"`;
  /// - `url` is a non-empty string, an absolute http(s) URL or a relative
  ///   reference, naming a `.mp4`/`.m3u8` file (video) or a
  ///   `.jpg`/`.jpeg`/`.png`/`.webp` file (image);
  /// - video: `cover_url` is present (same URL rules), `duration` is a
  ///   finite number above 0, `autoplay` and `muted` are booleans, and
  ///   `autoplay: true` comes with `muted: true`;
  /// - image: no `cover_url`;
  /// - `link`, where present, is an absolute http(s) URL with a host.
  ///
  /// - Parameter data: The banners.json bytes.
  /// - Returns: One line per violation, `path: problem` (e.g.
  ///   `banners[1].cover_url: missing (required for video items)`), in
  ///   document order; empty when the document keeps the contract.
  public static func validate(_ data: Data) -> [String] {
    let root: Any
    do {
      root = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    } catch {
      return ["(root): " + JobJSON.describeSyntaxError(error, in: data)]
    }
    var problems: [String] = []
    if let duplicate = JobJSONStrictScanner.firstDuplicate(in: data) {
      problems.append("\(duplicate.path): key \(JobJSON.quoted(duplicate.key)) appears twice in one object")
    }
    guard let object = root as? [String: Any] else {
      return problems + ["(root): expected an object, found \(JobJSONType(of: root).phrase)"]
    }
    guard let bannersValue = object["banners"] else {
      return problems + ["banners: missing"]
    }
    guard let banners = bannersValue as? [Any] else {
      return problems + ["banners: expected an array, found \(JobJSONType(of: bannersValue).phrase)"]
    }
    for (index, item) in banners.enumerated() {
      problems += ManifestContractChecker(path: "banners[\(index)]").check(item)
    }
    return problems
  }
}

/// Checks one banners.json item.
private struct ManifestContractChecker {
  let path: String
  private(set) var problems: [String] = []

  init(path: String) {
    self.path = path
  }

  func check(_ item: Any) -> [String] {
    var checker = self
    checker.run(item)
    return checker.problems
  }

  private mutating func report(_ key: String, _ problem: String) {
    problems.append("\(JobJSON.path(path, key: key)): \(problem)")
  }

  private mutating func run(_ item: Any) {
    guard let object = item as? [String: Any] else {
      problems.append("\(path): expected an object, found \(JobJSONType(of: item).phrase)")
      return
    }
    var kind: BannerKind?
    if let value = object["type"] {
      if let text = value as? String, let parsed = BannerKind(rawValue: text) {
        kind = parsed
      } else {
        report("type", "expected \"video\" or \"image\", found \(JobJSON.render(value))")
      }
    } else {
      report("type", "missing")
    }

    let extensions: Set<String>? =
      switch kind {
      case .video: ManifestEmitter.videoURLExtensions
      case .image: ManifestEmitter.imageURLExtensions
      case nil: nil
      }
    checkURL(object["url"], key: "url", required: true, extensions: extensions, what: "")

    switch kind {
    case .video:
      checkURL(object["cover_url"], key: "cover_url", required: true, extensions: nil, what: " (required for video items)")
      checkDuration(object["duration"])
      let autoplay = checkBool(object["autoplay"], key: "autoplay")
      let muted = checkBool(object["muted"], key: "muted")
      if autoplay == true, muted == false {
        report("muted", "autoplay: true requires muted: true (iOS only autoplays muted video)")
      }
    case .image:
      if object["cover_url"] != nil {
        report("cover_url", "not allowed on image items (only video items have a cover)")
      }
    case nil:
      break
    }

    if let link = object["link"] {
      if let text = link as? String {
        if let problem = HTTPURLRule.problem(with: text) { report("link", problem) }
      } else {
        report("link", "expected a string, found \(JobJSONType(of: link).phrase)")
      }
    }
  }

  private mutating func checkURL(
    _ value: Any?, key: String, required: Bool, extensions: Set<String>?, what: String
  ) {
    guard let value else {
      if required { report(key, "missing\(what)") }
      return
    }
    guard let text = value as? String else {
      report(key, "expected a string, found \(JobJSONType(of: value).phrase)")
      return
    }
    guard !text.isEmpty else {
      report(key, "is empty")
      return
    }
    if HTTPURLRule.scheme(of: text) != nil {
      // Absolute: the client can only fetch http(s).
      if let problem = HTTPURLRule.problem(with: text) {
        report(key, problem)
        return
      }
    } else if text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
      report(key, "a URL must not contain spaces or control characters (percent-encode them)")
      return
    }
    guard let components = URLComponents(string: text) else {
      report(key, "not a valid URL reference: \(JobJSON.quoted(text))")
      return
    }
    if let extensions {
      let ext = (components.path as NSString).pathExtension.lowercased()
      if !extensions.contains(ext) {
        let list = extensions.sorted().map { "." + $0 }.joined(separator: "/")
        report(key, "expected a \(list) file, found \(JobJSON.quoted(text))")
      }
    }
  }

  private mutating func checkDuration(_ value: Any?) {
    guard let value else {
      report("duration", "missing (required for video items)")
      return
    }
    guard let seconds = JobJSON.number(value) else {
      report("duration", "expected a number of seconds, found \(JobJSONType(of: value).phrase)")
      return
    }
    if !(seconds.isFinite && seconds > 0) {
      report("duration", "must be a positive number of seconds, found \(JobJSON.render(value))")
    }
  }

  /// The boolean, or `nil` after reporting a missing or mistyped key.
  private mutating func checkBool(_ value: Any?, key: String) -> Bool? {
    guard let value else {
      report(key, "missing (required for video items)")
      return nil
    }
    guard let bool = JobJSON.bool(value) else {
      report(key, "expected a boolean, found \(JobJSONType(of: value).phrase) (\(JobJSON.render(value)))")
      return nil
    }
    return bool
  }
}
