/// A JSON value with a deterministic pretty printer, for banners.json.
///
/// `JSONSerialization`'s pretty printing differs between platforms (spacing
/// around `:`, escaping of `/`, number formatting), and banners.json is
/// compared as golden text, so the emitter writes its own: keys sorted by
/// their UTF-8 bytes, two-space indent, `"key": value`, `/` not escaped,
/// non-ASCII written as UTF-8, doubles in Swift's shortest round-trip form.
enum ManifestJSON: Equatable {
  case object([String: ManifestJSON])
  case array([ManifestJSON])
  case string(String)
  case integer(Int)
  /// Must be finite (callers check; non-finite values are written as `null`
  /// rather than producing invalid JSON).
  case double(Double)
  case bool(Bool)

  /// The pretty-printed document with a trailing newline.
  func rendered() -> String {
    var out = ""
    write(to: &out, indent: 0)
    out += "\n"
    return out
  }

  private func write(to out: inout String, indent: Int) {
    switch self {
    case .object(let members):
      if members.isEmpty {
        out += "{}"
        return
      }
      let keys = members.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
      out += "{\n"
      for (offset, key) in keys.enumerated() {
        out += String(repeating: " ", count: indent + 2)
        Self.writeString(key, to: &out)
        out += ": "
        members[key]?.write(to: &out, indent: indent + 2)
        out += offset == keys.count - 1 ? "\n" : ",\n"
      }
      out += String(repeating: " ", count: indent) + "}"
    case .array(let elements):
      if elements.isEmpty {
        out += "[]"
        return
      }
      out += "[\n"
      for (offset, element) in elements.enumerated() {
        out += String(repeating: " ", count: indent + 2)
        element.write(to: &out, indent: indent + 2)
        out += offset == elements.count - 1 ? "\n" : ",\n"
      }
      out += String(repeating: " ", count: indent) + "]"
    case .string(let text):
      Self.writeString(text, to: &out)
    case .integer(let value):
      out += String(value)
    case .double(let value):
      out += value.isFinite ? "\(value)" : "null"
    case .bool(let value):
      out += value ? "true" : "false"
    }
  }

  private static func writeString(_ text: String, to out: inout String) {
    TextEscaping.appendJSON(text, to: &out)
  }
}
