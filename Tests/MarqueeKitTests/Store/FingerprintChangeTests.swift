import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// `ItemFingerprint.changes(since:)`: why `build --check` says an item
/// would be built again, from the inputs a stored item records.
@Suite("build --check: what changed in a fingerprint")
struct BuildCheckFingerprintChangeTests {
  static func spec(_ kind: BannerKind = .video, cover: CoverPolicy = .auto, dark: DarkPolicy = .generated) -> BannerSpec {
    BannerSpec(id: "a", kind: kind, source: URL(fileURLWithPath: "/x"), sourceText: "x", link: nil, autoplay: true,
               muted: true, cover: cover, dark: dark, jsonPath: "banners[0]")
  }

  @Test("the same inputs: no change; new source bytes: `source`, and nothing else")
  func source() {
    let fp = ItemFingerprint(spec: Self.spec(), settings: .default, sourceDigest: "aa")
    #expect(fp.changes(since: fp.inputs).isEmpty)
    let other = ItemFingerprint(spec: Self.spec(), settings: .default, sourceDigest: "bb")
    #expect(other.changes(since: fp.inputs) == [FingerprintChange(kind: .source, key: "source")])
    #expect(other.changes(since: fp.inputs).map(\.description) == ["source"])
  }

  @Test("each setting by its job key, with the values as the fingerprint writes them")
  func settings() {
    let base = ItemFingerprint(spec: Self.spec(), settings: .default, sourceDigest: "aa")
    var s = JobSettings.default
    s.videoCRF = 20
    s.segmentDuration = 4
    let changed = ItemFingerprint(spec: Self.spec(), settings: s, sourceDigest: "aa").changes(since: base.inputs)
    #expect(changed.map(\.description) == ["segment_duration 2.0 → 4.0", "video_crf 23.0 → 20.0"], "\(changed)")
    #expect(changed.allSatisfy { $0.kind == .setting })

    // A long value (the ladder) is named, not printed.
    s = .default
    s.renditions = [RenditionRequest(height: 360, bitrateKbps: 700)]
    #expect(ItemFingerprint(spec: Self.spec(), settings: s, sourceDigest: "aa").changes(since: base.inputs).map(\.description)
            == ["renditions"])
    // A cover policy, the dark policy.
    #expect(ItemFingerprint(spec: Self.spec(cover: .first), settings: .default, sourceDigest: "aa").changes(since: base.inputs)
      .map(\.description) == ["cover auto → first"])
    #expect(ItemFingerprint(spec: Self.spec(dark: .same), settings: .default, sourceDigest: "aa").changes(since: base.inputs)
      .map(\.description) == ["dark generated → same"])
  }

  @Test("image_formats is in the fingerprints of images and of videos (their covers), named by its job key")
  func imageFormats() {
    var s = JobSettings.default
    s.imageFormats = [.webp, .jpeg]
    for kind in [BannerKind.image, .video] {
      let base = ItemFingerprint(spec: Self.spec(kind), settings: .default, sourceDigest: "aa")
      let off = ItemFingerprint(spec: Self.spec(kind), settings: s, sourceDigest: "aa")
      #expect(base.hash != off.hash, "\(kind)")
      #expect(off.changes(since: base.inputs).map(\.key) == ["image_formats"], "\(kind)")
    }
  }

  @Test("a designer's dark picture: new bytes are a source change; a new path a setting")
  func darkPicture() {
    let picture = URL(fileURLWithPath: "/m/d.png")
    let before = ItemFingerprint(spec: Self.spec(.image, dark: .image(source: picture, text: "m/d.png")), settings: .default,
                                 sourceDigest: "aa", darkDigest: "d1")
    let bytes = ItemFingerprint(spec: Self.spec(.image, dark: .image(source: picture, text: "m/d.png")), settings: .default,
                                sourceDigest: "aa", darkDigest: "d2")
    #expect(bytes.changes(since: before.inputs) == [FingerprintChange(kind: .source, key: "dark.image")])
    let path = ItemFingerprint(spec: Self.spec(.image, dark: .image(source: picture, text: "m/e.png")), settings: .default,
                               sourceDigest: "aa", darkDigest: "d1")
    #expect(path.changes(since: before.inputs).map(\.description) == ["dark image:m/d.png → image:m/e.png"])
  }

  @Test("Marquee's own inputs are told apart from the job's")
  func marquee() {
    let fp = ItemFingerprint(spec: Self.spec(), settings: .default, sourceDigest: "aa")
    let older = StoredItem.Inputs(sourceDigest: "aa", settings: fp.canonicalSettings.replacingOccurrences(
      of: "output-format=\(ItemFingerprint.outputFormatVersion)\n", with: "output-format=1\n"))
    #expect(fp.changes(since: older) == [FingerprintChange(kind: .marquee, key: "output format", old: "1",
                                                           new: String(ItemFingerprint.outputFormatVersion))])
  }

  @Test("JobSettings properties map to the job file's keys")
  func jobKeys() {
    #expect(ItemFingerprint.jobKey(forSetting: "videoCRF") == "video_crf")
    #expect(ItemFingerprint.jobKey(forSetting: "videoTargetSSIM") == "video_target_ssim")
    #expect(ItemFingerprint.jobKey(forSetting: "videoURL") == "video_url")
    #expect(ItemFingerprint.jobKey(forSetting: "mp4Height") == "mp4_height")
    #expect(ItemFingerprint.jobKey(forSetting: "maxFileSize") == "max_file_size_mb")
    #expect(ItemFingerprint.jobKey(forSetting: "darkSurface") == "dark_surface")
    // Every setting in a fingerprint has its job key.
    for child in Mirror(reflecting: JobSettings.default).children {
      guard let label = child.label, !ItemFingerprint.permissionSettings.contains(label) else { continue }
      #expect(JobDocumentValidator.settingsKeys.contains(ItemFingerprint.jobKey(forSetting: label)), "\(label)")
    }
  }
}
