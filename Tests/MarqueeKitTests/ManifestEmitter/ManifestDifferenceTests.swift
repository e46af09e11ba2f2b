import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// `ManifestDifference`: how `build --check` says a published banners.json
/// differs from the one a build would write.
@Suite("build --check: banners.json differences")
struct BuildCheckManifestDifferenceTests {
  static func document(_ banners: [[String: Any]], surfaces: [String: String] = ["light": "#FFFFFF", "dark": "#1C1C1E"]) throws -> Data {
    try JSONSerialization.data(withJSONObject: ["banners": banners, "surfaces": surfaces], options: [.sortedKeys])
  }

  @Test("keys per banner, banners added, removed and reordered, the document's own keys")
  func differences() throws {
    let a: [String: Any] = ["id": "a", "type": "video", "link": "https://e.com/a", "autoplay": true]
    let b: [String: Any] = ["id": "b", "type": "image"]
    let now = try Self.document([a, b])
    #expect(ManifestDifference.between(published: now, expected: now) == ["its bytes differ (the same values)"])

    var relinked = a
    relinked["link"] = "https://e.com/other"
    relinked["autoplay"] = false
    #expect(ManifestDifference.between(published: try Self.document([relinked, b]), expected: now) == ["autoplay, link of `a`"])
    #expect(ManifestDifference.between(published: try Self.document([a]), expected: now) == ["`b` would be added"])
    #expect(ManifestDifference.between(published: now, expected: try Self.document([a])) == ["`b` would be removed"])
    #expect(ManifestDifference.between(published: try Self.document([b, a]), expected: now) == ["the order of the banners"])
    #expect(ManifestDifference.between(published: try Self.document([a, b], surfaces: ["light": "#000000", "dark": "#1C1C1E"]),
                                       expected: now) == ["`surfaces`"])
    #expect(ManifestDifference.between(published: Data("[1, 2".utf8), expected: now)
            == ["the published one is not a banners.json document"])
  }
}
