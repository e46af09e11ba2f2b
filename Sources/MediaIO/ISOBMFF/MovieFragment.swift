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
