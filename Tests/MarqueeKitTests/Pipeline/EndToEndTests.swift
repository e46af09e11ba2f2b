import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// Builds real media from the corpus into a bundle and checks the output
/// with ffprobe and ffmpeg as independent oracles.
@Suite("End to end: corpus media to a playable bundle", .serialized)
struct EndToEndTests {
  /// Videos of different codecs and containers, with what the source has.
  static let videos: [(id: String, file: String, sourceHasAudio: Bool)] = [
    ("h264-mp4", "video-h264-aac-1080x720-faststart.mp4", true),
    ("hevc-fade", "video-hevc-main-854x480-noaudio-fade-from-black.mp4", false),
    ("mpeg2-ts", "video-mpeg2-mp2-1920x1080-fade-in.ts", true),
    ("vp9-webm", "video-vp9-960x540-60fps-vorbis-6ch.webm", true),
    ("mpeg4-avi", "video-mpeg4part2-mp3-960x400-fade-in.avi", true),
  ]
  static let images: [(id: String, file: String)] = [
    ("photo", "image-jpeg-progressive-photo-pixel7pro-srgb.jpg"),
    ("cutout", "image-png-product-cutout-transparent-shadow-2160.png"),
    ("tux", "image-webp-lossless-vp8l-alpha-tux-386x395.webp"),
  ]

  /// Writes a job file into a fresh temporary folder and builds it.
  static func build(banners: [[String: Any]], name: String = "e2e", allowPartial: Bool = false,
                    settings: [String: Any]? = nil) async throws -> (root: URL, report: BuildReport) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-e2e-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    var doc: [String: Any] = ["name": name, "base_url": "https://cdn.example.com/\(name)/", "banners": banners]
    // The sources are corpus files and files of other temporary folders.
    doc["settings"] = (settings ?? [:]).merging(["allow_outside_sources": true]) { a, _ in a }
    let jobURL = dir.appendingPathComponent("job.json")
    try JSONSerialization.data(withJSONObject: doc).write(to: jobURL)
    let job = try JobReader().read(contentsOf: jobURL)
    let report = try await BundleBuilder().build(
      job: job, options: BuildOptions(outputRoot: dir.appendingPathComponent("out"), allowPartial: allowPartial))
    return (dir, report)
  }

  @Test("corpus videos and images build into a bundle that meets the playback constraints",
        .enabled(if: Corpus.skipReason == nil, "\(Corpus.skipReason ?? "")"))
  func corpusBundle() async throws {
    var banners: [[String: Any]] = []
    for v in Self.videos {
      banners.append(["id": v.id, "type": "video", "source": try Corpus.url(v.file).path,
                      "link": "https://example.com/\(v.id)"])
    }
    for i in Self.images {
      banners.append(["id": i.id, "type": "image", "source": try Corpus.url(i.file).path])
    }
    let (root, report) = try await Self.build(banners: banners)
    defer { try? FileManager.default.removeItem(at: root) }
    for item in report.items {
      #expect(item.failure == nil, "\(item.id) failed: \(item.failure?.reason ?? "")")
    }
    #expect(report.published)
    let bundle = report.bundle

    // banners.json: the contract's keys and types.
    let manifestData = try Data(contentsOf: bundle.appendingPathComponent("banners.json"))
    let manifest = try #require(try JSONSerialization.jsonObject(with: manifestData) as? [String: Any])
    let items = try #require(manifest["banners"] as? [[String: Any]])
    #expect(items.count == Self.videos.count + Self.images.count)
    #expect(ManifestEmitter.validate(manifestData).isEmpty)

    func local(_ url: Any?) throws -> URL {
      let s = try #require(url as? String)
      let prefix = "https://cdn.example.com/e2e/"
      #expect(s.hasPrefix(prefix), "\(s) is not under base_url")
      return bundle.appendingPathComponent(String(s.dropFirst(prefix.count)))
    }

    for (n, v) in Self.videos.enumerated() {
      let item = items[n]
      #expect(item["type"] as? String == "video")
      #expect(item["id"] as? String == v.id)
      #expect(item["autoplay"] as? Bool == true && item["muted"] as? Bool == true)
      #expect(item["link"] as? String == "https://example.com/\(v.id)")
      let width = try #require(item["width"] as? Int), height = try #require(item["height"] as? Int)
      let duration = try #require(item["duration"] as? Double)
      #expect(duration > 0)

      // MP4: H.264 High yuv420p, square pixels, even size, no rotation, faststart.
      let mp4 = try local(item["mp4_url"])
      let boxes = try BoxLayout.topLevelTypes(mp4)
      let moov = try #require(boxes.firstIndex(of: "moov")), mdat = try #require(boxes.firstIndex(of: "mdat"))
      #expect(moov < mdat, "\(v.id): moov after mdat: \(boxes)")
      let probe = try FFprobe.report(mp4)
      let video = try #require(probe.video)
      #expect(video.codecName == "h264" && video.profile == "High" && video.pixelFormat == "yuv420p", "\(v.id): \(video)")
      #expect(video.codecTag == "avc1")
      #expect((video.width ?? 1) % 2 == 0 && (video.height ?? 1) % 2 == 0)
      #expect(video.sampleAspectRatio == nil || video.sampleAspectRatio == "1:1")
      #expect(video.rotation == nil || video.rotation == 0)
      #expect(video.colorSpace == "bt709")
      if v.sourceHasAudio {
        let audio = try #require(probe.audio, "\(v.id): source has audio, output has none")
        #expect(audio.codecName == "aac" && audio.profile == "LC" && audio.sampleRate == 48_000)
      } else {
        #expect(probe.audio == nil)
      }

      // HLS: VOD playlists, every segment decodable alone and opening on a keyframe,
      // identical segment boundaries across renditions.
      let master = try local(item["url"])
      #expect(master.pathExtension == "m3u8")
      let (masterLines, variants) = try HLSCheck.variants(master: master)
      #expect(masterLines.contains("#EXT-X-INDEPENDENT-SEGMENTS"))
      #expect(!variants.isEmpty)
      #expect(variants.first?.attributes["CODECS"]?.hasPrefix("avc1.") == true, "\(v.id): the first variant is not H.264")
      var boundaries: [[Double]] = []
      for variant in variants {
        for key in ["BANDWIDTH", "AVERAGE-BANDWIDTH", "CODECS", "RESOLUTION", "FRAME-RATE"] {
          #expect(variant.attributes[key] != nil, "\(v.id) \(variant.uri) lacks \(key)")
        }
        // H.264 High, or its HEVC twin (Main); H.264 listed first.
        let codecs = variant.attributes["CODECS"] ?? ""
        #expect(codecs.hasPrefix("avc1.64") || codecs.hasPrefix("hvc1.1.6."), "\(v.id) \(variant.uri): \(codecs)")
        #expect((variant.attributes["CODECS"]?.contains("mp4a.40.2") ?? false) == v.sourceHasAudio)
        #expect(variant.lines.contains("#EXT-X-ENDLIST") && variant.lines.contains("#EXT-X-PLAYLIST-TYPE:VOD"))
        #expect(variant.mapURL != nil)
        var t = 0.0
        var starts: [Double] = []
        for seg in variant.segments {
          starts.append((t * 1000).rounded() / 1000)
          t += seg.duration
          let standalone = try HLSCheck.standaloneSegment(map: variant.mapURL, segment: seg.url)
          defer { try? FileManager.default.removeItem(at: standalone) }
          let frames = try FFprobe.videoFrames(standalone)
          #expect(!frames.isEmpty, "\(v.id): \(seg.url.lastPathComponent) decodes no frame")
          #expect(frames.first?.isKeyframe == true && frames.first?.pictureType == "I",
                  "\(v.id) \(variant.uri) \(seg.url.lastPathComponent) does not start with a keyframe")
        }
        boundaries.append(starts)
      }
      #expect(Set(boundaries.map { $0.description }).count == 1, "\(v.id): segment boundaries differ: \(boundaries)")
      // JSON duration equals what the HLS url plays (sum of EXTINF of the first variant).
      let hlsDuration = variants[0].segments.reduce(0) { $0 + $1.duration }
      #expect(abs(hlsDuration - duration) < 0.002, "\(v.id): json \(duration) vs hls \(hlsDuration)")
      if let d = probe.duration { #expect(abs(d - duration) < 0.1, "\(v.id): mp4 \(d) vs json \(duration)") }

      // Covers: decode, not black, exactly the video's size; the dark one darker.
      let cover = try FFprobe.meanLuma(try local(item["cover_url"]))
      #expect(cover.width == width && cover.height == height)
      #expect(cover.mean > 30, "\(v.id): cover mean luma \(cover.mean) looks black")
      let coverJPEG = try FFprobe.meanLuma(try local(item["cover_jpeg_url"]))
      #expect(coverJPEG.width == width && coverJPEG.height == height)
      let dark = try FFprobe.meanLuma(try local(item["cover_dark_url"]))
      #expect(dark.mean < cover.mean, "\(v.id): dark cover is not darker")
      let top = try #require(variants.first { $0.attributes["RESOLUTION"] == "\(width)x\(height)" })
      _ = top
    }

    for (n, i) in Self.images.enumerated() {
      let item = items[Self.videos.count + n]
      #expect(item["type"] as? String == "image" && item["id"] as? String == i.id)
      #expect(item["cover_url"] == nil)
      let webp = try local(item["url"])
      #expect(webp.pathExtension == "webp")
      let light = try FFprobe.meanLuma(webp)
      #expect(light.width <= 1170 && light.width == item["width"] as? Int)
      let jpeg = try FFprobe.report(try local(item["jpeg_url"]))
      #expect(jpeg.video?.codecName == "mjpeg")
      let dark = try FFprobe.meanLuma(try local(item["dark_url"]))
      #expect(dark.width == light.width && dark.height == light.height)
    }
  }

  @Test("bad sources fail their item with id, path and reason; the others still build")
  func badSourcesFailAlone() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-bad-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let empty = dir.appendingPathComponent("empty.mp4")
    try Data().write(to: empty)
    let text = dir.appendingPathComponent("notes.mp4")
    try Data("these are not video bytes, just some text\n".utf8).write(to: text)
    // A playlist disguised as an MP4 must be refused, never followed.
    let playlist = dir.appendingPathComponent("playlist.mp4")
    try Data("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile:///etc/hostname\n#EXT-X-ENDLIST\n".utf8).write(to: playlist)
    let concat = dir.appendingPathComponent("list.mp4")
    try Data("ffconcat version 1.0\nfile '/etc/hostname'\n".utf8).write(to: concat)
    let good = dir.appendingPathComponent("good.mp4")
    try SyntheticMedia.writeClip(.init(video: "testsrc2=size=320x240:rate=25", frameRate: Rational(25, 1), duration: 1), to: good.path)

    let banners: [[String: Any]] = [
      ["id": "missing", "type": "video", "source": dir.appendingPathComponent("nope.mp4").path],
      ["id": "empty", "type": "video", "source": empty.path],
      ["id": "text", "type": "video", "source": text.path],
      ["id": "playlist", "type": "video", "source": playlist.path],
      ["id": "concat", "type": "video", "source": concat.path],
      ["id": "image-as-video", "type": "image", "source": text.path],
      ["id": "good", "type": "video", "source": good.path],
    ]
    // Default policy: a failed item keeps the old bundle (none here).
    let (root1, strict) = try await Self.build(banners: banners)
    defer { try? FileManager.default.removeItem(at: root1) }
    #expect(!strict.published)
    #expect(!FileManager.default.fileExists(atPath: strict.bundle.path))
    // Only the content-addressed store (`.marquee/`) may remain: no staging folder.
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: root1.appendingPathComponent("out").path)
      .filter { $0 != ".marquee" }
    #expect(leftovers.isEmpty, "staging left behind: \(leftovers)")

    let (root2, partial) = try await Self.build(banners: banners, allowPartial: true)
    defer { try? FileManager.default.removeItem(at: root2) }
    #expect(partial.published)
    let failures = Dictionary(uniqueKeysWithValues: partial.items.compactMap { i in i.failure.map { (i.id, $0) } })
    #expect(Set(failures.keys) == ["missing", "empty", "text", "playlist", "concat", "image-as-video"])
    #expect(failures["missing"]?.reason.contains("not found") == true)
    #expect(failures["empty"]?.reason.contains("empty") == true)
    for (id, f) in failures {
      #expect(f.description.hasPrefix("\(id): "), "\(f)")
      #expect(f.description.contains(f.source))
      #expect(!f.reason.isEmpty)
    }
    let manifest = try #require(try JSONSerialization.jsonObject(
      with: Data(contentsOf: partial.bundle.appendingPathComponent("banners.json"))) as? [String: Any])
    let ids = (manifest["banners"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    #expect(ids == ["good"])
    // Nothing of a failed item is left in the bundle.
    #expect(!FileManager.default.fileExists(atPath: partial.bundle.appendingPathComponent("videos/text").path))
  }

  @Test("a rebuild replaces the bundle whole and leaves no staging folders")
  func rebuildReplacesBundle() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-rebuild-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let png = dir.appendingPathComponent("a.png")
    try PNGWriter.encode(DemoSources.productOnWhite(width: 400, height: 300)).write(to: png)
    let (root, first) = try await Self.build(banners: [["id": "a", "type": "image", "source": png.path]], name: "re")
    defer { try? FileManager.default.removeItem(at: root) }
    #expect(first.published)
    let job = try JobReader().parse(
      JSONSerialization.data(withJSONObject: ["name": "re", "banners": [["id": "b", "type": "image", "source": png.path]]]),
      jobFileURL: dir.appendingPathComponent("job.json"))
    let second = try await BundleBuilder().build(job: job, options: BuildOptions(outputRoot: root.appendingPathComponent("out")))
    #expect(second.published)
    // Item folders are `images/<id>` or `images/<id>-<content hash>`.
    let images = try FileManager.default.contentsOfDirectory(atPath: second.bundle.appendingPathComponent("images").path)
    #expect(!images.contains { $0 == "a" || $0.hasPrefix("a-") }, "\(images)")
    #expect(images.contains { $0 == "b" || $0.hasPrefix("b-") }, "\(images)")
    let entries = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("out").path)
      .filter { $0 != ".marquee" }
    #expect(entries == ["re"])
  }
}
