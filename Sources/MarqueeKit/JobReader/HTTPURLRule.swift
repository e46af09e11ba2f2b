import Foundation

/// The URL rules shared by the job reader and the manifest emitter, so that
/// a link the job reader accepts is a link banners.json accepts.
enum HTTPURLRule {
  /// Why `text` is not an absolute `http`/`https` URL with a host, or `nil`
  /// if it is one.
  ///
  /// Rejected: other schemes (`ftp:`, `javascript:` …), relative references,
  /// a missing host, whitespace or control characters, and anything
  /// `URLComponents` cannot parse.
  static func problem(with text: String) -> String? {
    if text.isEmpty { return "expected an absolute http or https URL, found an empty string" }
    if text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
      return "a URL must not contain spaces or control characters (percent-encode them)"
    }
    guard let scheme = scheme(of: text) else {
      return "expected an absolute http or https URL such as \"https://example.com/page\""
    }
    guard scheme == "http" || scheme == "https" else {
      return "only http and https URLs are allowed, not \(scheme):"
    }
    guard let components = URLComponents(string: text) else {
      return "not a valid URL"
    }
    guard let host = components.host, !host.isEmpty, text.dropFirst(scheme.count).hasPrefix("://")
    else {
      return "the URL has no host (expected \(scheme)://host/…)"
    }
    return nil
  }

  /// The scheme of `text`, lower-cased, if it starts with one
  /// (RFC 3986: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`).
  static func scheme(of text: String) -> String? {
    var scheme = ""
    for (offset, scalar) in text.unicodeScalars.enumerated() {
      switch scalar {
      case "a"..."z", "A"..."Z":
        scheme.unicodeScalars.append(scalar)
      case "0"..."9", "+", "-", ".":
        if offset == 0 { return nil }
        scheme.unicodeScalars.append(scalar)
      case ":":
        return scheme.isEmpty ? nil : scheme.lowercased()
      default:
        return nil
      }
    }
    return nil
  }
}
