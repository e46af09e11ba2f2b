import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension ISOBMFF {
  /// The top-level boxes of a file, in file order, read from their headers
  /// alone (an MP4 of gigabytes is not read into memory): `verify`'s check
  /// that `moov` comes before `mdat`.
  ///
  /// Stricter than `BoxReader`'s walk: a malformed header is an error, not
  /// the end of the list. Fewer than 8 bytes after the last box are left
  /// unread.
  ///
  /// - Throws: `MediaIOError` (`invalidData`) naming the box, its offset and
  ///   what is wrong with its size (`MalformedBox`); (`input`) when a read
  ///   fails.
  public static func topLevelBoxes(of file: ReadableFile) throws(MediaIOError) -> [Box] {
    let end = file.size
    var offset: Int64 = 0
    var boxes: [Box] = []
    var head = [UInt8](repeating: 0, count: BoxHeader.maximumLength)
    while end - offset >= 8 {
      let count = head.withUnsafeMutableBytes { file.read(at: offset, into: $0) }
      if count < 0 {
        let code = errno
        throw .failure("read", file.name, String(cString: strerror(code)), kind: .input(errno: code))
      }
      guard count >= 8 else { break }  // the file shrank while it was read
      let header: BoxHeader
      do {
        header = try BoxHeader(reading: head[0..<count], at: UInt64(offset), end: UInt64(end))
      } catch {
        throw .failure("ISO BMFF box header", file.name, error.description, kind: .invalidData)
      }
      let next = offset + Int64(header.size)  // at most `end`: the header checked it
      boxes.append(Box(type: header.type, range: Int(offset)..<Int(next), headerSize: header.headerSize, depth: 0))
      offset = next
    }
    return boxes
  }
}
