extension ISOBMFF.BoxReader {
  /// Where the first sample of track `trackID` ends in a fragmented-MP4
  /// media segment (ISO/IEC 14496-12 §8.8: `moof` → `traf` → `tfhd` +
  /// `trun`): bytes `0..<end` hold what comes before the first `moof`
  /// (`styp`, `sidx`), the whole `moof`, and that sample's data. An HLS
  /// I-frame playlist points its byte range at it.
  ///
  /// The sample's data starts at the base data offset (`tfhd`'s
  /// `base_data_offset` when given, else the `moof`'s first byte, as
  /// `default-base-is-moof` says) plus `trun`'s signed `data_offset`; its
  /// size is `trun`'s first `sample_size`, or `tfhd`'s
  /// `default_sample_size`.
  ///
  /// - Returns: nil when the bytes hold no fragment with that track, its
  ///   `trun` lists no sample or no size, or the sample would end outside
  ///   the bytes.
  public func firstSampleEnd(ofTrack trackID: UInt32) -> Int? {
    for moof in topLevelBoxes where moof.type == "moof" {
      for traf in children(of: moof) where traf.type == "traf" {
        let boxes = children(of: traf)
        guard let tfhd = boxes.first(where: { $0.type == "tfhd" }), let tfhdFlags = fullBoxHeader(tfhd)?.flags,
              uint32(tfhd, at: 4) == trackID else { continue }
        var position = 8
        var base = moof.range.lowerBound
        if tfhdFlags & 0x01 != 0 {  // base-data-offset-present
          guard let offset = uint64(tfhd, at: position), offset <= UInt64(bytes.count) else { return nil }
          base = Int(offset)
          position += 8
        }
        if tfhdFlags & 0x02 != 0 { position += 4 }  // sample-description-index-present
        if tfhdFlags & 0x08 != 0 { position += 4 }  // default-sample-duration-present
        var defaultSize: UInt32? = nil
        if tfhdFlags & 0x10 != 0 { defaultSize = uint32(tfhd, at: position) }  // default-sample-size-present

        guard let trun = boxes.first(where: { $0.type == "trun" }), let trunFlags = fullBoxHeader(trun)?.flags,
              let count = uint32(trun, at: 4), count > 0 else { return nil }
        position = 8
        var dataOffset = 0
        if trunFlags & 0x01 != 0 {  // data-offset-present
          guard let offset = uint32(trun, at: position) else { return nil }
          dataOffset = Int(Int32(bitPattern: offset))
          position += 4
        }
        if trunFlags & 0x04 != 0 { position += 4 }  // first-sample-flags-present
        if trunFlags & 0x100 != 0 { position += 4 }  // sample-duration-present
        var size = defaultSize
        if trunFlags & 0x200 != 0 { size = uint32(trun, at: position) }  // sample-size-present
        guard let sampleSize = size else { return nil }
        // base <= bytes.count, |dataOffset| < 2^31, sampleSize < 2^32: no overflow.
        let end = base + dataOffset + Int(sampleSize)
        guard end > 0, end <= bytes.count else { return nil }
        return end
      }
    }
    return nil
  }
}

extension ISOBMFF.BoxReader {
  /// When the first sample of track `trackID` in a media segment is
  /// presented, in the track's timescale ticks, before any edit list: the
  /// first fragment's `tfdt` `baseMediaDecodeTime` plus the first sample's
  /// `trun` composition offset (signed in a version 1 `trun`, ISO/IEC
  /// 14496-12 §8.8.8, §8.8.12). The first sample of a segment is its IDR.
  ///
  /// - Returns: nil when no fragment of that track has a `tfdt`.
  public func firstSamplePresentationTime(ofTrack trackID: UInt32) -> Int64? {
    for moof in topLevelBoxes where moof.type == "moof" {
      for traf in children(of: moof) where traf.type == "traf" {
        let boxes = children(of: traf)
        guard let tfhd = boxes.first(where: { $0.type == "tfhd" }), uint32(tfhd, at: 4) == trackID,
              let tfdt = boxes.first(where: { $0.type == "tfdt" }), let tfdtVersion = fullBoxHeader(tfdt)?.version else { continue }
        let decode: UInt64? = tfdtVersion == 1 ? uint64(tfdt, at: 4) : uint32(tfdt, at: 4).map(UInt64.init)
        guard let base = decode, base <= UInt64(Int64.max / 2) else { return nil }
        var offset: Int64 = 0
        if let trun = boxes.first(where: { $0.type == "trun" }), let header = fullBoxHeader(trun),
           let count = uint32(trun, at: 4), count > 0, header.flags & 0x800 != 0 {  // sample-composition-time-offsets-present
          var position = 8
          if header.flags & 0x01 != 0 { position += 4 }  // data-offset-present
          if header.flags & 0x04 != 0 { position += 4 }  // first-sample-flags-present
          if header.flags & 0x100 != 0 { position += 4 }  // sample-duration-present
          if header.flags & 0x200 != 0 { position += 4 }  // sample-size-present
          if header.flags & 0x400 != 0 { position += 4 }  // sample-flags-present
          if let raw = uint32(trun, at: position) {
            offset = header.version == 1 ? Int64(Int32(bitPattern: raw)) : Int64(raw)
          }
        }
        return Int64(base) + offset
      }
    }
    return nil
  }
}

extension ISOBMFF {
  /// The video track of an initialization section: its `tkhd` track ID,
  /// its `mdhd` timescale (ticks per second), and the RFC 6381 `CODECS`
  /// value its sample entry's decoder configuration gives (`avcC`:
  /// `avc1.PPCCLL`; `hvcC`: as `HEVCParameterSets.codecs`), nil when the
  /// entry is neither or its configuration is unreadable.
  public struct VideoTrack: Sendable, Equatable {
    public var trackID: UInt32
    public var timescale: UInt32
    public var codecs: String?
  }

  /// The first track whose `hdlr` handler is `vide`; nil when there is none.
  public static func videoTrack(initSection bytes: [UInt8]) -> VideoTrack? {
    let reader = BoxReader(bytes)
    guard let moov = reader.topLevelBox("moov") else { return nil }
    for trak in reader.children(of: moov) where trak.type == "trak" {
      guard let tkhd = reader.child("tkhd", of: trak), let mdia = reader.child("mdia", of: trak),
            let hdlr = reader.child("hdlr", of: mdia), reader.fourCC(hdlr, at: 8) == "vide",
            let mdhd = reader.child("mdhd", of: mdia), let mdhdVersion = reader.fullBoxHeader(mdhd)?.version,
            let tkhdVersion = reader.fullBoxHeader(tkhd)?.version else { continue }
      // tkhd: version 1 has 8-byte times (track_ID after two of them).
      guard let trackID = reader.uint32(tkhd, at: tkhdVersion == 1 ? 20 : 12),
            let timescale = reader.uint32(mdhd, at: mdhdVersion == 1 ? 20 : 12) else { continue }
      var codecs: String? = nil
      if let minf = reader.child("minf", of: mdia), let stbl = reader.child("stbl", of: minf),
         let stsd = reader.child("stsd", of: stbl), let entryType = reader.fourCC(stsd, at: 12) {
        // The entry: a box after the 8-byte stsd header fields; its child
        // boxes follow the 78 bytes of VisualSampleEntry fields.
        let entryStart = stsd.payload.lowerBound + 8
        if let entrySize = reader.uint32(stsd, at: 8), entrySize >= 86,
           entryStart + Int(entrySize) <= stsd.range.upperBound {
          let entry = Box(type: entryType, range: entryStart..<(entryStart + Int(entrySize)), headerSize: 8 + 78,
                          depth: stsd.depth + 1)
          codecs = decoderConfigurationCodecs(reader, entry: entry)
        }
      }
      return VideoTrack(trackID: trackID, timescale: timescale, codecs: codecs)
    }
    return nil
  }

  /// `avc1.PPCCLL` from an `avcC` (profile, constraint flags, level: its
  /// bytes 1–3), or the HEVC value from an `hvcC` (its bytes 1–12 hold the
  /// general profile space, tier and profile, the 32 compatibility flags,
  /// the 6 constraint bytes and the level, ISO/IEC 14496-15 §8.3.3.1).
  static func decoderConfigurationCodecs(_ reader: BoxReader, entry: Box) -> String? {
    let prefix = entry.type.description
    if let avcC = reader.child("avcC", of: entry) {
      guard let p = reader.uint8(avcC, at: 1), let c = reader.uint8(avcC, at: 2), let l = reader.uint8(avcC, at: 3) else { return nil }
      return prefix + "." + [p, c, l].map { String(format: "%02X", $0) }.joined()
    }
    if let hvcC = reader.child("hvcC", of: entry) {
      let bytes = (1...12).compactMap { reader.uint8(hvcC, at: $0) }
      guard let ptl = HEVCParameterSets(profileTierLevel: bytes) else { return nil }
      return ptl.codecs.replacingOccurrences(of: "hvc1.", with: prefix + ".")
    }
    return nil
  }
}
