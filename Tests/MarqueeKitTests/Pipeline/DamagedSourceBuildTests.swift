import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// A damaged source in a real run of `marquee build`: the item fails in
/// the one error form, the other items build, the previous bundle stays;
/// with `allow_damaged_sources` it is published and the counts reach the
/// summary and the JSON log.
@Suite("Damaged sources in a build", .serialized)
struct DamagedSourceBuildTests {
  static func jsonObjects(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
  }

  @Test("a damaged AVI fails with `error: <id>: decode failed: <source>: the source is damaged: …`, the previous bundle kept; allowed, it is published with its counts logged")
  func damagedItemInARun() throws {
    let fixture = try BatchFixture("damaged-run")
    defer { fixture.remove() }
    try fixture.clip("a.mp4")
    try fixture.job([["id": "a", "type": "video", "source": "a.mp4"]])
    let job = fixture.dir.appendingPathComponent("job.json").path
    let first = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    try #require(first.status == 0, "\(first.stderr)")
    let manifest = fixture.out.appendingPathComponent("home/banners.json")
    let before = try Oracle.digests(under: fixture.out.appendingPathComponent("home"))

    let media = fixture.dir.appendingPathComponent("media")
    try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
    let spec = SourceHealthTests.damagedSources[0]
    let (_, damaged) = try SourceHealthTests.make(spec, in: media)
    try FileManager.default.moveItem(at: damaged, to: media.appendingPathComponent("trailer.avi"))
    let banners: [[String: Any]] = [["id": "a", "type": "video", "source": "a.mp4"],
                                    ["id": "trailer", "type": "video", "source": "media/trailer.avi"]]
    try fixture.job(banners, settings: ["max_height": 360])

    // Plain lines: the one error form; the other item still builds; nothing published.
    let plain = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(plain.status == 1)
    let line = try #require(plain.stderr.split(separator: "\n").first { $0.contains("error: trailer:") }, "\(plain.stderr)")
    #expect(line.contains("error: trailer: decode failed: media/trailer.avi: the source is damaged: "), "\(line)")
    #expect(SourceHealthTests.damageFigures(String(line)) != nil, "\(line)")
    #expect(plain.stdoutText.contains("Not published:") && plain.stdoutText.contains("is unchanged"), "\(plain.stdoutText)")
    #expect(try Oracle.digests(under: fixture.out.appendingPathComponent("home")) == before, "the previous bundle changed")

    // JSON lines: stage decode, the source as written.
    let json = try MarqueeCLI.run(["build", job, "--out", fixture.out.path, "--log-format", "json"])
    let failed = try #require(Self.jsonObjects(json.stdoutText).first { $0["item"] as? String == "trailer" && $0["event"] as? String == "failed" })
    #expect(failed["stage"] as? String == "decode")
    #expect(failed["source"] as? String == "media/trailer.avi")
    #expect((failed["error"] as? String)?.hasPrefix("media/trailer.avi: the source is damaged: ") == true, "\(failed)")
    #expect((failed["message"] as? String)?.hasPrefix("decode failed: media/trailer.avi: the source is damaged: ") == true, "\(failed)")

    // Allowed: published, with a warning naming the ranges and the counts in the log and the summary.
    try fixture.job(banners, settings: ["max_height": 360, "allow_damaged_sources": true])
    let allowed = try MarqueeCLI.run(["build", job, "--out", fixture.out.path, "--log-format", "json"])
    #expect(allowed.status == 0, "\(allowed.stderr)")
    let objects = Self.jsonObjects(allowed.stdoutText)
    let finished = try #require(objects.first { $0["item"] as? String == "trailer" && $0["event"] as? String == "finished" })
    let count = try #require(Int(finished["damaged_pictures"] as? String ?? ""), "\(finished)")
    #expect(count > 0 && (finished["damaged_ranges"] as? String)?.isEmpty == false, "\(finished)")
    #expect(objects.contains { $0["item"] as? String == "trailer" && $0["event"] as? String == "warning"
      && ($0["message"] as? String)?.contains("built anyway (allow_damaged_sources)") == true })
    let summary = try #require(objects.first { $0["event"] as? String == "summary" })
    #expect(summary["damaged_items"] as? String == "1" && summary["damaged_pictures"] as? String == String(count), "\(summary)")
    #expect((summary["message"] as? String)?.contains("1 from a damaged source (\(count) damaged picture(s))") == true, "\(summary)")
    #expect(FileManager.default.fileExists(atPath: manifest.path))
    // Reused in the next run, still counted in the summary table.
    let again = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(again.status == 0 && again.stdoutText.contains("2 reused, 0 built; 1 from a damaged source"), "\(again.stdoutText)")
  }

  /// The README's failure form, `error: <id>: <stage> failed: <source>:
  /// <reason>`, found in `text` for item `id`.
  static func itemError(_ text: String, id: String) -> (stage: String, source: String, reason: String)? {
    let pattern = #/error: ([a-z0-9][a-z0-9_-]*): ([a-z]+) failed: ([^:]+): (.+)$/#
    for line in text.split(separator: "\n") {
      if let m = line.firstMatch(of: pattern), m.1 == id { return (String(m.2), String(m.3), String(m.4)) }
    }
    return nil
  }

  @Test("a copy in progress (an MP4 without faststart cut at 40 %) fails as `decode failed: … truncated or still being copied`; random bytes fail as no media file; validate says the same")
  func copyInProgress() throws {
    let fixture = try BatchFixture("copy-in-progress")
    defer { fixture.remove() }
    let media = fixture.dir.appendingPathComponent("media")
    try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
    let whole = fixture.dir.appendingPathComponent("whole.mp4")
    try SourceHealthTests.clip(whole, codec: ["-c:v", "libx264"], audio: ["-c:a", "aac"], seconds: 9)
    try DamagedMedia.truncate(whole, to: media.appendingPathComponent("copying.mp4"), keeping: 0.4)
    try DamagedMedia.writeNoise(count: 200_000, seed: 21, to: media.appendingPathComponent("noise.mp4"))
    let job = try fixture.job([["id": "copying", "type": "video", "source": "media/copying.mp4"],
                               ["id": "noise", "type": "video", "source": "media/noise.mp4"]],
                              settings: ["allow_damaged_sources": true]).path

    let run = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(run.status == 1)
    let copying = try #require(Self.itemError(run.stderr, id: "copying"), "\(run.stderr)")
    #expect(copying.stage == "decode" && copying.source == "media/copying.mp4", "\(copying)")
    #expect(copying.reason.hasPrefix("the source is truncated or still being copied: it ends at byte "), "\(copying.reason)")
    #expect(copying.reason.contains("(allow_damaged_sources cannot build it)"), "\(copying.reason)")
    #expect(!run.stderr.contains("Invalid data found"), "\(run.stderr)")
    let noise = try #require(Self.itemError(run.stderr, id: "noise"), "\(run.stderr)")
    #expect(noise.source == "media/noise.mp4" && noise.reason.hasPrefix("not a media file: "), "\(noise)")
    #expect(!noise.reason.contains("truncated"), "\(noise.reason)")

    let validate = try MarqueeCLI.run(["validate", job])
    let said = validate.stdoutText + validate.stderr
    #expect(validate.status != 0)
    #expect(said.contains("banners[0].source: the source is truncated or still being copied: it ends at byte "), "\(said)")
    #expect(said.contains("banners[1].source: not a media file: "), "\(said)")
  }

  @Test("flipping allow_damaged_sources reuses the clean item byte for byte with no encode event; an item built from damaged sound is never reused without it, and fails as its build would")
  func flippingTheSettingReusesCleanItems() throws {
    let fixture = try BatchFixture("damaged-flip")
    defer { fixture.remove() }
    try fixture.clip("a.mp4")
    let media = fixture.dir.appendingPathComponent("media")
    try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
    let (_, damaged, lost) = try SourceHealthTests.damagedSound(in: media)
    try FileManager.default.moveItem(at: damaged, to: media.appendingPathComponent("sound.mp4"))
    let banners: [[String: Any]] = [["id": "a", "type": "video", "source": "a.mp4"],
                                    ["id": "sound", "type": "video", "source": "media/sound.mp4"]]
    let job = fixture.dir.appendingPathComponent("job.json").path
    let bundle = fixture.out.appendingPathComponent("home")
    func encodeEvents(_ objects: [[String: Any]], _ id: String) -> [[String: Any]] {
      objects.filter { $0["item"] as? String == id && $0["stage"] as? String == "encode"
        && ["started", "finished"].contains($0["event"] as? String ?? "") }
    }

    // Allowed: both built, the warning names the gaps in the sound.
    try fixture.job(banners, settings: ["max_height": 240, "allow_damaged_sources": true])
    let allowed = try MarqueeCLI.run(["build", job, "--out", fixture.out.path, "--log-format", "json"])
    try #require(allowed.status == 0, "\(allowed.stdoutText)")
    let built = Self.jsonObjects(allowed.stdoutText)
    let warning = try #require(built.first { $0["item"] as? String == "sound" && $0["event"] as? String == "warning" }?["message"] as? String)
    #expect(warning.hasPrefix("the source is damaged: \(lost.count) audio packets between ")
              && warning.contains("built anyway (allow_damaged_sources), the sound has gaps at "), "\(warning)")
    let finished = try #require(built.first { $0["item"] as? String == "sound" && $0["event"] as? String == "finished" })
    #expect(finished["damaged_audio_packets"] as? String == String(lost.count), "\(finished)")
    let published = try Oracle.digests(under: bundle)

    // Not allowed: the clean item is reused (no encode event), the damaged one fails from its record.
    try fixture.job(banners, settings: ["max_height": 240])
    let strict = try MarqueeCLI.run(["build", job, "--out", fixture.out.path, "--log-format", "json"])
    #expect(strict.status == 1)
    let objects = Self.jsonObjects(strict.stdoutText)
    #expect(objects.contains { $0["item"] as? String == "a" && $0["event"] as? String == "reused" }, "\(strict.stdoutText)")
    #expect(encodeEvents(objects, "a").isEmpty && encodeEvents(objects, "sound").isEmpty, "\(strict.stdoutText)")
    let failed = try #require(objects.first { $0["item"] as? String == "sound" && $0["event"] as? String == "failed" })
    #expect(failed["stage"] as? String == "decode", "\(failed)")
    let fromRecord = try #require(failed["error"] as? String)
    #expect(fromRecord.hasPrefix("media/sound.mp4: the source is damaged: \(lost.count) audio packets between "), "\(fromRecord)")
    #expect(try Oracle.digests(under: bundle) == published, "the published bundle changed")
    let plain = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    let line = try #require(Self.itemError(plain.stderr, id: "sound"), "\(plain.stderr)")
    #expect(line.stage == "decode" && "\(line.source): \(line.reason)" == fromRecord, "\(line)")

    // Decoding it again says the same.
    let fresh = try MarqueeCLI.run(["build", job, "--out", fixture.out.path, "--rebuild"])
    let again = try #require(Self.itemError(fresh.stderr, id: "sound"), "\(fresh.stderr)")
    #expect("\(again.source): \(again.reason)" == fromRecord, "\(again)")

    // Allowed again: both reused, the bundle byte-identical to the first.
    try fixture.job(banners, settings: ["max_height": 240, "allow_damaged_sources": true])
    let back = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(back.status == 0 && back.stdoutText.contains("2 reused, 0 built"), "\(back.stdoutText)")
    #expect(try Oracle.digests(under: bundle) == published)
  }
}
