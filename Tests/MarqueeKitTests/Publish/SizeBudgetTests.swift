import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// The size budget (`settings.max_bundle_mb`, `settings.max_item_mb`): the
/// bytes a client can download. The oracle is the file system: every
/// regular file of the published bundle, and of each item's folder, summed
/// here with FileManager.
@Suite("Publish: size budget")
struct SizeBudgetTests {
  /// Bytes of every regular file under `folder` (or of the file itself).
  static func bytes(under folder: URL) -> Int64 {
    if let values = try? folder.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey]), values.isRegularFile == true {
      return Int64(values.fileSize ?? 0)
    }
    var total: Int64 = 0
    let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey])
    while let url = walker?.nextObject() as? URL {
      let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey])
      if values?.isRegularFile == true { total += Int64(values?.fileSize ?? 0) }
    }
    return total
  }

  /// A budget of `bytes` as the job gives it, in decimal megabytes.
  static func megabytes(_ bytes: Int64) -> Double { Double(bytes) / 1_000_000 }

  @Test("a bundle or an item over its budget is not published (exit 1, the previous bundle kept) and says by how much and which items are largest; at the budget it is published")
  func overBudgetIsNotPublished() throws {
    let fixture = try BatchFixture("budget")
    defer { fixture.remove() }
    try fixture.png("small.png", width: 240, height: 180)
    try fixture.jpeg("photo.jpg", seed: 5)
    let banners: [[String: Any]] = [
      ["id": "small", "type": "image", "source": "small.png"],
      ["id": "photo", "type": "image", "source": "photo.jpg"],
    ]
    let out = fixture.out.path
    let first = try MarqueeCLI.run(["build", try fixture.job(banners).path, "--out", out])
    #expect(first.status == 0, "\(first.stderr)")
    let bundle = fixture.out.appendingPathComponent("home")
    let manifest = try Data(contentsOf: bundle.appendingPathComponent("banners.json"))
    // What a client can read: banners.json, videos/ and images/ (the
    // server's nginx-dark-theme.conf is not served).
    let total = Self.bytes(under: bundle.appendingPathComponent("banners.json"))
      + Self.bytes(under: bundle.appendingPathComponent("images")) + Self.bytes(under: bundle.appendingPathComponent("videos"))
    #expect(Self.bytes(under: bundle) > total, "no nginx-dark-theme.conf beside banners.json")
    var items: [String: Int64] = [:]
    for kind in ["images"] {
      for folder in FileSystem.list(bundle.appendingPathComponent(kind)) {
        let id = String(folder.split(separator: "-").dropLast().joined(separator: "-"))
        items[id] = Self.bytes(under: bundle.appendingPathComponent(kind).appendingPathComponent(folder))
      }
    }
    let photo = try #require(items["photo"]), small = try #require(items["small"])
    #expect(photo > small, "the photo (\(photo) B) is not the larger item (\(small) B)")

    // The bundle 5000 bytes over: refused, the bundle as it was.
    let bundleOver = try MarqueeCLI.run(["build", try fixture.job(banners, settings: ["max_bundle_mb": Self.megabytes(total - 5000)]).path,
                                         "--out", out])
    #expect(bundleOver.status == 1, "\(bundleOver.stderr)")
    #expect(bundleOver.stderr.contains("over the size budget"), "\(bundleOver.stderr)")
    #expect(bundleOver.stderr.contains("5.0 kB over max_bundle_mb \(JobDocumentValidator.format(Self.megabytes(total - 5000)))"),
            "\(bundleOver.stderr)")
    #expect(bundleOver.stderr.contains("largest items: photo"), "\(bundleOver.stderr)")
    // Said by the error line and by the run's last line, not a third time.
    let said = (bundleOver.stderr + bundleOver.stdoutText).components(separatedBy: "largest items: photo").count - 1
    #expect(said == 2, "the overage is printed \(said) times: \(bundleOver.stderr)\(bundleOver.stdoutText)")
    #expect((bundleOver.stderr + bundleOver.stdoutText).contains("2 reused"), "a budget rebuilt items: \(bundleOver.stdoutText)")
    #expect(ByteComparison.difference(try Data(contentsOf: bundle.appendingPathComponent("banners.json")), manifest) == nil)
    #expect(Self.bytes(under: bundle.appendingPathComponent("images")) + Self.bytes(under: bundle.appendingPathComponent("banners.json")) == total)

    // One item 1000 bytes over: refused, naming it and not the other.
    let itemOver = try MarqueeCLI.run(["build", try fixture.job(banners, settings: ["max_item_mb": Self.megabytes(photo - 1000)]).path,
                                       "--out", out])
    #expect(itemOver.status == 1, "\(itemOver.stderr)")
    #expect(itemOver.stderr.contains("photo is "), "\(itemOver.stderr)")
    #expect(itemOver.stderr.contains("1.0 kB over max_item_mb"), "\(itemOver.stderr)")
    #expect(!itemOver.stderr.contains("small is "), "\(itemOver.stderr)")
    #expect(ByteComparison.difference(try Data(contentsOf: bundle.appendingPathComponent("banners.json")), manifest) == nil)

    // Exactly at both budgets: published.
    let atBudget = try MarqueeCLI.run(["build", try fixture.job(banners, settings: ["max_bundle_mb": Self.megabytes(total),
                                                                                    "max_item_mb": Self.megabytes(photo)]).path,
                                       "--out", out])
    #expect(atBudget.status == 0, "\(atBudget.stderr)")
    #expect(!atBudget.stderr.contains("over the size budget"), "\(atBudget.stderr)")
    #expect((atBudget.stderr + atBudget.stdoutText).contains("within the size budget: the bundle is"), "\(atBudget.stdoutText)")
    // The table adds up the items' files; the line under it weighs what the budget weighs.
    #expect(atBudget.stdoutText.contains("The bundle, banners.json included: \(LogLine.bytes(total))"), "\(atBudget.stdoutText)")

    // Half a byte under: budgets are whole bytes rounded down, so refused.
    let halfByte = try MarqueeCLI.run(["build", try fixture.job(banners, settings: ["max_bundle_mb": (Double(total) - 0.5) / 1_000_000]).path,
                                       "--out", out])
    #expect(halfByte.status == 1, "\(halfByte.stderr)")
    #expect(halfByte.stderr.contains("1 byte over max_bundle_mb"), "\(halfByte.stderr)")
  }

  @Test("a failed item beside good items over the budget: the hint does not promise that --allow-partial publishes them")
  func partialHintKnowsTheBudget() throws {
    let fixture = try BatchFixture("budget-partial")
    defer { fixture.remove() }
    try fixture.png("small.png")
    try Data("not a video".utf8).write(to: fixture.dir.appendingPathComponent("broken.mp4"))
    let banners: [[String: Any]] = [
      ["id": "small", "type": "image", "source": "small.png"],
      ["id": "broken", "type": "video", "source": "broken.mp4"],
    ]
    let over = try MarqueeCLI.run(["build", try fixture.job(banners, settings: ["max_item_mb": 0.001]).path, "--out", fixture.out.path])
    #expect(over.status == 1, "\(over.stderr)")
    #expect(over.stderr.contains("--allow-partial would not publish them either"), "\(over.stderr)")
    #expect(over.stderr.contains("small is "), "\(over.stderr)")
    let fits = try MarqueeCLI.run(["build", try fixture.job(banners, settings: ["max_item_mb": 100]).path, "--out", fixture.out.path])
    #expect(fits.status == 1, "\(fits.stderr)")
    #expect(fits.stderr.contains("--allow-partial publishes them"), "\(fits.stderr)")
  }

  @Test("the JSON log's failure event carries the code 'over budget'")
  func jsonEventCarriesTheCode() throws {
    let fixture = try BatchFixture("budget-json")
    defer { fixture.remove() }
    try fixture.png("small.png")
    let job = try fixture.job([["id": "small", "type": "image", "source": "small.png"]], settings: ["max_bundle_mb": 0.001])
    let run = try MarqueeCLI.run(["build", job.path, "--out", fixture.out.path, "--log-format", "json"])
    #expect(run.status == 1, "\(run.stderr)")
    let events = (run.stderr + run.stdoutText).split(separator: "\n").compactMap { line in
      try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }
    let failed = events.first { $0["stage"] as? String == "publish" && $0["event"] as? String == "failed" }
    #expect(failed?["code"] as? String == "over budget", "\(events)")
    #expect((failed?["error"] as? String)?.contains("over max_bundle_mb 0.001") == true, "\(String(describing: failed))")
    #expect(failed?["max_bundle_bytes"] as? String == "1000", "\(String(describing: failed))")
    let weighed = Int64(failed?["bundle_bytes"] as? String ?? "") ?? 0
    #expect(weighed > 1000, "bundle_bytes \(weighed)")
    #expect(!FileManager.default.fileExists(atPath: fixture.out.appendingPathComponent("home/banners.json").path))
  }
}
