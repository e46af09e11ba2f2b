import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// The HLS playlist writers and their one reader (RFC 8216): what the
/// transcoder writes, read back as `verify` reads it. The writers' layouts
/// are golden files (`Tests/Golden/hls/`), and every playlist of the bundle
/// golden files (`Tests/Golden/bundle/`, FFmpeg's media playlists and
/// Marquee's I-frame playlists) reads and writes back to the same bytes.
@Suite("HLS playlists: writers and reader")
struct PlaylistTests {
  // MARK: - Reading and measuring

  @Test("media playlist parsing and the measured master playlist")
  func playlists() throws {
    let text = """
      #EXTM3U
      #EXT-X-VERSION:7
      #EXT-X-TARGETDURATION:2
      #EXT-X-PLAYLIST-TYPE:VOD
      #EXT-X-INDEPENDENT-SEGMENTS
      #EXT-X-MAP:URI="init.mp4"
      #EXTINF:2.002000,
      segment_00000.m4s
      #EXTINF:1.001000,
      segment_00001.m4s
      #EXT-X-ENDLIST
      """
    let p = MediaPlaylist(text: text)
    #expect(p.segments.map(\.uri) == ["segment_00000.m4s", "segment_00001.m4s"])
    #expect(abs(p.duration - 3.003) < 1e-9)
    #expect(p.mapURI == "init.mp4" && p.hasEndList && p.isVOD && p.hasIndependentSegments && p.targetDuration == 2)

    // Bandwidth from segments: 1000 B init, 250 000 B over 2.002 s, 100 000 B over 1.001 s.
    let rendition = RenditionSegments(mapURI: "init.mp4", initBytes: 1000, targetDuration: 2, segments: [
      SegmentEvent(index: 0, uri: "segment_00000.m4s", start: 0, duration: 2.002, bytes: 250_000, idrEnd: 9000),
      SegmentEvent(index: 1, uri: "segment_00001.m4s", start: 2.002, duration: 1.001, bytes: 100_000, idrEnd: 7000),
    ])
    let bw = MeasuredBandwidth(rendition: rendition)
    #expect(bw.peak == Int((250_500.0 * 8 / 2.002).rounded(.up)))
    #expect(bw.average == Int((351_000.0 * 8 / 3.003).rounded(.up)))

    let master = MasterPlaylistWriter().render([
      .init(uri: "360p/index.m3u8", bandwidth: MeasuredBandwidth(peak: 900, average: 800), codecs: "avc1.64001E",
            width: 640, height: 360, frameRate: 29.97),
      .init(uri: "720p/index.m3u8", bandwidth: MeasuredBandwidth(peak: 3000, average: 2500), codecs: "avc1.64001F,mp4a.40.2",
            width: 1280, height: 720, frameRate: 29.97),
    ], defaultIndex: 1)
    let lines = master.split(separator: "\n").map(String.init)
    #expect(lines[0] == "#EXTM3U" && lines.contains("#EXT-X-INDEPENDENT-SEGMENTS"))
    #expect(lines[3] == "#EXT-X-STREAM-INF:BANDWIDTH=3000,AVERAGE-BANDWIDTH=2500,CODECS=\"avc1.64001F,mp4a.40.2\",RESOLUTION=1280x720,FRAME-RATE=29.970")
    #expect(lines[4] == "720p/index.m3u8" && lines[6] == "360p/index.m3u8")
  }

  @Test("BANDWIDTH is the peak of runs of segments lasting 0.5 to 1.5 target durations (RFC 8216 §4.3.4.2)")
  func peakOverRuns() {
    // Target 2 s: 1 s of 200 kbit, 2 s of 300 kbit, 2 s of 240 kbit, 0.28 s of 100 kbit.
    let segments: [(bits: Double, seconds: Double)] = [(200_000, 1), (300_000, 2), (240_000, 2), (100_000, 0.28)]
    let bw = MeasuredBandwidth(segments: segments, targetDuration: 2)
    // Runs by hand: [0] 200k/1, [0,1] 500k/3, [1] 150k/s, [2] 120k/s, [2,3] 340k/2.28;
    // [3] alone (0.28 s) is shorter than 1 s and does not count (alone it is 357 kbit/s).
    let runs = [200_000.0, 500_000.0 / 3, 150_000, 120_000, 340_000 / 2.28]
    #expect(bw.peak == Int(runs.max()!.rounded(.up)))
    #expect(bw.average == Int((840_000 / 5.28).rounded(.up)))
    // A playlist shorter than half its target duration: its own rate.
    #expect(MeasuredBandwidth(segments: [(50_000, 0.4)], targetDuration: 1).peak == 125_000)
  }

  @Test("the weak-network budget: RFC 8216's runs, none shorter than a second; a clip under a second is all its bits over one")
  func weakNetworkBudget() {
    // A 12 s ladder: 1 s, five of 2 s, 1 s (target 2): the same runs as BANDWIDTH.
    let long: [(bits: Double, seconds: Double)] = [(170_000, 1)] + Array(repeating: (330_000, 2), count: 5) + [(176_000, 1)]
    #expect(WeakNetworkRung.budgetPeak(segments: long, targetDuration: 2) == MeasuredBandwidth(segments: long, targetDuration: 2).peak)
    #expect(WeakNetworkRung.budgetPeak(segments: long, targetDuration: 2) == 176_000)
    // 1.6 s (target 1): the 0.6 s last segment, an IDR and little else, is
    // a run for BANDWIDTH (≥ 0.5 s) but not for the budget.
    let short: [(bits: Double, seconds: Double)] = [(150_000, 1), (150_000, 0.6)]
    #expect(MeasuredBandwidth(segments: short, targetDuration: 1).peak == 250_000)
    #expect(WeakNetworkRung.budgetPeak(segments: short, targetDuration: 1) == 187_500)  // 300 000 bits over 1.6 s
    // 0.3 s: 11 kB measure 300 kbit/s as BANDWIDTH, 90 kbit/s as the budget.
    let tiny: [(bits: Double, seconds: Double)] = [(90_000, 0.3)]
    #expect(MeasuredBandwidth(segments: tiny, targetDuration: 1).peak == 300_000)
    #expect(WeakNetworkRung.budgetPeak(segments: tiny, targetDuration: 1) == 90_000)
  }

  @Test("the start variant is about 2 Mbit/s, never the top one, at most 2.3 Mbit/s peak")
  func startVariant() {
    func v(_ w: Int, _ h: Int, _ peak: Int) -> MasterPlaylistWriter.Variant {
      .init(uri: "\(h)p/index.m3u8", bandwidth: MeasuredBandwidth(peak: peak, average: peak * 3 / 4), codecs: "avc1.64001F",
            width: w, height: h, frameRate: 30)
    }
    let ladder = [v(1280, 720, 3_100_000), v(960, 540, 2_150_000), v(640, 360, 760_000)]
    #expect(MasterPlaylistWriter.startVariant(ladder) == 1)
    // Easy content: every variant is small, the top one is still not the start.
    #expect(MasterPlaylistWriter.startVariant([v(1280, 720, 1_200_000), v(960, 540, 800_000), v(640, 360, 300_000)]) == 1)
    // 540p above the limit: the next rung down.
    #expect(MasterPlaylistWriter.startVariant([v(1280, 720, 4_000_000), v(960, 540, 2_600_000), v(640, 360, 900_000)]) == 2)
    // All above: the lowest.
    #expect(MasterPlaylistWriter.startVariant([v(1920, 1080, 9_000_000), v(1280, 720, 5_000_000), v(960, 540, 2_900_000)]) == 2)
    #expect(MasterPlaylistWriter.startVariant([v(640, 272, 500_000), v(414, 176, 300_000)]) == 1)
    #expect(MasterPlaylistWriter.startVariant([v(640, 360, 700_000)]) == 0)
    // Listed first by the writer, the rest by descending BANDWIDTH.
    let text = MasterPlaylistWriter().render(ladder, defaultIndex: MasterPlaylistWriter.startVariant(ladder))
    let uris = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
    #expect(uris == ["540p/index.m3u8", "720p/index.m3u8", "360p/index.m3u8"])
  }

  @Test("the weak-network variant is listed last and never started on, even when it is the only one under 2.3 Mbit/s")
  func weakNetworkVariantLast() {
    func v(_ w: Int, _ h: Int, _ peak: Int, weak: Bool = false) -> MasterPlaylistWriter.Variant {
      .init(uri: "\(h)p/index.m3u8", bandwidth: MeasuredBandwidth(peak: peak, average: peak * 3 / 4), codecs: "avc1.64001F",
            width: w, height: h, frameRate: 30, isWeakNetwork: weak)
    }
    let ladder = [v(1280, 720, 3_100_000), v(960, 540, 2_150_000), v(640, 360, 760_000), v(256, 144, 180_000, weak: true)]
    #expect(MasterPlaylistWriter.startVariant(ladder) == 1)
    // Every other variant above the limit: the lowest of them, not the weak one.
    let heavy = [v(1920, 1080, 9_000_000), v(1280, 720, 5_000_000), v(960, 540, 2_900_000), v(256, 144, 170_000, weak: true)]
    #expect(MasterPlaylistWriter.startVariant(heavy) == 2)
    // A small source: its top and the weak rung below it. The top starts.
    #expect(MasterPlaylistWriter.startVariant([v(176, 144, 320_000), v(110, 90, 130_000, weak: true)]) == 0)
    // Listed last, below a variant whose peak is lower still (a still picture with no sound).
    let still = [v(1280, 720, 400_000), v(960, 540, 150_000), v(640, 360, 90_000), v(256, 144, 120_000, weak: true)]
    let text = MasterPlaylistWriter().render(still, defaultIndex: MasterPlaylistWriter.startVariant(still))
    let uris = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
    #expect(uris == ["540p/index.m3u8", "720p/index.m3u8", "360p/index.m3u8", "144p/index.m3u8"])
  }

  // MARK: - Writers

  /// A ladder of two H.264 renditions and one HEVC rendition, each with its
  /// I-frame playlist: the master writer needs nothing per codec.
  static let mixedLadder: [MasterPlaylistWriter.Variant] = [
    .init(uri: "720p/index.m3u8", bandwidth: MeasuredBandwidth(peak: 3_100_000, average: 2_400_000),
          codecs: "avc1.64001F,mp4a.40.2", width: 1280, height: 720, frameRate: 30000.0 / 1001,
          iFrames: .init(uri: "720p/iframes.m3u8", bandwidth: MeasuredBandwidth(peak: 310_000, average: 250_000))),
    .init(uri: "720p-hevc/index.m3u8", bandwidth: MeasuredBandwidth(peak: 2_000_000, average: 1_500_000),
          codecs: "hvc1.1.6.L93.B0,mp4a.40.2", width: 1280, height: 720, frameRate: 30000.0 / 1001,
          iFrames: .init(uri: "720p-hevc/iframes.m3u8", bandwidth: MeasuredBandwidth(peak: 200_000, average: 160_000))),
    .init(uri: "360p/index.m3u8", bandwidth: MeasuredBandwidth(peak: 760_000, average: 600_000),
          codecs: "avc1.64001E,mp4a.40.2", width: 640, height: 360, frameRate: 30000.0 / 1001,
          iFrames: .init(uri: "360p/iframes.m3u8", bandwidth: MeasuredBandwidth(peak: 90_000, average: 70_000))),
  ]

  @Test("the master playlist of a mixed H.264 and HEVC ladder, with I-frame playlists (golden)")
  func masterGolden() {
    let text = MasterPlaylistWriter().render(Self.mixedLadder, defaultIndex: MasterPlaylistWriter.startVariant(Self.mixedLadder))
    check(text, "hls/master.m3u8")
  }

  @Test("the master playlist reads back as written: every variant's attributes and its I-frame playlist")
  func masterRoundTrip() throws {
    let ladder = Self.mixedLadder
    let text = MasterPlaylistWriter().render(ladder, defaultIndex: 1)
    let reader = PlaylistReader(text: text)
    let read = reader.masterPlaylist()
    #expect(reader.startsWithHeader && read.version == 7 && read.hasIndependentSegments && read.danglingStreamInfs == 0)
    #expect(read.variants.map(\.uri) == ["720p-hevc/index.m3u8", "720p/index.m3u8", "360p/index.m3u8"])
    for variant in read.variants {
      let written = try #require(ladder.first { $0.uri == variant.uri })
      #expect(variant.attributes.integer("BANDWIDTH") == written.bandwidth.peak)
      #expect(variant.attributes.integer("AVERAGE-BANDWIDTH") == written.bandwidth.average)
      #expect(variant.attributes["CODECS"] == written.codecs)
      #expect(variant.resolution?.width == written.width && variant.resolution?.height == written.height)
      #expect(variant.attributes["FRAME-RATE"] == "29.970")
    }
    // I-frame playlists in the order given, video codec only.
    #expect(read.iFrameVariants.map { $0["URI"] } == ladder.map { $0.iFrames?.uri })
    #expect(read.iFrameVariants.map { $0["CODECS"] } == ["avc1.64001F", "hvc1.1.6.L93.B0", "avc1.64001E"])
    #expect(read.iFrameVariants.map { $0.integer("BANDWIDTH") } == ladder.map { $0.iFrames?.bandwidth.peak })
    #expect(read.iFrameVariants.allSatisfy { $0["FRAME-RATE"] == nil && $0.resolution != nil })
  }

  @Test("the I-frame playlist: a byte range per segment, and the bit rates they measure (golden)")
  func iFramesGolden() {
    let frames: [IFramePlaylistWriter.Frame] = [
      .init(uri: "segment_00000.m4s", duration: 1.001, end: 9000),
      .init(uri: "segment_00001.m4s", duration: 2.002, end: 12_000),
      .init(uri: "segment_00002.m4s", duration: 0.5, end: 7000),
    ]
    let (text, bandwidth) = IFramePlaylistWriter().render(mapURI: "init.mp4", targetDuration: 2, frames: frames)
    check(text, "hls/iframes.m3u8")
    #expect(bandwidth.peak == 112_000)  // 7000 B over 0.5 s
    #expect(bandwidth.average == Int((28_000.0 * 8 / 3.503).rounded(.up)))
    let read = MediaPlaylist(text: text)
    #expect(read.isIFramesOnly && read.isVOD && read.hasEndList && read.targetDuration == 2 && read.mapURI == "init.mp4")
    #expect(read.segments.map(\.byteRange) == frames.map { MediaPlaylist.ByteRange(length: $0.end, offset: 0) })
    #expect(read.segments.map(\.duration) == frames.map(\.duration))
  }

  @Test("every playlist of the bundle golden files reads and writes back byte for byte", arguments: [
    "234p-index.m3u8", "360p-index.m3u8", "144p-index.m3u8", "234p-iframes.m3u8", "360p-iframes.m3u8", "144p-iframes.m3u8",
  ])
  func bundleRoundTrip(_ name: String) throws {
    // The golden files mask measured byte ranges (`<n>`): any number reads
    // and writes back the same.
    let text = try String(contentsOf: GoldenFile.folder.appendingPathComponent("bundle/\(name)"), encoding: .utf8)
      .replacingOccurrences(of: "<n>", with: "1234")
    let playlist = MediaPlaylist(text: text)
    #expect(!playlist.segments.isEmpty && playlist.urisWithoutDuration.isEmpty)
    #expect(MediaPlaylistWriter().render(playlist) == text)
  }

  @Test("the bundle's golden master playlist reads as the writer meant it")
  func bundleMaster() throws {
    let text = try String(contentsOf: GoldenFile.folder.appendingPathComponent("bundle/master.m3u8"), encoding: .utf8)
    let read = MasterPlaylist(text: text)
    // The start variant (H.264), the others by peak, then the weak-network
    // variants last; each H.264 rendition has its HEVC twin.
    #expect(read.variants.map(\.uri) == ["234p/index.m3u8", "360p/index.m3u8", "360p-hevc/index.m3u8",
                                         "234p-hevc/index.m3u8", "144p/index.m3u8", "144p-hevc/index.m3u8"])
    #expect(read.variants.map { $0.attributes["CODECS"] }
      == ["avc1.64000D,mp4a.40.2", "avc1.64001E,mp4a.40.2", "hvc1.1.6.L63.90,mp4a.40.2", "hvc1.1.6.L60.90,mp4a.40.2",
          "avc1.64000C,mp4a.40.2", "hvc1.1.6.L60.90,mp4a.40.2"])
    #expect(read.iFrameVariants.map { $0["URI"] } == ["360p/iframes.m3u8", "234p/iframes.m3u8", "144p/iframes.m3u8",
                                                      "360p-hevc/iframes.m3u8", "234p-hevc/iframes.m3u8", "144p-hevc/iframes.m3u8"])
  }

  // MARK: - Reading what is not well formed

  @Test("the reader: header, line breaks, comments, URIs without #EXTINF, byte ranges")
  func readerEdges() {
    let text = "#EXTM3U\r\n#EXT-X-TARGETDURATION:2\r\n# a comment\r\n\r\n#EXT-X-UNKNOWN:1\r\n"
      + "#EXTINF:1.5,title, with comma\r\n#EXT-X-BYTERANGE:100@20\r\na.m4s\r\n"
      + "#EXT-X-BYTERANGE:50\r\n#EXTINF:2,\r\na.m4s\r\n"
      + "orphan.m4s\r\n#EXTINF:abc,\r\nbad.m4s\r\n#EXTINF:1,\r\n#EXT-X-BYTERANGE:-5@1\r\nc.m4s\r\n"
    let reader = PlaylistReader(text: text)
    #expect(reader.startsWithHeader)
    let p = reader.mediaPlaylist()
    #expect(p.targetDuration == 2)
    #expect(p.segments == [
      .init(duration: 1.5, uri: "a.m4s", byteRange: .init(length: 100, offset: 20)),
      .init(duration: 2, uri: "a.m4s", byteRange: .init(length: 50, offset: nil)),
      .init(duration: 1, uri: "c.m4s", byteRange: nil),
    ])
    #expect(p.urisWithoutDuration == ["orphan.m4s", "bad.m4s"])
    // #EXTM3U must be the very first line (RFC 8216 §4.3.1.1).
    #expect(!PlaylistReader(text: "\n#EXTM3U\n").startsWithHeader)
    #expect(!PlaylistReader(text: "#EXTM3UX\n").startsWithHeader)
    #expect(!PlaylistReader(text: "").startsWithHeader)
    // Decimal-integers only: no sign, no overflow.
    #expect(MediaPlaylist(text: "#EXT-X-TARGETDURATION:-2\n").targetDuration == nil)
    #expect(MediaPlaylist(text: "#EXT-X-TARGETDURATION:99999999999999999999\n").targetDuration == nil)
  }

  @Test("master playlists: quoted commas, a dangling #EXT-X-STREAM-INF, repeated and empty attributes")
  func masterEdges() {
    let read = MasterPlaylist(text: """
      #EXTM3U
      #EXT-X-STREAM-INF:BANDWIDTH=1,CODECS="avc1.64001F,mp4a.40.2",RESOLUTION=12x
      #EXT-X-STREAM-INF:BANDWIDTH=5,BANDWIDTH=7, NAME ,RESOLUTION=640x360
      a/index.m3u8
      # comment
      #EXT-X-STREAM-INF:BANDWIDTH=9
      """)
    #expect(read.danglingStreamInfs == 2)
    #expect(read.variants.count == 1)
    let v = read.variants[0]
    #expect(v.uri == "a/index.m3u8" && v.attributes["BANDWIDTH"] == "7" && v.attributes["NAME"] == "")
    #expect(v.resolution?.width == 640 && !read.hasIndependentSegments)
    let list = AttributeList(parsing: "BANDWIDTH=1,CODECS=\"avc1.64001F,mp4a.40.2\",RESOLUTION=12x")
    #expect(list["CODECS"] == "avc1.64001F,mp4a.40.2" && list.resolution == nil && list.integer("BANDWIDTH") == 1)
    #expect(list.text == "BANDWIDTH=1,CODECS=\"avc1.64001F,mp4a.40.2\",RESOLUTION=12x")
  }

  private func check(_ text: String, _ name: String) {
    if let problem = GoldenFile.mismatch(text, name: name) { Issue.record("\(problem)") }
  }
}
