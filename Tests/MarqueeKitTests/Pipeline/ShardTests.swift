import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// Beyond one machine: `build --shard i/n` runs in separate processes
/// sharing one output root, then `merge` publishes; the result equals a
/// single-process build byte for byte.
@Suite("Shards: build --shard and merge")
struct ShardTests {
  @Test("ShardSpec parses i/n and splits items k mod n")
  func shardSpec() {
    #expect(ShardSpec(parsing: "0/2") == ShardSpec(index: 0, count: 2))
    #expect(ShardSpec(parsing: "2/2") == nil)
    #expect(ShardSpec(parsing: "-1/2") == nil)
    #expect(ShardSpec(parsing: "1/0") == nil)
    #expect(ShardSpec(parsing: "1") == nil)
    let s = ShardSpec(index: 1, count: 3)
    #expect((0..<7).filter { s?.contains(itemIndex: $0) == true } == [1, 4])
  }

  @Test("two shards in separate processes and a merge equal a single build, byte for byte")
  func shardsAndMergeEqualSingleBuild() throws {
    let fixture = try BatchFixture("shard")
    defer { fixture.remove() }
    let job = try fixture.fourItemJob().path
    let shared = fixture.dir.appendingPathComponent("shared")
    let single = fixture.dir.appendingPathComponent("single")

    // Both shards at once, like the pods of an Indexed Job.
    let shards = try (0..<2).map { i in
      try LiveProcess(["build", job, "--out", shared.path, "--shard", "\(i)/2", "--log-format", "json"])
    }
    for (i, shard) in shards.enumerated() {
      let end = shard.finish()
      #expect(end.status == 0, "shard \(i): \(end.stderr)")
      #expect(end.stdout.contains("2 reused, 0 built") == false)
      #expect(end.stdout.contains("0 reused, 2 built"), "shard \(i): \(end.stdout)")
    }
    #expect(!FileManager.default.fileExists(atPath: shared.appendingPathComponent("home").path), "a shard published")

    let merge = try MarqueeCLI.run(["merge", job, "--out", shared.path])
    #expect(merge.status == 0, "\(merge.stderr)")
    #expect(merge.stdoutText.contains("4 reused, 0 built"))

    let build = try MarqueeCLI.run(["build", job, "--out", single.path, "--jobs", "1"])
    #expect(build.status == 0, "\(build.stderr)")

    let a = try TreeSnapshot.of(shared.appendingPathComponent("home"))
    let b = try TreeSnapshot.of(single.appendingPathComponent("home"))
    #expect(a.count > 20)
    #expect(TreeSnapshot.differences(a, b).isEmpty, "differ: \(TreeSnapshot.differences(a, b))")
  }

  @Test("merge before every shard has finished fails (exit 1) and publishes nothing")
  func mergeNeedsEveryShard() throws {
    let fixture = try BatchFixture("shard-missing")
    defer { fixture.remove() }
    try fixture.png("c.png")
    try fixture.jpeg("d.jpg")
    let job = try fixture.job([
      ["id": "product", "type": "image", "source": "c.png"],
      ["id": "photo", "type": "image", "source": "d.jpg"],
    ]).path
    let shard0 = try MarqueeCLI.run(["build", job, "--out", fixture.out.path, "--shard", "0/2"])
    #expect(shard0.status == 0)
    let merge = try MarqueeCLI.run(["merge", job, "--out", fixture.out.path])
    #expect(merge.status == 1)
    #expect(merge.stderr.contains("photo: store failed: d.jpg: not in the store"), "\(merge.stderr)")
    #expect(!FileManager.default.fileExists(atPath: fixture.out.appendingPathComponent("home").path))
    let shard1 = try MarqueeCLI.run(["build", job, "--out", fixture.out.path, "--shard", "1/2"])
    #expect(shard1.status == 0)
    let again = try MarqueeCLI.run(["merge", job, "--out", fixture.out.path])
    #expect(again.status == 0, "\(again.stderr)")
  }
}
