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
    // The reader's copy of the bytes is gone before they are written, so
    // the writes do not copy the whole file.
    guard let (track, writes) = try soundEdits(ISOBMFF.BoxReader(d), name: name) else { return nil }
    for write in writes { write.field.write(write.value, into: &d) }
    return track
  }

  /// Moves the decode times (`tfdt`) and the `sidx` earliest presentation
  /// times of track `trackID` later by `ticks`, in one media segment.
  static func delayFragments(_ d: inout [UInt8], trackID: UInt32, name: String) throws {
    for write in try fragmentTimes(ISOBMFF.BoxReader(d), trackID: trackID, name: name) {
      write.field.write(write.value, into: &d)
    }
  }

  /// A field and the value it gets.
  private typealias Write = (field: ISOBMFF.Field, value: UInt64)

  /// The sound track's id and the new media times of its non-empty edits;
  /// nil when there is no sound track or none of its edits has a media time.
  private static func soundEdits(_ file: ISOBMFF.BoxReader, name: String) throws -> (UInt32, [Write])? {
    guard let moov = file.topLevelBox("moov") else {
      throw MarqueeError(.encodeFailed, "\(name): no moov box")
    }
    for trak in file.children(of: moov) where trak.type == "trak" {
      guard let mdia = file.child("mdia", of: trak), let hdlr = file.child("hdlr", of: mdia),
            file.fourCC(hdlr, at: 8) == "soun" else { continue }
      guard let tkhd = file.child("tkhd", of: trak), let version = file.uint8(tkhd, at: 0),
            let id = file.uint32(tkhd, at: version == 1 ? 20 : 12) else {
        throw MarqueeError(.encodeFailed, "\(name): the sound track has no readable tkhd")
      }
      guard let edts = file.child("edts", of: trak), let elst = file.child("elst", of: edts) else { return nil }
      let truncated = MarqueeError(.encodeFailed, "\(name): the sound track's elst is truncated")
      guard let v = file.uint8(elst, at: 0), let count = file.uint32(elst, at: 4) else { throw truncated }
      let entry = v == 1 ? 20 : 12
      guard 8 + Int(count) * entry <= elst.payload.count else { throw truncated }
      var writes: [Write] = []
      for k in 0..<Int(count) {
        // media_time follows segment_duration: 64-bit in version 1, else 32.
        guard let field = file.field(elst, at: 8 + k * entry + (v == 1 ? 8 : 4), width: v == 1 ? 8 : 4) else {
          throw truncated
        }
        let stored = file.value(of: field)
        let time = v == 1 ? Int64(bitPattern: stored) : Int64(Int32(truncatingIfNeeded: stored))
        guard time >= 0 else { continue }  // an empty edit (−1) stays empty
        let limit = v == 1 ? Int64.max : Int64(Int32.max)
        guard time <= limit - ticks else { throw MarqueeError(.encodeFailed, "\(name): the audio edit's media time overflows") }
        writes.append((field, UInt64(time + ticks)))
      }
      return writes.isEmpty ? nil : (id, writes)
    }
    return nil
  }

  /// The new `sidx` earliest presentation times and `tfdt` decode times of
  /// track `trackID` in one media segment.
  private static func fragmentTimes(_ file: ISOBMFF.BoxReader, trackID: UInt32, name: String) throws -> [Write] {
    var writes: [Write] = []
    for box in file.topLevelBoxes {
      if box.type == "sidx", file.uint32(box, at: 4) == trackID {
        guard let v = file.uint8(box, at: 0) else { throw MarqueeError(.encodeFailed, "\(name): truncated sidx") }
        writes.append(try delayed(file, box, at: 12, wide: v == 1, name: name))
      } else if box.type == "moof" {
        for traf in file.children(of: box) where traf.type == "traf" {
          guard let tfhd = file.child("tfhd", of: traf), file.uint32(tfhd, at: 4) == trackID else { continue }
          guard let tfdt = file.child("tfdt", of: traf), let v = file.uint8(tfdt, at: 0) else {
            throw MarqueeError(.encodeFailed, "\(name): a fragment of the sound track has no tfdt")
          }
          writes.append(try delayed(file, tfdt, at: 4, wide: v == 1, name: name))
        }
      }
    }
    return writes
  }

  /// The unsigned 32- or 64-bit (`wide`) time at `position` of `box`'s
  /// payload, and that time plus `ticks`.
  private static func delayed(_ file: ISOBMFF.BoxReader, _ box: ISOBMFF.Box, at position: Int, wide: Bool,
                              name: String) throws -> Write {
    guard let field = file.field(box, at: position, width: wide ? 8 : 4),
          file.value(of: field) <= field.maximum - UInt64(ticks) else {
      throw MarqueeError(.encodeFailed, "\(name): \(box.type) is truncated or its time overflows")
    }
    return (field, file.value(of: field) + UInt64(ticks))
  }
}
