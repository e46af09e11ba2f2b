internal import CFFmpeg
import Foundation

// MARK: - Why a file did not open

extension InputContainer {
  /// Why libavformat could not open a file that it reported as invalid data
  /// (`AVERROR_INVALIDDATA`), told from the file's own structure, never
  /// from its name:
  /// - an ISO BMFF file (MP4, MOV) whose top-level box runs past the end of
  ///   the file, or whose `mdat` runs to the end with no `moov` (its index)
  ///   anywhere: cut short, or still being copied or written
  ///   (`MediaIOError.Kind.truncated`);
  /// - an ISO BMFF file that is whole but has no `moov`: nothing says where
  ///   its pictures are (`invalidData`);
  /// - bytes in which no demuxer recognises a container
  ///   (`av_probe_input_format2` over the first MiB, as `avformat_open_input`
  ///   probes, without the file's name): not a media file (`invalidData`).
  ///
  /// - Returns: nil when none of these applies (FFmpeg's own reason stands).
  static func diagnoseInvalidData(_ reader: ByteReader, function: String, name: String) -> MediaIOError? {
    if let layout = ISOBoxLayout(reading: reader) {
      guard let reason = layout.problem else { return nil }
      return .failure(function, name, reason.text, kind: reason.isTruncation ? .truncated : .invalidData)
    }
    guard !reader.matchesSomeContainer else { return nil }
    return .failure(function, name, "not a media file: its bytes match no container format (no video or audio format starts like it)",
                    kind: .invalidData)
  }
}

extension ByteReader {
  /// Up to `count` bytes at `offset`, whatever the demuxer's position.
  func bytes(at offset: Int64, count: Int) -> [UInt8] {
    guard offset >= 0, offset < size, count > 0 else { return [] }
    let wanted = Int(min(Int64(count), size - offset))
    var out = [UInt8](repeating: 0, count: wanted)
    let n: Int = out.withUnsafeMutableBytes { raw in
      switch backing {
      case .file(let f): return max(0, f.read(at: offset, into: raw))
      case .memory(let d):
        let start = d.startIndex + Int(offset)
        return d.copyBytes(to: raw, from: start..<(start + wanted))
      }
    }
    return Array(out.prefix(n))
  }

  /// Whether any demuxer libavformat has recognises a container in the
  /// first MiB (`av_probe_input_format2`, any score above 0, the file's
  /// name left out): the last round of `av_probe_input_buffer2`.
  var matchesSomeContainer: Bool {
    var buffer = bytes(at: 0, count: 1 << 20)
    let count = Int32(buffer.count)
    buffer += [UInt8](repeating: 0, count: Int(AVPROBE_PADDING_SIZE))
    return buffer.withUnsafeMutableBufferPointer { buf in
      "".withCString { empty in
        var probe = AVProbeData(filename: empty, buf: buf.baseAddress, buf_size: count, mime_type: nil)
        var score: Int32 = 0
        return av_probe_input_format2(&probe, 1, &score) != nil
      }
    }
  }
}

// MARK: - ISO BMFF box layout

/// The top-level boxes of an ISO BMFF file (MP4, MOV, 3GP), read from their
/// 8- or 16-byte headers alone with ``ISOBMFF/BoxHeader`` (ISO/IEC 14496-12
/// §4.2: a 32-bit size, the type, a 64-bit size when the size is 1, to the
/// end of the file when 0).
struct ISOBoxLayout {
  struct Box {
    /// The four-character type (`ftyp`, `mdat`, `moov`, …); nil when the
    /// header itself is cut.
    var type: ISOBMFF.BoxType?
    /// Where its header starts, bytes from the start of the file.
    var offset: Int64
    /// Its declared size in bytes, header included; nil when it runs to
    /// the end of the file (size 0) or its header is cut.
    var size: Int64?
  }

  /// Box types an ISO BMFF file may start with: `ftyp` (ISO/IEC 14496-12),
  /// or a QuickTime file's first atom.
  static let leadingTypes: Set<ISOBMFF.BoxType> = ["ftyp", "moov", "mdat", "free", "skip", "wide", "pnot"]

  /// The file's size in bytes.
  let fileSize: Int64
  /// The boxes whose headers are whole, in file order.
  private(set) var boxes: [Box] = []
  /// The first box whose declared size runs past the end of the file (or
  /// whose header is cut): where the file was cut.
  private(set) var cut: Box?

  /// Reads the box headers of `reader`.
  ///
  /// - Returns: nil when the bytes do not start with a box an ISO BMFF file
  ///   starts with.
  init?(reading reader: ByteReader) {
    fileSize = reader.size
    var offset: Int64 = 0
    while offset < fileSize, boxes.count < 100_000 {
      let bytes = reader.bytes(at: offset, count: ISOBMFF.BoxHeader.maximumLength)
      guard bytes.count >= 8 else {
        // A few bytes are no box; after whole boxes, a cut header is.
        if boxes.isEmpty { return nil }
        cut = Box(type: nil, offset: offset, size: nil)
        break
      }
      // Text that happens to be 8 bytes long is no box.
      guard bytes[4..<8].allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { break }
      do {
        let header = try ISOBMFF.BoxHeader(reading: bytes[...], at: UInt64(offset), end: UInt64(fileSize))
        if boxes.isEmpty && !Self.leadingTypes.contains(header.type) { return nil }
        boxes.append(Box(type: header.type, offset: offset, size: header.extendsToEnd ? nil : Int64(header.size)))
        if header.extendsToEnd { break }
        offset += Int64(header.size)
      } catch {
        if boxes.isEmpty && !Self.leadingTypes.contains(error.type) { return nil }
        switch error.problem {
        case .largeSizeCutShort:
          cut = Box(type: error.type, offset: offset, size: nil)
        case .pastEnd(let size, _) where size <= UInt64(Int64.max):
          cut = Box(type: error.type, offset: offset, size: Int64(size))
        case .pastEnd, .smallerThanHeader:
          // A size no file has, or one inside its own header: not a layout
          // to say anything about past here.
          break
        }
        break
      }
    }
    if boxes.isEmpty && cut == nil { return nil }
  }

  /// Whether a whole `moov` (the index: where each sample is) is there.
  var hasIndex: Bool { boxes.contains { $0.type == "moov" } }

  /// What is wrong with the layout, or nil when it looks whole.
  var problem: (text: String, isTruncation: Bool)? {
    let index = "its index (the 'moov' box)"
    if let cut {
      var text = "the source is truncated or still being copied: it ends at byte \(fileSize)"
      if let size = cut.size, let type = cut.type {
        text += ", inside its '\(type)' box, which declares \(size) bytes from byte \(cut.offset)"
      } else {
        text += ", inside the header of a box at byte \(cut.offset)"
      }
      if cut.type == "moov" {
        text += "; \(index) is cut, so none of it can be read"
      } else if !hasIndex {
        text += ", and \(index) is not there, so none of it can be read"
      }
      return (text, true)
    }
    guard !hasIndex else { return nil }
    if let open = boxes.last, open.size == nil, open.type == "mdat" {
      return ("the source is truncated or still being copied: its 'mdat' box runs to the end of the file and \(index) "
                + "is not there, so none of it can be read (the program writing it has not finished)", true)
    }
    return ("the file has no index (no 'moov' box), so none of it can be read; re-export it", false)
  }
}
