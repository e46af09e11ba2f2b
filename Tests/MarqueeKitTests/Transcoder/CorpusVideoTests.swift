import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// Every video of the corpus (`kind: video` in corpus.json), plus the
/// animated GIF used as a video source, builds into outputs that meet the
/// playback constraints, read back with ffprobe.
@Suite("Every corpus video", .serialized)
struct CorpusVideoTests {
  static let videos: [String] = {
    guard let data = try? Data(contentsOf: Corpus.folder.appendingPathComponent("corpus.json")),
          let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return [] }
    return list.filter { $0["kind"] as? String == "video" }.compactMap { $0["file"] as? String }
      + ["image-gif-animated-30f-transparent-disposal2.gif"]
  }()

  @Test("the corpus lists its videos", .enabled(if: Corpus.skipReason == nil))
  func corpusListed() {
    #expect(Self.videos.count >= 19, "corpus.json lists \(Self.videos.count) videos")
  }

  /// The two clips in which nothing is ever lit (`PictureLook`): they
  /// fail without a poster and build with one.
  static let nothingLit: Set<String> = [
    "video-h264-aac-all-black-silent-10s.mp4", "video-h264-1920x1080-rot180-near-black-noaudio.mp4",
  ]

  /// The outputs `built` wrote under `dir`, checked by `marquee verify`'s
  /// own item checks (every segment decoded, covers judged).
  static func violations(_ built: BuiltVideoBanner, in dir: URL) -> [Violation] {
    let e = built.entry
    let folder = dir.appendingPathComponent("videos/item")
    // The placeholder as the item builder makes it, from the covers.
    let placeholder = try? Placeholder.read(light: folder.appendingPathComponent(e.coverPath),
                                            dark: folder.appendingPathComponent(e.darkCoverPath),
                                            surfaces: .standard, limits: InputLimits())
    let assets = VideoAssets(
      id: e.id, urlPath: e.playlistPath, masterPath: e.playlistPath, mp4Path: e.mp4Path,
      covers: [("cover_url", e.coverPath, false), ("cover_jpeg_url", e.coverJPEGPath, false),
               ("cover_dark_url", e.darkCoverPath, true), ("cover_dark_jpeg_url", e.darkCoverJPEGPath, true)],
      width: e.width, height: e.height, duration: ManifestEmitter.roundedDuration(e.duration), placeholder: placeholder)
    var verifier = VideoAssetVerifier(assets: assets, files: AssetFiles(root: dir.appendingPathComponent("videos/item"), displayPrefix: ""), decode: true,
                                      everyPicture: true, scratch: dir)
    return verifier.run()
  }

  @Test("builds and plays as specified, with no verify violation", .enabled(if: Corpus.skipReason == nil), arguments: videos)
  func video(file: String) throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    var policy = CoverPolicy.auto
    if Self.nothingLit.contains(file) {
      // Nothing in it can be shown: the item fails, naming the fixes...
      #expect {
        _ = try TranscoderTests.build(try Corpus.url(file), in: dir)
      } throws: { error in
        let reason = (error as? MarqueeError)?.message ?? "\(error)"
        return reason.contains("no frame is lit") && reason.contains("\"cover\": {\"image\"")
      }
      try? FileManager.default.removeItem(at: dir.appendingPathComponent("videos"))
      // ...and builds once given a poster.
      policy = .image(source: try Corpus.url("image-jpeg-progressive-photo-pixel7pro-srgb.jpg"), text: "poster.jpg")
    }
    let built = try TranscoderTests.build(try Corpus.url(file), in: dir, cover: policy)
    let violations = Self.violations(built, in: dir)
    #expect(violations.isEmpty, "\(file): \(violations)")
    print(String(format: "[Cover] %@: %@", file, built.summary))
    let mp4 = TranscoderTests.mp4(dir)
    let boxes = try BoxLayout.topLevelTypes(mp4)
    #expect((boxes.firstIndex(of: "moov") ?? .max) < (boxes.firstIndex(of: "mdat") ?? -1), "\(file): not fast start")
    let v = try #require(try FFprobe.report(mp4).video)
    #expect(v.codecName == "h264" && v.profile == "High" && v.pixelFormat == "yuv420p" && v.codecTag == "avc1")
    #expect(v.colorSpace == "bt709" && (v.rotation ?? 0) == 0)
    #expect(v.sampleAspectRatio == nil || v.sampleAspectRatio == "1:1")
    let (w, h) = (v.width ?? 1, v.height ?? 1)
    #expect(w % 2 == 0 && h % 2 == 0 && min(w, h) <= 360)
    let (_, variants) = try HLSCheck.variants(master: TranscoderTests.master(dir))
    let total = variants[0].segments.reduce(0) { $0 + $1.duration }
    #expect(abs(total - built.entry.duration) < 0.002 && total > 0)
    for seg in variants[0].segments {
      let piece = try HLSCheck.standaloneSegment(map: variants[0].mapURL, segment: seg.url)
      defer { try? FileManager.default.removeItem(at: piece) }
      #expect(try FFprobe.videoFrames(piece).first?.pictureType == "I", "\(file): \(seg.url.lastPathComponent)")
    }
    let cover = try FFprobe.meanLuma(dir.appendingPathComponent("videos/item").appendingPathComponent(built.entry.coverPath))
    #expect(cover.width == built.entry.width && cover.height == built.entry.height)
    #expect(built.entry.width == w && built.entry.height == h)
  }
}
