extension ISOBMFF {
  /// A box header (ISO/IEC 14496-12 §4.2): a 32-bit `size` and the `type`,
  /// then a 64-bit `largesize` when `size` is 1; `size` 0 means the box runs
  /// to the end of what holds it (the file, for a top-level box).
  ///
  /// A `uuid` box's 16-byte extended type is the start of its payload here.
  public struct BoxHeader: Sendable, Equatable {
    public var type: BoxType
    /// The whole box in bytes, header included.
    public var size: UInt64
    /// Bytes before the payload: 8, or 16 with a `largesize`.
    public var headerSize: Int
    /// Whether its `size` field is 0: the box runs to the end of what holds
    /// it (§4.2; a file whose last box, often `mdat`, is still open).
    public var extendsToEnd = false

    /// The most bytes a header takes: size, type and largesize.
    public static let maximumLength = 16

    /// Reads the header of the box starting at `offset`.
    ///
    /// - Parameters:
    ///   - bytes: the box's first bytes: at least 8, and 16 when what holds
    ///     the box has that many (fewer is only a problem when `size` is 1).
    ///   - offset: where the box starts, in bytes from the start of the file
    ///     or buffer; `end`: where what holds it ends (the file's size, or
    ///     the end of the parent's payload). `end - offset` must be at least 8.
    /// - Throws: `MalformedBox` when the `largesize` is cut off, the size is
    ///   smaller than the header (the next box would start inside this one),
    ///   or the box runs past `end`. Nothing is added, so no size overflows.
    public init(reading bytes: ArraySlice<UInt8>, at offset: UInt64, end: UInt64) throws(MalformedBox) {
      precondition(bytes.count >= 8 && end >= offset && end - offset >= 8, "a box header needs 8 bytes")
      let b = bytes.startIndex
      func be(_ from: Int, _ count: Int) -> UInt64 { bytes[(b + from)..<(b + from + count)].reduce(0) { $0 << 8 | UInt64($1) } }
      type = BoxType(rawValue: UInt32(be(4, 4)))
      let available = end - offset
      switch be(0, 4) {
      case 1:
        guard bytes.count >= 16, available >= 16 else {
          throw MalformedBox(type: type, offset: offset, problem: .largeSizeCutShort)
        }
        size = be(8, 8)
        headerSize = 16
      case 0:
        size = available
        headerSize = 8
        extendsToEnd = true
      case let size32:
        size = size32
        headerSize = 8
      }
      guard size >= UInt64(headerSize) else {
        throw MalformedBox(type: type, offset: offset, problem: .smallerThanHeader(size: size, headerSize: headerSize))
      }
      guard size <= available else {
        throw MalformedBox(type: type, offset: offset, problem: .pastEnd(size: size, end: end))
      }
    }
  }

  /// A box header that cannot be taken as it stands (§4.2).
  public struct MalformedBox: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
      /// `size` is 1 but the 64-bit `largesize` after the type is cut off.
      case largeSizeCutShort
      /// The size (`size` 2 to 7, or a `largesize` under 16) is smaller than
      /// the header itself.
      case smallerThanHeader(size: UInt64, headerSize: Int)
      /// The box runs past `end`, where what holds it ends.
      case pastEnd(size: UInt64, end: UInt64)
    }

    public var type: BoxType
    /// Where the box starts, in bytes.
    public var offset: UInt64
    public var problem: Problem

    public var description: String {
      switch problem {
      case .largeSizeCutShort:
        return "box '\(type)' at byte \(offset) is cut short"
      case .smallerThanHeader(let size, let headerSize):
        return "box '\(type)' at byte \(offset) claims \(size) bytes, less than its \(headerSize)-byte header"
      case .pastEnd(let size, let end):
        return "box '\(type)' at byte \(offset) claims \(size) bytes, past the end at byte \(end)"
      }
    }
  }
}
