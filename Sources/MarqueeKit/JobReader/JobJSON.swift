import Foundation

/// The JSON type of a value that `JSONSerialization` produced, told apart
/// reliably on Linux.
///
/// On swift-corelibs-foundation `true`/`false` come back as an `NSNumber`
/// subclass whose `objCType` is `"c"`, while numbers are `NSNumber`s with
/// `"i"`, `"q"`, `"Q"` or `"d"`. A plain `value as? Bool` is *not* enough:
/// the numbers `0` and `1` cast to `Bool` too, and `value as? Double` fails
/// for very large integers (`"Q"`). So this classifies by `objCType`.
enum JobJSONType: Equatable {
  case object, array, string, number, boolean, null

  /// Classifies a `JSONSerialization` value.
  init(of value: Any) {
    switch value {
    case is [String: Any]: self = .object
    case is [Any]: self = .array
    case is String: self = .string
    case let number as NSNumber:
      self = JobJSON.isBoolean(number) ? .boolean : .number
    default: self = .null
    }
  }

  /// How messages name the type: "a string", "null", ….
  var phrase: String {
    switch self {
    case .object: return "an object"
    case .array: return "an array"
    case .string: return "a string"
    case .number: return "a number"
    case .boolean: return "a boolean"
    case .null: return "null"
    }
  }
}

/// Helpers for reading `JSONSerialization` values and building JSON paths.
enum JobJSON {
  /// Whether a `JSONSerialization` number is really a JSON `true`/`false`.
  static func isBoolean(_ number: NSNumber) -> Bool {
    String(cString: number.objCType) == "c"
  }

  /// The value as a `Bool` if it is a JSON boolean (not the number 0 or 1).
  static func bool(_ value: Any) -> Bool? {
    guard let number = value as? NSNumber, isBoolean(number) else { return nil }
    return number.boolValue
  }

  /// The value as a `Double` if it is a JSON number (not a boolean).
  static func number(_ value: Any) -> Double? {
    guard let number = value as? NSNumber, !isBoolean(number) else { return nil }
    return number.doubleValue
  }

  /// `parent.key`, or `parent["key"]` when the key is not a plain identifier
  /// (so that a path always reads back unambiguously). The root is `""`.
  static func path(_ parent: String, key: String) -> String {
    let plain =
      !key.isEmpty
      && key.unicodeScalars.allSatisfy { scalar in
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "-": return true
        default: return false
        }
      }
    if plain { return parent.isEmpty ? key : "\(parent).\(key)" }
    return "\(parent)[\(quoted(key))]"
  }

  /// `parent[index]`.
  static func path(_ parent: String, index: Int) -> String {
    "\(parent)[\(index)]"
  }

  /// A string in double quotes with `"`, `\` and control characters escaped,
  /// for messages that show what the user wrote.
  static func quoted(_ text: String, limit: Int = 80) -> String {
    TextEscaping.printable(text, quoted: true, limit: limit)
  }

  /// A short rendering of a JSON value for messages: strings quoted, numbers
  /// and booleans as JSON would write them.
  static func render(_ value: Any) -> String {
    switch JobJSONType(of: value) {
    case .string: return quoted(value as? String ?? "")
    case .boolean: return bool(value) == true ? "true" : "false"
    case .number:
      guard let number = value as? NSNumber else { return "a number" }
      let double = number.doubleValue
      if double == double.rounded(), abs(double) < 1e15 {
        return String(Int64(double))
      }
      return "\(double)"
    case .null: return "null"
    case .array: return "an array"
    case .object: return "an object"
    }
  }

  /// The known key closest to `key` by edit distance, if it is close enough
  /// to be a likely typo (at most 2 edits, and fewer than half the length).
  static func suggestion(for key: String, among known: [String]) -> String? {
    var best: (key: String, distance: Int)?
    let lowered = key.lowercased()
    for candidate in known {
      let distance = editDistance(lowered, candidate)
      if distance <= 2, distance * 2 < max(candidate.count, 2),
        best.map({ distance < $0.distance }) ?? true
      {
        best = (candidate, distance)
      }
    }
    return best?.key
  }

  /// Levenshtein distance over characters.
  static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
        current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
      }
      swap(&previous, &current)
    }
    return previous[b.count]
  }

  /// Turns `JSONSerialization`'s "around character N" (a byte offset) into
  /// "at line L, column C" (1-based, column in characters) so a user can
  /// find the spot in an editor.
  static func describeSyntaxError(_ error: Error, in data: Data) -> String {
    let nsError = error as NSError
    let raw =
      (nsError.userInfo[NSDebugDescriptionErrorKey] as? String)
      ?? nsError.localizedDescription
    var text = raw
    if text.hasSuffix(".") { text.removeLast() }
    let marker = " around character "
    if let range = text.range(of: marker),
      let offset = Int(text[range.upperBound...]),
      offset >= 0, offset <= data.count
    {
      let (line, column) = lineAndColumn(ofByteOffset: offset, in: data)
      text = String(text[..<range.lowerBound]) + " at line \(line), column \(column)"
    }
    if let first = text.first {
      text = first.lowercased() + text.dropFirst()
    }
    return "invalid JSON: \(text)"
  }

  /// 1-based line and column of a byte offset; the column counts characters.
  static func lineAndColumn(ofByteOffset offset: Int, in data: Data) -> (Int, Int) {
    let prefix = data.prefix(offset)
    var line = 1
    var lineStart = prefix.startIndex
    for index in prefix.indices where prefix[index] == UInt8(ascii: "\n") {
      line += 1
      lineStart = index + 1
    }
    let lineText = String(decoding: prefix[lineStart...], as: UTF8.self)
    return (line, lineText.count + 1)
  }
}
