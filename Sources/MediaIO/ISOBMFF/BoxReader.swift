extension ISOBMFF {
  /// One box found in a file or buffer (ISO/IEC 14496-12 §4.2).
  public struct Box: Sendable, Equatable {
    public var type: BoxType
    /// The whole box, header included, in bytes from the start of the file
    /// or buffer.
    public var range: Range<Int>
    /// Bytes before the payload: 8, or 16 with a `largesize`.
    public var headerSize: Int
    /// 0 for a top-level box, 1 for its children, and so on.
    public var depth: Int

    /// The box's contents after its header.
    public var payload: Range<Int> { (range.lowerBound + headerSize)..<range.upperBound }
  }

  /// Reads boxes and their big-endian fields from bytes in memory (an init
  /// section, a media segment): nothing outside the bytes is read and
  /// nothing traps, whatever the sizes say.
  ///
  /// A walk is lenient: a list of boxes ends at the first header that is
  /// malformed (`BoxHeader.init(reading:at:end:)`), with the boxes before
  /// it; a field outside its box's payload reads as nil.
  ///
  /// ```swift
  /// let file = ISOBMFF.BoxReader(bytes)
  /// if let moov = file.topLevelBox("moov"), let mvhd = file.child("mvhd", of: moov) {
  ///   let version = file.uint8(mvhd, at: 0)
  /// }
  /// ```
  public struct BoxReader: Sendable {
    public let bytes: [UInt8]

    /// How deep boxes are followed: `children(of:)` of a box at this depth
    /// is empty. A real file nests about 8 deep (`moov/trak/mdia/minf/stbl/
    /// stsd/avc1/avcC`); a hostile one could nest a box every 8 bytes.
    public static let maximumDepth = 16

    public init(_ bytes: [UInt8]) {
      self.bytes = bytes
    }

    // MARK: - Walking

    /// The top-level boxes, in file order.
    public var topLevelBoxes: [Box] { boxes(in: 0..<bytes.count, depth: 0) }

    /// The first top-level box of `type`.
    public func topLevelBox(_ type: BoxType) -> Box? {
      topLevelBoxes.first { $0.type == type }
    }

    /// The boxes in `parent`'s payload, in order (a container box such as
    /// `moov`, `trak`, `moof` or `traf`); empty below `maximumDepth`.
    public func children(of parent: Box) -> [Box] {
      guard parent.depth < Self.maximumDepth else { return [] }
      return boxes(in: parent.payload, depth: parent.depth + 1)
    }

    /// The first box of `type` in `parent`'s payload.
    public func child(_ type: BoxType, of parent: Box) -> Box? {
      children(of: parent).first { $0.type == type }
    }

    private func boxes(in range: Range<Int>, depth: Int) -> [Box] {
      guard range.lowerBound >= 0, range.upperBound <= bytes.count else { return [] }
      var found: [Box] = []
      var offset = range.lowerBound
      while range.upperBound - offset >= 8 {
        let head = bytes[offset..<min(offset + BoxHeader.maximumLength, range.upperBound)]
        guard let header = try? BoxHeader(reading: head, at: UInt64(offset), end: UInt64(range.upperBound)) else { break }
        let end = offset + Int(header.size)  // at most range.upperBound: the header checked it
        found.append(Box(type: header.type, range: offset..<end, headerSize: header.headerSize, depth: depth))
        offset = end
      }
      return found
    }

    // MARK: - Fields

    /// The byte at `position` of `box`'s payload, nil past its end.
    public func uint8(_ box: Box, at position: Int) -> UInt8? {
      field(box, at: position, width: 1).map { bytes[$0.offset] }
    }

    /// The big-endian 32-bit field at `position` of `box`'s payload, nil
    /// when it does not lie wholly inside the payload.
    public func uint32(_ box: Box, at position: Int) -> UInt32? {
      field(box, at: position, width: 4).map { UInt32(value(of: $0)) }
    }

    /// The big-endian 64-bit field at `position` of `box`'s payload.
    public func uint64(_ box: Box, at position: Int) -> UInt64? {
      field(box, at: position, width: 8).map { value(of: $0) }
    }

    /// The four bytes at `position` of `box`'s payload as a code
    /// (`hdlr`'s `handler_type`, a brand).
    public func fourCC(_ box: Box, at position: Int) -> BoxType? {
      uint32(box, at: position).map(BoxType.init(rawValue:))
    }

    /// A full box's `version` and 24-bit `flags` (§4.2 `FullBox`), the
    /// first four bytes of its payload.
    public func fullBoxHeader(_ box: Box) -> (version: UInt8, flags: UInt32)? {
      uint32(box, at: 0).map { (UInt8($0 >> 24), $0 & 0x00FF_FFFF) }
    }

    /// The unsigned big-endian field of `width` bytes (1, 4 or 8) at
    /// `position` of `box`'s payload, to read or rewrite; nil when it does
    /// not lie wholly inside the payload (a negative or huge `position`
    /// included).
    public func field(_ box: Box, at position: Int, width: Int) -> Field? {
      let payload = box.payload
      guard payload.lowerBound >= 0, payload.upperBound <= bytes.count,
            position >= 0, position <= payload.count - width else { return nil }
      return Field(offset: payload.lowerBound + position, width: width)
    }

    /// A field's value (`field(_:at:width:)` checked it lies in the bytes).
    public func value(of field: Field) -> UInt64 {
      bytes[field.offset..<(field.offset + field.width)].reduce(0) { $0 << 8 | UInt64($1) }
    }
  }

  /// An unsigned big-endian integer field of a box, found by
  /// `BoxReader.field(_:at:width:)`: where it is, to rewrite it in place
  /// without changing any size (a decode time, an edit's media time).
  public struct Field: Sendable, Equatable {
    /// Bytes from the start of the file or buffer.
    public let offset: Int
    /// 1, 4 or 8 bytes (times are 32-bit in version 0 of a full box, 64-bit
    /// in version 1).
    public let width: Int

    /// The largest value the field holds.
    public var maximum: UInt64 { width >= 8 ? .max : (1 << UInt64(8 * width)) - 1 }

    /// Writes `value` big-endian into the field in `bytes`, the buffer it
    /// was found in (or a copy of it).
    ///
    /// Traps when `value` exceeds `maximum` or the field is outside `bytes`:
    /// callers check the value first.
    public func write(_ value: UInt64, into bytes: inout [UInt8]) {
      precondition(value <= maximum && offset >= 0 && offset + width <= bytes.count, "field write out of range")
      for k in 0..<width {
        bytes[offset + k] = UInt8(truncatingIfNeeded: value >> UInt64(8 * (width - 1 - k)))
      }
    }
  }
}
