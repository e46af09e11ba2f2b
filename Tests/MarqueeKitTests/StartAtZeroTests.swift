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
    #expect(variants.count == 2)
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
}
