import Foundation

/// Finds what `JSONSerialization` lets through but JSON (RFC 8259) does not
/// mean: a key that appears twice in one object, and a trailing comma.
///
/// `JSONSerialization` silently keeps one of two values, so a copy-pasted
/// `"source"` would pass unnoticed; and swift-corelibs-foundation accepts
/// `[1, 2,]` and `{"a": 1,}`, which jq, Python and every JSON Schema
/// validator reject, so a job file that builds here would break the
/// scripts and editors around it. This scanner walks the raw bytes of a
/// document that `JSONSerialization` already accepted and reports the first
/// such problem in document order. It does not
/// validate: on anything it does not understand it stops and reports
/// nothing, and it never reads out of bounds. Nesting deeper than
/// `maxDepth` is not scanned.
struct JobJSONStrictScanner {
  /// A repeated key: the path of its second occurrence.
  struct Duplicate: Equatable {
    var path: String
    var key: String
  }

  private let bytes: [UInt8]
  private var position = 0
  private var found: Duplicate?
  /// Byte offset of a trailing comma and the path of its object or array.
  private var trailingComma: (path: String, offset: Int)?
  private let maxDepth = 64

  private struct Stop: Error {}

  init(_ data: Data) {
    bytes = Array(data)
  }

  /// What the scanner can find.
  enum Problem: Equatable {
    /// A repeated key.
    case duplicate(Duplicate)
    /// A comma before `}` or `]`: the path of the object or array, and the
    /// comma's 1-based line and column (in bytes).
    case trailingComma(path: String, line: Int, column: Int)
  }

  /// The first repeated key, or `nil`.
  static func firstDuplicate(in data: Data) -> Duplicate? {
    if case .duplicate(let d) = firstProblem(in: data) { return d }
    return nil
  }

  /// The first repeated key or trailing comma in document order, or `nil`.
  static func firstProblem(in data: Data) -> Problem? {
    var scanner = JobJSONStrictScanner(data)
    // A UTF-8 byte order mark is accepted by JSONSerialization.
    if scanner.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.position = 3 }
    do {
      try scanner.value(path: "", depth: 0)
    } catch {
      // Stop: a problem was found or the input was not understood.
    }
    if let d = scanner.found { return .duplicate(d) }
    if let comma = scanner.trailingComma {
      let before = scanner.bytes[..<comma.offset]
      let line = before.filter { $0 == UInt8(ascii: "\n") }.count + 1
      let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
      return .trailingComma(path: comma.path, line: line, column: comma.offset - lineStart + 1)
    }
    return nil
  }

  /// Consumes a `,` and stops the scan if `}` or `]` follows it.
  private mutating func comma(in path: String) throws {
    let offset = position
    position += 1
    skipWhitespace()
    if let next = peek(), next == UInt8(ascii: "}") || next == UInt8(ascii: "]") {
      trailingComma = (path, offset)
      throw Stop()
    }
  }

  // MARK: - Grammar

  private mutating func value(path: String, depth: Int) throws {
    guard depth < maxDepth else { throw Stop() }
    skipWhitespace()
    guard let byte = peek() else { throw Stop() }
    switch byte {
    case UInt8(ascii: "{"): try object(path: path, depth: depth)
    case UInt8(ascii: "["): try array(path: path, depth: depth)
    case UInt8(ascii: "\""): _ = try string()
    default:
      // A byte that starts no value (`[}`): stop instead of looping on it.
      let start = position
      skipScalarLiteral()
      if position == start { throw Stop() }
    }
  }

  private mutating func object(path: String, depth: Int) throws {
    position += 1  // {
    var seen = Set<String>()
    while true {
      skipWhitespace()
      guard let byte = peek() else { throw Stop() }
      if byte == UInt8(ascii: "}") {
        position += 1
        return
      }
      if byte == UInt8(ascii: ",") {
        try comma(in: path)
        continue
      }
      guard byte == UInt8(ascii: "\"") else { throw Stop() }
      let key = try string()
      let keyPath = JobJSON.path(path, key: key)
      if !seen.insert(key).inserted {
        found = Duplicate(path: keyPath, key: key)
        throw Stop()
      }
      skipWhitespace()
      guard peek() == UInt8(ascii: ":") else { throw Stop() }
      position += 1
      try value(path: keyPath, depth: depth + 1)
    }
  }

  private mutating func array(path: String, depth: Int) throws {
    position += 1  // [
    var index = 0
    while true {
      skipWhitespace()
      guard let byte = peek() else { throw Stop() }
      if byte == UInt8(ascii: "]") {
        position += 1
        return
      }
      if byte == UInt8(ascii: ",") {
        try comma(in: path)
        continue
      }
      try value(path: JobJSON.path(path, index: index), depth: depth + 1)
      index += 1
    }
  }

  /// Reads a string starting at `"` and returns its decoded text.
  private mutating func string() throws -> String {
    position += 1  // opening quote
    var scalars = String.UnicodeScalarView()
    var raw: [UInt8] = []
    func flushRaw() {
      if !raw.isEmpty {
        scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
        raw.removeAll()
      }
    }
    while let byte = peek() {
      position += 1
      switch byte {
      case UInt8(ascii: "\""):
        flushRaw()
        return String(scalars)
      case UInt8(ascii: "\\"):
        flushRaw()
        guard let escape = peek() else { throw Stop() }
        position += 1
        switch escape {
        case UInt8(ascii: "b"): scalars.append("\u{08}")
        case UInt8(ascii: "f"): scalars.append("\u{0C}")
        case UInt8(ascii: "n"): scalars.append("\n")
        case UInt8(ascii: "r"): scalars.append("\r")
        case UInt8(ascii: "t"): scalars.append("\t")
        case UInt8(ascii: "u"):
          let unit = try hex4()
          if (0xD800..<0xDC00).contains(unit),
            peek() == UInt8(ascii: "\\"), peek(1) == UInt8(ascii: "u")
          {
            position += 2
            let low = try hex4()
            if (0xDC00..<0xE000).contains(low),
              let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
            {
              scalars.append(scalar)
            } else {
              // An unpaired high surrogate is U+FFFD; the escape after it
              // is a character of its own (FuzzJobReader found the sum of a
              // non-low unit trapping on overflow: a crash on a job file).
              scalars.append("\u{FFFD}")
              scalars.append(Unicode.Scalar(low) ?? "\u{FFFD}")
            }
          } else {
            scalars.append(Unicode.Scalar(unit) ?? "\u{FFFD}")
          }
        default:
          // \" \\ \/ and anything else stand for themselves.
          scalars.append(Unicode.Scalar(escape))
        }
      default:
        raw.append(byte)
      }
    }
    throw Stop()
  }

  private mutating func hex4() throws -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard let byte = peek() else { throw Stop() }
      position += 1
      let digit: UInt32
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
      default: throw Stop()
      }
      value = value << 4 | digit
    }
    return value
  }

  // MARK: - Lexing

  private func peek(_ ahead: Int = 0) -> UInt8? {
    let index = position + ahead
    return index < bytes.count ? bytes[index] : nil
  }

  private mutating func skipWhitespace() {
    while let byte = peek(),
      byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n")
        || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
    {
      position += 1
    }
  }

  /// Skips a number, `true`, `false` or `null`.
  private mutating func skipScalarLiteral() {
    while let byte = peek() {
      switch byte {
      case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"),
        UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
        return
      default:
        position += 1
      }
    }
  }
}
