import Foundation

/// A read-only, bounds-checked view of file bytes for the header parsers.
///
/// Every read returns `nil` past the end instead of trapping, so a parser fed
/// a truncated or hostile file can only fail with a clear error. Multi-byte
/// integers are read big-endian (`be…`, JPEG, PNG, ISO BMFF) or little-endian
/// (`le…`, GIF, RIFF/WebP).
struct ByteView {
  let bytes: UnsafeRawBufferPointer

  var count: Int { bytes.count }

  func u8(_ i: Int) -> UInt8? {
    i >= 0 && i < bytes.count ? bytes[i] : nil
  }

  func be16(_ i: Int) -> Int? {
    guard let a = u8(i), let b = u8(i + 1) else { return nil }
    return Int(a) << 8 | Int(b)
  }

  func be32(_ i: Int) -> Int? {
    guard let a = be16(i), let b = be16(i + 2) else { return nil }
    return a << 16 | b
  }

  func le16(_ i: Int) -> Int? {
    guard let a = u8(i), let b = u8(i + 1) else { return nil }
    return Int(b) << 8 | Int(a)
  }

  func le24(_ i: Int) -> Int? {
    guard let a = le16(i), let b = u8(i + 2) else { return nil }
    return Int(b) << 16 | a
  }

  func le32(_ i: Int) -> Int? {
    guard let a = le16(i), let b = le16(i + 2) else { return nil }
    return b << 16 | a
  }

  /// Whether the bytes at `i` spell `ascii`.
  func matches(_ i: Int, _ ascii: String) -> Bool {
    var k = i
    for byte in ascii.utf8 {
      guard u8(k) == byte else { return false }
      k += 1
    }
    return true
  }

  /// A copy of `range`, or `nil` if it does not lie inside the bytes.
  func copy(_ range: Range<Int>) -> Data? {
    guard range.lowerBound >= 0, range.upperBound <= bytes.count else { return nil }
    return Data(bytes[range])
  }

  /// A sub-view of `range` (clamped to the bytes).
  func view(_ range: Range<Int>) -> ByteView {
    let lo = max(0, min(range.lowerBound, bytes.count))
    let hi = max(lo, min(range.upperBound, bytes.count))
    return ByteView(bytes: UnsafeRawBufferPointer(rebasing: bytes[lo..<hi]))
  }
}

extension Data {
  /// Calls `body` with a bounds-checked view of the bytes, keeping the
  /// typed error.
  func withByteView<R>(_ body: (ByteView) throws(MediaIOError) -> R) throws(MediaIOError) -> R {
    let result: Result<R, MediaIOError> = withUnsafeBytes { raw in
      do throws(MediaIOError) {
        return .success(try body(ByteView(bytes: raw)))
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }
}
