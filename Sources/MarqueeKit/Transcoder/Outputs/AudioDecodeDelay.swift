import Foundation

/// Starts the sound track of an fMP4 HLS rendition one sample after the
/// pictures on the decode timeline, without moving anything a player
/// presents, so that Chromium's built-in HLS player shows the first picture
/// at 0, hides the AAC priming and lasts the `#EXTINF` sum.
///
/// What Chromium does (media/filters/hls_manifest_demuxer_engine.cc and
/// media/filters/frame_processor.cc): it appends every segment to one MSE
/// source buffer in "sequence" mode, where the first coded frame appended
/// sets `timestampOffset` to the group start (0) minus its presentation time
/// (Media Source Extensions, coded frame processing, step 3). It takes a
/// fragment's frames in decode-time order, sound first on a tie
/// (media/base/stream_parser.cc, `MergeBufferQueues`), and reads the one edit
/// of a track as a composition offset (media/formats/mp4/track_run_iterator.cc:
/// presentation = decode time + offset − `media_time`). With both tracks
/// decoded from 0, the first frame was the priming AAC frame, presented at
/// −1024/48000 s behind the audio edit (QuickTime File Format, Appendix G),
/// so the whole presentation moved 21.333 ms later: the first picture at
/// 0.021333 s, and 2.021333 s reported for a 2.000 s banner (the MP4, read by
/// FFmpeg, was right). With the sound decoded one sample later, the first
/// frame is the IDR picture (decode and presentation time 0): the offset is
/// 0, and the priming frame, wholly before the append window's start (0),
/// becomes the decoder's preroll and is not played
/// (`HandlePartialAppendWindowTrimming`), as AVPlayer and FFmpeg skip it
/// through the edit.
///
/// What changes in the files (ISO/IEC 14496-12), all for the sound track and
/// by `ticks` of its media timescale:
/// - the init segment's `elst` (§8.6.6): every non-empty edit's `media_time`
///   (composition time) moves later by `ticks`, so each sample's
///   presentation time is unchanged for a player that honours the edit;
/// - every fragment's `tfdt` (§8.8.12): `baseMediaDecodeTime` moves later by
///   `ticks` (decode and composition times with it);
/// - every `sidx` of the track (§8.16.3): `earliest_presentation_time`, which
///   FFmpeg writes as the first sample's composition time, moves with them.
///
/// A player that ignores edit lists plays the priming `ticks` (20.8 µs at
/// 48 kHz) later than before. FFmpeg 5.1's mov muxer starts every track's
/// first fragment at decode time 0 (`frag_start`) and has no option to do
/// otherwise (`frag_discont` drops the audio edit), so the fields are
/// rewritten in memory as each file passes from the `hls` muxer to disk
/// (`SegmentRecorder`, the init section before any segment): no size
/// changes, so playlists, I-frame byte ranges and measured bit rates stay
/// valid, and the result depends on the bytes alone (rebuilds stay
/// identical). A rendition without a sound track, or whose sound has no
/// edit list (nothing of it is presented before 0, so Chromium places it
/// right already), is left as it is.
enum AudioDecodeDelay {
  /// How much later the sound's decode timeline starts, in ticks of its
  /// media timescale, which is the sample rate (`mdhd`; 48000 Hz): one
  /// sample, 20.8 µs, which Chromium still sees as later than 0 (its times
  /// are whole microseconds). The transcoder also cuts the sound this much
  /// earlier, so its media timeline, priming included, still ends with the
  /// last picture.
  static let ticks: Int64 = 1

  /// Moves the sound track's non-empty edits later by `ticks`.
  ///
  /// - Returns: the sound track's `track_ID`, or nil when there is no sound
  ///   track or it has no edit with a media time.
  static func delayEdits(_ d: inout [UInt8], name: String) throws -> UInt32? {
    guard let moov = Box.children(d, 0..<d.count).first(where: { $0.type == "moov" }) else {
      throw MarqueeError(.encodeFailed, "\(name): no moov box")
    }
    for trak in Box.children(d, moov.payload) where trak.type == "trak" {
      guard let mdia = Box.child(d, trak, "mdia"), let hdlr = Box.child(d, mdia, "hdlr"),
            Box.text(d, hdlr.payload.lowerBound + 8, within: hdlr.payload) == "soun" else { continue }
      guard let tkhd = Box.child(d, trak, "tkhd"), let version = Box.u8(d, tkhd.payload),
            let id = Box.u32(d, tkhd.payload.lowerBound + (version == 1 ? 20 : 12), within: tkhd.payload) else {
        throw MarqueeError(.encodeFailed, "\(name): the sound track has no readable tkhd")
      }
      guard let edts = Box.child(d, trak, "edts"), let elst = Box.child(d, edts, "elst") else { return nil }
      let p = elst.payload
      guard let v = Box.u8(d, p), let count = Box.u32(d, p.lowerBound + 4, within: p) else {
        throw MarqueeError(.encodeFailed, "\(name): the sound track's elst is truncated")
      }
      let entry = v == 1 ? 20 : 12
      guard p.lowerBound + 8 + Int(count) * entry <= p.upperBound else {
        throw MarqueeError(.encodeFailed, "\(name): the sound track's elst is truncated")
      }
      var moved = false
      for k in 0..<Int(count) {
        let at = p.lowerBound + 8 + k * entry + (v == 1 ? 8 : 4)
        if v == 1 {
          let time = Int64(bitPattern: Box.u64(d, at, within: p) ?? 0)
          guard time >= 0 else { continue }  // an empty edit (−1) stays empty
          guard time <= Int64.max - ticks else { throw MarqueeError(.encodeFailed, "\(name): the audio edit's media time overflows") }
          Box.put64(&d, at, UInt64(time + ticks))
        } else {
          let time = Int64(Int32(bitPattern: Box.u32(d, at, within: p) ?? 0))
          guard time >= 0 else { continue }
          guard time + ticks <= Int64(Int32.max) else { throw MarqueeError(.encodeFailed, "\(name): the audio edit's media time overflows") }
          Box.put32(&d, at, UInt32(time + ticks))
        }
        moved = true
      }
      return moved ? id : nil
    }
    return nil
  }

  /// Moves the decode times (`tfdt`) and the `sidx` earliest presentation
  /// times of track `trackID` later by `ticks`, in one media segment.
  static func delayFragments(_ d: inout [UInt8], trackID: UInt32, name: String) throws {
    for box in Box.children(d, 0..<d.count) {
      let p = box.payload
      if box.type == "sidx", Box.u32(d, p.lowerBound + 4, within: p) == trackID {
        guard let v = Box.u8(d, p) else { throw MarqueeError(.encodeFailed, "\(name): truncated sidx") }
        try add(&d, at: p.lowerBound + 12, wide: v == 1, within: p, name: name, box: "sidx")
      } else if box.type == "moof" {
        for traf in Box.children(d, p) where traf.type == "traf" {
          guard let tfhd = Box.child(d, traf, "tfhd"),
                Box.u32(d, tfhd.payload.lowerBound + 4, within: tfhd.payload) == trackID else { continue }
          guard let tfdt = Box.child(d, traf, "tfdt"), let v = Box.u8(d, tfdt.payload) else {
            throw MarqueeError(.encodeFailed, "\(name): a fragment of the sound track has no tfdt")
          }
          try add(&d, at: tfdt.payload.lowerBound + 4, wide: v == 1, within: tfdt.payload, name: name, box: "tfdt")
        }
      }
    }
  }

  /// Adds `ticks` to the unsigned 32- or 64-bit (`wide`) field at `at`.
  private static func add(_ d: inout [UInt8], at: Int, wide: Bool, within range: Range<Int>, name: String,
                          box: String) throws {
    if wide {
      guard let t = Box.u64(d, at, within: range), t <= UInt64.max - UInt64(ticks) else {
        throw MarqueeError(.encodeFailed, "\(name): \(box) is truncated or its time overflows")
      }
      Box.put64(&d, at, t + UInt64(ticks))
    } else {
      guard let t = Box.u32(d, at, within: range), UInt64(t) + UInt64(ticks) <= UInt64(UInt32.max) else {
        throw MarqueeError(.encodeFailed, "\(name): \(box) is truncated or its time overflows")
      }
      Box.put32(&d, at, t + UInt32(ticks))
    }
  }

  /// Bounds-checked reading and writing of ISO BMFF boxes (§4.2: 32-bit
  /// size and type, a 64-bit `largesize` when the size is 1, to the end of
  /// the enclosing range when it is 0), big-endian fields.
  struct Box {
    var type: String
    var payload: Range<Int>

    static func children(_ d: [UInt8], _ range: Range<Int>) -> [Box] {
      var out: [Box] = []
      var o = range.lowerBound
      while o + 8 <= range.upperBound, let size32 = u32(d, o, within: range) {
        var size = Int(size32)
        var header = 8
        if size32 == 1 {
          guard let large = u64(d, o + 8, within: range), large <= UInt64(Int.max) else { break }
          size = Int(large)
          header = 16
        } else if size32 == 0 {
          size = range.upperBound - o
        }
        guard size >= header, size <= range.upperBound - o else { break }
        out.append(Box(type: String(decoding: d[(o + 4)..<(o + 8)], as: UTF8.self), payload: (o + header)..<(o + size)))
        o += size
      }
      return out
    }

    static func child(_ d: [UInt8], _ box: Box, _ type: String) -> Box? {
      children(d, box.payload).first { $0.type == type }
    }

    /// The first byte of `range` (a full box's version), nil when empty.
    static func u8(_ d: [UInt8], _ range: Range<Int>) -> UInt8? { range.isEmpty ? nil : d[range.lowerBound] }

    static func u32(_ d: [UInt8], _ o: Int, within range: Range<Int>) -> UInt32? {
      guard o >= range.lowerBound, o + 4 <= range.upperBound else { return nil }
      return UInt32(d[o]) << 24 | UInt32(d[o + 1]) << 16 | UInt32(d[o + 2]) << 8 | UInt32(d[o + 3])
    }

    static func u64(_ d: [UInt8], _ o: Int, within range: Range<Int>) -> UInt64? {
      guard let hi = u32(d, o, within: range), let lo = u32(d, o + 4, within: range) else { return nil }
      return UInt64(hi) << 32 | UInt64(lo)
    }

    /// Four bytes at `o` as text (a handler type), nil outside `range`.
    static func text(_ d: [UInt8], _ o: Int, within range: Range<Int>) -> String? {
      o >= range.lowerBound && o + 4 <= range.upperBound ? String(decoding: d[o..<(o + 4)], as: UTF8.self) : nil
    }

    static func put32(_ d: inout [UInt8], _ o: Int, _ v: UInt32) {
      for k in 0..<4 { d[o + k] = UInt8(truncatingIfNeeded: v >> (24 - 8 * k)) }
    }

    static func put64(_ d: inout [UInt8], _ o: Int, _ v: UInt64) {
      put32(&d, o, UInt32(truncatingIfNeeded: v >> 32))
      put32(&d, o + 4, UInt32(truncatingIfNeeded: v))
    }
  }
}
