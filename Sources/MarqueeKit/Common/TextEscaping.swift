/// The two ways Marquee writes text from untrusted sources (file names,
/// job values, FFmpeg's reasons) into its output, each in one place.
enum TextEscaping {
  /// Appends `text` to `out` as a JSON string literal (RFC 8259 §7): `"`
  /// and `\` escaped, `\n` `\r` `\t` `\b` `\f` in their short forms, the
  /// other C0 controls as `\u00XX` (upper-case hex), everything else as
  /// UTF-8. banners.json and the JSON log lines are written with it.
  static func appendJSON(_ text: String, to out: inout String) {
    out += "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case "\u{08}": out += "\\b"
      case "\u{0C}": out += "\\f"
      default:
        if scalar.value < 0x20 {
          let hex = String(scalar.value, radix: 16, uppercase: true)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    out += "\""
  }

  /// `text` with every character that could forge or hide content in a
  /// line a person reads escaped: C0 and C1 controls and DEL (`\n`, `\r`,
  /// `\t`, else `\u{1b}` …) and the Unicode bidirectional overrides and
  /// isolates (U+202A–U+202E, U+2066–U+2069). When anything is escaped, or
  /// when `quoted`, backslashes are doubled too, so the text reads back
  /// unambiguously.
  ///
  /// - Parameters:
  ///   - quoted: wrap in double quotes and escape `"` (a value the user
  ///     wrote, shown inside a message).
  ///   - limit: at most this many characters (Unicode scalars), then `…`.
  static func printable(_ text: String, quoted: Bool = false, limit: Int = .max) -> String {
    let scalars = text.unicodeScalars
    let truncated = scalars.count > limit
    if !quoted && !truncated && !scalars.contains(where: needsEscape) { return text }
    var out = quoted ? "\"" : ""
    for scalar in scalars.prefix(limit) {
      switch scalar {
      case "\\": out += "\\\\"
      case "\"" where quoted: out += "\\\""
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      default:
        if needsEscape(scalar) {
          out += "\\u{\(String(scalar.value, radix: 16))}"
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    if truncated { out += "…" }
    return quoted ? out + "\"" : out
  }

  private static func needsEscape(_ s: Unicode.Scalar) -> Bool {
    s.value < 0x20 || (0x7F...0x9F).contains(s.value) || (0x202A...0x202E).contains(s.value)
      || (0x2066...0x2069).contains(s.value)
  }
}
