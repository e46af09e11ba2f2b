import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// Damaged and truncated sources (`SourceHealth`): generated with the
/// ffmpeg CLI, broken the way real uploads break (seeded garbage in the
/// media data, a file cut short), judged against the ffmpeg CLI's own
/// decode of the clean and the damaged file.
@Suite("Source health: damaged and truncated sources", .serialized)
struct SourceHealthTests {
  /// A 6 s 320x240 clip at 25 fps with a keyframe every second and a tone.
  static func clip(_ url: URL, codec: [String], audio: [String], seconds: Int = 6) throws {
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-f", "lavfi", "-i",
                         "sine=frequency=440:sample_rate=48000", "-t", "\(seconds)", "-threads", "1"]
                        + codec + ["-g", "25"] + audio, to: url)
  }

  /// The two damaged sources of the issue: an MPEG-4 part 2 AVI and an
  /// H.264 MP4, each with 1 kB of seeded garbage at two places of its
  /// media data.
  struct Damaged: CustomTestStringConvertible, Sendable {
    var name: String
    var codec: [String]
    var audio: [String]
    var marker: String
    var fractions: [Double]
    var seed: UInt64
    var testDescription: String { name }
  }

  static let damagedSources = [
    Damaged(name: "damaged.avi", codec: ["-c:v", "mpeg4", "-q:v", "4"], audio: ["-c:a", "mp3"], marker: "movi",
            fractions: [0.38, 0.6], seed: 21),
    Damaged(name: "damaged.mp4", codec: ["-c:v", "libx264", "-bf", "2"], audio: ["-c:a", "aac"], marker: "mdat",
            fractions: [0.35, 0.62], seed: 11),
  ]

  /// The clean source and its damaged copy in `dir`.
  static func make(_ d: Damaged, in dir: URL) throws -> (clean: URL, damaged: URL) {
    let clean = dir.appendingPathComponent("clean-" + d.name), damaged = dir.appendingPathComponent(d.name)
    try clip(clean, codec: d.codec, audio: d.audio)
    try DamagedMedia.writeGarbage(from: clean, to: damaged, marker: d.marker, at: d.fractions, length: 1024, seed: d.seed)
    return (clean, damaged)
  }

  /// Builds as `marquee build` does: one FFmpeg thread per decoder
  /// (`CPUBudget.forJobs`), so what the decoder conceals does not depend
  /// on how its frame threads happen to run. H.264 only: damage is found
  /// on the one decode every encoder shares, so HEVC twins add time here
  /// and test nothing more.
  static func build(_ source: URL, in dir: URL, settings: JobSettings = JobSettings(maxHeight: 360, videoCodecs: [.h264]),
                    cover: CoverPolicy = .auto) throws -> BuiltVideoBanner {
    let budget = CPUBudget.forJobs(2)
    return try budget.withPermit { try TranscoderTests.build(source, in: dir, settings: settings, cover: cover, budget: budget) }
  }

  /// `N pictures between A s and B s` of a damage message.
  static func damageFigures(_ message: String) -> (count: Int, first: Double, last: Double)? {
    let pattern = #/the source is damaged: (\d+) pictures between ([0-9.]+) s and ([0-9.]+) s could not be decoded cleanly/#
    guard let m = message.firstMatch(of: pattern), let n = Int(m.1), let a = Double(m.2), let b = Double(m.3) else { return nil }
    return (n, a, b)
  }

  @Test("a damaged source fails by default, its message naming a span that covers every damaged picture",
        arguments: damagedSources)
  func damagedFails(_ d: Damaged) throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let (clean, damaged) = try Self.make(d, in: dir)
    let oracle = try DamagedMedia.damagedPictureTimes(clean: clean, damaged: damaged)
    try #require(!oracle.isEmpty, "the garbage damaged no picture ffmpeg can see; choose other offsets")
    let error = #expect(throws: MarqueeError.self) { try Self.build(damaged, in: dir) }
    #expect(error?.code == .damagedSource)
    let message = error?.message ?? ""
    let figures = try #require(Self.damageFigures(message), "\(message)")
    let frame = 1.0 / 25
    for t in oracle {
      #expect(t >= figures.first - frame / 2 && t <= figures.last + frame / 2,
              "damaged picture at \(t) s outside \(figures.first)–\(figures.last) s: \(message)")
    }
    #expect(figures.count >= oracle.count, "\(figures.count) counted, ffmpeg sees \(oracle.count) damaged")
    #expect(message.contains("allow_damaged_sources"), "the message does not name the setting: \(message)")
    // Nothing of the item is left behind.
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("videos/item/master.m3u8").path))
  }

  @Test("allow_damaged_sources builds it: the warning names ranges covering the damage, the pinned cover comes from a clean picture",
        arguments: damagedSources)
  func damagedAllowed(_ d: Damaged) throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let (clean, damaged) = try Self.make(d, in: dir)
    let oracle = try DamagedMedia.damagedPictureTimes(clean: clean, damaged: damaged)
    try #require(!oracle.isEmpty)
    // Pin the cover in the middle of the first damaged run ffmpeg sees.
    let pinned = oracle[oracle.count > 2 ? 1 : 0]
    var settings = JobSettings(maxHeight: 360, videoCodecs: [.h264])
    settings.allowDamagedSources = true
    let built = try Self.build(damaged, in: dir, settings: settings, cover: .at(seconds: pinned))
    let health = built.health
    let frame = 1.0 / 25
    for t in oracle {
      #expect(health.isDamaged(at: t, margin: frame / 2), "damaged picture at \(t) s outside \(health.rangeList)")
    }
    let warning = try #require(built.warnings.first { $0.contains("the source is damaged") }, "\(built.warnings)")
    #expect(warning.contains(health.rangeList) && warning.contains("allow_damaged_sources"), "\(warning)")
    // The cover is a clean picture, the clean source's own at that time.
    let coverTime = try #require(built.coverTime)
    #expect(!health.isDamaged(at: coverTime, margin: frame / 2), "cover at \(coverTime) s, damaged: \(health.rangeList)")
    let note = try #require(built.warnings.first { $0.contains("pinned cover time") && $0.contains("damaged part") }, "\(built.warnings)")
    // The run the note names holds the pinned time and not the clean picture used.
    let run = try #require(note.firstMatch(of: #/damaged part of the source \(([0-9.]+)–([0-9.]+) s\)/#), "\(note)")
    let (runStart, runEnd) = (try #require(Double(run.1)), try #require(Double(run.2)))
    #expect(pinned >= runStart - frame && pinned <= runEnd + frame, "\(note)")
    #expect(coverTime < runStart - 0.005 || coverTime > runEnd + 0.005, "the cover at \(coverTime) s lies in the run the note names: \(note)")
    let cover = dir.appendingPathComponent("videos/item").appendingPathComponent(built.entry.coverPath)
    let ours = try Oracle.grayFrames(cover, width: 64, height: 48)[0]
    let reference = try Oracle.grayFrames(clean, width: 64, height: 48, at: coverTime)[0]
    let difference = Oracle.meanAbsoluteDifference(ours, reference)
    #expect(difference <= 12, "cover at \(coverTime) s differs from the clean source's picture by \(difference)")
    // The outputs play: every picture of the MP4 decodes (ffprobe counts them).
    let frames = try FFprobe.videoFrames(TranscoderTests.mp4(dir))
    #expect(frames.first?.isKeyframe == true && frames.count >= 140)
  }

  @Test("an H.264 file whose first IDR carries an extra slice the decoder drops (a PPS that does not exist) builds with no damage reported")
  func strayBadSlice() throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let raw = dir.appendingPathComponent("clip.h264")
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "3", "-threads", "1",
                         "-c:v", "libx264", "-bf", "0", "-g", "25", "-bsf:v", "h264_mp4toannexb", "-f", "h264"], to: raw)
    var bytes = [UInt8](try Data(contentsOf: raw))
    // After the first IDR slice NAL unit (type 5), before the next start
    // code: an IDR slice whose header names PPS 9 (first_mb 5, slice_type
    // 7, pic_parameter_set_id 9), which libavcodec drops whole.
    func startCode(_ i: Int) -> Bool { i + 3 <= bytes.count && bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 }
    let idr = try #require((0..<bytes.count).first { startCode($0) && bytes[$0 + 3] & 0x1F == 5 })
    var next = try #require(((idr + 3)..<bytes.count).first { startCode($0) })
    if bytes[next - 1] == 0 { next -= 1 }
    bytes.insert(contentsOf: [0, 0, 0, 1, 0x65, 0x30, 0x81, 0x50], at: next)
    let patched = dir.appendingPathComponent("patched.h264")
    try Data(bytes).write(to: patched)
    let source = dir.appendingPathComponent("stray-slice.mp4"), clean = dir.appendingPathComponent("clean.mp4")
    try Oracle.generate(["-r", "25", "-i", patched.path, "-c", "copy"], to: source)
    try Oracle.generate(["-r", "25", "-i", raw.path, "-c", "copy"], to: clean)
    // The oracle agrees: ffmpeg decodes every picture as the clean stream's.
    #expect(try DamagedMedia.damagedPictureTimes(clean: clean, damaged: source).isEmpty)
    let built = try Self.build(source, in: dir)
    #expect(built.health.isSound && built.health.damagedPictures == 0, "\(built.health)")
    #expect(!built.warnings.contains { $0.contains("damaged") || $0.contains("truncated") }, "\(built.warnings)")
    #expect(abs(built.entry.duration - 3) < 0.05)
  }

  /// A 3 s 320x240 H.264 stream at 30 fps (no B-frames, an IDR every
  /// second) in Annex B, and the byte offset of each access unit's first
  /// slice NAL unit (its `00 00 01` start code; `first_mb_in_slice` 0).
  static func annexB(_ url: URL) throws -> (bytes: [UInt8], units: [Int]) {
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "3", "-threads", "1",
                         "-c:v", "libx264", "-bf", "0", "-g", "30", "-bsf:v", "h264_mp4toannexb", "-f", "h264"], to: url)
    let bytes = [UInt8](try Data(contentsOf: url))
    let units = (0..<(bytes.count - 4)).filter {
      bytes[$0] == 0 && bytes[$0 + 1] == 0 && bytes[$0 + 2] == 1 && [1, 5].contains(bytes[$0 + 3] & 0x1F) && bytes[$0 + 4] & 0x80 != 0
    }
    return (bytes, units)
  }

  /// A slice header naming PPS 9, which does not exist: `first_mb_in_slice`
  /// 0, `slice_type` 5 (P), `pic_parameter_set_id` 9; libavcodec refuses
  /// the packet whole ("non-existing PPS 9 referenced", "no frame!").
  static let missingPPSSliceHeader: [UInt8] = [0x98, 0x57]

  @Test("a stray slice NAL unit (9 bytes, nal_ref_idc 1, a PPS that does not exist) in its own packet and picture slot is skipped with a note, not damage; the pictures after it are the clean stream's")
  func strayNALPacket() throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let raw = dir.appendingPathComponent("clip.h264")
    var (bytes, units) = try Self.annexB(raw)
    try #require(units.count == 90)
    // Before the second access unit: 00 00 00 01, then the NAL unit (header 0x21: nal_ref_idc 1, type 1).
    let nal: [UInt8] = [0x21] + Self.missingPPSSliceHeader + [0xAB, 0xCD, 0x12, 0x34, 0x56, 0x80]
    let at = bytes[units[1] - 1] == 0 ? units[1] - 1 : units[1]
    bytes.insert(contentsOf: [0, 0, 0, 1] + nal, at: at)
    let patched = dir.appendingPathComponent("patched.h264")
    try Data(bytes).write(to: patched)
    let source = dir.appendingPathComponent("stray-packet.mp4"), clean = dir.appendingPathComponent("clean.mp4")
    try Oracle.generate(["-r", "30", "-i", patched.path, "-c", "copy"], to: source)
    try Oracle.generate(["-r", "30", "-i", raw.path, "-c", "copy"], to: clean)
    // ffprobe: the unit is a packet of its own (4-byte length + 9 bytes) at pts 512 of 1/15360, the second picture slot.
    let probe = try Run.process("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=time_base:packet=pts,size",
                                            "-of", "csv=p=0", source.path])
    let rows = probe.stdoutText.split(separator: "\n").map(String.init)
    #expect(rows.contains("1/15360") && rows.contains("512,13") && rows.count == 92, "\(rows.prefix(4))")
    // The oracle: ffmpeg decodes 90 pictures, each the clean stream's, in order.
    let ours = try Oracle.timedGrayFrames(source), reference = try Oracle.timedGrayFrames(clean)
    try #require(ours.count == 90 && reference.count == 90, "\(ours.count) and \(reference.count) pictures")
    for (a, b) in zip(ours, reference) {
      #expect(Oracle.meanAbsoluteDifference(a.gray, b.gray) <= 1, "picture at \(a.time) s differs from the clean stream's")
    }

    let built = try Self.build(source, in: dir)
    let health = built.health
    #expect(health.isSound && health.damagedPictures == 0 && health.damagedRanges.isEmpty, "\(health)")
    let skipped = try #require(health.skippedVideoPackets, "\(health)")
    #expect(skipped.count == 1 && abs(skipped[0] - 512.0 / 15360) < 0.002, "\(skipped)")
    #expect(!built.warnings.contains { $0.contains("damaged") || $0.contains("truncated") }, "\(built.warnings)")
    #expect(built.warnings.contains("1 video packet (at 0.03 s) could not be decoded and was skipped; the pictures after it decoded whole, so no picture depends on it"),
            "\(built.warnings)")
    // Every picture is encoded (ffprobe on the MP4): 3.03 s at 30 fps, the empty slot filled.
    #expect(abs(built.entry.duration - 91.0 / 30) < 0.05, "\(built.entry.duration)")
    #expect(try FFprobe.videoFrames(TranscoderTests.mp4(dir)).count >= 90)
  }

  @Test("a P-picture whose packet the decoder refuses whole (its slice header names a PPS that does not exist) is lost: the item fails, the range covering it and the pictures predicted from it")
  func lostReferencePacket() throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let raw = dir.appendingPathComponent("clip.h264")
    var (bytes, units) = try Self.annexB(raw)
    try #require(units.count == 90 && bytes[units[10] + 3] & 0x1F == 1 && bytes[units[10] + 3] & 0x60 != 0,
                 "the 11th picture is a reference P slice")
    bytes.replaceSubrange((units[10] + 4)..<(units[10] + 6), with: Self.missingPPSSliceHeader)
    let patched = dir.appendingPathComponent("patched.h264")
    try Data(bytes).write(to: patched)
    let source = dir.appendingPathComponent("lost-picture.mp4"), clean = dir.appendingPathComponent("clean.mp4")
    try Oracle.generate(["-r", "30", "-i", patched.path, "-c", "copy"], to: source)
    try Oracle.generate(["-r", "30", "-i", raw.path, "-c", "copy"], to: clean)
    // The oracle: ffmpeg loses the picture at 10/30 s, and the pictures predicted from it drift from the clean
    // stream's (past the oracle's threshold from 0.9 s), up to the IDR at 1 s.
    let oracle = try DamagedMedia.damagedPictureTimes(clean: clean, damaged: source)
    try #require(oracle.first.map { abs($0 - 10.0 / 30) < 0.005 } == true && oracle.count > 1, "\(oracle)")
    #expect(oracle.allSatisfy { $0 < 1 }, "\(oracle)")

    let error = #expect(throws: MarqueeError.self) { try Self.build(source, in: dir) }
    #expect(error?.code == .damagedSource)
    let message = error?.message ?? ""
    let figures = try #require(Self.damageFigures(message), "\(message)")
    let frame = 1.0 / 30
    for t in oracle {
      #expect(t >= figures.first - frame / 2 && t <= figures.last + frame / 2, "damaged picture at \(t) s outside \(figures.first)–\(figures.last) s: \(message)")
    }
    #expect(figures.count == 20, "the lost picture and the 19 predicted from it before the IDR at 1 s: \(message)")
  }

  // MARK: - Truncation

  @Test("a file cut at 40 % fails by default (its pictures end at about 40 % of the declared 9 s); allow_damaged_sources builds what is there",
        arguments: [("cut.avi", ["-c:v", "mpeg4"], ["-c:a", "mp3"]),
                    ("cut.mp4", ["-c:v", "libx264", "-movflags", "+faststart"], ["-c:a", "aac"])])
  func truncated(name: String, codec: [String], audio: [String]) throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let whole = dir.appendingPathComponent("whole-" + name), cut = dir.appendingPathComponent(name)
    try Self.clip(whole, codec: codec, audio: audio, seconds: 9)
    try DamagedMedia.truncate(whole, to: cut, keeping: 0.4)
    let error = #expect(throws: MarqueeError.self) { try Self.build(cut, in: dir) }
    #expect(error?.code == .damagedSource)
    let message = error?.message ?? ""
    let pattern = #/the source is truncated or still being copied: its pictures end at ([0-9.]+) s of ([0-9.]+) s/#
    let m = try #require(message.firstMatch(of: pattern), "\(message)")
    let (end, declared) = (try #require(Double(m.1)), try #require(Double(m.2)))
    #expect(abs(declared - 9) < 0.1, "\(message)")
    #expect(end > 1.5 && end < 5, "\(message)")

    var settings = JobSettings(maxHeight: 360, videoCodecs: [.h264])
    settings.allowDamagedSources = true
    let built = try Self.build(cut, in: dir, settings: settings)
    let truncation = try #require(built.health.truncation)
    #expect(built.warnings.contains { $0.hasPrefix("the source is truncated or still being copied") }, "\(built.warnings)")
    // The duration is what was encoded: ffprobe reads it from the outputs.
    let probed = try #require(try FFprobe.report(TranscoderTests.mp4(dir)).duration)
    #expect(abs(built.entry.duration - probed) < 0.05, "banners.json \(built.entry.duration) s, MP4 \(probed) s")
    #expect(abs(built.entry.duration - truncation.picturesEnd) < 0.05)
    #expect(built.entry.duration < 5)
  }

  @Test("an H.264 MP4 (faststart, B-pictures) cut at 30–50 %: the damaged pictures the message names lie within the pictures' end it names")
  func damageWithinThePicturesEnd() throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let whole = dir.appendingPathComponent("whole.mp4")
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "6", "-threads", "1", "-c:v", "libx264",
                         "-bf", "2", "-g", "30", "-movflags", "+faststart"], to: whole)
    var beyond = 0
    for (i, fraction) in [0.3, 0.33, 0.37, 0.4, 0.43, 0.47, 0.5].enumerated() {
      let cut = dir.appendingPathComponent("cut\(i).mp4")
      try DamagedMedia.truncate(whole, to: cut, keeping: fraction)
      let error = #expect(throws: MarqueeError.self) { try Self.build(cut, in: dir) }
      let message = error?.message ?? ""
      let end = try #require(message.firstMatch(of: #/its pictures end at ([0-9.]+) s of/#).flatMap { Double($0.1) }, "\(message)")
      // ffprobe: packets shown past that end were read (the picture lost with the cut packet, at least).
      let packets = try Oracle.videoPackets(cut)
      if let origin = packets.map(\.pts).min(), packets.contains(where: { $0.pts - origin > end + 0.001 }) { beyond += 1 }
      guard let damage = message.firstMatch(of: #/the source is damaged: ([^;]+) could not be decoded cleanly/#) else { continue }
      let times = damage.1.matches(of: #/([0-9]+\.[0-9]+) s/#).compactMap { Double($0.1) }
      #expect(!times.isEmpty && times.allSatisfy { $0 <= end }, "cut at \(fraction): \(message)")
    }
    #expect(beyond > 0, "no cut left a packet past the pictures' end")
  }

  @Test("an MP4 with its moov at the end (no faststart) cut at 40 % is truncated or still being copied, by its own boxes; the setting cannot build it; one whose mdat runs to the end with no moov is still being written")
  func truncatedBeforeIndex() throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let whole = dir.appendingPathComponent("whole.mp4"), cut = dir.appendingPathComponent("copying.mp4")
    try Self.clip(whole, codec: ["-c:v", "libx264"], audio: ["-c:a", "aac"], seconds: 9)
    // ffprobe's MP4 demuxer: the moov follows the mdat in the whole file.
    let boxes = try DamagedMedia.rootBoxes(whole)
    let mdat = try #require(boxes.first { $0.type == "mdat" }), moov = try #require(boxes.first { $0.type == "moov" })
    try #require(moov.offset > mdat.offset, "\(boxes)")
    try DamagedMedia.truncate(whole, to: cut, keeping: 0.4)
    let cutSize = try #require(try FileManager.default.attributesOfItem(atPath: cut.path)[.size] as? Int)
    try #require(cutSize < mdat.offset + mdat.size)
    // ffprobe cannot open it either.
    #expect(try Run.process("ffprobe", ["-v", "error", cut.path]).status != 0)

    for allowed in [false, true] {
      var settings = JobSettings(maxHeight: 360, videoCodecs: [.h264])
      settings.allowDamagedSources = allowed
      let error = #expect(throws: MarqueeError.self) { try Self.build(cut, in: dir, settings: settings) }
      #expect(error?.code == .damagedSource)
      let message = error?.message ?? ""
      #expect(message == "the source is truncated or still being copied: it ends at byte \(cutSize), inside its 'mdat' box, "
                + "which declares \(mdat.size) bytes from byte \(mdat.offset), and its index (the 'moov' box) is not there, "
                + "so none of it can be read; copy the file again once it is complete (allow_damaged_sources cannot build it)",
              "\(message)")
    }

    // Still being written: the mdat's size is 0 (to the end of the file) until the muxer finishes.
    var bytes = [UInt8](try Data(contentsOf: cut))
    for i in mdat.offset..<(mdat.offset + 4) { bytes[i] = 0 }
    let writing = dir.appendingPathComponent("writing.mp4")
    try Data(bytes).write(to: writing)
    let error = #expect(throws: MarqueeError.self) { try Self.build(writing, in: dir) }
    #expect(error?.code == .damagedSource)
    #expect(error?.message.hasPrefix("the source is truncated or still being copied: its 'mdat' box runs to the end of the file and its index (the 'moov' box) is not there") == true,
            "\(error?.message ?? "")")
  }

  @Test("a file of seeded random bytes is not a media file, not a truncated one")
  func noiseIsNoMediaFile() throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let noise = dir.appendingPathComponent("noise.mp4")
    try DamagedMedia.writeNoise(count: 200_000, seed: 21, to: noise)
    // ffprobe recognises no container in it either.
    #expect(try Run.process("ffprobe", ["-v", "error", noise.path]).status != 0)
    let error = #expect(throws: MarqueeError.self) { try Self.build(noise, in: dir) }
    #expect(error?.code == .corruptSource)
    #expect(error?.message.hasPrefix("not a media file: its bytes match no container format") == true, "\(error?.message ?? "")")
    #expect(error?.message.contains("truncated") == false)
    // Nor are a few bytes of text (shorter than a box header).
    let junk = dir.appendingPathComponent("junk.mp4")
    try Data("junk".utf8).write(to: junk)
    let short = #expect(throws: MarqueeError.self) { try Self.build(junk, in: dir) }
    #expect(short?.code == .corruptSource && short?.message.hasPrefix("not a media file: ") == true, "\(short?.message ?? "")")
  }

  // MARK: - Damaged sound

  /// A 6 s clip whose AAC packets shown from 2 s to 3 s are seeded
  /// garbage (47 packets at 48 kHz), the video intact; and the times of the
  /// packets ffprobe's decoder loses.
  static func damagedSound(in dir: URL) throws -> (clean: URL, damaged: URL, lost: [Double]) {
    let clean = dir.appendingPathComponent("clean-sound.mp4"), damaged = dir.appendingPathComponent("damaged-sound.mp4")
    try clip(clean, codec: ["-c:v", "libx264"], audio: ["-c:a", "aac"])
    let written = try DamagedMedia.writeGarbageIntoAudio(from: clean, to: damaged, times: 2.0..<3.0, seed: 5)
    try #require(written.count > SourceHealth.audioErrorAllowance)
    let lost = try DamagedMedia.lostAudioPacketTimes(clean: clean, damaged: damaged)
    try #require(lost.count > SourceHealth.audioErrorAllowance, "ffprobe loses only \(lost.count) of \(written.count) packets")
    return (clean, damaged, lost)
  }

  /// `N audio packets between A s and B s` of a damage message.
  static func audioDamageFigures(_ message: String) -> (count: Int, first: Double, last: Double)? {
    let pattern = #/the source is damaged: (\d+) audio packets between ([0-9.]+) s and ([0-9.]+) s could not be decoded/#
    guard let m = message.firstMatch(of: pattern), let n = Int(m.1), let a = Double(m.2), let b = Double(m.3) else { return nil }
    return (n, a, b)
  }

  @Test("damaged AAC fails by default with the count and the first and last packet's times (ffprobe's lost packets) and the setting; allowed, the warning names the gaps")
  func damagedSound() throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let (_, damaged, lost) = try Self.damagedSound(in: dir)
    let error = #expect(throws: MarqueeError.self) { try Self.build(damaged, in: dir) }
    #expect(error?.code == .damagedSource)
    let message = error?.message ?? ""
    let figures = try #require(Self.audioDamageFigures(message), "\(message)")
    #expect(figures.count == lost.count, "\(figures.count) counted, ffprobe loses \(lost.count): \(message)")
    // Times on the output timeline (the first picture at 0, as in this clip), printed to 0.01 s.
    #expect(abs(figures.first - lost.min()!) <= 0.006 && abs(figures.last - lost.max()!) <= 0.006,
            "\(message); ffprobe: \(lost.min()!)–\(lost.max()!) s")
    #expect(message.contains("set \"allow_damaged_sources\": true in \"settings\" to publish it as it is"), "\(message)")

    var settings = JobSettings(maxHeight: 360, videoCodecs: [.h264])
    settings.allowDamagedSources = true
    let built = try Self.build(damaged, in: dir, settings: settings)
    let health = built.health
    #expect(health.audioErrors == lost.count && health.soundIsDamaged && !health.isSound)
    for t in lost {
      #expect(health.audioGaps.contains { t >= $0.start - 0.006 && t <= $0.end + 0.006 }, "lost packet at \(t) s outside \(health.audioGapList)")
    }
    let warning = try #require(built.warnings.first { $0.contains("audio packets") }, "\(built.warnings)")
    #expect(warning.hasPrefix(String(message.prefix { $0 != ";" })), "\(warning)")
    #expect(warning.contains("built anyway (allow_damaged_sources), the sound has gaps at \(health.audioGapList)"), "\(warning)")
    // Every picture is kept and the sound goes on past the gap (ffprobe on the MP4).
    let report = try FFprobe.report(TranscoderTests.mp4(dir))
    #expect(try FFprobe.videoFrames(TranscoderTests.mp4(dir)).count == 150)
    #expect(report.audio?.codecName == "aac" && abs((report.audio?.duration ?? 0) - 6) < 0.1, "\(report.audio.map { "\($0)" } ?? "no audio")")
  }

  @Test("the sound sources of the corpus are sound: no damage, no truncation", .enabled(if: Corpus.skipReason == nil),
        arguments: ["video-h264-editlist-10s-empty-edit-sar1137x800.mp4", "video-h264-aac-portrait-phone-rot90-3840x2160-60fps-0.3s.mp4",
                    "video-h264-high444-yuv444p-aac-320x240-chapters.mkv", "video-mpeg2-mp2-1920x1080-fade-in.ts",
                    "video-vp9-960x540-60fps-vorbis-6ch.webm", "broken-mp4-mdat-size-exceeds-file.mp4"])
  func corpusIsSound(file: String) throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let built = try Self.build(try Corpus.url(file), in: dir)
    #expect(built.health.isSound, "\(file): \(built.health)")
  }

  // MARK: - Pure rules

  @Test("damage carries to the next clean keyframe shown after it; a lost packet's damage is not cleared by a keyframe shown before it")
  func carriedDamage() {
    var m = SourceHealthMonitor(frameDuration: 0.04)
    // Pictures 0.00 … 0.36 (key at 0 and 0.20), no reordering; 0.08 concealed.
    var damaged: [Double] = []
    for i in 0..<10 {
      let t = Double(i) * 0.04
      if m.picture(at: t, position: Int64(i), keyframe: i % 5 == 0, flagged: i == 2, window: 0) == [true] { damaged.append(t) }
    }
    #expect(damaged.map { Int(($0 * 100).rounded()) } == [8, 12, 16])
    // The packet shown at 0.48 is lost before the keyframe shown at 0.40 comes out.
    #expect(m.videoPacketRefused(at: 0.48, position: nil) == [])
    var after: [Double] = []
    for i in 10..<20 where i != 12 {  // 0.48 never comes out
      let t = Double(i) * 0.04
      if m.picture(at: t, position: nil, keyframe: i % 5 == 0, flagged: false, window: 0) == [true] { after.append(t) }
    }
    #expect(after.map { Int(($0 * 100).rounded()) } == [52, 56], "the keyframe at 0.40 must not clear damage from 0.48; 0.60 does")
    let h = m.health(origin: 0, picturesEnd: 0.8, declaredEnd: 0.8, declaredStart: 0)
    #expect(h.damagedPictures == 6 && h.truncation == nil)
    #expect(h.damagedRanges == [.init(start: 0.08, end: 0.16), .init(start: 0.48, end: 0.56)], "\(h.damagedRanges)")
    #expect(h.failureReason?.hasPrefix("the source is damaged: 6 pictures between 0.08 s and 0.56 s could not be decoded cleanly") == true)
  }

  @Test("the cover's damaged runs split at every clean picture: a pinned time falls in the run on screen then, never in a range that hides the clean picture a cover used")
  func coverRunsSplitAtCleanPictures() {
    // 25 fps; damaged 1.16–1.96, clean at 2.00, damaged 2.04–3.96, clean from 4.00.
    var runs = DamagedRuns()
    for i in 25..<110 {
      let t = Double(i) * 0.04
      runs.picture(at: t, damaged: (29...49).contains(i) || (51...99).contains(i))
    }
    #expect(runs.runs.count == 2, "\(runs.runs)")
    let first = runs.run(showing: 1.5), second = runs.run(showing: 3.0)
    #expect(first.map { Int(($0.start * 100).rounded()) } == 116 && first.map { Int(($0.end * 100).rounded()) } == 196, "\(String(describing: first))")
    #expect(second.map { Int(($0.start * 100).rounded()) } == 204 && second.map { Int(($0.end * 100).rounded()) } == 396, "\(String(describing: second))")
    #expect(runs.run(showing: 2.0) == nil && runs.run(showing: 2.03) == nil, "2.00 s is clean and on screen until 2.04 s")
    #expect(runs.run(showing: 1.98) == first, "the last damaged picture is on screen until the clean one")
    #expect(runs.run(showing: 4.0) == nil && runs.run(showing: 1.12) == nil)
  }

  @Test("H.264, judged after the fact: a refused packet after which the decoder's picture numbers run on is a stray unit (a note); one it made a picture in place of is a lost picture, damage carried to the next clean keyframe; other codecs count it lost at once")
  func refusedPacketJudgedByPictureNumbers() {
    // 30 fps, no reordering: the IDR at 0, a packet refused at 1/30 s (byte 100), then 29 pictures from 2/30 s with an
    // IDR at 20/30 s; `gap` when the decoder numbered on past a picture of its own (a lost reference).
    func run(gap: Bool, judges: Bool = true) -> (decisions: [Bool], health: SourceHealth) {
      var m = SourceHealthMonitor(frameDuration: 1.0 / 30, judgesLostPackets: judges)
      var decisions = m.picture(at: 0, position: 0, codedNumber: 0, keyframe: true, flagged: false, window: 0)
      decisions += m.videoPacketRefused(at: 1.0 / 30, position: 100)
      for i in 1..<30 {
        m.videoPacketSent(position: Int64(100 + i))
        decisions += m.picture(at: Double(i + 1) / 30, position: Int64(100 + i), codedNumber: gap ? i + 1 : i,
                               keyframe: i == 19, flagged: false, window: 0)
      }
      decisions += m.drain()
      return (decisions, m.health(origin: 0, picturesEnd: 31.0 / 30, declaredEnd: 31.0 / 30, declaredStart: 0))
    }
    let stray = run(gap: false)
    #expect(stray.decisions == Array(repeating: false, count: 30))
    #expect(stray.health.isSound && stray.health.damagedPictures == 0 && stray.health.failureReason == nil)
    #expect(stray.health.skippedVideoPackets?.map { Int(($0 * 1000).rounded()) } == [33], "\(stray.health)")
    #expect(stray.health.warnings == ["1 video packet (at 0.03 s) could not be decoded and was skipped; the pictures after it decoded whole, so no picture depends on it"])

    let lost = run(gap: true)
    // Pictures 2/30 … 19/30 s follow the lost one; the IDR at 20/30 s is clean.
    #expect(lost.decisions == [false] + Array(repeating: true, count: 18) + Array(repeating: false, count: 11), "\(lost.decisions)")
    #expect(lost.health.damagedPictures == 19 && lost.health.skippedVideoPackets == nil)
    #expect(lost.health.rangeList == "0.03–0.63 s", "\(lost.health.rangeList)")

    // MPEG-4 part 2 and the like: no numbers to judge by, lost at once.
    let unjudged = run(gap: false, judges: false)
    #expect(unjudged.decisions == lost.decisions && unjudged.health.damagedPictures == 19)
  }

  @Test("with B-pictures (reorder depth 2): a stray unit between B2 and P6 is judged once P6 and B2 are out; a lost P6 damages B4 and B5 (decoded after it) and B7 and B8 (shown after it)")
  func refusedPacketWithReordering() {
    // Decode order I0 P3 B1 B2 [refused] … I9 B7 B8 at 25 fps, positions in decode order; the decoder hands pictures over
    // in display order once more than 2 wait. `lostP6`: the refused packet is P6 itself and the decoder made a picture in
    // its place (numbers skip 4); else it is a stray unit before P6.
    func run(lostP6: Bool) -> [Bool] {
      var m = SourceHealthMonitor(frameDuration: 0.04, judgesLostPackets: true)
      var decided: [Bool] = []
      var decoderHeld: [(shown: Int, position: Int64, coded: Int)] = []
      var coded = 0
      func out(_ count: Int) {
        decoderHeld.sort { $0.shown < $1.shown }
        while decoderHeld.count > count {
          let p = decoderHeld.removeFirst()
          decided += m.picture(at: Double(p.shown) * 0.04, position: p.position, codedNumber: p.coded,
                               keyframe: p.shown % 9 == 0, flagged: false, window: 2)
        }
      }
      var position: Int64 = 0
      for shown in lostP6 ? [0, 3, 1, 2, 6, 4, 5, 9, 7, 8] : [0, 3, 1, 2, -1, 6, 4, 5, 9, 7, 8] {
        defer { position += 1 }
        if shown == -1 || (lostP6 && shown == 6) {
          decided += m.videoPacketRefused(at: shown == -1 ? 0.1 : 0.24, position: position)
          if lostP6 { coded += 1 }  // the picture the decoder made in P6's place
          continue
        }
        m.videoPacketSent(position: position)
        decoderHeld.append((shown, position, coded))
        coded += 1
        out(2)
      }
      out(0)
      decided += m.drain()
      return decided
    }
    let stray = run(lostP6: false)
    #expect(stray == Array(repeating: false, count: 10), "\(stray)")
    let lost = run(lostP6: true)
    #expect(lost.count == 9)
    // Shown 0 1 2 3 4 5 7 8 9: B4, B5 (decoded after the lost P6) and B7, B8 (shown after it, before I9).
    #expect(lost == [false, false, false, false, true, true, true, true, false], "\(lost)")
  }

  @Test("a picture lost after the last one decoded is named within the pictures' end the truncation names; ranges merge only where no clean picture lies between")
  func timesWithinThePictures() {
    // 25 fps pictures 0 … 2.36 s (they end at 2.40 s), then a refused last packet at 2.47 s; the container says 6 s.
    var m = SourceHealthMonitor(frameDuration: 0.04)
    for i in 0..<60 {
      m.packetRead(stream: 0, isVideo: true, start: Double(i) * 0.04, end: Double(i + 1) * 0.04, cut: false)
      _ = m.picture(at: Double(i) * 0.04, position: Int64(i), keyframe: i % 25 == 0, flagged: false, window: 0)
    }
    m.packetRead(stream: 0, isVideo: true, start: 2.47, end: 2.51, cut: false)
    _ = m.videoPacketRefused(at: 2.47, position: 60)
    _ = m.drain()
    let h = m.health(origin: 0, picturesEnd: 2.40, declaredEnd: 6, declaredStart: 0)
    let reason = h.failureReason ?? ""
    #expect(reason.hasPrefix("the source is truncated or still being copied: its pictures end at 2.40 s of 6.00 s; "
                             + "the source is damaged: 1 picture at 2.40 s could not be decoded cleanly"), "\(reason)")
    #expect(h.damagedRanges.allSatisfy { $0.end <= 2.40 }, "\(h.damagedRanges)")

    // 60 fps pictures (output at 30 fps: 1.5 output frames is 3 source frames): damage at 10 and 11, the clean IDR at
    // 12, damage from 13 to the IDR at 36 with a lost picture at 30: two ranges, the lost picture inside the second.
    var r = SourceHealthMonitor(frameDuration: 1.0 / 30)
    for i in 0..<40 {
      if i == 30 { _ = r.videoPacketRefused(at: 30.0 / 60, position: 30); continue }
      _ = r.picture(at: Double(i) / 60, position: Int64(i), keyframe: [0, 12, 36].contains(i), flagged: [10, 13].contains(i),
                    window: 0)
    }
    _ = r.drain()
    let ranges = r.health(origin: 0, picturesEnd: 40.0 / 60, declaredEnd: nil, declaredStart: 0).damagedRanges
    #expect(ranges.map { [Int(($0.start * 60).rounded()), Int(($0.end * 60).rounded())] } == [[10, 11], [13, 35]],
            "\(ranges.map { ($0.start * 60, $0.end * 60) })")
  }

  @Test("B-pictures decoded after a concealed reference but shown before it are damaged too (decode order by packet position)")
  func damageInDecodeOrder() {
    // Decode order I0 P3 B1 B2 P6 B4 B5 I9 B7 B8 (positions 0…9); shown 0…8 at 25 fps with a reorder depth of 2.
    let decode: [(shown: Int, key: Bool)] = [(0, true), (3, false), (1, false), (2, false), (6, false), (4, false), (5, false),
                                             (9, true), (7, false), (8, false)]
    let position = Dictionary(uniqueKeysWithValues: decode.enumerated().map { ($0.element.shown, Int64($0.offset)) })
    var m = SourceHealthMonitor(frameDuration: 0.04)
    var decisions: [Bool] = []
    for shown in 0..<10 {  // the decoder hands them over in display order
      // P6 is concealed; B4 and B5 were decoded after it (positions 5, 6 > 4) but come out before it.
      decisions += m.picture(at: Double(shown) * 0.04, position: position[shown], keyframe: shown == 0 || shown == 9,
                             flagged: shown == 6, window: 2)
    }
    decisions += m.drain()
    #expect(decisions.count == 10)
    let damaged = decisions.indices.filter { decisions[$0] }
    #expect(damaged == [4, 5, 6, 7, 8], "\(damaged)")
  }

  @Test("lost audio packets: counted with their times, runs merged where no packet decoded between, a lost last packet only a note; more than the allowance is damage")
  func audioGapRule() throws {
    func health(lost: Set<Int>, packets: Int = 100) -> SourceHealth {
      var m = SourceHealthMonitor(frameDuration: 0.04)
      // AAC at 48 kHz: a packet every 1024/48000 s, the first picture at 0.1 s.
      for i in 0..<packets { m.audioPacket(at: 0.1 + Double(i) * 1024 / 48000, ok: !lost.contains(i)) }
      return m.health(origin: 0.1, picturesEnd: 2.2, declaredEnd: nil, declaredStart: 0)
    }
    let few = health(lost: [10, 11, 12, 40, 99])
    #expect(few.audioErrors == 4 && few.isSound && few.lastAudioFrameIncomplete && few.failureReason == nil)
    #expect(few.audioGapList == "0.21–0.26 s, 0.85 s", "\(few.audioGapList)")
    #expect(few.warnings.contains("4 audio packet(s) could not be decoded and were skipped; the sound has gaps at 0.21–0.26 s, 0.85 s"), "\(few.warnings)")
    let many = health(lost: Set(20..<50))
    #expect(many.audioErrors == 30 && many.soundIsDamaged && !many.isSound)
    #expect(many.failureReason?.hasPrefix("the source is damaged: 30 audio packets between 0.43 s and 1.05 s could not be decoded; re-export") == true,
            "\(many.failureReason ?? "")")
    #expect(many.warnings == ["the source is damaged: 30 audio packets between 0.43 s and 1.05 s could not be decoded; built anyway (allow_damaged_sources), the sound has gaps at 0.43–1.05 s"],
            "\(many.warnings)")
    // A record written before the gap times existed still reads.
    let old = #"{"damagedPictures":0,"damagedRanges":[],"lastAudioFrameIncomplete":false,"audioErrors":30}"#
    #expect(try JSONDecoder().decode(SourceHealth.self, from: Data(old.utf8)).audioGaps == [])
  }

  @Test("truncated: more than 0.5 s or more than 5 % (and a frame) short of the declared end, or the last packet cut")
  func truncationRule() {
    func health(declared: Double, read: Double, cut: Bool = false) -> SourceHealth {
      var m = SourceHealthMonitor(frameDuration: 0.04)
      m.packetRead(stream: 0, isVideo: true, start: read - 0.04, end: read, cut: cut)
      return m.health(origin: 0, picturesEnd: read, declaredEnd: declared, declaredStart: 0)
    }
    #expect(health(declared: 9, read: 9).truncation == nil)
    #expect(health(declared: 60, read: 59.6).truncation == nil, "0.4 s of 60 s")
    #expect(health(declared: 60, read: 59.4).truncation != nil, "0.6 s of 60 s")
    #expect(health(declared: 4, read: 3.85).truncation == nil, "3.75 % of 4 s")
    #expect(health(declared: 4, read: 3.75).truncation != nil, "6.25 % of 4 s")
    #expect(health(declared: 0.3, read: 0.27).truncation == nil, "less than a frame")
    #expect(health(declared: 9, read: 9, cut: true).truncation?.lastPacketCut == true)
    // A cut last audio packet is an incomplete last audio frame: a note, not a truncation.
    var audio = SourceHealthMonitor(frameDuration: 0.04)
    audio.packetRead(stream: 0, isVideo: true, start: 8.96, end: 9, cut: false)
    audio.packetRead(stream: 1, isVideo: false, start: 8.98, end: 9, cut: true)
    let noted = audio.health(origin: 0, picturesEnd: 9, declaredEnd: 9, declaredStart: 0)
    #expect(noted.isSound && noted.lastAudioFrameIncomplete)
    #expect(noted.warnings == ["the last audio frame is incomplete (cut short, or it could not be decoded); the sound ends there"])
    #expect(health(declared: 9, read: 3.6).failureReason?.hasPrefix("the source is truncated or still being copied: its pictures end at 3.60 s of 9.00 s") == true)
  }
}
