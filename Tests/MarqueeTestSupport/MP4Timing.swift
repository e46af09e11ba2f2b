import Foundation

/// Timing facts read straight from ISO BMFF boxes (ISO/IEC 14496-12), an
/// oracle independent of libavformat's demuxer: edit lists of each track
/// (`moov/trak/edts/elst`, §8.6.6) and, for movie fragments, each sample's
/// decode and composition time from `tfdt` and `trun` (§8.8.8, §8.8.12):
/// decode time = `baseMediaDecodeTime` + the earlier samples' durations,
/// composition time = decode time + the (signed in version 1) offset.
public enum MP4Timing {
  /// One `elst` entry; `mediaTime` −1 is an empty edit.
  public struct Edit: Sendable, Equatable {
    public var segmentDuration: Int64
    public var mediaTime: Int64
  }

  /// A track of the `moov`: id, handler (`vide`, `soun`), timescale, edits.
  public struct Track: Sendable {
    public var id: UInt32
    public var handler: String
    public var timescale: UInt32
    public var edits: [Edit]
  }

  /// One sample of a fragment, times in the track's timescale.
  public struct Sample: Sendable {
    public var decodeTime: Int64
    public var compositionTime: Int64
    public var duration: Int64
  }

  struct Box {
    var type: String
    var payload: Range<Int>
  }

  static func boxes(_ d: [UInt8], _ range: Range<Int>) -> [Box] {
    var out: [Box] = []
    var o = range.lowerBound
    while o + 8 <= range.upperBound {
      var size = Int(u32(d, o))
      var header = 8
      if size == 1 {
        size = Int(u64(d, o + 8))
        header = 16
      } else if size == 0 {
        size = range.upperBound - o
      }
      guard size >= header, o + size <= range.upperBound else { break }
      out.append(Box(type: String(decoding: d[(o + 4)..<(o + 8)], as: UTF8.self), payload: (o + header)..<(o + size)))
      o += size
    }
    return out
  }

  static func u32(_ d: [UInt8], _ o: Int) -> UInt32 {
    UInt32(d[o]) << 24 | UInt32(d[o + 1]) << 16 | UInt32(d[o + 2]) << 8 | UInt32(d[o + 3])
  }

  static func u64(_ d: [UInt8], _ o: Int) -> UInt64 { UInt64(u32(d, o)) << 32 | UInt64(u32(d, o + 4)) }

  static func child(_ d: [UInt8], _ box: Box, _ type: String) -> Box? { boxes(d, box.payload).first { $0.type == type } }

  /// The tracks of the file's `moov` (an init segment or a whole MP4).
  public static func tracks(_ url: URL) throws -> [Track] {
    let d = [UInt8](try Data(contentsOf: url))
    guard let moov = boxes(d, 0..<d.count).first(where: { $0.type == "moov" }) else { return [] }
    return boxes(d, moov.payload).filter { $0.type == "trak" }.compactMap { trak in
      guard let tkhd = child(d, trak, "tkhd"), let mdia = child(d, trak, "mdia"),
            let mdhd = child(d, mdia, "mdhd"), let hdlr = child(d, mdia, "hdlr") else { return nil }
      let id = d[tkhd.payload.lowerBound] == 1 ? u32(d, tkhd.payload.lowerBound + 20) : u32(d, tkhd.payload.lowerBound + 12)
      let timescale = d[mdhd.payload.lowerBound] == 1 ? u32(d, mdhd.payload.lowerBound + 20) : u32(d, mdhd.payload.lowerBound + 12)
      let handler = String(decoding: d[(hdlr.payload.lowerBound + 8)..<(hdlr.payload.lowerBound + 12)], as: UTF8.self)
      var edits: [Edit] = []
      if let edts = child(d, trak, "edts"), let elst = child(d, edts, "elst") {
        let p = elst.payload.lowerBound
        let version = d[p]
        var q = p + 8
        for _ in 0..<Int(u32(d, p + 4)) {
          if version == 1 {
            edits.append(Edit(segmentDuration: Int64(bitPattern: u64(d, q)), mediaTime: Int64(bitPattern: u64(d, q + 8))))
            q += 20
          } else {
            edits.append(Edit(segmentDuration: Int64(u32(d, q)), mediaTime: Int64(Int32(bitPattern: u32(d, q + 4)))))
            q += 12
          }
        }
      }
      return Track(id: id, handler: handler, timescale: timescale, edits: edits)
    }
  }

  /// The samples of `trackID` in the movie fragments of `url` (a media
  /// segment), in decode order. Defaults come from `tfhd`, else from
  /// `trexDuration` (the init segment's `trex`, passed by the caller).
  public static func fragmentSamples(_ url: URL, trackID: UInt32, trexDuration: Int64 = 0) throws -> [Sample] {
    let d = [UInt8](try Data(contentsOf: url))
    var samples: [Sample] = []
    for moof in boxes(d, 0..<d.count) where moof.type == "moof" {
      for traf in boxes(d, moof.payload) where traf.type == "traf" {
        guard let tfhd = child(d, traf, "tfhd"), u32(d, tfhd.payload.lowerBound + 4) == trackID else { continue }
        let hflags = u32(d, tfhd.payload.lowerBound) & 0xFF_FFFF
        var c = tfhd.payload.lowerBound + 8
        if hflags & 0x01 != 0 { c += 8 }
        if hflags & 0x02 != 0 { c += 4 }
        var defaultDuration = trexDuration
        if hflags & 0x08 != 0 { defaultDuration = Int64(u32(d, c)) }
        var time: Int64 = 0
        if let tfdt = child(d, traf, "tfdt") {
          let p = tfdt.payload.lowerBound
          time = d[p] == 1 ? Int64(bitPattern: u64(d, p + 4)) : Int64(u32(d, p + 4))
        }
        for trun in boxes(d, traf.payload) where trun.type == "trun" {
          let p = trun.payload.lowerBound
          let version = d[p]
          let flags = u32(d, p) & 0xFF_FFFF
          var q = p + 8
          if flags & 0x01 != 0 { q += 4 }
          if flags & 0x04 != 0 { q += 4 }
          for _ in 0..<Int(u32(d, p + 4)) {
            var duration = defaultDuration
            var offset: Int64 = 0
            if flags & 0x100 != 0 { duration = Int64(u32(d, q)); q += 4 }
            if flags & 0x200 != 0 { q += 4 }
            if flags & 0x400 != 0 { q += 4 }
            if flags & 0x800 != 0 {
              offset = version == 1 ? Int64(Int32(bitPattern: u32(d, q))) : Int64(u32(d, q))
              q += 4
            }
            samples.append(Sample(decodeTime: time, compositionTime: time + offset, duration: duration))
            time += duration
          }
        }
      }
    }
    return samples
  }

  /// The default sample duration of `trackID` from the init segment's
  /// `moov/mvex/trex` (§8.8.3), 0 when absent.
  public static func trexDefaultDuration(_ initURL: URL, trackID: UInt32) throws -> Int64 {
    let d = [UInt8](try Data(contentsOf: initURL))
    guard let moov = boxes(d, 0..<d.count).first(where: { $0.type == "moov" }),
          let mvex = child(d, moov, "mvex") else { return 0 }
    for trex in boxes(d, mvex.payload) where trex.type == "trex" && u32(d, trex.payload.lowerBound + 4) == trackID {
      return Int64(u32(d, trex.payload.lowerBound + 12))
    }
    return 0
  }
}

/// Packets of one stream as ffprobe reports them, with or without the
/// mov demuxer's edit-list handling (`-ignore_editlist 1`).
public struct ProbePacket: Sendable {
  public var pts: Double
  public var dts: Double
  public var duration: Double
  public var key: Bool
}

extension FFprobe {
  /// Every packet of the first `kind` (`v` or `a`) stream, in file order.
  public static func packets(_ url: URL, stream kind: String, ignoreEditList: Bool) throws -> [ProbePacket] {
    let r = try Run.process("ffprobe", ["-v", "error", "-ignore_editlist", ignoreEditList ? "1" : "0",
                                        "-select_streams", "\(kind):0", "-show_entries",
                                        "packet=pts_time,dts_time,duration_time,flags", "-of", "csv=p=0", url.path])
    guard r.status == 0 else { throw Failure.failed("ffprobe packets of \(url.path): \(r.stderr)") }
    return r.stdoutText.split(separator: "\n").compactMap { line in
      let f = line.split(separator: ",", omittingEmptySubsequences: false)
      guard f.count >= 4, let pts = Double(f[0]) else { return nil }
      return ProbePacket(pts: pts, dts: Double(f[1]) ?? pts, duration: Double(f[2]) ?? 0, key: f[3].contains("K"))
    }
  }

  /// `start_time` and `duration` of the first `kind` stream, with or without edit lists.
  public static func streamStartAndDuration(_ url: URL, stream kind: String,
                                            ignoreEditList: Bool) throws -> (start: Double, duration: Double) {
    let obj = try json(["-ignore_editlist", ignoreEditList ? "1" : "0", "-select_streams", "\(kind):0",
                        "-show_entries", "stream=start_time,duration", url.path])
    let s = (obj["streams"] as? [[String: Any]])?.first ?? [:]
    return (Double(s["start_time"] as? String ?? "") ?? .nan, Double(s["duration"] as? String ?? "") ?? .nan)
  }
}
