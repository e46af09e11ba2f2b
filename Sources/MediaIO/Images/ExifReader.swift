import Foundation

/// Reads the one EXIF field the image stage needs, `Orientation`, from the
/// TIFF structure inside a JPEG's APP1 `Exif\0\0` segment.
///
/// Every offset is checked against the segment's bounds: an IFD or value
/// that points outside the data yields `nil`, never a read past the end
/// (the corpus has a JPEG whose APP1 segment overruns the file).
public enum ExifReader {
  /// The TIFF tag of `Orientation` (TIFF 6.0 / Exif 2.32 §4.6.4, 0x0112).
  public static let orientationTag = 0x0112

  /// The raw `Orientation` value of IFD0, or `nil` when the TIFF data is
  /// malformed or has no such tag.
  ///
  /// - Parameter tiff: the bytes after `Exif\0\0`: a TIFF header (`II*\0` or
  ///   `MM\0*`), then IFDs.
  /// - Returns: the value as stored (valid values are 1–8, but any `SHORT`,
  ///   or `LONG` from a lenient writer, is returned so the caller can
  ///   report a bad one): 0...0xFFFF, or 0...0xFFFF_FFFF for a `LONG`.
  public static func orientation(tiff: Data) -> Int? {
    tiff.withUnsafeBytes { raw in orientation(ByteView(bytes: raw)) }
  }

  static func orientation(_ b: ByteView) -> Int? {
    let littleEndian: Bool
    if b.matches(0, "II") {
      littleEndian = true
    } else if b.matches(0, "MM") {
      littleEndian = false
    } else {
      return nil
    }
    func u16(_ i: Int) -> Int? { littleEndian ? b.le16(i) : b.be16(i) }
    func u32(_ i: Int) -> Int? { littleEndian ? b.le32(i) : b.be32(i) }
    guard u16(2) == 42, let ifd0 = u32(4), ifd0 >= 8, let count = u16(ifd0) else { return nil }
    for entry in 0..<count {
      let at = ifd0 + 2 + entry * 12
      guard let tag = u16(at), let type = u16(at + 2), let n = u32(at + 4) else { return nil }
      guard tag == orientationTag else { continue }
      // SHORT (3), count 1: the value sits in the first two bytes of the
      // 4-byte value field. Some writers use LONG (4); accept that too.
      guard n >= 1 else { return nil }
      switch type {
      case 3: return u16(at + 8)
      case 4: return u32(at + 8)
      default: return nil
      }
    }
    return nil
  }
}
