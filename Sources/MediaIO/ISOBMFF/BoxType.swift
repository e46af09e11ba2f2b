/// The ISO base media file format (ISO/IEC 14496-12): the box structure of
/// MP4, of fragmented MP4 (HLS init sections and segments) and of HEIF.
///
/// The one reader of that structure in Marquee: the HLS segment recorder
/// and I-frame playlist (`BoxReader.firstSampleEnd(ofTrack:)`), the sound
/// track's decode delay (fields read and rewritten in place, `Field`) and
/// `verify` (an MP4's top-level order, `topLevelBoxes(of:)`, from a file it
/// does not trust). Every size is checked against the bytes that hold the
/// box (§4.2), with 64-bit sizes and "to the end" sizes, no sum can
/// overflow, and boxes nest at most `BoxReader.maximumDepth` deep.
public enum ISOBMFF {}

extension ISOBMFF {
  /// A box type (§4.2 `type`, a four-character code such as `moov`): its
  /// four bytes as a big-endian integer, written as a string literal.
  public struct BoxType: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The four bytes, the first one most significant.
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
      self.rawValue = rawValue
    }

    /// `value` must be four ASCII characters (a literal in the code, never
    /// input: anything else traps).
    public init(stringLiteral value: String) {
      let bytes = Array(value.utf8)
      precondition(bytes.count == 4 && bytes.allSatisfy { $0 < 0x80 }, "a box type is four ASCII characters: \(value)")
      rawValue = bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The four characters, each byte outside printable ASCII shown as `?`
    /// (a hostile file's type is printed in messages).
    public var description: String {
      let bytes = (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (24 - 8 * $0)) }
      return String(decoding: bytes.map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
  }
}
