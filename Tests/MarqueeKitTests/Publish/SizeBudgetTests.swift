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
  /// Bytes of every regular file under `folder`.
  static func bytes(under folder: URL) -> Int64 {
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
    let total = Self.bytes(under: bundle)
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
    #expect((bundleOver.stderr + bundleOver.stdoutText).contains("2 reused"), "a budget rebuilt items: \(bundleOver.stdoutText)")
    #expect(ByteComparison.difference(try Data(contentsOf: bundle.appendingPathComponent("banners.json")), manifest) == nil)
    #expect(Self.bytes(under: bundle) == total)

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
    #expect(!FileManager.default.fileExists(atPath: fixture.out.appendingPathComponent("home/banners.json").path))
  }
}
