import Foundation
import MarqueeKit

/// Compares byte buffers by size, SHA-256 and first differing offset, so a
/// failed comparison of two large files prints one line instead of asking
/// the test library to render (and diff) megabytes of `Data`.
///
/// ```swift
/// #expect(ByteComparison.difference(a, b) == nil, "\(file) differs")
/// ```
public enum ByteComparison {
  /// `nil` when `a` and `b` hold the same bytes, otherwise a one-line
  /// description: both sizes and digests and the first differing offset
  /// with the byte on each side (`sizes 2048 and 2050, SHA-256 1f3a…
  /// vs 9b0c…, first difference at offset 812 (0x1f vs 0x20)`).
  public static func difference(_ a: Data, _ b: Data) -> String? {
    if a == b { return nil }
    let offset = firstDifference(a, b)
    let digestA = SHA256.hash(a).hex.prefix(16), digestB = SHA256.hash(b).hex.prefix(16)
    var text = "sizes \(a.count) and \(b.count), SHA-256 \(digestA)… vs \(digestB)…, first difference at offset \(offset)"
    if offset < a.count && offset < b.count {
      text += String(format: " (0x%02x vs 0x%02x)", a[a.startIndex + offset], b[b.startIndex + offset])
    } else {
      text += " (one ends there)"
    }
    return text
  }

  /// `difference(_:_:)` of two files' contents.
  public static func difference(fileAt a: URL, _ b: URL) throws -> String? {
    try difference(Data(contentsOf: a), Data(contentsOf: b))
  }

  /// The first offset at which the buffers differ (the shorter length when
  /// one is a prefix of the other).
  public static func firstDifference(_ a: Data, _ b: Data) -> Int {
    let n = min(a.count, b.count)
    return a.withUnsafeBytes { (x: UnsafeRawBufferPointer) -> Int in
      b.withUnsafeBytes { (y: UnsafeRawBufferPointer) -> Int in
        var i = 0
        while i < n && x[i] == y[i] { i += 1 }
        return i
      }
    }
  }
}
