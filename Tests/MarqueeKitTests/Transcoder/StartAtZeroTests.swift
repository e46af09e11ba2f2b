import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// "Output starts at 0", in players that honour edit lists and in players
/// that ignore them: checked with ffprobe both ways (`-ignore_editlist`) and,
/// for the fMP4 segments, with the composition times the boxes themselves
/// define (ISO/IEC 14496-12 §8.8.8), read by `MP4Timing`.
@Suite("Start at 0: first picture at 0, priming hidden, durations agree", .serialized)
struct StartAtZeroTests {
  /// AAC-LC encoder delay of libavcodec's `aac` encoder, samples at 48 kHz.
  static let priming = 1024.0 / 48_000
  /// One AAC frame, seconds: the most padding the last one can carry.
  static let aacFrame = 1024.0 / 48_000

  static func build(seconds: Double, fps: Int32) throws -> (dir: URL, built: BuiltVideoBanner) {
    let dir = try TranscoderTests.tempDir()
    let src = dir.appendingPathComponent("clip.mp4")
    try SyntheticMedia.writeClip(.init(video: "testsrc2=size=320x240:rate=\(fps)", frameRate: Rational(fps, 1),
                                       duration: seconds), to: src.path)
    var settings = JobSettings(maxHeight: 240)
    settings.renditions = [RenditionRequest(height: 240, bitrateKbps: 500), RenditionRequest(height: 160, bitrateKbps: 300)]
    return (dir, try TranscoderTests.build(src, in: dir, settings: settings))
  }

  @Test("the MP4's first picture and first real audio sample are at 0, with and without edit lists", arguments: [false, true])
  func mp4StartsAtZero(ignoreEditList: Bool) throws {
    let (dir, built) = try Self.build(seconds: 2, fps: 30)
    defer { try? FileManager.default.removeItem(at: dir) }
    let mp4 = TranscoderTests.mp4(dir)
    let frame = 1.0 / 30
    let video = try FFprobe.packets(mp4, stream: "v", ignoreEditList: ignoreEditList)
    #expect(video.count == 60)
    let first = try #require(video.map(\.pts).min())
    #expect(abs(first) < 0.0005, "first picture at \(first) s (ignore_editlist \(ignoreEditList))")
    #expect(video.first?.key == true && abs((video.first?.pts ?? -1) - first) < 0.0005, "the first picture is not the keyframe")
    let videoEnd = (video.map { $0.pts + $0.duration }.max() ?? 0)
    #expect(abs(videoEnd - 2.0) < 0.0005, "video ends at \(videoEnd) s")

    let audio = try FFprobe.streamStartAndDuration(mp4, stream: "a", ignoreEditList: ignoreEditList)
    #expect(abs(audio.start) < 0.0005, "audio starts at \(audio.start) s")
    // Without edit lists the priming is played: the first real sample is
    // that much late, less than a picture.
    let realAudioStart = audio.start + (ignoreEditList ? Self.priming : 0)
    #expect(abs(realAudioStart - first) < frame, "A/V start differ by \(realAudioStart - first) s")
    // Audio is cut at the video's end less the priming: it never outlasts
    // the pictures by more than one AAC frame's padding (the edit is in
    // the movie timescale, milliseconds, hence the 1.5 ms).
    let audioEnd = audio.start + audio.duration
    #expect(audioEnd - videoEnd >= -Self.priming - 0.0015 && audioEnd - videoEnd <= Self.aacFrame,
            "audio ends at \(audioEnd) s, pictures at \(videoEnd) s (ignore_editlist \(ignoreEditList))")

    let format = try FFprobe.report(mp4).duration ?? .nan
    #expect(abs(format - built.entry.duration) < frame, "MP4 lasts \(format) s, banners.json says \(built.entry.duration) s")
  }

  @Test("HLS: no empty edit, the first picture of every segment at its playlist time, priming behind an edit, durations agree")
  func hlsStartsAtZero() throws {
    let (dir, built) = try Self.build(seconds: 5, fps: 30)
    defer { try? FileManager.default.removeItem(at: dir) }
    let frame = 1.0 / 30
    let (_, variants) = try HLSCheck.variants(master: TranscoderTests.master(dir))
    #expect(variants.filter { $0.attributes["CODECS"]?.hasPrefix("avc1.") == true }.count == 3 && variants.count <= 6,
            "three H.264 variants and the HEVC twins kept")
    for variant in variants {
      let initURL = try #require(variant.mapURL)
      let tracks = try MP4Timing.tracks(initURL)
      let v = try #require(tracks.first { $0.handler == "vide" })
      let a = try #require(tracks.first { $0.handler == "soun" })
      #expect(!tracks.flatMap(\.edits).contains { $0.mediaTime == -1 }, "\(variant.uri): empty edit in init.mp4: \(tracks.map(\.edits))")
      #expect(v.edits.allSatisfy { $0.mediaTime == 0 }, "\(variant.uri): video edit \(v.edits)")
      // The audio edit skips exactly the encoder delay (QTFF Appendix G),
      // from where the sound's decode timeline starts: one sample after the
      // pictures' (`AudioDecodeDelay`).
      #expect(a.edits.count == 1 && a.edits.first?.mediaTime == Int64(Self.priming * Double(a.timescale)) + 1,
              "\(variant.uri): audio edit \(a.edits) at timescale \(a.timescale)")

      // Composition times from the boxes: each segment's first picture is
      // its earliest and sits where the playlist places the segment.
      let trex = try MP4Timing.trexDefaultDuration(initURL, trackID: v.id)
      var placed = 0.0
      var lastEnd = 0.0
      var firstFragmentShift = 0.0
      for (k, segment) in variant.segments.enumerated() {
        let samples = try MP4Timing.fragmentSamples(segment.url, trackID: v.id, trexDuration: trex)
        let ts = Double(v.timescale)
        let first = try #require(samples.first)
        let earliest = try #require(samples.map(\.compositionTime).min())
        #expect(first.compositionTime == earliest, "\(segment.url.lastPathComponent): the first sample is not presented first")
        #expect(abs(Double(first.compositionTime) / ts - placed) < 0.0005,
                "\(segment.url.lastPathComponent): first picture at \(Double(first.compositionTime) / ts) s, playlist \(placed) s")
        if k == 0 {
          #expect(first.compositionTime == 0 && first.decodeTime == 0)
          let shift = samples.map { $0.decodeTime - $0.compositionTime }.max() ?? 0
          firstFragmentShift = Double(max(0, shift)) / ts
        }
        lastEnd = Double(samples.map { $0.compositionTime + $0.duration }.max() ?? 0) / ts
        placed += segment.duration
      }
      #expect(abs(lastEnd - placed) < frame / 2, "\(variant.uri): pictures end at \(lastEnd) s, #EXTINF sum \(placed) s")

      // ffprobe on the whole rendition (init + every segment), both ways.
      var whole = try Data(contentsOf: initURL)
      for segment in variant.segments { whole.append(try Data(contentsOf: segment.url)) }
      let file = dir.appendingPathComponent("whole-\(variant.segments.count)-\(UUID().uuidString).mp4")
      try whole.write(to: file)
      for ignore in [false, true] {
        let video = try FFprobe.packets(file, stream: "v", ignoreEditList: ignore)
        let firstVideo = try #require(video.first)
        #expect(firstVideo.key && abs(firstVideo.dts) < 0.0005, "\(variant.uri): first video packet \(firstVideo)")
        // FFmpeg 5.1 presents a fragmented track with negative offsets
        // later by its largest negative offset (libavformat/mov.c,
        // dts_shift); what it reports must be exactly that, or the boxes
        // were read differently.
        #expect(abs(firstVideo.pts - firstFragmentShift) < 0.0005,
                "\(variant.uri): ffprobe puts the first picture at \(firstVideo.pts) s, boxes + dts_shift \(firstFragmentShift) s")
        let audio = try FFprobe.packets(file, stream: "a", ignoreEditList: ignore)
        let firstAudio = try #require(audio.first)
        // With the edit the priming packet is before 0 and the first real
        // sample is at 0; without it the priming starts at 0.
        #expect(abs(firstAudio.pts - (ignore ? 0 : -Self.priming)) < 0.0005, "\(variant.uri): first audio packet at \(firstAudio.pts) s")
        let realAudioStart = ignore ? Self.priming : 0
        #expect(realAudioStart < frame, "audio starts \(realAudioStart) s after the first picture")
        let audioEnd = audio.map { $0.pts + $0.duration }.max() ?? 0
        #expect(audioEnd - placed >= -Self.priming - 0.0005 && audioEnd - placed <= Self.aacFrame,
                "\(variant.uri): audio ends at \(audioEnd) s, #EXTINF sum \(placed) s (ignore_editlist \(ignore))")
      }
      try? FileManager.default.removeItem(at: file)
    }
    let playlistSum = variants.map { $0.segments.reduce(0) { $0 + $1.duration } }
    #expect(playlistSum.allSatisfy { abs($0 - 5.0) < 0.0005 }, "#EXTINF sums \(playlistSum)")
    #expect(abs(built.entry.duration - (playlistSum.first ?? 0)) < 0.0015, "banners.json \(built.entry.duration) s")
  }

  /// What Chromium's built-in HLS player makes of a rendition, computed
  /// from the boxes the way its code does: it appends the segments to one
  /// MSE source buffer in "sequence" mode
  /// (media/filters/hls_manifest_demuxer_engine.cc), where the first coded
  /// frame sets `timestampOffset` = 0 − its presentation time (MSE coded
  /// frame processing, step 3); frames come in decode-time order, sound
  /// first on a tie (media/base/stream_parser.cc, `MergeBufferQueues`);
  /// the first edit, when not empty, is a composition offset
  /// (media/formats/mp4/track_run_iterator.cc); times are whole
  /// microseconds, truncated. The duration it reports is the playlist's,
  /// raised to the end of the last frame buffered
  /// (media/filters/frame_processor.cc, step 5 of coded frame processing).
  struct SequenceModePlayback {
    /// `timestampOffset` after the first frame, µs.
    var offset: Int64
    /// The first picture's presentation time after the offset, µs.
    var firstPicture: Int64
    /// End of the latest frame of either track after the offset, µs.
    var end: Int64
    /// Sound frames presented before 0 after the offset, and the one
    /// that ends last among them, µs: they are the decoder's preroll when
    /// each ends at or before 0 (`HandlePartialAppendWindowTrimming`);
    /// one that ends after 0 would be played in part.
    var soundBeforeZero: Int
    var soundBeforeZeroEnd: Int64?
  }

  static func sequenceModePlayback(_ variant: HLSVariant) throws -> SequenceModePlayback {
    let initURL = try #require(variant.mapURL)
    let tracks = try MP4Timing.tracks(initURL)
    let v = try #require(tracks.first { $0.handler == "vide" })
    let a = try #require(tracks.first { $0.handler == "soun" })
    func micros(_ t: Int64, _ timescale: UInt32) -> Int64 { t * 1_000_000 / Int64(timescale) }
    func editOffset(_ t: MP4Timing.Track) -> Int64 { max(0, t.edits.first?.mediaTime ?? 0) }
    var frames: [(video: Bool, dts: Int64, pts: Int64, end: Int64)] = []
    var firstSegment: [(video: Bool, dts: Int64, pts: Int64, end: Int64)] = []
    for (k, segment) in variant.segments.enumerated() {
      for (track, isVideo) in [(v, true), (a, false)] {
        let trex = try MP4Timing.trexDefaultDuration(initURL, trackID: track.id)
        for s in try MP4Timing.fragmentSamples(segment.url, trackID: track.id, trexDuration: trex) {
          let pts = micros(s.compositionTime - editOffset(track), track.timescale)
          let frame = (video: isVideo, dts: micros(s.decodeTime, track.timescale), pts: pts,
                       end: micros(s.compositionTime - editOffset(track) + s.duration, track.timescale))
          frames.append(frame)
          if k == 0 { firstSegment.append(frame) }
        }
      }
    }
    let firstSound = try #require(firstSegment.filter { !$0.video }.min { $0.dts < $1.dts })
    let firstPicture = try #require(firstSegment.filter { $0.video }.min { $0.dts < $1.dts })
    let first = firstSound.dts <= firstPicture.dts ? firstSound : firstPicture
    let offset = 0 - first.pts
    let before = frames.filter { !$0.video && $0.pts + offset < 0 }
    return SequenceModePlayback(
      offset: offset, firstPicture: (frames.filter(\.video).map(\.pts).min() ?? 0) + offset,
      end: (frames.map(\.end).max() ?? 0) + offset, soundBeforeZero: before.count,
      soundBeforeZeroEnd: before.map(\.end).max().map { $0 + offset })
  }

  @Test("HLS in an MSE sequence-mode player (Chromium): first picture at 0, priming as preroll, the #EXTINF sum as duration",
        arguments: [(2.0, Int32(25)), (5.0, Int32(30))])
  func hlsInSequenceMode(seconds: Double, fps: Int32) throws {
    let (dir, built) = try Self.build(seconds: seconds, fps: fps)
    defer { try? FileManager.default.removeItem(at: dir) }
    let (_, variants) = try HLSCheck.variants(master: TranscoderTests.master(dir))
    for variant in variants {
      let sum = variant.segments.reduce(0) { $0 + $1.duration }
      let played = try Self.sequenceModePlayback(variant)
      #expect(played.offset == 0, "\(variant.uri): the presentation moves by \(played.offset) µs")
      #expect(played.firstPicture == 0, "\(variant.uri): first picture at \(played.firstPicture) µs")
      // The priming frame is the only one before 0, and it ends at 0.
      #expect(played.soundBeforeZero == 1 && played.soundBeforeZeroEnd.map { abs($0) <= 1 } == true,
              "\(variant.uri): \(played.soundBeforeZero) sound frames before 0, ending at \(played.soundBeforeZeroEnd ?? 0) µs")
      let reported = max(sum, Double(played.end) / 1e6)
      #expect(abs(reported - built.entry.duration) <= 1e-6 && abs(sum - built.entry.duration) < 1e-6,
              "\(variant.uri): lasts \(reported) s (media to \(Double(played.end) / 1e6) s), #EXTINF sum \(sum) s, banners.json \(built.entry.duration) s")
    }
  }

  @Test("HLS: per segment the sound's decode times follow on, and its media (priming included) ends with the pictures, with and without edit lists")
  func hlsAudioEndsWithPictures() throws {
    let (dir, built) = try Self.build(seconds: 5, fps: 30)
    defer { try? FileManager.default.removeItem(at: dir) }
    let (_, variants) = try HLSCheck.variants(master: TranscoderTests.master(dir))
    for variant in variants {
      let initURL = try #require(variant.mapURL)
      let tracks = try MP4Timing.tracks(initURL)
      let v = try #require(tracks.first { $0.handler == "vide" })
      let a = try #require(tracks.first { $0.handler == "soun" })
      let edit = try #require(a.edits.first?.mediaTime)
      let sampleRate = Double(a.timescale)
      var soundEnd: Int64? = nil
      var videoEnd = 0.0
      for segment in variant.segments {
        let name = segment.url.lastPathComponent
        let pictures = try MP4Timing.fragmentSamples(segment.url, trackID: v.id,
                                                     trexDuration: try MP4Timing.trexDefaultDuration(initURL, trackID: v.id))
        let sound = try MP4Timing.fragmentSamples(segment.url, trackID: a.id,
                                                  trexDuration: try MP4Timing.trexDefaultDuration(initURL, trackID: a.id))
        let firstSound = try #require(sound.first, "\(name): no sound")
        let firstPicture = try #require(pictures.first, "\(name): no pictures")
        // Contiguous: each fragment's sound starts where the last one ended
        // (the first one sample after the pictures' start).
        #expect(firstSound.decodeTime == (soundEnd ?? 1), "\(name): sound decoded from \(firstSound.decodeTime), last ended at \(soundEnd ?? 1)")
        soundEnd = (sound.last.map { $0.decodeTime + $0.duration })
        let start = Double(firstPicture.decodeTime) / Double(v.timescale)
        videoEnd = Double(pictures.map { $0.compositionTime + $0.duration }.max() ?? 0) / Double(v.timescale)
        // The muxer cuts the sound where the next IDR is decoded, the
        // reorder delay (the largest negative composition offset) before it
        // is shown: no fragment's sound, as a player without edit lists
        // plays it, starts earlier than that (and one AAC frame), or runs
        // past its pictures by more than one AAC frame.
        let reorder = Double(pictures.map { $0.decodeTime - $0.compositionTime }.max() ?? 0) / Double(v.timescale)
        let soundStart = Double(firstSound.decodeTime) / sampleRate, segmentSoundEnd = Double(soundEnd ?? 0) / sampleRate
        #expect(soundStart >= start - reorder - Self.aacFrame && segmentSoundEnd <= videoEnd + Self.aacFrame,
                "\(name): sound \(soundStart)–\(segmentSoundEnd) s, pictures \(start)–\(videoEnd) s (reorder \(reorder) s)")
      }
      // The whole track: priming included (no edit list), the sound ends
      // with the last picture to the sample; through the edit it ends the
      // priming (and one sample) earlier.
      let end = Double(try #require(soundEnd)) / sampleRate
      #expect(end <= videoEnd + 1e-9 && videoEnd - end < 1 / sampleRate,
              "\(variant.uri): sound's media ends at \(end) s, pictures at \(videoEnd) s")
      let presented = Double(try #require(soundEnd) - edit) / sampleRate
      #expect(abs(presented - (videoEnd - Self.priming - 1 / sampleRate)) < 1 / sampleRate,
              "\(variant.uri): sound presented to \(presented) s, pictures to \(videoEnd) s")
      #expect(abs(videoEnd - built.entry.duration) < 1e-6, "\(variant.uri): pictures end at \(videoEnd) s, banners.json \(built.entry.duration) s")
    }
  }

  @Test("AudioDecodeDelay moves only the sound's media times: edits (empty ones stay empty), tfdt, sidx; a fragment without tfdt is refused")
  func audioDecodeDelayFields() throws {
    func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
      let n = UInt32(8 + payload.count)
      return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + Array(type.utf8) + payload
    }
    func be(_ v: UInt64, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64(bytes - 1 - $0))) } }
    func trak(id: UInt32, handler: String, edits: [(UInt32, Int32)]) -> [UInt8] {
      let tkhd = box("tkhd", [0, 0, 0, 3] + be(0, 8) + be(UInt64(id), 4) + [UInt8](repeating: 0, count: 68))
      let elst = box("elst", [0, 0, 0, 0] + be(UInt64(edits.count), 4)
        + edits.flatMap { be(UInt64($0.0), 4) + be(UInt64(UInt32(bitPattern: $0.1)), 4) + [0, 1, 0, 0] })
      let hdlr = box("hdlr", [0, 0, 0, 0] + be(0, 4) + Array(handler.utf8) + [UInt8](repeating: 0, count: 13))
      let mdhd = box("mdhd", [0, 0, 0, 0] + be(0, 8) + be(handler == "soun" ? 48000 : 12800, 4) + be(0, 8))
      return box("trak", tkhd + box("edts", elst) + box("mdia", mdhd + hdlr))
    }
    var initBytes = box("ftyp", Array("iso6".utf8) + be(0, 4))
      + box("moov", trak(id: 1, handler: "vide", edits: [(0, 0)]) + trak(id: 2, handler: "soun", edits: [(500, -1), (0, 1024)]))
    let track = try AudioDecodeDelay.delayEdits(&initBytes, name: "init.mp4")
    #expect(track == 2)
    let tracks = try Self.timing(initBytes)
    #expect(tracks.first { $0.handler == "vide" }?.edits.map(\.mediaTime) == [0])
    #expect(tracks.first { $0.handler == "soun" }?.edits.map(\.mediaTime) == [-1, 1025])
    #expect(tracks.first { $0.handler == "soun" }?.edits.map(\.segmentDuration) == [500, 0])

    func traf(id: UInt32, tfdt: UInt64?) -> [UInt8] {
      box("traf", box("tfhd", [0, 2, 0, 0] + be(UInt64(id), 4)) + (tfdt.map { box("tfdt", [1, 0, 0, 0] + be($0, 8)) } ?? []))
    }
    func sidx(id: UInt32, earliest: UInt64) -> [UInt8] {
      box("sidx", [1, 0, 0, 0] + be(UInt64(id), 4) + be(48000, 4) + be(earliest, 8) + be(0, 8) + be(0, 4))
    }
    var segment = box("styp", Array("msdh".utf8) + be(0, 4)) + sidx(id: 1, earliest: 12800) + sidx(id: 2, earliest: 46080)
      + box("moof", box("mfhd", be(0, 8)) + traf(id: 1, tfdt: 12800) + traf(id: 2, tfdt: 46080)) + box("mdat", [])
    let before = segment
    try AudioDecodeDelay.delayFragments(&segment, trackID: 2, name: "segment")
    let changed = segment.indices.filter { segment[$0] != before[$0] }
    // Exactly the last byte of the sound's sidx earliest time and of its tfdt.
    #expect(changed.count == 2 && changed.allSatisfy { before[$0] == 0x00 && segment[$0] == 0x01 }, "\(changed)")
    var noTFDT = box("moof", traf(id: 2, tfdt: nil))
    #expect(throws: MarqueeError.self) { try AudioDecodeDelay.delayFragments(&noTFDT, trackID: 2, name: "segment") }
  }

  /// `MP4Timing.tracks` on bytes (it reads files).
  static func timing(_ bytes: [UInt8]) throws -> [MP4Timing.Track] {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("timing-\(UUID().uuidString).mp4")
    try Data(bytes).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    return try MP4Timing.tracks(url)
  }
}
