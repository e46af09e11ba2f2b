import Foundation

/// Turns file and folder names into banner ids and job names (`marquee
/// init`): lower-case ASCII letters, digits, `_` and `-`, starting and
/// ending with a letter or digit, as the job reader's id rule
/// (`JobDocumentValidator.idProblem`) and name rule require.
///
/// Letters with accents lose them (`Été` → `ete`), compatibility forms are
/// unfolded (`ﬁ` → `fi`, full-width `Ａ` → `a`), a few Latin letters with no
/// decomposition are spelt out (`ß` → `ss`, `æ` → `ae`, `ø` → `o`), `_` is
/// kept and every other run of characters becomes one `-`:
/// `"Summer Sale!.png"` → `summer-sale`, `"IMG_0042.JPG"` → `img_0042`.
///
/// One slugger gives each id once: a later name with the same slug gets
/// `-2`, `-3`, … (the first free one), so the ids depend only on the order
/// the names are given in.
public struct BannerIDSlugger: Sendable {
  /// The longest id (and job name) a slug may be, in characters.
  public static let maxLength = JobDocumentValidator.maxIDLength

  /// The ids given so far.
  public private(set) var used: Set<String> = []

  /// Creates a slugger that has given no id yet.
  public init() {}

  /// The id for the file `fileName`: the slug of the name without its last
  /// extension (`clip.final.mp4` → `clip-final`), `fallback` when nothing
  /// of the name survives (`日本.png`), made unique among the ids this
  /// slugger gave before with `-2`, `-3`, …, and remembered.
  ///
  /// - Parameter fallback: a valid id to use when the name has no slug,
  ///   such as the banner's type (`image`).
  /// - Returns: an id the job reader accepts, at most `maxLength`
  ///   characters, never one given before.
  public mutating func uniqueID(forFileName fileName: String, fallback: String) -> String {
    var base = Self.slug((fileName as NSString).deletingPathExtension)
    if base.isEmpty { base = Self.slug(fallback) }
    if base.isEmpty { base = "banner" }
    if used.insert(base).inserted { return base }
    var n = 2
    while true {
      let suffix = "-\(n)"
      let stem = Self.trimmed(String(base.prefix(Self.maxLength - suffix.count)))
      let candidate = stem + suffix
      if used.insert(candidate).inserted { return candidate }
      n += 1
    }
  }

  /// The slug of `text`: lower-case `a-z`, `0-9`, `_` and `-`, starting and
  /// ending with a letter or digit, at most `maxLength` characters; empty
  /// when no letter or digit of `text` has an ASCII form.
  public static func slug(_ text: String, maxLength: Int = BannerIDSlugger.maxLength) -> String {
    var out = ""
    var pendingDash = false
    func append(_ piece: String) {
      if pendingDash && !out.isEmpty { out += "-" }
      pendingDash = false
      out += piece
    }
    for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
      switch scalar {
      case "a"..."z", "0"..."9", "_":
        append(String(scalar))
      case "A"..."Z":
        append(String(scalar).lowercased())
      default:
        if scalar.properties.generalCategory == .nonspacingMark { continue }  // an accent, decomposed off
        if let spelt = spelling[scalar] { append(spelt) } else { pendingDash = true }
      }
    }
    return trimmed(String(trimmed(out).prefix(maxLength)))
  }

  /// Latin letters that do not decompose into an ASCII letter and a mark.
  private static let spelling: [Unicode.Scalar: String] = [
    "ß": "ss", "ẞ": "ss", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ø": "o", "Ø": "o",
    "đ": "d", "Đ": "d", "ð": "d", "Ð": "d", "ł": "l", "Ł": "l", "þ": "th", "Þ": "th", "ı": "i",
  ]

  /// `text` without leading and trailing `-` and `_` (an id starts with a
  /// letter or digit; a trailing one would read as a cut-off suffix).
  private static func trimmed(_ text: String) -> String {
    let scalars = Array(text.unicodeScalars)
    guard let first = scalars.firstIndex(where: { $0 != "-" && $0 != "_" }),
          let last = scalars.lastIndex(where: { $0 != "-" && $0 != "_" }) else { return "" }
    var out = ""
    out.unicodeScalars.append(contentsOf: scalars[first...last])
    return out
  }
}
