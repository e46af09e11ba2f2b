import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// The transcoder's promises, each checked on a source that breaks the rule
/// (from the corpus or generated here) with ffprobe/ffmpeg as the oracle.
@Suite("Transcoder normalisation, ladder and HLS", .serialized)
struct TranscoderTests {
  static let corpusOK = Corpus.skipReason == nil

  /// A temporary folder removed by the caller.
  static func tempDir() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-tx-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }

  /// Builds one video banner (small ladder by default, to stay quick).
  static func build(_ source: URL, in dir: URL, settings: JobSettings = JobSettings(maxHeight: 360),
                    cover: CoverPolicy = .auto, budget: CPUBudget = .unlimited) throws -> BuiltVideoBanner {
    MediaLog.set(.quiet)
    let spec = BannerSpec(id: "item", kind: .video, source: source, sourceText: source.lastPathComponent, link: nil,
                          autoplay: true, muted: true, cover: cover, jsonPath: "banners[0]")
    return try VideoBannerBuilder(settings: settings, darkVariants: DarkVariantGenerator())
      .build(spec, bundleRoot: dir, folder: "videos/item", budget: budget)
  }

  static func mp4(_ dir: URL) -> URL { dir.appendingPathComponent("videos/item/video.mp4") }
  static func master(_ dir: URL) -> URL { dir.appendingPathComponent("videos/item/master.m3u8") }

  // MARK: - Orientation

  @Test("display-matrix rotation is applied to the pixels and no rotation is left", .enabled(if: corpusOK),
        arguments: [
          "video-h264-aac-1280x720-rot270.mp4",
          "video-h264-aac-portrait-phone-rot90-3840x2160-60fps-0.3s.mp4",
          "video-h264-aac-1080x720-transpose-matrix-rotate-and-mirror.mp4",
          "video-iphone-hevc-main10-hlg-dolbyvision-p8-rot90-0.1s.mov",
        ])
  func rotation(file: String) throws {
    let source = try Corpus.url(file)
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let built = try Self.build(source, in: dir)
    let probe = try FFprobe.report(Self.mp4(dir))
    let v = try #require(probe.video)
    #expect(v.rotation == nil || v.rotation == 0, "output still carries rotation \(v.rotation ?? 0)")
    let (w, h) = (try #require(v.width), try #require(v.height))
    #expect(h > w, "\(file): a rotated landscape source must come out portrait, got \(w)x\(h)")
    #expect(built.entry.width == w && built.entry.height == h)
    // Upright: our first picture matches ffmpeg's own autorotated decode and
    // not the stored (unrotated) pixels squeezed to the same size.
    let ours = try Oracle.grayFrames(Self.mp4(dir), width: 36, height: 64)[0]
    let reference = try Oracle.grayFrames(source, width: 36, height: 64)[0]
    let unrotated = try Oracle.grayFrames(source, width: 36, height: 64, autorotate: false)[0]
    let good = Oracle.meanAbsoluteDifference(ours, reference)
    let bad = Oracle.meanAbsoluteDifference(ours, unrotated)
    #expect(good < 4, "\(file): differs from the upright reference by \(good)")
    #expect(bad > good * 3, "\(file): reference \(good) vs unrotated \(bad) do not separate")
  }

  @Test("a generated clip rotated 180° comes out upright")
  func rotation180() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("rot180.mp4")
    try SyntheticMedia.writeClip(.init(video: "testsrc2=size=320x240:rate=25", frameRate: Rational(25, 1), duration: 1,
                                       toneHz: nil, rotation: 180), to: src.path)
    _ = try Self.build(src, in: dir)
    let ours = try Oracle.grayFrames(Self.mp4(dir), width: 64, height: 48)[0]
    let reference = try Oracle.grayFrames(src, width: 64, height: 48)[0]
    let stored = try Oracle.grayFrames(src, width: 64, height: 48, autorotate: false)[0]
    #expect(Oracle.meanAbsoluteDifference(ours, reference) < 4)
    #expect(Oracle.meanAbsoluteDifference(ours, stored) > 15)
  }

  // MARK: - CPU budget and progress

  @Test("one CPU permit for all threads: same bytes as without a limit, and progress climbs to the duration")
  func singlePermitBuildsTheSameBytes() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("clip.mp4")
    try SyntheticMedia.writeClip(.init(video: "testsrc2=size=1280x720:rate=30", frameRate: Rational(30, 1), duration: 2),
                                 to: src.path)
    let settings = JobSettings(maxHeight: 720)
    let free = dir.appendingPathComponent("free")
    _ = try Self.build(src, in: free, settings: settings)

    // The calling thread holds the only permit, as an item's thread does;
    // the three rendition workers must get it from the transcoder's waits.
    let budget = CPUBudget(permits: 1)
    let reports = ProgressLog()
    let limited = dir.appendingPathComponent("limited")
    budget.acquire()
    let spec = BannerSpec(id: "item", kind: .video, source: src, sourceText: "clip.mp4", link: nil,
                          autoplay: true, muted: true, cover: .auto, jsonPath: "banners[0]")
    let built = try VideoBannerBuilder(settings: settings, darkVariants: DarkVariantGenerator())
      .build(spec, bundleRoot: limited, folder: "videos/item", budget: budget, progress: { reports.append($0) })
    budget.release()
    #expect(built.result.renditions.count >= 2)

    let a = try FileSystem.files(under: free.appendingPathComponent("videos/item"))
    let b = try FileSystem.files(under: limited.appendingPathComponent("videos/item"))
    #expect(a.map(\.path) == b.map(\.path))
    for file in a {
      let difference = try ByteComparison.difference(
        fileAt: free.appendingPathComponent("videos/item").appendingPathComponent(file.path),
        limited.appendingPathComponent("videos/item").appendingPathComponent(file.path))
      #expect(difference == nil, "\(file.path) differs with one permit: \(difference ?? "")")
    }

    let seconds = reports.values
    #expect(seconds.count == 60, "one report per picture, got \(seconds.count)")
    #expect(zip(seconds, seconds.dropFirst()).allSatisfy { $0 <= $1 }, "progress went backwards")
    #expect(abs((seconds.last ?? 0) - 2.0) < 1.0 / 30 + 1e-9, "last report \(seconds.last ?? 0) s of a 2 s clip")
    // The source's duration comes with every report, from the one opening.
    #expect(Set(reports.sourceDurations.map { $0.map { ($0 * 1000).rounded() } }) == [2000], "\(Set(reports.sourceDurations))")
    // The MP4 lasts as long as its pictures (ffprobe, an independent reader).
    let mp4 = limited.appendingPathComponent("videos/item/video.mp4")
    let probed = try #require(try FFprobe.report(mp4).duration)
    #expect(abs(probed - built.result.pictureDuration) < 0.0015, "ffprobe \(probed) s, pictures \(built.result.pictureDuration) s")
  }

  // MARK: - Pixels and sizes

  @Test("non-square pixels become square at the display aspect ratio, sizes even", .enabled(if: corpusOK),
        arguments: [
          ("video-h264-sar2x1-anamorphic-640x360.mp4", 3.5556),  // 1280x360
          ("video-h264-editlist-10s-empty-edit-sar1137x800.mp4", 1.7766),  // 800·1137/800 x 640
          ("video-hevc-main-854x480-noaudio-fade-from-black.mp4", 1.7792),
          ("video-h264-vfr-screen-recording-3026x1386.mp4", 2.1833),
        ] as [(String, Double)])
  func squarePixels(file: String, displayAspect: Double) throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    _ = try Self.build(try Corpus.url(file), in: dir, settings: JobSettings(maxHeight: 540))
    let (_, variants) = try HLSCheck.variants(master: Self.master(dir))
    for variant in variants {
      let seg = try HLSCheck.standaloneSegment(map: variant.mapURL, segment: variant.segments[0].url)
      defer { try? FileManager.default.removeItem(at: seg) }
      let v = try #require(try FFprobe.report(seg).video)
      let (w, h) = (try #require(v.width), try #require(v.height))
      #expect(w % 2 == 0 && h % 2 == 0, "\(file): odd size \(w)x\(h)")
      #expect(v.sampleAspectRatio == nil || v.sampleAspectRatio == "1:1", "\(file): SAR \(v.sampleAspectRatio ?? "")")
      #expect(abs(Double(w) / Double(h) / displayAspect - 1) < 0.01, "\(file): \(w)x\(h) vs aspect \(displayAspect)")
      #expect(variant.attributes["RESOLUTION"] == "\(w)x\(h)")
    }
  }

  @Test("10-bit, 4:4:4 and old codecs come out 8-bit 4:2:0 H.264 High, avc1", .enabled(if: corpusOK),
        arguments: ["video-h264-high444-yuv444p-aac-320x240-chapters.mkv", "video-hevc-main10-hlg-1080p-0.3s.mp4",
                    "video-mpeg4part2-mp3-960x400-fade-in.avi"])
  func pixelFormat(file: String) throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    _ = try Self.build(try Corpus.url(file), in: dir)
    let v = try #require(try FFprobe.report(Self.mp4(dir)).video)
    #expect(v.codecName == "h264" && v.profile == "High" && v.pixelFormat == "yuv420p" && v.codecTag == "avc1")
    #expect((v.level ?? 99) <= 42)
  }

  @Test("ProRes 4:2:2 10-bit in MOV and MJPEG in AVI come out H.264 High 4:2:0", arguments: [
    (["-c:v", "prores_ks", "-profile:v", "2", "-pix_fmt", "yuv422p10le"], "mov"),
    (["-c:v", "mjpeg", "-q:v", "4", "-pix_fmt", "yuvj420p"], "avi"),
  ] as [([String], String)])
  func intermediateCodecs(codec: [String], container: String) throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("source.\(container)")
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=1"] + codec, to: src)
    _ = try Self.build(src, in: dir)
    let v = try #require(try FFprobe.report(Self.mp4(dir)).video)
    #expect(v.codecName == "h264" && v.profile == "High" && v.pixelFormat == "yuv420p")
    // Same picture: compare with ffmpeg's own decode of the source.
    let ours = try Oracle.grayFrames(Self.mp4(dir), width: 64, height: 36)[0]
    let reference = try Oracle.grayFrames(src, width: 64, height: 36)[0]
    #expect(Oracle.meanAbsoluteDifference(ours, reference) < 4)
  }

  @Test("interlaced sources are deinterlaced")
  func interlaced() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("interlaced.mp4")
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=size=720x576:rate=50:duration=2",
                         "-vf", "tinterlace=mode=interleave_top,setfield=tff", "-flags", "+ildct+ilme",
                         "-c:v", "libx264", "-x264-params", "tff=1", "-pix_fmt", "yuv420p"], to: src)
    #expect(try Oracle.streamTiming(src).first?.fieldOrder == "tt", "the generated source should be interlaced")
    let sourceIdet = try Oracle.interlaceDetection(src)
    #expect(sourceIdet.interlaced > sourceIdet.progressive, "idet should see the source as interlaced: \(sourceIdet)")
    // Same size out, so no vertical scaling can blur the fields together.
    var settings = JobSettings(maxHeight: 576)
    settings.renditions = [RenditionRequest(height: 576, bitrateKbps: 3000)]
    _ = try Self.build(src, in: dir, settings: settings)
    #expect(try FFprobe.report(Self.mp4(dir)).video?.height == 576)
    let timing = try Oracle.streamTiming(Self.mp4(dir))
    #expect(timing.first?.fieldOrder == "progressive")
    let idet = try Oracle.interlaceDetection(Self.mp4(dir))
    #expect(idet.progressive > idet.interlaced * 4, "output still looks interlaced: \(idet)")
  }

  // MARK: - HDR

  @Test("PQ and HLG sources are tone-mapped to BT.709 SDR, not merely re-tagged", .enabled(if: corpusOK),
        arguments: ["video-hevc-main10-hdr10-pq-hdr10plus-no-container-colr.mp4",
                    "video-av1-10bit-hdr10-pq-mdcv-clli-1080p-59.94fps.mp4", "video-hevc-main10-hlg-1080p-0.3s.mp4"])
  func toneMapping(file: String) throws {
    let source = try Corpus.url(file)
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let built = try Self.build(source, in: dir)
    #expect(built.result.dynamicRange != .sdr, "\(file) was not detected as HDR")
    let v = try #require(try FFprobe.report(Self.mp4(dir)).video)
    #expect(v.colorTransfer == "bt709" && v.colorPrimaries == "bt709" && v.colorSpace == "bt709")
    // The HDR signal shown as if it were SDR (what re-tagging gives) is grey
    // and flat; the tone-mapped picture keeps its colour.
    let ours = try Oracle.signalStats(Self.mp4(dir))
    let naive = try Oracle.signalStats(source)
    #expect(ours.satavg > naive.satavg * 1.5, "\(file): saturation \(ours.satavg) vs re-tagged \(naive.satavg)")
    #expect(ours.yavg > 35 && ours.yavg < 200, "\(file): mean luma \(ours.yavg)")
  }

  // MARK: - Timing

  @Test("a 1 s clip stays 1 s, both streams start at 0")
  func oneSecond() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("one.mp4")
    try SyntheticMedia.writeClip(.init(video: "testsrc2=size=320x240:rate=30", frameRate: Rational(30, 1), duration: 1), to: src.path)
    let built = try Self.build(src, in: dir)
    #expect(abs(built.entry.duration - 1.0) < 0.0015, "json duration \(built.entry.duration)")
    let timing = try Oracle.streamTiming(Self.mp4(dir))
    let video = try #require(timing.first { $0.type == "video" })
    let audio = try #require(timing.first { $0.type == "audio" })
    #expect(abs(video.duration - 1.0) < 0.0015 && abs(video.start) < 0.0005, "video \(video)")
    #expect(abs(audio.duration - 1.0) < 0.03 && abs(audio.start) < 0.0005, "audio \(audio)")
    let frames = try Oracle.videoPackets(Self.mp4(dir))
    #expect(frames.count == 30)
  }

  @Test("a variable-frame-rate source comes out at a constant rate with audio in sync")
  func vfrSync() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("vfr.mp4")
    // White flashes and 1 kHz beeps at 1.0 s and 2.5 s; the video timestamps
    // jitter by up to ±12 ms and a stretch runs at half rate.
    try Oracle.generate([
      "-f", "lavfi", "-i", "color=c=black:size=320x240:rate=30:duration=4,drawbox=c=white:t=fill:enable='between(t,1,1.1)+between(t,2.5,2.6)',setpts='(N/30+0.012*sin(N*1.7))/TB',select='not(between(t,1.5,2.2)*mod(n,2))'",
      "-f", "lavfi", "-i", "aevalsrc='0.8*sin(2*PI*1000*t)*(between(t,1,1.1)+between(t,2.5,2.6))':s=44100:d=4",
      "-fps_mode", "passthrough", "-video_track_timescale", "90000", "-c:v", "libx264", "-pix_fmt", "yuv420p",
      "-c:a", "aac", "-shortest",
    ], to: src)
    let srcPackets = try Oracle.videoPackets(src)
    let deltas = Set(zip(srcPackets.dropFirst(), srcPackets).map { (($0.pts - $1.pts) * 1000).rounded() })
    #expect(deltas.count > 3, "the generated source should be VFR: \(deltas)")
    _ = try Self.build(src, in: dir)
    // Constant frame rate out: every packet 1/30 s apart, no duplicates.
    let packets = try Oracle.videoPackets(Self.mp4(dir))
    for (a, b) in zip(packets, packets.dropFirst()) {
      #expect(abs((b.pts - a.pts) - 1.0 / 30) < 0.0005, "gap \(b.pts - a.pts) at \(a.pts)")
    }
    // Sync: flash start (first frame with mean luma > 128) vs beep start.
    let frames = try Oracle.grayFrames(Self.mp4(dir), width: 16, height: 12, count: packets.count)
    let lit = frames.enumerated().filter { $0.element.reduce(0) { $0 + Int($1) } / $0.element.count > 128 }.map { $0.offset }
    let flashStarts = lit.filter { !lit.contains($0 - 1) }.map { Double($0) / 30 }
    let samples = try Oracle.monoSamples(Self.mp4(dir))
    var beepStarts: [Double] = []
    var last = -1.0
    for (i, s) in samples.enumerated() where abs(s) > 0.3 {
      let t = Double(i) / 48_000
      if t - last > 0.3 { beepStarts.append(t) }
      last = t
    }
    #expect(flashStarts.count == 2 && beepStarts.count == 2, "flashes \(flashStarts), beeps \(beepStarts)")
    for (f, b) in zip(flashStarts, beepStarts) {
      #expect(abs(f - b) < 0.045, "A/V offset \(f - b) s at \(f)")
    }
    #expect(abs((flashStarts.first ?? 0) - 1.0) < 0.045)
  }

  // MARK: - Keyframes and ladder

  @Test("IDRs at exactly every segment boundary in every rendition, despite hard cuts at 29.97 fps")
  func alignedKeyframes() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("cuts.mp4")
    try Oracle.generate([
      "-f", "lavfi", "-i",
      "testsrc2=size=640x360:rate=30000/1001:duration=1.37[a];smptehdbars=size=640x360:rate=30000/1001:duration=2.11[b];mandelbrot=size=640x360:rate=30000/1001:end_scale=0.1:maxiter=200[m];[m]trim=duration=2.9,setpts=PTS-STARTPTS[c];[a][b][c]concat=n=3",
      "-c:v", "libx264", "-pix_fmt", "yuv420p",
    ], to: src)
    var settings = JobSettings(maxHeight: 360)
    settings.renditions = [RenditionRequest(height: 360, bitrateKbps: 800), RenditionRequest(height: 240, bitrateKbps: 400)]
    _ = try Self.build(src, in: dir, settings: settings)
    let (_, variants) = try HLSCheck.variants(master: Self.master(dir))
    // 360p, 240p, the weak 144p, and those of their HEVC twins that take
    // fewer bytes (`HEVCTwinSelection`): every one's IDRs are checked.
    #expect(variants.filter { $0.attributes["CODECS"]?.hasPrefix("avc1.") == true }.count == 3 && variants.count <= 6)
    // Independent expectation: frame n is at n·1001/30000 s; the first
    // segment lasts 1 s, then one every 2 s: segment k opens at the first
    // frame at or after 0, 1, 3, 5 … s.
    var starts: [[Double]] = []
    for variant in variants {
      var t = 0.0
      var s: [Double] = []
      for seg in variant.segments {
        s.append((t * 1000).rounded() / 1000)
        t += seg.duration
        let file = try HLSCheck.standaloneSegment(map: variant.mapURL, segment: seg.url)
        defer { try? FileManager.default.removeItem(at: file) }
        let frames = try FFprobe.videoFrames(file)
        #expect(frames.first?.pictureType == "I")
        #expect(frames.dropFirst().allSatisfy { !$0.isKeyframe }, "\(variant.uri) \(seg.url.lastPathComponent) has a keyframe inside")
      }
      starts.append(s)
    }
    #expect(starts.allSatisfy { $0 == starts[0] }, "boundaries differ: \(starts)")
    func boundary(_ k: Int) -> Double {
      let start = k == 0 ? 0.0 : Double(2 * k - 1)
      let frame = (start * 30000.0 / 1001.0).rounded(.up)
      let seconds = frame * 1001.0 / 30000.0
      return (seconds * 1000).rounded() / 1000
    }
    let expected: [Double] = (0..<4).map(boundary)
    #expect(Array(starts[0].prefix(4)) == expected, "\(starts[0]) vs \(expected)")
    let keys = try Oracle.videoPackets(Self.mp4(dir)).filter(\.key).map { ($0.pts * 1000).rounded() / 1000 }
    #expect(keys == Array(expected.prefix(keys.count)), "MP4 keyframes \(keys)")
  }

  @Test("master playlist attributes equal what the segments measure", .enabled(if: corpusOK))
  func masterAttributes() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let built = try Self.build(try Corpus.url("video-vp9-960x540-60fps-vorbis-6ch.webm"), in: dir,
                               settings: JobSettings(maxHeight: 540))
    let (lines, variants) = try HLSCheck.variants(master: Self.master(dir))
    #expect(lines.contains("#EXT-X-INDEPENDENT-SEGMENTS")
              && variants.filter { $0.attributes["CODECS"]?.hasPrefix("avc1.") == true }.count == 3 && variants.count <= 6,
            "three H.264 variants and the HEVC twins kept")
    for variant in variants {
      var bits = 0.0, seconds = 0.0
      let initBytes = Double(try Data(contentsOf: try #require(variant.mapURL)).count)
      var sizes: [(bits: Double, seconds: Double)] = []
      for seg in variant.segments {
        let b = (Double(try Data(contentsOf: seg.url).count) + initBytes / Double(variant.segments.count)) * 8
        sizes.append((b, seg.duration))
        bits += b
        seconds += seg.duration
      }
      // RFC 8216 §4.3.4.2: the peak over runs of consecutive segments that
      // last 0.5 to 1.5 target durations.
      let target = Double(try #require(variant.targetDuration))
      var peak = 0.0
      for i in sizes.indices {
        for j in i..<sizes.count {
          let run = sizes[i...j]
          let d = run.reduce(0) { $0 + $1.seconds }
          if d >= 0.5 * target - 0.0005 && d <= 1.5 * target + 0.0005 { peak = max(peak, run.reduce(0) { $0 + $1.bits } / d) }
        }
      }
      if peak == 0 { peak = bits / seconds }
      let bandwidth = Double(try #require(Int(variant.attributes["BANDWIDTH"] ?? "")))
      let average = Double(try #require(Int(variant.attributes["AVERAGE-BANDWIDTH"] ?? "")))
      #expect(abs(bandwidth / peak - 1) < 0.01 && abs(average / (bits / seconds) - 1) < 0.01)
      #expect(peak <= 2 * (bits / seconds) + 1, "peak more than twice the average")
      let seg = try HLSCheck.standaloneSegment(map: variant.mapURL, segment: variant.segments[0].url)
      defer { try? FileManager.default.removeItem(at: seg) }
      let report = try FFprobe.report(seg)
      let v = try #require(report.video)
      let level = try #require(v.level)
      // H.264 High (profile_idc 100 = 0x64), or HEVC Main (hvc1.1.6),
      // at the level ffprobe reads.
      let wanted = v.codecName == "hevc" ? "hvc1.1.6.L\(level)." : String(format: "avc1.64%02X%02X", 0, level)
      #expect(["h264", "hevc"].contains(v.codecName))
      #expect(variant.attributes["CODECS"]?.hasPrefix(wanted) == true,
              "CODECS \(variant.attributes["CODECS"] ?? "") vs \(v.codecName) level \(level)")
      #expect(variant.attributes["RESOLUTION"] == "\(v.width ?? 0)x\(v.height ?? 0)")
      #expect(variant.attributes["FRAME-RATE"] == "60.000")
      let audio = try #require(report.audio, "the 6-channel Vorbis track must come out as AAC")
      #expect(audio.codecName == "aac" && audio.channels == 2 && audio.sampleRate == 48_000)
    }
    #expect(built.result.plan.frameRate == Rational(60, 1))
  }

  @Test("each rendition has an I-frame playlist whose byte ranges decode to exactly one IDR frame")
  func iFramePlaylists() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("five.mp4")
    try SyntheticMedia.writeClip(.init(video: "testsrc2=size=640x360:rate=25", frameRate: Rational(25, 1), duration: 5), to: src.path)
    _ = try Self.build(src, in: dir)
    let masterText = try String(contentsOf: Self.master(dir), encoding: .utf8)
    let iframeLines = masterText.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-I-FRAME-STREAM-INF:") }
    let (_, variants) = try HLSCheck.variants(master: Self.master(dir))
    #expect(iframeLines.count == variants.count)
    for line in iframeLines {
      let attrs = HLSCheck.attributes(line.dropFirst("#EXT-X-I-FRAME-STREAM-INF:".count))
      let codecs = attrs["CODECS"] ?? ""
      #expect(attrs["BANDWIDTH"] != nil && (codecs.hasPrefix("avc1.") || codecs.hasPrefix("hvc1.")) && attrs["RESOLUTION"] != nil)
      #expect(attrs["CODECS"]?.contains("mp4a") == false)
      let uri = try #require(attrs["URI"])
      let playlist = Self.master(dir).deletingLastPathComponent().appendingPathComponent(uri)
      let lines = try String(contentsOf: playlist, encoding: .utf8).split(separator: "\n").map(String.init)
      #expect(lines.contains("#EXT-X-I-FRAMES-ONLY") && lines.contains("#EXT-X-ENDLIST"))
      let map = try #require(lines.first { $0.hasPrefix("#EXT-X-MAP:URI=\"") })
      let initURL = playlist.deletingLastPathComponent().appendingPathComponent(String(map.dropFirst(16).dropLast()))
      var entries = 0
      for (i, l) in lines.enumerated() where l.hasPrefix("#EXT-X-BYTERANGE:") {
        let range = l.dropFirst("#EXT-X-BYTERANGE:".count).split(separator: "@")
        let length = try #require(Int(range[0])), offset = try #require(Int(range[1]))
        let segment = try Data(contentsOf: playlist.deletingLastPathComponent().appendingPathComponent(lines[i + 1]))
        #expect(offset + length <= segment.count)
        let piece = dir.appendingPathComponent("iframe-\(entries).mp4")
        try (try Data(contentsOf: initURL) + segment.subdata(in: offset..<(offset + length))).write(to: piece)
        let frames = try FFprobe.videoFrames(piece)
        #expect(frames.count == 1 && frames.first?.pictureType == "I", "\(uri) entry \(entries): \(frames.count) frames")
        entries += 1
      }
      #expect(entries == 3)
    }
  }

  @Test("mono stays mono; an audio-less source gives outputs without audio", .enabled(if: corpusOK))
  func audioLayouts() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    _ = try Self.build(try Corpus.url("video-h264-aac-1080x720-faststart.mp4"), in: dir)
    let audio = try #require(try FFprobe.report(Self.mp4(dir)).audio)
    #expect(audio.channels == 1 && audio.sampleRate == 48_000 && audio.profile == "LC")
    let dir2 = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir2) }
    let built = try Self.build(try Corpus.url("video-hevc-main-854x480-noaudio-fade-from-black.mp4"), in: dir2)
    #expect(try FFprobe.report(Self.mp4(dir2)).audio == nil)
    #expect(built.result.renditions.allSatisfy { !$0.codecs.contains("mp4a") })
  }

  @Test("H.264 level stays within 4.2 for a 1080p60 rendition", .enabled(if: corpusOK))
  func levelCap() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    var settings = JobSettings(maxHeight: 1080)
    settings.renditions = [RenditionRequest(height: 1080, bitrateKbps: 6000)]
    // A lone rung gets a second one below it (720p), nearer the default MP4 size.
    settings.mp4Height = 1080
    _ = try Self.build(try Corpus.url("video-av1-10bit-hdr10-pq-mdcv-clli-1080p-59.94fps.mp4"), in: dir, settings: settings)
    let v = try #require(try FFprobe.report(Self.mp4(dir)).video)
    #expect(v.width == 1920 && v.height == 1080)
    let level = try #require(v.level)
    #expect(level >= 40 && level <= 42, "level \(level)")
  }

  // MARK: - Limits and broken input

  @Test("limits name the limit and the value")
  func limits() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("three.mp4")
    try SyntheticMedia.writeClip(.init(video: "testsrc2=size=640x360:rate=25", frameRate: Rational(25, 1), duration: 3, toneHz: nil), to: src.path)
    func failure(_ settings: JobSettings) -> String {
      do {
        _ = try Self.build(src, in: dir, settings: settings)
        return ""
      } catch { return "\(error)" }
    }
    let duration = failure(JobSettings(maxHeight: 360, maxDuration: 2))
    #expect(duration.contains("max_duration") && duration.contains("3.0 s"), "\(duration)")
    let pixels = failure(JobSettings(maxHeight: 360, maxPixels: 100_000))
    #expect(pixels.contains("max_pixels") && pixels.contains("640x360"), "\(pixels)")
    let size = failure(JobSettings(maxHeight: 360, maxFileSize: 1000))
    #expect(size.contains("max_file_size") && size.contains("1000"), "\(size)")
  }

  @Test("broken files fail cleanly or build what is there; never a crash or hang", .enabled(if: corpusOK),
        arguments: [
          ("broken-mp4-malformed-free-box-unopenable.mp4", false),
          ("broken-m4b-aac-truncated-after-moov.m4b", false),
          ("broken-mp4-mdat-size-exceeds-file.mp4", true),
          // Cut at 1 MiB, its last picture damaged: fails unless allow_damaged_sources.
          ("broken-ts-h264-2560x1440-truncated-at-1MiB.ts", false),
          ("audio-aac-mono-44.1k-1s.mp4", false),
        ])
  func brokenInput(file: String, builds: Bool) throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    do {
      let built = try Self.build(try Corpus.url(file), in: dir)
      #expect(builds, "\(file) should have failed")
      #expect(built.entry.duration > 0)
      let frames = try FFprobe.videoFrames(Self.mp4(dir))
      #expect(frames.first?.isKeyframe == true)
    } catch let e as MarqueeError {
      #expect(!builds, "\(file) failed: \(e.message)")
      #expect(!e.message.isEmpty)
      guard e.code == .damagedSource else { return }
      // What is there builds when the job allows it.
      var settings = JobSettings(maxHeight: 360)
      settings.allowDamagedSources = true
      let built = try Self.build(try Corpus.url(file), in: dir, settings: settings)
      #expect(built.entry.duration > 0 && built.health.damagedPictures > 0)
      #expect(try FFprobe.videoFrames(Self.mp4(dir)).first?.isKeyframe == true)
    }
  }
}

/// Progress reports collected from the transcoding thread.
// Safe: `seconds` and `durations` are read and written only with `lock` held.
final class ProgressLog: @unchecked Sendable {
  private let lock = NSLock()
  private var seconds: [Double] = []
  private var durations: [Double?] = []
  func append(_ value: TranscodeProgress) {
    lock.lock()
    seconds.append(value.encoded)
    durations.append(value.sourceDuration)
    lock.unlock()
  }
  /// The source durations reported.
  var sourceDurations: [Double?] {
    lock.lock()
    defer { lock.unlock() }
    return durations
  }
  var values: [Double] {
    lock.lock()
    defer { lock.unlock() }
    return seconds
  }
}
