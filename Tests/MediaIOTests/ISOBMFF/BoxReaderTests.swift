import Foundation
import MarqueeTestSupport
import MediaIO
import Testing

/// The ISO BMFF box reader (ISO/IEC 14496-12 §4.2) on boxes built byte by
/// byte here: nesting, 64-bit and to-the-end sizes, and the hostile sizes a
/// file given to `verify` may carry, none of which may read outside the
/// bytes, overflow or trap.
@Suite("ISO BMFF box reader")
struct BoxReaderTests {
  typealias BoxReader = ISOBMFF.BoxReader

  // MARK: - Building boxes

  /// `count` bytes of `value`, big-endian.
  static func be(_ value: UInt64, _ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(count - 1 - $0))) }
  }

  /// A box with a 32-bit size (or `size` as given).
  static func box(_ type: String, _ payload: [UInt8] = [], size: UInt32? = nil) -> [UInt8] {
    be(UInt64(size ?? UInt32(8 + payload.count)), 4) + Array(type.utf8) + payload
  }

  /// A box with size 1 and a 64-bit `largesize` (or `largeSize` as given).
  static func largeBox(_ type: String, _ payload: [UInt8], largeSize: UInt64? = nil) -> [UInt8] {
    be(1, 4) + Array(type.utf8) + be(largeSize ?? UInt64(16 + payload.count), 8) + payload
  }

  // MARK: - Walking

  @Test("nested boxes: types, ranges, payloads and depths, in file order")
  func nested() throws {
    let hdlr = Self.box("hdlr", [0, 0, 0, 0] + Self.be(0, 4) + Array("soun".utf8) + [UInt8](repeating: 0, count: 12))
    let bytes = Self.box("ftyp", Array("isom".utf8) + Self.be(0x200, 4))
      + Self.box("moov", Self.box("mvhd", [1, 0, 0, 0]) + Self.box("trak", Self.box("mdia", hdlr)))
      + Self.box("mdat", [9, 9, 9])
    let file = BoxReader(bytes)
    #expect(file.topLevelBoxes.map(\.type) == ["ftyp", "moov", "mdat"])
    #expect(file.topLevelBoxes.map(\.range) == [0..<16, 16..<(bytes.count - 11), (bytes.count - 11)..<bytes.count])
    let moov = try #require(file.topLevelBox("moov"))
    #expect(moov.depth == 0 && moov.headerSize == 8 && moov.payload == 24..<moov.range.upperBound)
    #expect(file.children(of: moov).map(\.type) == ["mvhd", "trak"])
    let mdia = try #require(file.child("trak", of: moov).flatMap { file.child("mdia", of: $0) })
    let found = try #require(file.child("hdlr", of: mdia))
    #expect(found.depth == 3)
    #expect(file.fourCC(found, at: 8) == "soun")
    let mvhd = try #require(file.child("mvhd", of: moov).flatMap(file.fullBoxHeader))
    #expect(mvhd.version == 1 && mvhd.flags == 0)
    #expect(file.child("udta", of: moov) == nil)
    #expect(ISOBMFF.BoxType(rawValue: 0x6D6F_6F76) == "moov" && ISOBMFF.BoxType(rawValue: 0x6D00_0A76).description == "m??v")
  }

  @Test("size 1 takes the 64-bit largesize; size 0 runs to the end of what holds the box")
  func largeAndToTheEnd() {
    let bytes = Self.largeBox("mdat", [1, 2, 3, 4]) + Self.box("moof", Self.box("free", [7]) + Self.box("traf", [5, 5], size: 0))
    let file = BoxReader(bytes)
    let boxes = file.topLevelBoxes
    #expect(boxes.map(\.type) == ["mdat", "moof"])
    #expect(boxes[0].headerSize == 16 && boxes[0].payload == 16..<20)
    // traf's size 0: to the end of moof's payload, not of the file.
    let children = file.children(of: boxes[1])
    #expect(children.map(\.type) == ["free", "traf"])
    #expect(children[1].range.upperBound == boxes[1].range.upperBound && children[1].payload.count == 2)
    // A top-level size 0: to the end of the bytes.
    #expect(BoxReader(Self.box("mdat", [1, 2, 3], size: 0) + [4, 5]).topLevelBoxes.map(\.range) == [0..<13])
    // The header says which: a size 0 box extends to the end, a sized one
    // that happens to end there does not.
    let open = Self.box("mdat", [1, 2, 3], size: 0), sized = Self.box("mdat", [1, 2, 3])
    let openHeader = try? ISOBMFF.BoxHeader(reading: open[...], at: 0, end: UInt64(open.count))
    let sizedHeader = try? ISOBMFF.BoxHeader(reading: sized[...], at: 0, end: UInt64(sized.count))
    #expect(openHeader?.extendsToEnd == true && openHeader?.size == 11)
    #expect(sizedHeader?.extendsToEnd == false && sizedHeader?.size == 11)
  }

  @Test("hostile sizes end the walk after the boxes before them", arguments: [
    ("past the end", BoxReaderTests.box("free", [1, 2], size: 4096)),
    ("smaller than the header", BoxReaderTests.box("free", [1, 2], size: 7)),
    ("largesize smaller than the header", BoxReaderTests.largeBox("free", [], largeSize: 15)),
    ("largesize cut short", BoxReaderTests.be(1, 4) + Array("free".utf8) + [0, 0, 0]),
    ("largesize past the end", BoxReaderTests.largeBox("free", [1], largeSize: 1 << 40)),
    ("largesize of 2^64 - 1", BoxReaderTests.largeBox("free", [1], largeSize: .max)),
    ("largesize above Int.max", BoxReaderTests.largeBox("free", [1], largeSize: UInt64(Int.max) + 2)),
  ])
  func hostileSizes(_ name: String, _ tail: [UInt8]) {
    let good = Self.box("ftyp", Array("isom".utf8))
    let file = BoxReader(good + tail + Self.box("moov"))
    #expect(file.topLevelBoxes.map(\.type) == ["ftyp"], "\(name)")
    // The same inside a parent: the parent stands, its children stop.
    let nested = BoxReader(Self.box("moov", good + tail))
    #expect(nested.topLevelBoxes.map(\.type) == ["moov"], "\(name)")
    #expect(nested.children(of: nested.topLevelBoxes[0]).map(\.type) == ["ftyp"], "\(name)")
  }

  @Test("a child may not run past its parent, even where the file goes on")
  func childPastParent() throws {
    let moov = Self.box("moov", Self.box("trak", [1, 2, 3, 4], size: 40))
    let file = BoxReader(moov + [UInt8](repeating: 0, count: 64))
    let parent = try #require(file.topLevelBox("moov"))
    #expect(file.children(of: parent).isEmpty)
  }

  @Test("nesting stops at the depth limit (a box every 8 bytes cannot nest without end)")
  func depthLimit() {
    var bytes = Self.box("free")
    for _ in 0..<40 { bytes = Self.box("moov", bytes) }
    let file = BoxReader(bytes)
    var level = file.topLevelBoxes
    var deepest = 0
    while let box = level.first {
      deepest = box.depth
      level = file.children(of: box)
    }
    #expect(deepest == BoxReader.maximumDepth)
  }

  // MARK: - Fields

  @Test("fields are read inside their box's payload only, and written in place")
  func fields() throws {
    let tfdt = Self.box("tfdt", [1, 0, 0, 0] + Self.be(0x0102_0304_0506_0708, 8))
    let bytes = tfdt + Self.box("free", [0xAA, 0xBB, 0xCC, 0xDD])
    let file = BoxReader(bytes)
    let box = file.topLevelBoxes[0]
    #expect(file.uint8(box, at: 0) == 1)
    #expect(file.uint64(box, at: 4) == 0x0102_0304_0506_0708)
    #expect(file.uint32(box, at: 8) == 0x0506_0708)
    // Reads that would reach the next box, or start before the payload.
    for position in [9, 12, -1, Int.max, Int.min] {
      #expect(file.uint32(box, at: position) == nil, "\(position)")
    }
    #expect(file.uint64(box, at: 5) == nil && file.uint8(box, at: 12) == nil)

    let field = try #require(file.field(box, at: 4, width: 8))
    #expect(field.offset == 12 && field.maximum == .max)
    var copy = bytes
    field.write(0x1122_3344_5566_7788, into: &copy)
    #expect(BoxReader(copy).uint64(box, at: 4) == 0x1122_3344_5566_7788)
    #expect(copy[0..<12] == bytes[0..<12] && copy[20...] == bytes[20...])
    #expect(file.field(box, at: 0, width: 4)?.maximum == 0xFFFF_FFFF)
  }

  // MARK: - Movie fragments

  /// A media segment: `styp`, then `moof` (`mfhd`, one `traf` per track:
  /// `tfhd` with `tfhdFields` after its track id, `trun` listing one sample
  /// of `sampleSize` bytes from `data_offset`), then `mdat`.
  static func segment(tracks: [UInt32], tfhdFlags: UInt32 = 0x02_0000, tfhdFields: [UInt8] = [],
                      trunFlags: UInt32 = 0x201, sampleSize: UInt32 = 100, dataOffset: Int32? = nil,
                      mdat: Int = 300) -> [UInt8] {
    func trafs(_ offset: Int32) -> [UInt8] {
      tracks.flatMap { id in
        var trun = Self.be(UInt64(trunFlags), 4) + Self.be(1, 4)
        if trunFlags & 0x01 != 0 { trun += Self.be(UInt64(UInt32(bitPattern: offset)), 4) }
        if trunFlags & 0x200 != 0 { trun += Self.be(UInt64(sampleSize), 4) }
        return Self.box("traf", Self.box("tfhd", Self.be(UInt64(tfhdFlags), 4) + Self.be(UInt64(id), 4) + tfhdFields)
          + Self.box("trun", trun))
      }
    }
    let styp = Self.box("styp", Array("msdh".utf8))
    // data_offset from the moof's first byte to the mdat's payload.
    let moofSize = Self.box("moof", Self.box("mfhd", Self.be(1, 8)) + trafs(0)).count
    let moof = Self.box("moof", Self.box("mfhd", Self.be(1, 8)) + trafs(dataOffset ?? Int32(moofSize + 8)))
    return styp + moof + Self.box("mdat", [UInt8](repeating: 0x42, count: mdat))
  }

  @Test("the first sample of a track ends at moof + data_offset + its size")
  func firstSampleEnd() {
    let bytes = Self.segment(tracks: [1, 2])
    let moofStart = 12
    let moof = BoxReader(bytes).topLevelBoxes[1]
    #expect(moof.range.lowerBound == moofStart)
    // The mdat payload starts right after the moof and its 8-byte header.
    #expect(BoxReader(bytes).firstSampleEnd(ofTrack: 1) == moof.range.upperBound + 8 + 100)
    #expect(BoxReader(bytes).firstSampleEnd(ofTrack: 2) == moof.range.upperBound + 8 + 100)
    #expect(BoxReader(bytes).firstSampleEnd(ofTrack: 3) == nil)
    // The size from tfhd's default-sample-size when trun gives none.
    let byDefault = Self.segment(tracks: [1], tfhdFlags: 0x02_0010, tfhdFields: Self.be(64, 4), trunFlags: 0x001)
    #expect(BoxReader(byDefault).firstSampleEnd(ofTrack: 1) == BoxReader(byDefault).topLevelBoxes[1].range.upperBound + 8 + 64)
    // No size anywhere, or a trun listing no sample.
    #expect(BoxReader(Self.segment(tracks: [1], trunFlags: 0x001)).firstSampleEnd(ofTrack: 1) == nil)
  }

  @Test("hostile fragments give no sample end, and never trap", arguments: [
    ("base_data_offset near Int.max", BoxReaderTests.segment(tracks: [1], tfhdFlags: 0x01, tfhdFields: BoxReaderTests.be(UInt64(Int.max) - 10, 8))),
    ("base_data_offset of 2^64 - 1", BoxReaderTests.segment(tracks: [1], tfhdFlags: 0x01, tfhdFields: BoxReaderTests.be(.max, 8))),
    ("base_data_offset cut off", BoxReaderTests.segment(tracks: [1], tfhdFlags: 0x01, tfhdFields: BoxReaderTests.be(5, 4))),
    ("data_offset before the file", BoxReaderTests.segment(tracks: [1], dataOffset: Int32.min)),
    ("sample past the end", BoxReaderTests.segment(tracks: [1], sampleSize: .max)),
    ("sample past the end of the mdat", BoxReaderTests.segment(tracks: [1], sampleSize: 301)),
  ])
  func hostileFragments(_ name: String, _ bytes: [UInt8]) {
    #expect(BoxReader(bytes).firstSampleEnd(ofTrack: 1) == nil, "\(name)")
  }

  // MARK: - Files

  @Test("a file's top-level boxes from their headers; a malformed size is an error naming the box")
  func topLevelOfFile() throws {
    let fixture = try BatchFixture("iso-bmff")
    defer { fixture.remove() }
    func boxes(_ bytes: [UInt8]) throws(MediaIOError) -> [ISOBMFF.Box] {
      let url = fixture.dir.appendingPathComponent("f-\(UUID().uuidString).mp4")
      try! Data(bytes).write(to: url)
      return try ISOBMFF.topLevelBoxes(of: ReadableFile.open(path: url.path))
    }
    let head = Self.box("ftyp", Array("isom".utf8) + Self.be(0, 4)) + Self.box("moov", Self.box("mvhd", [0, 0, 0, 0]))
    #expect(try boxes(head + Self.largeBox("mdat", [1, 2, 3]) + [0, 0, 0]).map(\.type) == ["ftyp", "moov", "mdat"])
    #expect(try boxes(head + Self.box("mdat", [1, 2, 3], size: 0)).map(\.range.upperBound) == [16, 36, 47])

    let cases: [(bytes: [UInt8], message: String)] = [
      (head + Self.box("mdat", [1], size: 4096), "box 'mdat' at byte 36 claims 4096 bytes, past the end at byte 45"),
      (head + Self.largeBox("mdat", [1], largeSize: .max), "box 'mdat' at byte 36 claims 18446744073709551615 bytes, past the end at byte 53"),
      (head + Self.box("mdat", [], size: 3), "box 'mdat' at byte 36 claims 3 bytes, less than its 8-byte header"),
      (head + Self.be(1, 4) + Array("md\u{1}t".utf8) + [0, 0], "box 'md?t' at byte 36 is cut short"),
    ]
    for c in cases {
      do {
        _ = try boxes(c.bytes)
        Issue.record("no error for \(c.message)")
      } catch {
        #expect(error.kind == .invalidData && error.reason == c.message, "\(error)")
      }
    }
  }
}
