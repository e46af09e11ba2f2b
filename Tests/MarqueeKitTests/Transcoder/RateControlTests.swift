import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// Capped CRF, the ladder every source gets, the start variant and the
/// bytes before the first picture, each read back from the output with
/// ffprobe and the playlists as the oracle.
@Suite("Rate control, ladder and start variant", .serialized)
struct RateControlTests {
  static func tempDir() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-rc-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }

  static func build(_ source: URL, in dir: URL, settings: JobSettings = JobSettings(),
                    budget: CPUBudget = .unlimited) throws -> BuiltVideoBanner {
    MediaLog.set(.quiet)
    let spec = BannerSpec(id: "item", kind: .video, source: source, sourceText: source.lastPathComponent, link: nil,
                          autoplay: true, muted: true, cover: .first, jsonPath: "banners[0]")
    return try VideoBannerBuilder(settings: settings, darkVariants: DarkVariantGenerator())
      .build(spec, bundleRoot: dir, folder: "videos/item", budget: budget)
  }

  static func master(_ dir: URL) -> URL { dir.appendingPathComponent("videos/item/master.m3u8") }

  /// A 1280x720 30 fps clip of moving noise with a tone: content no
  /// quality target can be met on within a rung's rate, so the cap decides.
  static func writeNoise(_ url: URL, seconds: Int = 3) throws {
    try Oracle.generate([
      "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=\(seconds),noise=alls=40:allf=t+u",
      "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)",
      "-c:v", "libx264", "-preset", "ultrafast", "-qp", "8", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
    ], to: url)
  }

  /// One file a decoder reads the whole variant from: init section and
  /// every segment in order (fMP4 fragments concatenate).
  static func wholeVariant(_ variant: HLSVariant, into dir: URL) throws -> URL {
    var data = Data()
    if let m = variant.mapURL { data.append(try Data(contentsOf: m)) }
    for s in variant.segments { data.append(try Data(contentsOf: s.url)) }
    let url = dir.appendingPathComponent("whole-\(UUID().uuidString).mp4")
    try data.write(to: url)
    return url
  }

  /// The options libx264 wrote into the stream: the text of its SEI user
  /// data (`x264 - core … options: key=value key=value …`), read from the
  /// file's bytes.
  static func x264Options(_ url: URL) throws -> [String: String] {
    let data = try Data(contentsOf: url)
    guard let start = data.range(of: Data("options: ".utf8)) else { return [:] }
    let rest = data[start.upperBound...]
    let text = String(decoding: rest[..<(rest.firstIndex(of: 0) ?? rest.endIndex)], as: UTF8.self)
    var options: [String: String] = [:]
    for item in text.split(separator: " ") {
      let kv = item.split(separator: "=", maxSplits: 1)
      if kv.count == 2 { options[String(kv[0])] = String(kv[1]) }
    }
    return options
  }

  /// The rung's cap for a 16:9 picture of its own height at 30 fps: its
  /// bit rate unscaled (`RenditionRequest.defaultLadder`, Apple's §1.25 rates).
  /// The weak-network rung's is fixed (`WeakNetworkRung.videoBitRate`).
  static let caps: [Int: Double] = [720: 3_000_000, 540: 2_000_000, 360: 730_000, 144: 80_000]

  @Test("hard content is held to each rung's cap: average at most the cap, any second at most cap + buffer; the start variant about 2 Mbit/s, not the top, within 400 kB to the first picture")
  func hardContentIsCapped() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("noise.mp4")
    try Self.writeNoise(src)
    _ = try Self.build(src, in: dir)
    let (_, variants) = try HLSCheck.variants(master: Self.master(dir))
    // Four H.264 variants and their HEVC twins, each twin held to 0.7 of
    // its H.264 rung's cap.
    let isHEVC = { (v: HLSVariant) in v.attributes["CODECS"]?.hasPrefix("hvc1.") == true }
    // (Capped at 0.7x, no twin of noise reaches its H.264 rendition's bytes.)
    #expect(variants.count == 8 && variants.filter(isHEVC).count == 4)
    for variant in variants {
      let whole = try Self.wholeVariant(variant, into: dir)
      let packets = try Oracle.videoPacketSizes(whole)
      let height = try #require(Int(variant.attributes["RESOLUTION"]?.split(separator: "x").last ?? ""))
      let cap = try #require(Self.caps[height], "unexpected rendition \(height)p") * (isHEVC(variant) ? 0.7 : 1)
      let seconds = Double(packets.count) / 30
      let average = Double(packets.reduce(0) { $0 + $1.bytes } * 8) / seconds
      #expect(average <= cap * 1.03, "\(height)p averages \(Int(average)) bit/s over its cap \(Int(cap))")
      // The cap, not the quality target, decides on noise.
      #expect(average >= cap * 0.6, "\(height)p averages only \(Int(average)) bit/s of its cap \(Int(cap))")
      // VBV: any second holds at most one second at the cap plus the buffer (one second at the cap).
      let byTime = packets.sorted { $0.pts < $1.pts }
      for (i, first) in byTime.enumerated() {
        let window = byTime[i...].prefix { $0.pts < first.pts + 1 - 1e-6 }
        let bits = Double(window.reduce(0) { $0 + $1.bytes } * 8)
        #expect(bits <= 2 * cap * 1.03, "\(height)p: \(Int(bits)) bits in the second from \(first.pts) s")
        if bits > 2 * cap * 1.03 { break }
      }
    }

    // The start variant: listed first, never the 720p one, the highest
    // measured BANDWIDTH up to 2.3 Mbit/s.
    let bandwidth = variants.map { Int($0.attributes["BANDWIDTH"] ?? "") ?? 0 }
    #expect(variants[0].attributes["RESOLUTION"] != "1280x720")
    #expect(bandwidth[0] <= 2_300_000, "start variant BANDWIDTH \(bandwidth[0])")
    #expect(!isHEVC(variants[0]), "the start variant is H.264")
    let others = variants.indices.filter { variants[$0].attributes["RESOLUTION"] != "1280x720" && !isHEVC(variants[$0]) }
    let fitting = others.filter { bandwidth[$0] <= 2_300_000 }
    #expect(fitting.allSatisfy { bandwidth[$0] <= bandwidth[0] }, "BANDWIDTH \(bandwidth)")
    // Bytes before its first picture: init section + first segment (1 s).
    let start = variants[0]
    let startupBytes = try Data(contentsOf: try #require(start.mapURL)).count + Data(contentsOf: start.segments[0].url).count
    #expect(startupBytes <= 400_000, "\(startupBytes) bytes before the first picture of \(start.uri)")
    #expect(abs(start.segments[0].duration - 1) < 0.0005 && abs(start.segments[1].duration - 2) < 0.0005)
  }

  @Test("easy content takes far less than the cap and a 720p banner starts within 400 kB; a higher video_crf takes fewer bytes")
  func easyContentAndQualitySetting() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    /// Colour bars with a small moving box (with a fixed grain when `grain`),
    /// made with the ffmpeg CLI at a quality that keeps the grain.
    func bars(_ name: String, size: String, grain: Bool) throws -> URL {
      let url = dir.appendingPathComponent(name)
      try Oracle.generate([
        "-f", "lavfi", "-i", "smptehdbars=size=\(size):rate=30:duration=3\(grain ? ",noise=alls=6" : ""),drawbox=x=t*200:y=100:w=32:h=32:c=white:t=fill",
        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3",
        "-c:v", "libx264", "-preset", "ultrafast", "-qp", "10", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
      ], to: url)
      return url
    }
    func topVideoBits(_ out: URL, top: String) throws -> (bits: Double, startup: Int, variants: Int) {
      let (_, variants) = try HLSCheck.variants(master: Self.master(out))
      let topVariant = try #require(variants.first { $0.attributes["RESOLUTION"] == top && $0.attributes["CODECS"]?.hasPrefix("avc1.") == true })
      let packets = try Oracle.videoPacketSizes(try Self.wholeVariant(topVariant, into: out))
      let first = variants[0]
      let startup = try Data(contentsOf: try #require(first.mapURL)).count + Data(contentsOf: first.segments[0].url).count
      return (Double(packets.reduce(0) { $0 + $1.bytes } * 8), startup, variants.count)
    }
    let easy = try bars("easy.mp4", size: "1280x720", grain: false)
    let standard = dir.appendingPathComponent("easy-out")
    _ = try Self.build(easy, in: standard)
    let a = try topVideoBits(standard, top: "1280x720")
    #expect(a.variants >= 4 && a.variants <= 8, "four H.264 variants and the HEVC twins kept")
    #expect(a.bits / 3 < 0.25 * 3_000_000, "easy 720p took \(Int(a.bits / 3)) bit/s")
    #expect(a.startup <= 400_000, "\(a.startup) bytes before the first picture")

    let grain = try bars("grain.mp4", size: "640x360", grain: true)
    var bits: [Double] = []
    for crf in [23.0, 28.0] {
      let out = dir.appendingPathComponent("grain-\(crf)")
      // The CRF alone: with the SSIM target on, whether the grain is
      // encoded again (`QualityCorrection`) would decide the bytes.
      var settings = JobSettings(maxHeight: 360, videoCRF: crf)
      settings.videoTargetSSIM = 0
      _ = try Self.build(grain, in: out, settings: settings)
      bits.append(try topVideoBits(out, top: "640x360").bits)
    }
    #expect(bits[0] / 3 < 730_000 * 0.95, "grain at video_crf 23 reached the cap: \(Int(bits[0] / 3)) bit/s")
    #expect(bits[1] < bits[0] * 0.77, "video_crf 28 gave \(Int(bits[1])) bits, 23 gave \(Int(bits[0]))")
  }

  @Test("a source smaller than the lowest rung gets a second, lower rendition, each at a CRF lowered for its size, the lower one for weak networks and listed last")
  func smallSourceGetsALadder() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("small.mp4")
    try SyntheticMedia.writeClip(.init(video: "testsrc2=size=256x144:rate=25", frameRate: Rational(25, 1), duration: 2),
                                 to: src.path)
    // The H.264 ladder alone (its HEVC twins: HEVCLadderTests).
    let built = try Self.build(src, in: dir, settings: JobSettings(videoCodecs: [.h264]))
    let (_, variants) = try HLSCheck.variants(master: Self.master(dir))
    #expect(variants.count == 2)
    var sizes: [[Int]] = []
    for variant in variants {
      let seg = try HLSCheck.standaloneSegment(map: variant.mapURL, segment: variant.segments[0].url)
      defer { try? FileManager.default.removeItem(at: seg) }
      let v = try #require(try FFprobe.report(seg).video)
      sizes.append([v.width ?? 0, v.height ?? 0])
      #expect(variant.attributes["RESOLUTION"] == "\(v.width ?? 0)x\(v.height ?? 0)")
      // Both are under 640x360, so both are encoded below video_crf 23: one CRF
      // point per halving of the pixels (the stream's own x264 options say so).
      let options = try Self.x264Options(seg)
      let pixels = Double((v.width ?? 1) * (v.height ?? 1))
      let wanted = 23 - log2(640 * 360 / pixels)
      let crf = try #require(options["crf"].flatMap(Double.init), "no crf in the stream's x264 options")
      #expect(abs(crf - wanted) <= 0.051, "\(v.width ?? 0)x\(v.height ?? 0) encoded at crf \(crf), wanted \(wanted)")
      #expect(options["trellis"] == "2" && options["bframes"] == "3" && options["psy_rd"]?.hasPrefix("1.00") == true,
              "x264 options \(options)")
    }
    #expect(Set(sizes.map { $0[1] }).count == 2 && sizes.contains([256, 144]))
    let lower = try #require(sizes.first { $0 != [256, 144] })
    #expect(lower[1] < 144 && lower[1] >= 80, "lower rung \(lower)")
    #expect(abs(Double(lower[0]) / Double(lower[1]) / (256.0 / 144.0) - 1) < 0.012)
    // The lower one is the weak-network variant (`WeakNetworkRung`): listed
    // last, so the small top is the one a player starts with.
    #expect(sizes.last == lower, "the weak-network rendition is listed last: \(sizes)")
    #expect(variants.last.flatMap { Int($0.attributes["BANDWIDTH"] ?? "") }.map { $0 <= WeakNetworkRung.peakLimit } == true)
    // banners.json keeps the top rendition's size; the MP4 is the rendition nearest 720p.
    #expect(built.entry.width == 256 && built.entry.height == 144)
    #expect(try FFprobe.report(dir.appendingPathComponent("videos/item/video.mp4")).video?.height == 144)
  }

  @Test("the same job builds the same bytes: a build's budgets for --jobs 2 and --jobs 1, compared by SHA-256 of every file")
  func rebuildsAreByteIdentical() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("noise.mp4")
    try Self.writeNoise(src, seconds: 2)
    let first = dir.appendingPathComponent("first"), second = dir.appendingPathComponent("second")
    for (out, jobs) in [(first, 2), (second, 1)] {
      // The calling thread holds a permit, as an item's thread does.
      let budget = CPUBudget.forJobs(jobs)
      budget.acquire()
      defer { budget.release() }
      _ = try Self.build(src, in: out, budget: budget)
    }
    let a = try Oracle.digests(under: first.appendingPathComponent("videos/item"))
    let b = try Oracle.digests(under: second.appendingPathComponent("videos/item"))
    #expect(a.count > 10 && a.keys.sorted() == b.keys.sorted())
    for path in a.keys.sorted() where a[path] != b[path] {
      let where_ = try Oracle.firstDifference(first.appendingPathComponent("videos/item/\(path)"),
                                              second.appendingPathComponent("videos/item/\(path)"))
      Issue.record("\(path) differs between two builds: \(where_ ?? "?")")
    }
  }

  /// The race of issue 11 made reproducible: what libx264 read from memory
  /// nothing wrote decided the 960x540 rendition's bytes
  /// (`X264Capabilities`), and under load that memory held whatever other
  /// threads had freed. Here two runs of the CLI get their heap filled
  /// differently on purpose (glibc's `MALLOC_PERTURB_` fills each block
  /// `malloc` returns with the complement of the given byte). Before the
  /// fix, on an AVX-512 machine, the 540p segments differed every time; on
  /// a machine without AVX-512 libx264 never ran that code.
  @Test("the bytes do not depend on what uninitialised memory holds: two CLI builds with the heap filled differently (MALLOC_PERTURB_ 85 and 170) are identical, 960x540 rendition included")
  func bytesDoNotDependOnTheHeap() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    try Self.writeNoise(dir.appendingPathComponent("noise.mp4"), seconds: 2)
    let job = dir.appendingPathComponent("job.json")
    try Data(#"{"name": "heap", "settings": {"max_height": 720}, "banners": [{"id": "item", "type": "video", "source": "noise.mp4"}]}"#
      .utf8).write(to: job)
    var bundles: [URL] = []
    for fill in ["85", "170"] {
      let out = dir.appendingPathComponent("out-\(fill)")
      let run = try MarqueeCLI.run(["build", job.path, "--out", out.path, "--jobs", "2", "--quiet"],
                                   environment: ["MALLOC_PERTURB_": fill])
      try #require(run.status == 0, "build with MALLOC_PERTURB_=\(fill) failed: \(run.stderr)")
      bundles.append(out.appendingPathComponent("heap"))
    }
    let a = try Oracle.digests(under: bundles[0]), b = try Oracle.digests(under: bundles[1])
    #expect(a.keys.sorted() == b.keys.sorted())
    #expect(a.keys.contains { $0.contains("/540p/segment_") }, "no 960x540 rendition: \(a.keys.sorted())")
    for path in a.keys.sorted() where a[path] != b[path] {
      let where_ = try Oracle.firstDifference(bundles[0].appendingPathComponent(path), bundles[1].appendingPathComponent(path))
      Issue.record("\(path) differs with another heap filling: \(where_ ?? "?")")
    }
  }
}
