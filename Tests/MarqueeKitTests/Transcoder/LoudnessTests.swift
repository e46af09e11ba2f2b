import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// `audio_loudness` (`LoudnessMeter`, `LoudnessAdjustment`): every
/// variant's sound and the MP4's, measured by the ffmpeg CLI's `ebur128`
/// on the files the muxers wrote, is at the target within 1 LU, or held
/// by a true peak of at most −1 dBTP, or, when near-silent, left as it was.
@Suite("Loudness: one gain to the target, held by the true peak")
struct LoudnessTests {
  /// Sources made with the ffmpeg CLI: id, file, audio filter, audio codec
  /// arguments.
  static let sources: [(id: String, file: String, audio: String, codec: [String])] = [
    // Pink noise at about −49 LUFS: a quiet phone clip, raised 33 dB.
    ("quiet", "quiet.mp4", "anoisesrc=c=pink:a=0.02:d=4:r=48000:seed=1,aformat=channel_layouts=stereo", ["-c:a", "aac", "-b:a", "128k"]),
    // About −7 LUFS with a true peak over 0 dBTP (clipping): lowered.
    ("loud", "loud.mov", "anoisesrc=c=pink:a=0.9:d=4:r=44100:seed=2,volume=9dB,aformat=channel_layouts=stereo", ["-c:a", "pcm_s16le"]),
    // A soft tone with a 2 ms burst every second: the bursts' peak holds
    // the gain far short of the target, and AAC adds to them.
    ("clicks", "clicks.mov",
     "aevalsrc='0.02*sin(2*PI*220*t)+0.02*sin(2*PI*330*t)+if(lt(mod(t\\,1)\\,0.002)\\,0.8*sin(2*PI*2000*t)\\,0)':s=48000:d=4,aformat=channel_layouts=stereo",
     ["-c:a", "pcm_s16le"]),
    // Mono speech-band noise at about −30 LUFS, measured as dual mono.
    ("mono", "mono.mp4", "anoisesrc=c=pink:a=0.05:d=4:r=44100:seed=3,highpass=f=200,lowpass=f=4000", ["-c:a", "aac", "-ac", "1"]),
    // Room tone under −50 LUFS: left alone.
    ("hush", "hush.mp4", "anoisesrc=c=white:a=0.0008:d=4:seed=4,aformat=channel_layouts=stereo", ["-c:a", "aac"]),
  ]

  static func generate(in fixture: BatchFixture) throws {
    for s in sources {
      try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=4", "-f", "lavfi", "-i", s.audio,
                           "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"] + s.codec + ["-shortest"],
                          to: fixture.dir.appendingPathComponent(s.file))
    }
  }

  /// Every media playlist of the item and its MP4.
  static func outputs(of item: ItemOutcome, in report: BuildReport) throws -> [URL] {
    let dir = report.bundle.appendingPathComponent(try #require(item.folder))
    let (_, variants) = try HLSCheck.variants(master: dir.appendingPathComponent("master.m3u8"))
    return variants.map(\.playlist) + [dir.appendingPathComponent("video.mp4")]
  }

  @Test("each sound reaches −16 LUFS ± 1 in every variant and the MP4, is held at −1 dBTP, or is left alone near silence")
  func buildsToTheTarget() async throws {
    let fixture = try BatchFixture("loudness")
    defer { fixture.remove() }
    try Self.generate(in: fixture)
    try fixture.job(Self.sources.map { ["id": $0.id, "type": "video", "source": $0.file] })
    let report = try await BundleBuilder().build(job: try fixture.readJob(), options: BuildOptions(outputRoot: fixture.out, jobs: 2))
    #expect(report.published, "\(report.items.compactMap(\.failure))")
    for s in Self.sources {
      let item = try #require(report.items.first { $0.id == s.id })
      let mono = s.id == "mono"
      let source = try Oracle.loudness(fixture.dir.appendingPathComponent(s.file), dualMono: mono)
      for url in try Self.outputs(of: item, in: report) {
        let out = try Oracle.loudness(url, dualMono: mono)
        let name = "\(s.id) \(url.deletingLastPathComponent().lastPathComponent)/\(url.lastPathComponent)"
        switch s.id {
        case "hush":
          #expect(source.integrated < LoudnessAdjustment.nearSilentBelow, "\(name): source \(source)")
          // No gain: the encoder alone moves it (AAC drops some of a
          // faint noise), never up.
          #expect(out.integrated < source.integrated + 0.5, "\(name): \(out) from \(source)")
          #expect(item.summary.contains("near-silent, left alone"), "\(item.summary)")
        case "clicks":
          #expect(out.truePeak <= LoudnessAdjustment.truePeakCeiling, "\(name): \(out)")
          // The 56 kbit/s encoder's overshoot on the bursts moves by up to
          // 0.7 dB from one gain to the next, so the gain kept is the highest
          // whose trial stayed under the ceiling, within 2 dB of it here.
          #expect(out.truePeak > LoudnessAdjustment.truePeakCeiling - 2, "\(name): held far below the ceiling: \(out)")
          #expect(out.integrated < -18 && out.integrated > source.integrated, "\(name): \(out) from \(source)")
          #expect(item.summary.contains("held by the true peak"), "\(item.summary)")
        default:
          #expect(abs(out.integrated - JobSettings.defaultAudioLoudness) <= 1, "\(name): \(out) from \(source)")
          #expect(out.truePeak <= LoudnessAdjustment.truePeakCeiling, "\(name): \(out)")
          #expect(item.summary.contains("LUFS") && !item.summary.contains("held"), "\(item.summary)")
        }
      }
    }
    // The sources span what the rule must handle (the generator's levels,
    // measured by the oracle, not assumed).
    let loud = try Oracle.loudness(fixture.dir.appendingPathComponent("loud.mov"))
    #expect(loud.truePeak > 0 && loud.integrated > -12, "\(loud)")
    let quiet = try Oracle.loudness(fixture.dir.appendingPathComponent("quiet.mp4"))
    #expect(quiet.integrated < -40, "\(quiet)")
  }

  @Test("audio_loudness null leaves each sound at its own level")
  func nullLeavesTheLevel() async throws {
    let fixture = try BatchFixture("loudness-off")
    defer { fixture.remove() }
    try Self.generate(in: fixture)
    try fixture.job([["id": "loud", "type": "video", "source": "loud.mov"]], settings: ["audio_loudness": NSNull()])
    let job = try fixture.readJob()
    #expect(job.settings.audioLoudness == nil)
    let report = try await BundleBuilder().build(job: job, options: BuildOptions(outputRoot: fixture.out, jobs: 2))
    let item = try #require(report.items.first)
    #expect(report.published && !item.summary.contains("loudness"), "\(item.summary)")
    let source = try Oracle.loudness(fixture.dir.appendingPathComponent("loud.mov"))
    for url in try Self.outputs(of: item, in: report) {
      let out = try Oracle.loudness(url)
      // No gain: only the encoder moves it (AAC drops some of the highs
      // of clipped noise, 1.1 to 1.4 LU here), far from the −16 a gain
      // would give.
      #expect(abs(out.integrated - source.integrated) < 2 && out.integrated > -10,
              "\(url.lastPathComponent): \(out) from \(source)")
    }
  }

  // MARK: - The rule

  @Test("the gain from the source's figures: to the target, held by the peak, none near silence; hundredths rounded down")
  func ruleFromTheSource() {
    let reaches = LoudnessAdjustment(measured: .init(integrated: -29.05, truePeak: -20), target: -16)
    #expect(reaches.reason == .reachesTarget && reaches.gain == 13.05)
    let lowered = LoudnessAdjustment(measured: .init(integrated: -11, truePeak: 4.6), target: -16)
    #expect(lowered.reason == .heldByTruePeak && abs(lowered.gain - -5.6) < 1e-9)
    let held = LoudnessAdjustment(measured: .init(integrated: -30, truePeak: -4.333), target: -16)
    #expect(held.reason == .heldByTruePeak && held.gain == 3.33)
    let hush = LoudnessAdjustment(measured: .init(integrated: -50.5, truePeak: -30), target: -16)
    #expect(hush.reason == .nearSilent && hush.gain == 0)
    let silence = LoudnessAdjustment(measured: .init(integrated: -70, truePeak: -.infinity), target: -16)
    #expect(silence.reason == .nearSilent && silence.gain == 0 && silence.summary.contains("-inf dBTP"))
    #expect(LoudnessAdjustment.volumeFilter(gain: 0) == "")
    #expect(LoudnessAdjustment.volumeFilter(gain: -5.6) == ",volume=volume=-5.60dB:precision=float")
  }

  @Test("a trial encode moves the gain by what it missed: the loudness lost, the peak added (the highest of the encodes)")
  func correctionFromATrial() {
    let first = LoudnessAdjustment(measured: .init(integrated: -20, truePeak: -12), target: -16)
    #expect(first.gain == 4)
    // The encode lost 0.5 LU: the gain rises by as much.
    let up = first.corrected(by: [.init(integrated: -16.5, truePeak: -7.5), .init(integrated: -16.8, truePeak: -7.2)])
    #expect(up.gain == 4.5 && up.reason == .reachesTarget)
    #expect(abs(up.encoded!.integrated - -16) < 1e-9 && abs(up.encoded!.truePeak - -6.7) < 1e-9)
    // The weak rung's encode peaks at −0.6: the gain falls to leave the
    // margin under the ceiling.
    let down = first.corrected(by: [.init(integrated: -16.2, truePeak: -1.5), .init(integrated: -16.4, truePeak: -0.6)])
    #expect(down.reason == .heldByTruePeak)
    // Room: −1 − 0.1 − (−0.6) = −0.5 dB.
    #expect(down.gain == 3.5)
    #expect(down.encoded!.truePeak <= LoudnessAdjustment.truePeakCeiling - LoudnessAdjustment.correctionMargin + 1e-9)
    // An encode that keeps less of the sound (the 56 kbit/s encoder's
    // low-pass under a 20 kHz tone) is named in the summary, the main one on target.
    let far = first.corrected(by: [.init(integrated: -16.2, truePeak: -9), .init(integrated: -61, truePeak: -40)])
    #expect(far.otherEncodes == [-61 + 0.2] && far.summary.contains("(the weak-network variant) measures -60.8 LUFS"), "\(far.summary)")
    #expect(!up.summary.contains("weak-network"), "\(up.summary)")
    // The JSON log's fields.
    #expect(first.logFields == ["loudness_lufs": "-20.0", "true_peak_dbtp": "-12.0", "loudness_gain_db": "4.00", "loudness_rule": "target"])
    #expect(down.logFields["loudness_rule"] == "true peak" && down.logFields["delivered_true_peak_dbtp"] == "-1.1")
    #expect(up.logFields["delivered_lufs"] == "-16.0")
    // Near silence no trial changes anything.
    let hush = LoudnessAdjustment(measured: .init(integrated: -60, truePeak: -40), target: -16)
    #expect(hush.corrected(by: [.init(integrated: -60, truePeak: -40)]) == hush)
  }
}
