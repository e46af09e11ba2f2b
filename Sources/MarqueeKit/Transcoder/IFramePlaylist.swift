import Foundation

/// Finds the first sample of a track in a fragmented-MP4 media segment
/// (ISO/IEC 14496-12 §8.8: `moof` → `traf` → `tfhd` + `trun`), so an I-frame
/// playlist can point a byte range at it.
///
/// Marquee's segments open with an IDR frame (every segment starts with
/// one), so the first video sample of a segment is its I-frame.
public enum FragmentedMP4 {
  /// Where the first sample of `trackID` ends in the segment: the byte range
  /// `0..<end` holds `styp`/`sidx`, the whole `moof`, and that sample's data.
  ///
  /// - Returns: nil when the bytes are not a fragment with that track, or a
  ///   box is truncated or malformed (every size is bounds-checked).
  public static func firstSampleEnd(in data: Data, trackID: UInt32) -> Int? {
    firstSampleEnd(in: [UInt8](data), trackID: trackID)
  }

  /// `firstSampleEnd(in:trackID:)` on bytes in memory.
  public static func firstSampleEnd(in bytes: [UInt8], trackID: UInt32) -> Int? {
    func u32(_ o: Int) -> UInt32? {
      guard o >= 0, o + 4 <= bytes.count else { return nil }
      return UInt32(bytes[o]) << 24 | UInt32(bytes[o + 1]) << 16 | UInt32(bytes[o + 2]) << 8 | UInt32(bytes[o + 3])
    }
    func u64(_ o: Int) -> UInt64? {
      guard let hi = u32(o), let lo = u32(o + 4) else { return nil }
      return UInt64(hi) << 32 | UInt64(lo)
    }
    /// (type, payload start, box end) of the boxes in `start..<end`.
    func children(_ start: Int, _ end: Int) -> [(String, Int, Int)] {
      var out: [(String, Int, Int)] = []
      var o = start
      while o + 8 <= end, let size32 = u32(o) {
        let type = String(decoding: bytes[(o + 4)..<(o + 8)], as: UTF8.self)
        var header = 8
        var size = Int(size32)
        if size32 == 1 {
          guard let s64 = u64(o + 8), s64 <= UInt64(Int.max) else { break }
          size = Int(s64)
          header = 16
        } else if size32 == 0 {
          size = end - o
        }
        guard size >= header, o + size <= end else { break }
        out.append((type, o + header, o + size))
        o += size
      }
      return out
    }
    for (type, moofStart, moofEnd) in children(0, bytes.count) where type == "moof" {
      let moofOffset = moofStart - 8
      for (t, trafStart, trafEnd) in children(moofStart, moofEnd) where t == "traf" {
        let boxes = children(trafStart, trafEnd)
        guard let tfhd = boxes.first(where: { $0.0 == "tfhd" }), let tfhdFlags = u32(tfhd.1),
              let track = u32(tfhd.1 + 4), track == trackID else { continue }
        let flags = tfhdFlags & 0x00FF_FFFF
        var cursor = tfhd.1 + 8
        var base = moofOffset  // default-base-is-moof, or no base given
        if flags & 0x01 != 0 {
          guard let b = u64(cursor), b <= UInt64(Int.max) else { return nil }
          base = Int(b)
          cursor += 8
        }
        if flags & 0x02 != 0 { cursor += 4 }  // sample-description-index
        if flags & 0x08 != 0 { cursor += 4 }  // default-sample-duration
        var defaultSize: UInt32? = nil
        if flags & 0x10 != 0 { defaultSize = u32(cursor) }
        guard let trun = boxes.first(where: { $0.0 == "trun" }), let trunFlagsRaw = u32(trun.1),
              let count = u32(trun.1 + 4), count > 0 else { return nil }
        let trunFlags = trunFlagsRaw & 0x00FF_FFFF
        var p = trun.1 + 8
        var dataOffset = 0
        if trunFlags & 0x01 != 0 {
          guard let d = u32(p) else { return nil }
          dataOffset = Int(Int32(bitPattern: d))
          p += 4
        }
        if trunFlags & 0x04 != 0 { p += 4 }  // first-sample-flags
        if trunFlags & 0x100 != 0 { p += 4 }  // sample duration
        var size = defaultSize
        if trunFlags & 0x200 != 0 { size = u32(p) }
        guard let sampleSize = size else { return nil }
        let end = base + dataOffset + Int(sampleSize)
        guard end > 0, end <= bytes.count else { return nil }
        return end
      }
    }
    return nil
  }
}

/// Writes an I-frame playlist for a rendition (Apple HLS authoring spec
/// §6.1; RFC 8216 §4.3.3.6 `EXT-X-I-FRAMES-ONLY`): one entry per segment,
/// a byte range covering the segment's `moof` and its opening IDR frame.
public struct IFramePlaylistWriter: Sendable {
  public init() {}

  /// The playlist text and the bit rates its byte ranges measure.
  ///
  /// - Parameter rendition: the rendition's segments as its muxer wrote
  ///   them, with each IDR picture's end (`SegmentEvent.idrEnd`).
  public func render(rendition: RenditionSegments) -> (text: String, bandwidth: MeasuredBandwidth) {
    var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(rendition.targetDuration ?? 2)",
                 "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-I-FRAMES-ONLY",
                 "#EXT-X-MAP:URI=\"\(rendition.mapURI)\""]
    var peak = 0.0, bits = 0.0, seconds = 0.0
    for segment in rendition.segments {
      let end = segment.idrEnd
      lines.append(String(format: "#EXTINF:%.6f,", segment.duration))
      lines.append("#EXT-X-BYTERANGE:\(end)@0")
      lines.append(segment.uri)
      if segment.duration > 0 {
        peak = max(peak, Double(end * 8) / segment.duration)
        bits += Double(end * 8)
        seconds += segment.duration
      }
    }
    lines.append("#EXT-X-ENDLIST")
    let bw = MeasuredBandwidth(peak: Int(peak.rounded(.up)), average: seconds > 0 ? Int((bits / seconds).rounded(.up)) : 0)
    return (lines.joined(separator: "\n") + "\n", bw)
  }
}
