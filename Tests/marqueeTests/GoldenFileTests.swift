import Foundation
import MarqueeTestSupport
import Testing

/// The golden-file helper itself: what it masks, what it leaves, and that
/// recording never passes.
@Suite("Golden files: masks and recording")
struct GoldenFileTests {
  @Test("measured values are masked; tags, attributes, URIs and durations are not")
  func masks() {
    let master = """
      #EXT-X-STREAM-INF:BANDWIDTH=479680,AVERAGE-BANDWIDTH=473308,CODECS="avc1.64000D,mp4a.40.2",RESOLUTION=416x234
      234p/index.m3u8
      """
    #expect(GoldenFile.masked(master, GoldenFile.Mask.measured) == """
      #EXT-X-STREAM-INF:BANDWIDTH=<n>,AVERAGE-BANDWIDTH=<n>,CODECS="avc1.64000D,mp4a.40.2",RESOLUTION=416x234
      234p/index.m3u8
      """)
    let iframes = "#EXTINF:1.000000,\n#EXT-X-BYTERANGE:7100@0\nsegment_00000.m4s\n#EXT-X-BYTERANGE:815\n"
    #expect(GoldenFile.masked(iframes, GoldenFile.Mask.measured)
      == "#EXTINF:1.000000,\n#EXT-X-BYTERANGE:<n>@0\nsegment_00000.m4s\n#EXT-X-BYTERANGE:<n>\n")
    let manifest = #""url": "https://cdn.example.com/home/videos/clip-45adaec261cf77e8/master.m3u8", "id": "clip-2""#
    #expect(GoldenFile.masked(manifest, GoldenFile.Mask.measured)
      == #""url": "https://cdn.example.com/home/videos/clip-<hash16>/master.m3u8", "id": "clip-2""#)
    // The placeholder's colours and ThumbHashes; a designed colour key
    // (`dark_surface` in a job) and the `id` stay.
    let placeholder = ##""color": "#7B817E", "dark_color": "#5A5D60", "dark_thumbhash": "1/cJbIZSk393iHd3iHePd/d5Zg==", "thumbhash": "H/gJ+Ixw", "dark_surface": "#1C1C1E", "id": "color""##
    #expect(GoldenFile.masked(placeholder, GoldenFile.Mask.measured)
      == ##""color": "#<rgb>", "dark_color": "#<rgb>", "dark_thumbhash": "<thumbhash>", "thumbhash": "<thumbhash>", "dark_surface": "#1C1C1E", "id": "color""##)
  }

  @Test("recording writes the masked text and reports it, so the test fails; comparing then passes")
  func recordingFails() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("golden-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let text = "#EXT-X-STREAM-INF:BANDWIDTH=12\na.m3u8\n"
    let recorded = try #require(GoldenFile.mismatch(text, name: "x/master.m3u8", masks: [.bandwidth], recording: true,
                                                    folder: folder))
    #expect(recorded.contains("wrote Tests/Golden/x/master.m3u8") && recorded.contains("without MARQUEE_RECORD_GOLDEN"),
            "\(recorded)")
    let written = try String(contentsOf: folder.appendingPathComponent("x/master.m3u8"), encoding: .utf8)
    #expect(written == "#EXT-X-STREAM-INF:BANDWIDTH=<n>\na.m3u8\n")
    // Another measured value compares equal; other text does not.
    #expect(GoldenFile.mismatch(text.replacingOccurrences(of: "12", with: "99"), name: "x/master.m3u8", masks: [.bandwidth],
                                recording: false, folder: folder) == nil)
    let changed = GoldenFile.mismatch(text.replacingOccurrences(of: "a.m3u8", with: "b.m3u8"), name: "x/master.m3u8",
                                      masks: [.bandwidth], recording: false, folder: folder)
    #expect(changed?.contains("at line 2") == true, "\(changed ?? "equal")")
    #expect(GoldenFile.mismatch(text, name: "x/missing.m3u8", recording: false, folder: folder)?.contains("is missing") == true)
  }
}
