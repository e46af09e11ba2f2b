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
}
