import Foundation

/// An HLS attribute list (RFC 8216 §4.2): `NAME=value` pairs separated by
/// commas, a quoted-string value in double quotes (it may hold commas), as
/// `#EXT-X-STREAM-INF`, `#EXT-X-I-FRAME-STREAM-INF` and `#EXT-X-MAP` carry.
///
/// Written by the playlist writers in the order given; read back by
/// `PlaylistReader` with every attribute kept, so `verify` can tell a
/// missing attribute from an unreadable one.
public struct AttributeList: Sendable, Equatable {
  /// One `NAME=value`.
  public struct Attribute: Sendable, Equatable {
    public var name: String
    /// The value as written, without the quotes of a quoted string.
    public var value: String
    /// Whether the value is a quoted-string (written in double quotes).
    public var isQuoted = false

    /// A decimal-integer (`BANDWIDTH=800000`).
    public static func integer(_ name: String, _ value: Int) -> Attribute {
      Attribute(name: name, value: String(value))
    }

    /// A quoted-string (`CODECS="avc1.64001F,mp4a.40.2"`); `value` must not
    /// hold a double quote or a line break (RFC 8216 §4.2).
    public static func quoted(_ name: String, _ value: String) -> Attribute {
      Attribute(name: name, value: value, isQuoted: true)
    }

    /// A decimal-resolution, width by height in pixels (`RESOLUTION=1280x720`).
    public static func resolution(width: Int, height: Int) -> Attribute {
      Attribute(name: "RESOLUTION", value: "\(width)x\(height)")
    }

    /// A decimal-floating-point with `places` decimals (`FRAME-RATE=29.970`:
    /// RFC 8216 §4.3.4.2 rounds the frame rate to three).
    public static func decimal(_ name: String, _ value: Double, places: Int) -> Attribute {
      Attribute(name: name, value: String(format: "%.\(places)f", value))
    }
  }

  public var attributes: [Attribute]

  public init(_ attributes: [Attribute] = []) {
    self.attributes = attributes
  }

  /// Reads `NAME=value,NAME="quoted, value"`: a comma inside quotes belongs
  /// to the value; names are trimmed of spaces; a name without `=` has an
  /// empty value. Nothing is rejected.
  public init(parsing text: Substring) {
    var attributes: [Attribute] = []
    var name = "", value = ""
    var inName = true, inQuotes = false, quoted = false
    func flush() {
      let trimmed = name.trimmingCharacters(in: .whitespaces)
      if !trimmed.isEmpty { attributes.append(Attribute(name: trimmed, value: value, isQuoted: quoted)) }
      name = ""
      value = ""
      inName = true
      quoted = false
    }
    for ch in text {
      if inName {
        if ch == "=" { inName = false } else if ch == "," { flush() } else { name.append(ch) }
      } else if ch == "\"" {
        inQuotes.toggle()
        quoted = true
      } else if ch == "," && !inQuotes {
        flush()
      } else {
        value.append(ch)
      }
    }
    flush()
    self.attributes = attributes
  }

  /// The value of `name` (the last one, should it be repeated), quotes removed.
  public subscript(name: String) -> String? {
    attributes.last { $0.name == name }?.value
  }

  /// `name`'s decimal-integer value: digits only, at most `Int.max`.
  public func integer(_ name: String) -> Int? {
    self[name].flatMap(DecimalInteger.parse)
  }

  /// `RESOLUTION` as numbers, both above 0.
  public var resolution: (width: Int, height: Int)? {
    guard let text = self["RESOLUTION"] else { return nil }
    let parts = text.split(separator: "x")
    guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
    return (w, h)
  }

  /// The list as written in a playlist: `NAME=value,NAME="value"`.
  public var text: String {
    attributes.map { $0.isQuoted ? "\($0.name)=\"\($0.value)\"" : "\($0.name)=\($0.value)" }.joined(separator: ",")
  }
}

/// RFC 8216 §4.2 decimal-integer: an unsigned number of digits `0`–`9`.
enum DecimalInteger {
  /// The value, or nil when `text` is empty, holds anything but digits
  /// (a sign included) or exceeds `Int.max`.
  static func parse<S: StringProtocol>(_ text: S) -> Int? {
    guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
    return Int(text)
  }
}
