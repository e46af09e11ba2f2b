import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// Cover choice on real clips: fade-ins, a fade that ends on a near-white
/// title card, an all-black clip and a near-black one, each built through
/// the real ``VideoBannerBuilder`` (small ladder, `max_height` 360) and the
/// written cover read back with Debian's `ffmpeg`, the independent oracle.
@Suite("Cover choice on the corpus", .serialized)
struct CoverCorpusTests {
  static let corpusOK = Corpus.skipReason == nil

  struct Clip: Sendable, CustomTestStringConvertible {
    var file: String
    /// What is in it, for the failure message.
    var note: String
    var testDescription: String { file }
  }

  static let fades: [Clip] = [
    Clip(file: "video-mpeg2-mp2-1920x1080-fade-in.ts", note: "2.2 s fade from black into clouds"),
    Clip(file: "video-mpeg4part2-mp3-960x400-fade-in.avi", note: "0.4 s fade into a bird against a blue sky"),
    Clip(
      file: "video-hevc-main-854x480-noaudio-fade-from-black.mp4",
      note: "5-frame fade into a white title card with a blue logo (mean luma 235)"),
  ]

  /// Builds `file` into a temporary bundle folder, which the caller
  /// removes; removed here when the build throws.
  static func build(_ file: String, cover: CoverPolicy = .auto) throws -> (dir: URL, built: BuiltVideoBanner) {
    let source = try Corpus.url(file)
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-cover-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    MediaLog.set(.quiet)
    let spec = BannerSpec(
      id: "item", kind: .video, source: source, sourceText: file, link: nil, autoplay: true, muted: true,
      cover: cover, jsonPath: "banners[0]")
    do {
      let built = try VideoBannerBuilder(settings: JobSettings(maxHeight: 360), darkVariants: DarkVariantGenerator())
        .build(spec, bundleRoot: dir, folder: "videos/item")
      return (dir, built)
    } catch {
      try? FileManager.default.removeItem(at: dir)
      throw error
    }
  }

  /// The written cover decoded by ffmpeg to gray at its own size, and the
  /// output MP4's size.
  static func cover(_ dir: URL, _ built: BuiltVideoBanner) throws -> (gray: [UInt8], width: Int, height: Int) {
    let url = dir.appendingPathComponent("videos/item").appendingPathComponent(built.entry.coverJPEGPath)
    let probe = try #require(try FFprobe.report(url).video)
    let w = try #require(probe.width)
    let h = try #require(probe.height)
    return (try Oracle.grayFrames(url, width: w, height: h)[0], w, h)
  }

  static func mean(_ gray: [UInt8]) -> Double {
    Double(gray.reduce(0) { $0 + Int($1) }) / Double(max(gray.count, 1))
  }

  @Test("auto cover of a fade-in is a lit, settled frame at the video's size",
        .enabled(if: corpusOK), arguments: fades)
  func fadeInCover(clip: Clip) throws {
    let (dir, built) = try Self.build(clip.file)
    defer { try? FileManager.default.removeItem(at: dir) }
    let mp4 = try #require(try FFprobe.report(dir.appendingPathComponent("videos/item").appendingPathComponent(built.entry.mp4Path)).video)
    let cover = try Self.cover(dir, built)
    #expect(cover.width == mp4.width && cover.height == mp4.height, "\(clip.note)")
    #expect(cover.width == built.entry.width && cover.height == built.entry.height)
    let luma = Self.mean(cover.gray)
    print(
      String(format: "[Cover] %@: cover at %.3f s, mean luma %.1f, warnings %@", clip.file,
             built.coverTime ?? -1, luma, built.warnings.description))
    #expect(luma > 50, "\(clip.file) (\(clip.note)): cover is dark, mean luma \(luma)")
    #expect(!built.warnings.contains { $0.contains("no frame qualified") }, "\(built.warnings)")

    // Settled, not mid-fade: the neighbouring frame in the output (the
    // next one, or the previous one when the cover is the last frame) has
    // nearly the same mean luma; a fade changes it by 5-50 levels a frame.
    let mp4URL = dir.appendingPathComponent("videos/item").appendingPathComponent(built.entry.mp4Path)
    let frames = try FFprobe.videoFrames(mp4URL).map(\.pts)
    let t = try #require(built.coverTime)
    let neighbour = try #require(
      frames.first { $0 > t + 1e-3 } ?? frames.last { $0 < t - 1e-3 })
    let w = cover.width / 4 * 2
    let h = cover.height / 4 * 2
    // Seek a little before each picture (ffmpeg's -ss takes the first
    // picture at or after it), so the clip's last picture is found too.
    let at = try Oracle.grayFrames(mp4URL, width: w, height: h, at: max(0, t - 0.01))[0]
    let beside = try Oracle.grayFrames(mp4URL, width: w, height: h, at: max(0, neighbour - 0.01))[0]
    #expect(abs(Self.mean(at) - Self.mean(beside)) < 4, "\(clip.note): the cover is inside a fade")
  }

  @Test("a pinned cover time gives the output video's own frame at that time",
        .enabled(if: corpusOK),
        arguments: [
          ("video-mpeg2-mp2-1920x1080-fade-in.ts", 1.5),
          ("video-mpeg4part2-mp3-960x400-fade-in.avi", 2.5),
          ("video-hevc-main-854x480-noaudio-fade-from-black.mp4", 0.5),
        ])
  func pinnedCover(file: String, time: Double) throws {
    let (dir, built) = try Self.build(file, cover: .at(seconds: time))
    defer { try? FileManager.default.removeItem(at: dir) }
    let cover = try Self.cover(dir, built)
    // ffmpeg decodes our MP4 at the pinned time: same picture, up to JPEG
    // and H.264 coding noise.
    let frame = try Oracle.grayFrames(
      dir.appendingPathComponent("videos/item").appendingPathComponent(built.entry.mp4Path), width: cover.width, height: cover.height, at: time)[0]
    let difference = Oracle.meanAbsoluteDifference(cover.gray, frame)
    print(String(format: "[Cover] %@ at %.2f s: cover vs video frame, mean abs diff %.2f", file, time, difference))
    #expect(difference < 3, "\(file) at \(time) s: cover differs from the video frame by \(difference)")
    #expect(abs((built.coverTime ?? -1) - time) < 0.1)
    #expect(built.warnings.isEmpty, "\(built.warnings)")
  }

  @Test("an all-black or near-black clip fails naming the fixes, and builds with a poster",
        .enabled(if: corpusOK),
        arguments: ["video-h264-aac-all-black-silent-10s.mp4", "video-h264-1920x1080-rot180-near-black-noaudio.mp4"])
  func blackClip(file: String) throws {
    #expect {
      _ = try Self.build(file)
    } throws: { error in
      let reason = (error as? MarqueeError)?.message ?? "\(error)"
      return reason.contains("no frame is lit") && reason.contains("{\"image\"") && reason.contains("{\"at\"")
    }
    let poster = try Corpus.url("image-jpeg-adobergb1998-photo-2000x1072.jpg")
    let (dir, built) = try Self.build(file, cover: .image(source: poster, text: "poster.jpg"))
    defer { try? FileManager.default.removeItem(at: dir) }
    let mp4 = try #require(try FFprobe.report(dir.appendingPathComponent("videos/item").appendingPathComponent(built.entry.mp4Path)).video)
    let cover = try Self.cover(dir, built)
    #expect(cover.width == mp4.width && cover.height == mp4.height)
    #expect(built.coverTime == nil && built.summary.contains("poster poster.jpg"), "\(built.summary)")
    let luma = Self.mean(cover.gray)
    print(String(format: "[Cover] %@: poster cover, mean luma %.1f", file, luma))
    #expect(luma > 40, "the poster, not the black video: mean luma \(luma)")
  }
}
