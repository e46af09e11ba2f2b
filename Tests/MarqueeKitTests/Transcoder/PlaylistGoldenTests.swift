import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// A small generated video built end to end, its text outputs against
/// golden files (`Tests/Golden/bundle/`): the master playlist, every media
/// and I-frame playlist, and banners.json. What x264 and the library
/// versions decide is masked (`GoldenFile.Mask.measured`: bit rates, byte
/// ranges, the content hash in folder names); the tags, attributes, keys,
/// order, segment durations and URIs are compared, so any change here is a
/// change of what Marquee writes (segmenting, playlists, manifest): review
/// it, then re-record with
/// `MARQUEE_RECORD_GOLDEN=1 swift test --filter PlaylistGoldenTests` (which
/// fails, saying what it wrote) and run again without the variable.
@Suite("Playlists and banners.json: golden files")
struct PlaylistGoldenTests {
  @Test("master, media and I-frame playlists and banners.json of a 2 s 640x360 clip")
  func bundleText() throws {
    let fixture = try BatchFixture("golden-bundle", twins: true)
    defer { fixture.remove() }
    let url = fixture.dir.appendingPathComponent("clip.mp4")
    try SyntheticMedia.writeClip(
      .init(video: "testsrc2=size=640x360:rate=25", frameRate: Rational(25, 1), duration: 2, toneHz: 440),
      to: url.path)
    try fixture.job([["id": "clip", "type": "video", "source": "clip.mp4"]], name: "golden")
    let result = try MarqueeCLI.run(["build", "job.json", "--out", "out", "--quiet"], in: fixture.dir)
    try #require(result.status == 0, "\(result.stderr)")
    let bundle = fixture.dir.appendingPathComponent("out/golden")
    let manifest = try String(contentsOf: bundle.appendingPathComponent("banners.json"), encoding: .utf8)
    check(manifest, "bundle/banners.json")
    let folder = try #require(try FileManager.default.contentsOfDirectory(atPath: bundle.appendingPathComponent("videos").path).first)
    let item = bundle.appendingPathComponent("videos/\(folder)")
    check(try String(contentsOf: item.appendingPathComponent("master.m3u8"), encoding: .utf8), "bundle/master.m3u8")
    for rendition in try FileManager.default.contentsOfDirectory(atPath: item.path).sorted()
    where FileManager.default.fileExists(atPath: item.appendingPathComponent("\(rendition)/index.m3u8").path) {
      for playlist in ["index.m3u8", "iframes.m3u8"] {
        let text = try String(contentsOf: item.appendingPathComponent("\(rendition)/\(playlist)"), encoding: .utf8)
        check(text, "bundle/\(rendition)-\(playlist)")
      }
    }
  }

  private func check(_ text: String, _ name: String) {
    if let problem = GoldenFile.mismatch(text, name: name, masks: GoldenFile.Mask.measured) { Issue.record("\(problem)") }
  }
}
