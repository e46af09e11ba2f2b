import Foundation

/// A parsed HLS master (multivariant) playlist (RFC 8216 §4.3.4.2), read
/// back for verification.
struct MasterPlaylistText {
  struct Variant {
    /// `#EXT-X-STREAM-INF` attributes, quotes removed.
    var attributes: [String: String]
    /// The media playlist URI as written.
    var uri: String

    /// `RESOLUTION=1280x720` as numbers.
    var resolution: (width: Int, height: Int)? {
      guard let text = attributes["RESOLUTION"] else { return nil }
      let parts = text.split(separator: "x")
      guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
      return (w, h)
    }
  }

  var startsWithHeader: Bool
  var hasIndependentSegments: Bool
  var variants: [Variant]
  /// `#EXT-X-I-FRAME-STREAM-INF` attributes (the playlist is their `URI`).
  var iFrameVariants: [[String: String]]
  /// `#EXT-X-STREAM-INF` lines with no URI after them.
  var danglingStreamInfs: Int

  init(text: String) {
    let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
    startsWithHeader = lines.first == "#EXTM3U"
    hasIndependentSegments = lines.contains("#EXT-X-INDEPENDENT-SEGMENTS")
    var variants: [Variant] = []
    var iFrames: [[String: String]] = []
    var pending: [String: String]? = nil
    var dangling = 0
    for line in lines where !line.isEmpty {
      if line.hasPrefix("#EXT-X-I-FRAME-STREAM-INF:") {
        iFrames.append(Self.attributes(line.dropFirst("#EXT-X-I-FRAME-STREAM-INF:".count)))
      } else if line.hasPrefix("#EXT-X-STREAM-INF:") {
        if pending != nil { dangling += 1 }
        pending = Self.attributes(line.dropFirst("#EXT-X-STREAM-INF:".count))
      } else if !line.hasPrefix("#") {
        if let attributes = pending { variants.append(Variant(attributes: attributes, uri: line)) }
        pending = nil
      }
    }
    if pending != nil { dangling += 1 }
    self.variants = variants
    iFrameVariants = iFrames
    danglingStreamInfs = dangling
  }

  /// `KEY=value,KEY="quoted, value"` (RFC 8216 §4.2).
  static func attributes(_ text: Substring) -> [String: String] {
    var result: [String: String] = [:]
    var key = ""
    var value = ""
    var inKey = true
    var inQuotes = false
    func flush() {
      if !key.isEmpty { result[key.trimmingCharacters(in: .whitespaces)] = value }
      key = ""
      value = ""
      inKey = true
    }
    for ch in text {
      if inKey {
        if ch == "=" { inKey = false } else if ch == "," { flush() } else { key.append(ch) }
      } else if ch == "\"" {
        inQuotes.toggle()
      } else if ch == "," && !inQuotes {
        flush()
      } else {
        value.append(ch)
      }
    }
    flush()
    return result
  }
}
