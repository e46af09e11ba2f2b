import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// `WeakNetworkRung` through the whole transcoder: every ladder ends with a
/// variant whose peak, measured here from the files the muxers wrote, stays
/// within 192 kbit/s, whatever the source: the hardest second the VBV
/// allows (a dark opening that fills the buffer, then noise), a GIF, a
/// tiny clip, a small source whose own lowest rung is the weak one.
@Suite("Weak-network rung: built, measured by hand")
struct WeakNetworkRungTests {
  /// Sources made with the ffmpeg CLI (name, its arguments).
  static let sources: [(String, [String])] = [
    ("black-then-noise.mp4", [
      "-f", "lavfi", "-i", "color=black:size=640x360:rate=30:duration=2",
      "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=3,noise=alls=40:allf=t",
      "-f", "lavfi", "-i", "anoisesrc=d=5:c=white:a=0.8",
      "-filter_complex", "[0][1]concat=n=2:v=1:a=0[v]", "-map", "[v]", "-map", "2",
      "-c:v", "libx264", "-crf", "14", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "256k",
    ]),
    ("animation.gif", ["-f", "lavfi", "-i", "testsrc2=size=480x270:rate=10", "-t", "3"]),
    ("tiny.mp4", [
      "-f", "lavfi", "-i", "testsrc2=size=32x18:rate=30:duration=2", "-f", "lavfi", "-i", "sine=f=440:d=2",
      "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac",
    ]),
    ("qcif-mono.mp4", [
      "-f", "lavfi", "-i", "testsrc2=size=176x144:rate=15:duration=3", "-f", "lavfi", "-i", "anoisesrc=d=3:a=0.5",
      "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "1",
    ]),
  ]

  /// Each segment's bits, with its share of the init section, and seconds,
  /// from the files themselves.
  static func segmentBits(_ variant: HLSVariant) throws -> [(bits: Double, seconds: Double)] {
    let initBytes = Double(try Data(contentsOf: try #require(variant.mapURL)).count)
    return try variant.segments.map {
      ((Double(try Data(contentsOf: $0.url).count) + initBytes / Double(variant.segments.count)) * 8, $0.duration)
    }
  }

  /// The highest rate of a run of consecutive segments lasting `shortest`
  /// to `longest` seconds, bits per second (the test's own arithmetic).
  static func peak(_ segments: [(bits: Double, seconds: Double)], shortest: Double, longest: Double) -> Double {
    var peak = 0.0
    for i in segments.indices {
      var bits = 0.0, seconds = 0.0
      for j in i..<segments.count {
        bits += segments[j].bits
        seconds += segments[j].seconds
        if seconds > longest + 0.0005 { break }
        if seconds >= shortest - 0.0005 { peak = max(peak, bits / seconds) }
      }
    }
    return peak
  }

  @Test("a 1 fps slideshow with sound is built, never refused: over the budget it is a warning, said exactly when its peak is over")
  func slowSlideshowIsBuilt() async throws {
    let fixture = try BatchFixture("weak-slideshow", twins: true)
    defer { fixture.remove() }
    // At 1 fps the muxer writes a segment's sound up to two pictures late,
    // so the 1 s last segment of a 6 s clip carries about 3 s of it.
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=s=640x360:r=1,noise=alls=40:allf=t+u", "-f", "lavfi",
                         "-i", "sine=f=440:d=6", "-t", "6", "-c:v", "libx264", "-crf", "18", "-pix_fmt", "yuv420p",
                         "-c:a", "aac"], to: fixture.dir.appendingPathComponent("slides.mp4"))
    try fixture.job([["id": "slides", "type": "video", "source": "slides.mp4"]])
    let report = try await BundleBuilder().build(job: try fixture.readJob(), options: BuildOptions(outputRoot: fixture.out, jobs: 2))
    #expect(report.published, "\(report.items.compactMap(\.failure))")
    let item = try #require(report.items.first)
    #expect(item.status == .built, "\(String(describing: item.failure))")
    let folder = try #require(item.folder)
    let master = report.bundle.appendingPathComponent(folder).appendingPathComponent("master.m3u8")
    let (_, variants) = try HLSCheck.variants(master: master)
    // The weak variant of each codec: the last one of its ladder.
    var peaks: [Double] = []
    for prefix in ["avc1.", "hvc1."] {
      guard let weak = variants.last(where: { $0.attributes["CODECS"]?.hasPrefix(prefix) == true }) else { continue }
      let segments = try Self.segmentBits(weak)
      let target = Double(try #require(weak.targetDuration))
      peaks.append(Self.peak(segments, shortest: max(1, 0.5 * target), longest: max(2, 1.5 * target)))
    }
    #expect(peaks.count == 2)
    let peak = peaks.max() ?? 0
    let warned = item.warnings.contains { $0.contains("the variant for weak networks") }
    #expect(warned == (peak > 192_000), "peak \(Int(peak)) bit/s; warnings \(item.warnings)")
  }

  @Test("each codec's last variant is the weak one: 144p or less, at most 192 kbit/s in any second, its BANDWIDTH what its segments measure",
        arguments: sources.map(\.0))
  func weakVariantWithinBudget(name: String) throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent(name)
    try Oracle.generate(try #require(Self.sources.first { $0.0 == name }).1, to: src)
    let hasSound = try FFprobe.report(src).audio != nil
    _ = try TranscoderTests.build(src, in: dir)
    let (_, all) = try HLSCheck.variants(master: TranscoderTests.master(dir))
    // Each codec's ladder ends with its weak variant: H.264's, and the
    // HEVC twins' when the twin ladder has two variants or more.
    for (prefix, codec) in [("avc1.", "h264"), ("hvc1.", "hevc")] {
      let variants = all.filter { $0.attributes["CODECS"]?.hasPrefix(prefix) == true }
      if codec == "h264" { #expect(variants.count >= 2) }
      guard variants.count >= 2 else { continue }
      try checkWeak(variants, codec: codec, name: name, hasSound: hasSound, dir: dir)
    }
  }

  func checkWeak(_ variants: [HLSVariant], codec: String, name: String, hasSound: Bool, dir: URL) throws {
    let weak = try #require(variants.last)
    let size = try #require(weak.attributes["RESOLUTION"]?.split(separator: "x").compactMap { Int($0) })
    #expect(size.count == 2 && min(size[0], size[1]) <= 144, "\(name): the last variant is \(size)")
    // Every other variant is larger.
    for v in variants.dropLast() {
      let s = v.attributes["RESOLUTION"]?.split(separator: "x").compactMap { Int($0) } ?? []
      #expect(s.count == 2 && s[0] * s[1] > size[0] * size[1], "\(name): \(v.uri) \(s) is not above the weak variant")
    }

    // Bits per segment, each with its share of the init section.
    let segments = try Self.segmentBits(weak)
    func peak(shortest: Double, longest: Double) -> Double { Self.peak(segments, shortest: shortest, longest: longest) }
    let target = Double(try #require(weak.targetDuration))
    let declared = Double(try #require(weak.attributes["BANDWIDTH"].flatMap { Int($0) }))
    let rfc = peak(shortest: 0.5 * target, longest: 1.5 * target)
    #expect(abs(declared / rfc - 1) < 0.01, "\(name): BANDWIDTH \(Int(declared)), its segments measure \(Int(rfc))")
    // Any run of a second or more (these clips all last 2 s or more).
    let budget = peak(shortest: max(1, 0.5 * target), longest: max(2, 1.5 * target))
    #expect(budget > 0 && budget <= 192_000, "\(name): the weak variant peaks at \(Int(budget)) bit/s")

    // Its own sound, AAC-LC at the lower rate; ffprobe reads both streams.
    let whole = dir.appendingPathComponent("weak-\(codec).mp4")
    try Oracle.generate(["-i", weak.playlist.path, "-c", "copy"], to: whole)
    let probe = try FFprobe.report(whole)
    #expect(probe.video?.codecName == codec && probe.video?.width == size[0] && probe.video?.height == size[1])
    if hasSound {
      let audio = try #require(probe.audio, "\(name): the weak variant has no sound")
      #expect(audio.codecName == "aac" && audio.profile == "LC")
      let seconds = try #require(probe.duration)
      let audioBits = Double(try Oracle.audioPacketBytes(whole)) * 8
      #expect(audioBits / seconds < 64_000, "\(name): its sound takes \(Int(audioBits / seconds)) bit/s")
    } else {
      #expect(probe.audio == nil)
    }
  }
}
