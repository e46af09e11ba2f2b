import Foundation

/// One way an item's fingerprint differs from the one a stored item was
/// made with (`ItemFingerprint.changes(since:)`): what `build --check`
/// names as the reason an item would be built again.
public struct FingerprintChange: Sendable, Equatable, CustomStringConvertible {
  /// What kind of input changed.
  public enum Kind: String, Sendable {
    /// The bytes of the source, the poster (`cover.image`) or the
    /// designer's dark picture (`dark.image`).
    case source
    /// A setting of the job or the banner that affects the outputs.
    case setting
    /// Marquee itself: its version, output format, the codec libraries or
    /// the fixed encoder settings.
    case marquee
  }

  public var kind: Kind
  /// What changed, as the job names it: `source`, `cover.image`,
  /// `dark.image`, a settings key (`video_crf`), `type`, `cover`, `dark`;
  /// or `marquee`, `output format`, `libraries`, `encoder` (kind `marquee`).
  public var key: String
  /// The value before and now, as the fingerprint writes it (`nil` when
  /// the input was absent then or is now); not given for sources.
  public var old: String?
  public var new: String?

  public init(kind: Kind, key: String, old: String? = nil, new: String? = nil) {
    self.kind = kind
    self.key = key
    self.old = old
    self.new = new
  }

  /// `video_crf 23.0 → 20.0`, or the key alone when a value is long (a
  /// rendition ladder, the library versions) or a source's bytes changed.
  public var description: String {
    guard kind != .source, old != nil || new != nil else { return key }
    let before = old ?? "(none)", after = new ?? "(none)"
    guard before.count <= 40, after.count <= 40 else { return key }
    return "\(key) \(before) → \(after)"
  }
}

extension ItemFingerprint {
  /// What the fingerprint is made of, as a stored item records it
  /// (`StoredItem.inputs`).
  var inputs: StoredItem.Inputs { StoredItem.Inputs(sourceDigest: sourceDigest, settings: canonicalSettings) }

  /// How this fingerprint's inputs differ from `inputs` (a stored item's):
  /// the sources first (`source`, then the poster's and the dark picture's
  /// bytes), then every line of the canonical settings that differs, in
  /// its order. Empty when the inputs are the same.
  ///
  /// A poster's or dark picture's digest that appears or goes with its
  /// policy is not a change of its own: the `cover` or `dark` line says it.
  func changes(since inputs: StoredItem.Inputs) -> [FingerprintChange] {
    var changes: [FingerprintChange] = []
    if inputs.sourceDigest != sourceDigest { changes.append(FingerprintChange(kind: .source, key: "source")) }
    let before = Self.lines(inputs.settings), now = Self.lines(canonicalSettings)
    for (line, key) in [("poster-sha256", "cover.image"), ("dark-sha256", "dark.image")] {
      if let a = before.values[line], let b = now.values[line], a != b {
        changes.append(FingerprintChange(kind: .source, key: key))
      }
    }
    var keys = now.order
    for key in before.order where now.values[key] == nil { keys.append(key) }
    for key in keys where key != "poster-sha256" && key != "dark-sha256" {
      let a = before.values[key], b = now.values[key]
      guard a != b else { continue }
      changes.append(Self.change(key, old: a, new: b))
    }
    return changes
  }

  /// The `key=value` lines of a canonical settings text, in order.
  private static func lines(_ text: String) -> (order: [String], values: [String: String]) {
    var order: [String] = []
    var values: [String: String] = [:]
    for line in text.split(separator: "\n") {
      guard let equals = line.firstIndex(of: "=") else { continue }
      let key = String(line[..<equals])
      if values[key] == nil { order.append(key) }
      values[key] = String(line[line.index(after: equals)...])
    }
    return (order, values)
  }

  /// One differing canonical line, named as the job (or Marquee) names it.
  private static func change(_ line: String, old: String?, new: String?) -> FingerprintChange {
    if line.hasPrefix("settings.") {
      return FingerprintChange(kind: .setting, key: jobKey(forSetting: String(line.dropFirst("settings.".count))), old: old, new: new)
    }
    switch line {
    case "kind": return FingerprintChange(kind: .setting, key: "type", old: old, new: new)
    case "cover": return FingerprintChange(kind: .setting, key: "cover", old: old, new: new)
    // No `dark` line is the generated policy (`canonicalSettings`).
    case "dark": return FingerprintChange(kind: .setting, key: "dark", old: old ?? "generated", new: new ?? "generated")
    case "marquee": return FingerprintChange(kind: .marquee, key: "marquee", old: old, new: new)
    case "output-format": return FingerprintChange(kind: .marquee, key: "output format", old: old, new: new)
    case "libraries": return FingerprintChange(kind: .marquee, key: "libraries", old: old, new: new)
    case "encoder_threads", "encoder_effort": return FingerprintChange(kind: .marquee, key: "encoder", old: old, new: new)
    default: return FingerprintChange(kind: .setting, key: line, old: old, new: new)
    }
  }

  /// The job file's key of a `JobSettings` property (`videoCRF` is
  /// `video_crf`, `mp4Height` `mp4_height`, `maxFileSize`
  /// `max_file_size_mb`); the property's own name when the job has no
  /// such key.
  static func jobKey(forSetting property: String) -> String {
    let characters = Array(property)
    var snake = ""
    for (i, c) in characters.enumerated() {
      if c.isUppercase && i > 0 {
        let previous = characters[i - 1]
        let nextIsLower = i + 1 < characters.count && characters[i + 1].isLowercase
        if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) { snake += "_" }
      }
      snake += c.lowercased()
    }
    if JobDocumentValidator.settingsKeys.contains(snake) { return snake }
    if JobDocumentValidator.settingsKeys.contains(snake + "_mb") { return snake + "_mb" }
    return property
  }
}
