import Foundation
import Synchronization
import MarqueeTestSupport
import MediaIO
import Testing

@testable import MarqueeKit

/// The top rendition's SSIM target (`video_target_ssim`, `QualityTarget`):
/// the CRF rule alone, then whole builds read back with the ffmpeg CLI's
/// `ssim` filter and the stream's own x264 options as the oracles.
@Suite("Top rendition SSIM target", .serialized)
struct QualityTargetTests {
  typealias Trial = QualityTarget.Trial

  // MARK: - The CRF rule

  @Test("no next CRF when the target is met, the CRF is at its floor, or after two corrections")
  func whenNotToCorrect() {
    let target = QualityTarget(ssim: 0.985)
    #expect(target.nextCRF(after: [Trial(crf: 23, ssim: 0.9851)], lowest: 17) == nil)
    #expect(target.nextCRF(after: [Trial(crf: 17, ssim: 0.97)], lowest: 17) == nil)
    let three = [Trial(crf: 23, ssim: 0.97), Trial(crf: 21, ssim: 0.975), Trial(crf: 19, ssim: 0.98)]
    #expect(target.nextCRF(after: three, lowest: 10) == nil)
    // Within a quarter point of the floor: no encode for a tenth of a point.
    let nearFloor = [Trial(crf: 35, ssim: 0.9749), Trial(crf: 29.1, ssim: 0.9836)]
    #expect(target.nextCRF(after: nearFloor, lowest: 29) == nil)
  }

  @Test("the source is read through one descriptor: a file renamed over its path is not seen; one written in place fails the item")
  func sourceReplacedDuringTheBuild() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("src.mp4")
    try Data(repeating: 1, count: 1000).write(to: path)
    let file = try ReadableFile.open(path: path.path)
    // Replaced the way editors and sync tools do: a new file renamed over the path.
    let other = dir.appendingPathComponent("other.tmp")
    try Data(repeating: 2, count: 2000).write(to: other)
    #expect(rename(other.path, path.path) == 0)
    try VideoBannerBuilder.checkUnchanged(file)
    var byte = [UInt8](repeating: 0, count: 1)
    _ = byte.withUnsafeMutableBytes { file.read(at: 0, into: $0) }
    #expect(byte == [1], "the descriptor still reads the first file")
    // Written in place: the same inode grows.
    let inPlace = dir.appendingPathComponent("inplace.mp4")
    try Data(repeating: 1, count: 1000).write(to: inPlace)
    let second = try ReadableFile.open(path: inPlace.path)
    let handle = try FileHandle(forWritingTo: inPlace)
    handle.seekToEndOfFile()
    handle.write(Data(repeating: 3, count: 10))
    try handle.close()
    #expect(throws: MarqueeError.self) { try VideoBannerBuilder.checkUnchanged(second) }
    do { try VideoBannerBuilder.checkUnchanged(second) } catch let e as MarqueeError {
      #expect(e.code == .corruptSource && e.message.contains("written to while it was being encoded"), "\(e)")
    }
  }

  @Test("the first correction assumes 0.4 dB per CRF point plus a quarter point; the next uses the slope measured between the two")
  func correctionSteps() throws {
    let target = QualityTarget(ssim: 0.985)
    // 0.9810 is 17.212 dB, 0.985 is 18.239 dB: 1.027 dB short, 2.57 CRF + 0.25,
    // so 20.18, down to the tenth.
    let first = try #require(target.nextCRF(after: [Trial(crf: 23, ssim: 0.9810)], lowest: 17))
    #expect(abs(first - 20.1) < 0.001, "\(first)")
    // Measured 0.5 dB per CRF between 23 and 21: 0.3 dB short → 0.6 + 0.25.
    let s21 = 1 - pow(10, -(QualityTarget.decibels(0.9810) + 1.0) / 10)
    let second = try #require(target.nextCRF(after: [Trial(crf: 23, ssim: 0.9810), Trial(crf: 21, ssim: s21)],
                                             lowest: 17))
    let shortfall = QualityTarget.decibels(0.985) - QualityTarget.decibels(s21)
    let unrounded = 21 - shortfall / 0.5 - 0.25
    #expect(second <= unrounded + 1e-6 && second > unrounded - 0.1, "\(second), \(unrounded) before rounding")
    // Never below the floor; always at least a quarter point lower.
    #expect(target.nextCRF(after: [Trial(crf: 20, ssim: 0.90)], lowest: 17) == 17)
    #expect(target.nextCRF(after: [Trial(crf: 23, ssim: 0.98499)], lowest: 17) == 22.7)
  }

  // MARK: - Builds

  static func tempDir() throws -> URL { try RateControlTests.tempDir() }

  /// A 2 s 320x180 30 fps clip, stored losslessly and tagged BT.709 limited
  /// range, so Marquee's top rendition pictures are the source's own pixels.
  static func writeSource(_ url: URL, filter: String) throws {
    try Oracle.generate([
      "-f", "lavfi", "-i", "\(filter),trim=duration=2", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0",
      "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
      "-color_range", "tv",
    ], to: url)
  }

  /// A fractal zoom: detail x264 at CRF 21 (the 320x180 rendition's CRF
  /// for `video_crf` 23) codes to SSIM 0.990, short of a 0.992 target.
  /// (Generated grain is no use here: it gains about 0.1 dB per CRF point,
  /// a quarter of natural pictures' 0.4, so no CRF within 6 points reaches
  /// the target and the check rightly stops at the floor.)
  static let detailed = "mandelbrot=size=320x180:rate=30"
  static let detailedTarget = 0.992

  /// A 180p rung with a cap far above what the detail needs, so that the
  /// quality target, not the cap, decides.
  static func settings(target: Double = QualityTarget.defaultSSIM) -> JobSettings {
    var s = JobSettings(renditions: [RenditionRequest(height: 180, bitrateKbps: 3000)])
    s.videoTargetSSIM = target
    return s
  }

  static func build(_ source: URL, in dir: URL, settings: JobSettings) throws -> BuiltVideoBanner {
    try RateControlTests.build(source, in: dir, settings: settings)
  }

  /// Each variant of the item's master playlist as one file (init section
  /// and segments joined), by resolution.
  static func variants(in dir: URL, codec: String = "avc1.") throws -> [String: URL] {
    let (_, variants) = try HLSCheck.variants(master: RateControlTests.master(dir))
    var files: [String: URL] = [:]
    for v in variants where v.attributes["CODECS"]?.hasPrefix(codec) == true {
      files[v.attributes["RESOLUTION"] ?? ""] = try RateControlTests.wholeVariant(v, into: dir)
    }
    return files
  }

  /// The options SEI's thread fields of a stream (`RateControlTests.x264Options`).
  static func threadSettings(_ options: [String: String]) -> [String: String] {
    options.filter { ["threads", "lookahead_threads", "sliced_threads"].contains($0.key) }
  }

  /// What libx264 writes for every encode, a correction's included
  /// (`VideoBannerBuilder.defaultEncoderThreads`: one thread, so one
  /// lookahead thread and no slices).
  static let oneThread = ["threads": "1", "lookahead_threads": "1", "sliced_threads": "0"]

  @Test("a top rendition short of the target is encoded again at a lower CRF until ffmpeg's ssim filter finds it at the target; the lower rendition keeps its CRF")
  func shortTopRenditionIsCorrected() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let source = dir.appendingPathComponent("detailed.mp4")
    try Self.writeSource(source, filter: Self.detailed)
    let target = Self.detailedTarget
    let built = try Self.build(source, in: dir, settings: Self.settings(target: target))
    let trials = built.qualityTrials
    #expect(trials.count >= 2, "no correction: \(trials)")
    let first = try #require(trials.first), last = try #require(trials.last)
    #expect(first.ssim < target && abs(first.crf - 21) < 0.01, "\(trials)")
    #expect(last.ssim >= target && last.crf < first.crf && last.crf >= first.crf - QualityTarget.maxLowering, "\(trials)")
    // The log says why: the gain QualityCorrection predicted.
    #expect(built.qualityCorrections.count == trials.count - 1
              && built.qualityCorrections.allSatisfy { $0.contains("predicted at CRF") }, "\(built.qualityCorrections)")
    #expect(built.summary.contains("(encoded again: +0."), "\(built.summary)")

    let files = try Self.variants(in: dir)
    let top = try #require(files["320x180"]), lower = try #require(files.first { $0.key != "320x180" }?.value)
    // The oracle: the ffmpeg CLI's ssim filter on what a player downloads,
    // against the source's own pixels.
    let measured = try Oracle.ssim(top, reference: source)
    #expect(measured >= target, "ffmpeg measures the top rendition at SSIM \(measured)")
    #expect(abs(measured - last.ssim) < 0.0005, "ffmpeg \(measured), Marquee's meter \(last.ssim)")
    // The stream's x264 options: the top rendition at the last trial's CRF,
    // the lower one at its own (23 less one point per halving below 640x360).
    let topOptions = try RateControlTests.x264Options(top)
    let topCRF = try #require(topOptions["crf"].flatMap(Double.init))
    #expect(abs(topCRF - last.crf) < 0.001, "top rendition at crf \(topCRF), last trial \(last.crf)")
    let lowerOptions = try RateControlTests.x264Options(lower)
    // The thread settings that reach the bitstream, as libx264 wrote them
    // (README, "libx264's threads reach the bitstream"): one thread for the
    // correction as for the first encode.
    #expect(Self.threadSettings(topOptions) == Self.oneThread, "\(topOptions)")
    #expect(Self.threadSettings(lowerOptions) == Self.oneThread, "\(lowerOptions)")
    let lowerCRF = try #require(lowerOptions["crf"].flatMap(Double.init))
    let lowerSize = try #require(try FFprobe.report(lower).video)
    let wanted = 23 - log2(640 * 360 / Double((lowerSize.width ?? 1) * (lowerSize.height ?? 1)))
    #expect(abs(lowerCRF - wanted) < 0.051, "lower rendition at crf \(lowerCRF), wanted \(wanted)")
    // The MP4 is made from the top rendition here (nearest 720p): corrected too.
    let mp4 = dir.appendingPathComponent("videos/item/video.mp4")
    #expect(abs((try RateControlTests.x264Options(mp4)["crf"].flatMap(Double.init) ?? 0) - last.crf) < 0.001)
    // Every segment of the corrected rendition is new: as many as the lower
    // rendition's, each starting with an IDR, the playlist sums to 2 s.
    let (_, variants) = try HLSCheck.variants(master: RateControlTests.master(dir))
    #expect(Set(variants.map(\.segments.count)).count == 1, "\(variants.map(\.segments.count))")
    for v in variants {
      #expect(abs(v.segments.reduce(0) { $0 + $1.duration } - 2) < 0.001)
    }
    #expect(try Oracle.videoPackets(top).first?.key == true)
    // The top HEVC twin is held to the same target by the same meter
    // (libavcodec's hevc decoder, libavfilter's ssim); ffmpeg agrees.
    let hevcTrials = built.hevcQualityTrials
    let hevcLast = try #require(hevcTrials.last, "the HEVC top was not measured")
    // (Unless the twin, corrected, took as many bytes as the H.264 top and
    // was left out: the log says so.)
    if let hevcTop = try Self.variants(in: dir, codec: "hvc1.")["320x180"] {
      let hevcMeasured = try Oracle.ssim(hevcTop, reference: source)
      #expect(abs(hevcMeasured - hevcLast.ssim) < 0.0005, "ffmpeg \(hevcMeasured), Marquee's meter \(hevcLast.ssim)")
    } else {
      #expect(built.summary.contains("HEVC twin of 180p left out"), "\(built.summary)")
    }
    #expect(hevcLast.ssim >= target || built.summary.contains("HEVC top SSIM") && built.summary.contains("under the target"),
            "\(hevcTrials): \(built.summary)")
    #expect(abs((hevcTrials.first?.crf ?? 0) - (21 + RenditionPlanner.hevcCRFOffset)) < 0.01, "\(hevcTrials)")

    // The same bytes on one permit (`--jobs 1`) as without a limit, and
    // for three builds run at once on a loaded machine: libx264's slice
    // threads, which corrections once ran, gave 5 streams in 6 such encodes.
    let a = try Oracle.digests(under: dir.appendingPathComponent("videos/item"))
    #expect(!a.isEmpty)
    let copies = (0..<3).map { dir.appendingPathComponent("again-\($0)") }
    let rebuilt = Mutex<[Int: Result<[QualityTarget.Trial], Error>]>([:])
    DispatchQueue.concurrentPerform(iterations: copies.count) { i in
      let budget = i == 0 ? CPUBudget.forJobs(1) : CPUBudget.unlimited
      budget.acquire()
      defer { budget.release() }
      let r = Result { try RateControlTests.build(source, in: copies[i], settings: Self.settings(target: target), budget: budget).qualityTrials }
      rebuilt.withLock { $0[i] = r }
    }
    for (i, copy) in copies.enumerated() {
      #expect(try rebuilt.withLock { $0[i] }?.get() == trials)
      let b = try Oracle.digests(under: copy.appendingPathComponent("videos/item"))
      #expect(a == b, "copy \(i), files differing: \(a.keys.filter { a[$0] != b[$0] }.sorted())")
    }
  }

  @Test("a top rendition that meets the target is encoded once: the bundle is byte-identical to one built with the check off")
  func metTargetChangesNothing() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let source = dir.appendingPathComponent("bars.mp4")
    try Self.writeSource(source, filter: "smptebars=size=320x180:rate=30,drawbox=x=t*100:y=60:w=24:h=24:c=white:t=fill")
    let on = dir.appendingPathComponent("on"), off = dir.appendingPathComponent("off")
    let built = try Self.build(source, in: on, settings: Self.settings())
    _ = try Self.build(source, in: off, settings: Self.settings(target: 0))
    #expect(built.qualityTrials.count == 1 && (built.qualityTrials.first?.ssim ?? 0) >= 0.985, "\(built.qualityTrials)")
    let a = try Oracle.digests(under: on.appendingPathComponent("videos/item"))
    let b = try Oracle.digests(under: off.appendingPathComponent("videos/item"))
    #expect(a.keys.sorted() == b.keys.sorted())
    for (name, digest) in a where b[name] != digest {
      let difference = try Oracle.firstDifference(on.appendingPathComponent("videos/item/\(name)"),
                                                  off.appendingPathComponent("videos/item/\(name)"))
      Issue.record("\(name) differs with the check on: \(difference ?? "?")")
    }
  }

  @Test("a top rendition held to its cap is not encoded again, however far short of the target")
  func cappedTopRenditionIsLeft() throws {
    let dir = try Self.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let source = dir.appendingPathComponent("grain.mp4")
    try Self.writeSource(source, filter: "testsrc2=size=320x180:rate=30,noise=alls=16:allf=t")
    // The default ladder: a 320x180 source is below every rung, its cap 365 kbit/s.
    let built = try Self.build(source, in: dir, settings: JobSettings())
    let trials = built.qualityTrials
    #expect(trials.count == 1 && (trials.first?.ssim ?? 1) < 0.9, "\(trials)")
    // The outcome and the log say it was held, counting the pictures.
    let why = try #require(built.qualityShortfall)
    #expect(why.hasPrefix("held to its bit-rate cap: ") && why.contains(" pictures held (QP ") && why.contains(" of 365 kbit/s"), "\(why)")
    #expect(built.summary.contains("(under the target 0.985: held to its bit-rate cap: "), "\(built.summary)")
    #expect(built.qualityCorrections.isEmpty)
    let top = try #require(try Self.variants(in: dir)["320x180"])
    // The published top rendition is the first encode, at its CRF.
    let topOptions = try RateControlTests.x264Options(top)
    let topCRF = try #require(topOptions["crf"].flatMap(Double.init))
    #expect(abs(topCRF - (trials.first?.crf ?? 0)) < 0.001, "published at crf \(topCRF)")
    // ... with one libx264 thread, as every encode.
    #expect(Self.threadSettings(topOptions) == Self.oneThread, "\(topOptions)")
    let bits = Double(try Oracle.videoPacketSizes(top).reduce(0) { $0 + $1.bytes } * 8) / 2
    #expect(bits >= QualityTarget.heldToCapShare * 365_000 * 0.99, "the grain averaged \(Int(bits)) bit/s")
  }
}
