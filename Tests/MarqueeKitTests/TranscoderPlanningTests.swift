import Foundation
import Testing

@testable import MarqueeKit
@testable import MediaIO

/// Pure planning logic of the transcoder, with exact expectations.
@Suite("Transcoder planning")
struct TranscoderPlanningTests {
  // MARK: - Keyframes

  @Test("IDRs fall on the first frame of every 2 s segment at 29.97 fps, never drifting")
  func keyframesAt2997() {
    var planner = KeyframePlanner(frameRate: Rational(30000, 1001), segmentDuration: 2)
    let idrs = (0..<3600).filter { planner.isIDR(frame: Int64($0)) }
    // Independent arithmetic: the first frame n with n·1001/30000 ≥ 2k.
    let expected = (0..<61).map { k in Int((Double(2 * k) * 30000 / 1001).rounded(.up)) }.filter { $0 < 3600 }
    #expect(idrs == expected)
    #expect(idrs.prefix(4) == [0, 60, 120, 180])
    // The GOP limit never forces an extra keyframe between two planned ones.
    let gaps = zip(idrs.dropFirst(), idrs).map { $0 - $1 }
    #expect(gaps.allSatisfy { $0 < planner.gopLength })
  }

  @Test("IDRs at 25 fps with 6 s segments and at 23.976 fps with 2 s segments", arguments: [
    (Rational(25, 1), 6.0, [0, 150, 300, 450]),
    (Rational(24000, 1001), 2.0, [0, 48, 96, 144]),
    (Rational(60, 1), 1.0, [0, 60, 120, 180]),
  ])
  func keyframesAtOtherRates(rate: Rational, segment: Double, firsts: [Int]) {
    var planner = KeyframePlanner(frameRate: rate, segmentDuration: segment)
    let idrs = (0..<(firsts.last! + 1)).filter { planner.isIDR(frame: Int64($0)) }
    #expect(idrs == firsts)
  }

  // MARK: - Frame rate

  @Test("output frame rate from the source's rates", arguments: [
    (Rational(30, 1), Rational(30, 1), Rational(30, 1)),
    (Rational(30000, 1001), Rational(30000, 1001), Rational(30000, 1001)),
    (Rational(27521, 1000), Rational(30, 1), Rational(30, 1)),  // one dropped frame
    (Rational(722, 100), Rational(57600, 1), Rational(30, 1)),  // VFR screen recording
    (Rational(120, 1), Rational(120, 1), Rational(60, 1)),  // halved to ≤ 60
    (Rational(6006, 100), Rational(60, 1), Rational(60, 1)),  // jittery 60 fps phone clip
    (Rational(0, 0), Rational(0, 0), Rational(30, 1)),  // unknown
    (Rational(15, 1), Rational(15, 1), Rational(15, 1)),  // kept when plausible
  ])
  func frameRateChoice(average: Rational, base: Rational, expected: Rational) {
    #expect(RenditionPlanner.frameRate(average: average, base: base) == expected)
  }

  // MARK: - Sizes

  static func stream(_ w: Int, _ h: Int, sar: Rational = Rational(1, 1), transform: DisplayTransform = .identity) -> StreamInfo {
    StreamInfo(index: 0, kind: .video, codecName: "h264", timeBase: Rational(1, 90000), width: w, height: h,
               sampleAspectRatio: sar, frameRate: Rational(30, 1), baseFrameRate: Rational(30, 1),
               orientation: transform, sampleRate: 0, channels: 0, duration: 1, colorTransfer: "bt709",
               colorPrimaries: "bt709", colorSpace: "bt709", isAttachedPicture: false)
  }

  @Test("ladder sizes: rotation swaps, SAR squares the pixels, never upscaled, always even")
  func ladderSizes() {
    let ladder = RenditionRequest.defaultLadder
    let landscape = RenditionPlanner.plan(stream: Self.stream(1920, 1080), requests: ladder, maxHeight: 720)
    #expect(landscape.renditions.map { [$0.width, $0.height] } == [[1280, 720], [960, 540], [640, 360]])
    #expect(landscape.mp4Rendition == 0)

    let phone = RenditionPlanner.plan(stream: Self.stream(3840, 2160, transform: .rotate90), requests: ladder, maxHeight: 720)
    #expect(phone.displayWidth == 2160 && phone.displayHeight == 3840)
    #expect(phone.renditions.map { [$0.width, $0.height] } == [[720, 1280], [540, 960], [360, 640]])

    let anamorphic = RenditionPlanner.plan(stream: Self.stream(640, 360, sar: Rational(2, 1)), requests: ladder, maxHeight: 720)
    #expect(anamorphic.renditions.map { [$0.width, $0.height] } == [[1280, 360]])

    let small = RenditionPlanner.plan(stream: Self.stream(320, 240), requests: ladder, maxHeight: 720)
    #expect(small.renditions.map { [$0.width, $0.height] } == [[320, 240]])

    let odd = RenditionPlanner.plan(stream: Self.stream(3026, 1386), requests: ladder, maxHeight: 720)
    for r in odd.renditions {
      #expect(r.width % 2 == 0 && r.height % 2 == 0)
      let aspect = Double(r.width) / Double(r.height)
      #expect(abs(aspect / (3026.0 / 1386.0) - 1) < 0.01)
    }
    // 1080p allowed by the job: the rendition nearest 720p goes to MP4.
    let tall = RenditionPlanner.plan(stream: Self.stream(1920, 1080), requests: ladder, maxHeight: 1080)
    #expect(tall.renditions.count == 4 && tall.mp4Rendition == 1)
    // Bit rates: scaled up for 60 fps, peaks capped at 1.5× the average.
    #expect(tall.renditions.allSatisfy { $0.maxRate == $0.bitRate * 3 / 2 })
  }

  // MARK: - Orientation

  @Test("display matrices map to the transform ffmpeg's autorotate applies")
  func displayMatrices() {
    let one: Int32 = 1 << 16
    #expect(DisplayTransform(matrix: (one, 0, 0, one)) == .identity)
    #expect(DisplayTransform(matrix: (0, one, -one, 0)) == .rotate90)  // ffprobe rotation=-90
    #expect(DisplayTransform(matrix: (0, -one, one, 0)) == .rotate270)  // ffprobe rotation=90
    #expect(DisplayTransform(matrix: (-one, 0, 0, -one)) == .rotate180)
    #expect(DisplayTransform(matrix: (0, one, one, 0)) == .transpose)
    #expect(DisplayTransform(matrix: (-one, 0, 0, one)) == .mirrorHorizontal)
    #expect(DisplayTransform.rotate90.filterChain == ["transpose=dir=clock"])
    #expect(DisplayTransform.transpose.filterChain == ["transpose=dir=cclock_flip"])
    #expect((1...8).compactMap { DisplayTransform(exifOrientation: $0) }.count == 8)
    #expect(DisplayTransform(exifOrientation: 0) == nil && DisplayTransform(exifOrientation: 9) == nil)
  }

  // MARK: - Playlists

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

    // Bandwidth from real files: 1000 B init, 250 000 B over 2.002 s, 100 000 B over 1.001 s.
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-pl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    try Data(count: 1000).write(to: dir.appendingPathComponent("init.mp4"))
    try Data(count: 250_000).write(to: dir.appendingPathComponent("segment_00000.m4s"))
    try Data(count: 100_000).write(to: dir.appendingPathComponent("segment_00001.m4s"))
    let bw = MeasuredBandwidth(playlist: p, directory: dir)
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
}
