import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// The HEVC twins (`video_codecs`), through the whole pipeline, read back
/// by ffprobe and ffmpeg: every H.264 variant large enough has an HEVC twin
/// in the same master playlist, `hvc1` in fMP4, with the same segment
/// durations and IDR times, its `CODECS` what ffprobe reads of the stream,
/// and the master starting with H.264.
@Suite("HEVC ladder: built, read back by ffprobe")
struct HEVCLadderTests {
  /// One stream of a media playlist as ffprobe reads it.
  struct Probed {
    var codec: String
    var tag: String
    var profile: String
    var level: Int
    var width: Int
    var height: Int
  }

  static func probeVideo(_ playlist: URL) throws -> Probed {
    let r = try Run.process("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                        "stream=codec_name,codec_tag_string,profile,level,width,height", "-of", "json", playlist.path])
    let object = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
    let stream = try #require((object?["streams"] as? [[String: Any]])?.first, "ffprobe read no video in \(playlist.path): \(r.stderr)")
    return Probed(codec: stream["codec_name"] as? String ?? "", tag: stream["codec_tag_string"] as? String ?? "",
                  profile: stream["profile"] as? String ?? "", level: stream["level"] as? Int ?? -1,
                  width: stream["width"] as? Int ?? 0, height: stream["height"] as? Int ?? 0)
  }

  /// Key-frame times of a media playlist's video, as ffprobe reads them.
  static func keyTimes(_ playlist: URL) throws -> [Double] {
    try Oracle.videoPackets(playlist).filter(\.key).map(\.pts)
  }

  /// Builds `source` (a generated clip) with `settings`; returns the master
  /// playlist and the build's item.
  static func build(_ fixture: BatchFixture, settings: [String: Any]? = nil) async throws -> (master: URL, item: ItemOutcome) {
    try fixture.job([["id": "clip", "type": "video", "source": "clip.mp4"]], settings: settings)
    let report = try await BundleBuilder().build(job: try fixture.readJob(), options: BuildOptions(outputRoot: fixture.out, jobs: 2))
    #expect(report.published, "\(report.items.compactMap(\.failure))")
    let item = try #require(report.items.first)
    let folder = try #require(item.folder)
    return (report.bundle.appendingPathComponent(folder).appendingPathComponent("master.m3u8"), item)
  }

  @Test("every H.264 variant has an hvc1 twin with the same segments and IDRs; CODECS is what ffprobe reads; H.264 is listed first")
  func twins() async throws {
    let fixture = try BatchFixture("hevc-twins", twins: true)
    defer { fixture.remove() }
    // 4.5 s of 960x540 with motion and grain, sound: a ladder of 540p,
    // 360p and 144p, three segments each after the 1 s first one.
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=s=960x540:r=30,noise=alls=8:allf=t", "-f", "lavfi",
                         "-i", "sine=f=330:d=4.5", "-t", "4.5", "-c:v", "libx264", "-crf", "16", "-pix_fmt", "yuv420p",
                         "-c:a", "aac"], to: fixture.dir.appendingPathComponent("clip.mp4"))
    let (master, item) = try await Self.build(fixture)
    #expect(item.status == .built)
    let (lines, variants) = try HLSCheck.variants(master: master)
    let h264 = variants.filter { $0.attributes["CODECS"]?.hasPrefix("avc1.") == true }
    let hevc = variants.filter { $0.attributes["CODECS"]?.hasPrefix("hvc1.") == true }
    // Each H.264 rendition's twin, unless it took as many bytes and was
    // left out (`HEVCTwinSelection`, said in the log).
    let leftOut = item.summary.components(separatedBy: "HEVC twin of ").count - 1
    #expect(h264.count == 3 && hevc.count + leftOut == 3 && !hevc.isEmpty, "\(lines.joined(separator: "\n"))")
    #expect(variants.count == h264.count + hevc.count, "only avc1 and hvc1 variants")
    #expect(variants.first?.attributes["CODECS"]?.hasPrefix("avc1.") == true, "the first variant listed is H.264")
    for twin in hevc {
      let name = try #require(twin.uri.split(separator: "/").first.map(String.init))
      #expect(name.hasSuffix("-hevc"))
      let base = String(name.dropLast("-hevc".count))
      let original = try #require(h264.first { $0.uri.hasPrefix(base + "/") }, "no H.264 variant for \(twin.uri)")
      #expect(twin.attributes["RESOLUTION"] == original.attributes["RESOLUTION"])
      #expect(twin.attributes["FRAME-RATE"] == original.attributes["FRAME-RATE"])
      #expect(twin.segments.map { ($0.duration * 1000).rounded() } == original.segments.map { ($0.duration * 1000).rounded() },
              "\(twin.uri) segments differ from \(original.uri)")
      // The stream as ffprobe reads it.
      let probed = try Self.probeVideo(twin.playlist)
      #expect(probed.codec == "hevc" && probed.tag == "hvc1" && probed.profile == "Main", "\(twin.uri): \(probed)")
      let codecs = try #require(twin.attributes["CODECS"])
      #expect(codecs.hasPrefix("hvc1.1.6.L\(probed.level)."), "\(twin.uri): CODECS \(codecs), ffprobe level \(probed.level)")
      #expect(codecs.hasSuffix(",mp4a.40.2"))
      #expect("\(probed.width)x\(probed.height)" == twin.attributes["RESOLUTION"])
      // The same IDR times as the H.264 twin, one at every segment start.
      let keys = try Self.keyTimes(twin.playlist), originalKeys = try Self.keyTimes(original.playlist)
      #expect(keys.map { ($0 * 1000).rounded() } == originalKeys.map { ($0 * 1000).rounded() }, "\(twin.uri) keyframes \(keys) vs \(originalKeys)")
      #expect(keys.count == twin.segments.count, "\(twin.uri): \(keys.count) keyframes in \(twin.segments.count) segments")
      for segment in twin.segments {
        // Each segment decoded on its own (init + segment) starts with an
        // I picture and holds no other keyframe.
        let file = try HLSCheck.standaloneSegment(map: twin.mapURL, segment: segment.url)
        defer { try? FileManager.default.removeItem(at: file) }
        let frames = try FFprobe.videoFrames(file)
        #expect(frames.first?.pictureType == "I" && frames.first?.isKeyframe == true, "\(twin.uri) \(segment.url.lastPathComponent)")
        #expect(frames.dropFirst().allSatisfy { !$0.isKeyframe }, "\(twin.uri) \(segment.url.lastPathComponent) has a keyframe inside")
      }
      // Decoded strictly from its own playlist, every picture.
      let decode = try Run.process("ffmpeg", ["-v", "error", "-xerror", "-err_detect", "explode", "-i", twin.playlist.path,
                                              "-map", "0:v", "-f", "null", "-"])
      #expect(decode.status == 0 && decode.stderr.isEmpty, "\(twin.uri): \(decode.stderr)")
      // Its own I-frame playlist, declared with its video codec.
      let iframe = lines.first { $0.hasPrefix("#EXT-X-I-FRAME-STREAM-INF:") && $0.contains("URI=\"\(name)/iframes.m3u8\"") }
      #expect(iframe?.contains("CODECS=\"\(codecs.split(separator: ",")[0])\"") == true, "no I-frame playlist for \(name)")
    }
    // The MP4 stays H.264.
    let mp4 = master.deletingLastPathComponent().appendingPathComponent("video.mp4")
    #expect(try Self.probeVideo(mp4).codec == "h264")
    let summary = item.summary
    // Largest first, as the summary lists the plan.
    let twinSizes = hevc.compactMap { $0.attributes["RESOLUTION"] }.sorted {
      let a = $0.split(separator: "x").compactMap { Int($0) }, b = $1.split(separator: "x").compactMap { Int($0) }
      return a.reduce(1, *) > b.reduce(1, *)
    }
    #expect(summary.contains("; HEVC " + twinSizes.joined(separator: ", ") + " @"), "\(summary)")
  }

  @Test("video_codecs [\"h264\"] leaves HEVC out; a picture under 64 pixels a side has no twin")
  func h264OnlyAndSmall() async throws {
    let fixture = try BatchFixture("hevc-off", twins: true)
    defer { fixture.remove() }
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25", "-t", "2", "-c:v", "libx264", "-pix_fmt", "yuv420p"],
                        to: fixture.dir.appendingPathComponent("clip.mp4"))
    let (master, _) = try await Self.build(fixture, settings: ["video_codecs": ["h264"]])
    let (_, variants) = try HLSCheck.variants(master: master)
    #expect(!variants.isEmpty && variants.allSatisfy { $0.attributes["CODECS"]?.hasPrefix("avc1.") == true })
    #expect(!FileManager.default.fileExists(atPath: master.deletingLastPathComponent().appendingPathComponent("180p-hevc").path))

    // 160x90: its top gets a twin; the 106x60 rung below it (the weak
    // one) does not, and the HEVC ladder is that one variant.
    let small = try BatchFixture("hevc-small", twins: true)
    defer { small.remove() }
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=s=160x90:r=25", "-t", "2", "-c:v", "libx264", "-pix_fmt", "yuv420p"],
                        to: small.dir.appendingPathComponent("clip.mp4"))
    let (smallMaster, item) = try await Self.build(small)
    let (_, smallVariants) = try HLSCheck.variants(master: smallMaster)
    let hevc = smallVariants.filter { $0.attributes["CODECS"]?.hasPrefix("hvc1.") == true }
    #expect(hevc.map { $0.attributes["RESOLUTION"] ?? "" } == ["160x90"], "\(smallVariants.map(\.uri))")
    #expect(smallVariants.count == 3)
    #expect(item.status == .built)
  }
}

/// The HEVC twin's plan and its `CODECS`, as pure rules.
@Suite("HEVC twins: planned")
struct HEVCTwinPlanTests {
  @Test("a twin keeps the size and takes 0.7 of the cap and buffer, one CRF point higher; none under 64 pixels")
  func twinPlan() {
    let stream = TranscoderPlanningTests.stream(1920, 1080)
    let plan = RenditionPlanner.plan(stream: stream, requests: RenditionRequest.defaultLadder, maxHeight: 720,
                                     codecs: [.h264, .hevc])
    let h264 = plan.renditions.filter { $0.codec == .h264 }, hevc = plan.renditions.filter { $0.codec == .hevc }
    #expect(h264.count == hevc.count && h264.count == 4)
    #expect(plan.renditions.prefix(h264.count).allSatisfy { $0.codec == .h264 }, "H.264 first, then the twins")
    #expect(plan.measuredRenditions == [0, h264.count])
    #expect(plan.renditions[plan.mp4Rendition].codec == .h264)
    for (a, b) in zip(h264, hevc) {
      #expect(a.width == b.width && a.height == b.height && a.isWeakNetwork == b.isWeakNetwork)
      #expect(b.name == a.name + "-hevc")
      #expect(abs(Double(b.maxRate) - 0.7 * Double(a.maxRate)) <= 1)
      #expect(abs(Double(b.bufferSize) - 0.7 * Double(a.bufferSize)) <= 1)
      #expect(b.crf(jobCRF: 23) == a.crf(jobCRF: 23) + 1)
    }
    let off = RenditionPlanner.plan(stream: stream, requests: RenditionRequest.defaultLadder, maxHeight: 720)
    #expect(off.renditions.allSatisfy { $0.codec == .h264 })
    let tiny = RenditionPlanner.plan(stream: TranscoderPlanningTests.stream(96, 54),
                                     requests: RenditionRequest.defaultLadder, maxHeight: 720, codecs: [.h264, .hevc])
    #expect(tiny.renditions.allSatisfy { $0.codec == .h264 }, "54 pixels high: no twin")
  }

  @Test("a twin whose average is not under its H.264 rendition's is left out, with the figures")
  func unhelpfulTwins() {
    let renditions: [HEVCTwinSelection.Rendition] = [
      .init(name: "720p", codec: .h264, averageBitRate: 2_000_000),
      .init(name: "360p", codec: .h264, averageBitRate: 700_000),
      .init(name: "720p-hevc", codec: .hevc, averageBitRate: 1_400_000),
      .init(name: "360p-hevc", codec: .hevc, averageBitRate: 700_000),
    ]
    let dropped = HEVCTwinSelection.unhelpful(renditions)
    #expect(dropped.map(\.index) == [3])
    #expect(dropped.first?.reason == "HEVC twin of 360p left out: 700 kbit/s, not under H.264's 700")
    #expect(HEVCTwinSelection.unhelpful(Array(renditions.prefix(3))).isEmpty)
  }

  @Test("CODECS from an SPS: profile, reversed compatibility flags, tier and level, constraint bytes")
  func codecsString() throws {
    // The start of an SPS as libx265 3.5 writes it for 1280x720 Main
    // (start code, NAL header 0x42 0x01, then the payload, with its
    // emulation prevention bytes: 00 00 03): space 0, Main tier, profile
    // 1, compatibility flags 1 and 2 (0x60000000 in stream order),
    // constraints progressive + frame-only (0x90), level 93.
    let sps: [UInt8] = [0, 0, 0, 1, 0x42, 0x01, 0x01, 0x01, 0x60, 0x00, 0x00, 0x03, 0x00, 0x90, 0x00, 0x00, 0x03, 0x00,
                        0x00, 0x03, 0x00, 0x5D, 0xA0, 0x02, 0x80, 0x80]
    let parsed = try #require(HEVCParameterSets(annexB: sps))
    #expect(parsed.codecs == "hvc1.1.6.L93.90")
    // Profile 2 in the high tier, compatibility flag 2, after a 3-byte
    // start code and with a VPS before it.
    let escaped: [UInt8] = [0, 0, 1, 0x40, 0x01, 0x0C, 0x01, 0xFF, 0xFF,
                            0, 0, 1, 0x42, 0x01, 0x01, 0x22, 0x20, 0x00, 0x00, 0x03, 0x00, 0xB0, 0x00, 0x00, 0x03, 0x00,
                            0x00, 0x03, 0x00, 0x78]
    let high = try #require(HEVCParameterSets(annexB: escaped))
    #expect(high.codecs == "hvc1.2.4.H120.B0", "\(high)")
    #expect(HEVCParameterSets(annexB: [0, 0, 1, 0x40, 0x01, 0x0C]) == nil, "a VPS alone has no SPS")
    // An hvcC's bytes 1-12 read the same way (no emulation prevention there).
    let hvcC = HEVCParameterSets(profileTierLevel: [0x01, 0x60, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5D])
    #expect(hvcC?.codecs == "hvc1.1.6.L93.90")
  }
}
