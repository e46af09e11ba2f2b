import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

@Suite("marquee init: media types from the content")
struct MediaClassifierTests {
  /// Writes `data` as `name` in the fixture and classifies it.
  private func classify(_ data: Data, _ name: String, in fixture: BatchFixture) throws -> MediaClassifier.Verdict {
    let url = fixture.dir.appendingPathComponent(name)
    try data.write(to: url)
    return MediaClassifier().classify(atPath: url.path)
  }

  @Test("the bytes decide, not the name: an MP4 named .jpg is a video, a PNG named .mp4 an image")
  func misleadingNames() throws {
    let fixture = try BatchFixture("classify-names")
    defer { fixture.remove() }
    let clip = fixture.dir.appendingPathComponent("teaser.jpg")
    try MixedMediaFolder.clip(clip, hue: 0, tone: 440)
    guard case .media(let video) = MediaClassifier().classify(atPath: clip.path) else {
      Issue.record("an MP4 named .jpg is not media")
      return
    }
    #expect(video.content == .video && video.kind == .video)
    #expect(video.format.contains("mp4"), "\(video.format)")

    let png = try fixture.png("still.mp4")
    #expect(MediaClassifier().classify(atPath: png.path)
              == .media(MediaClassification(content: .still, format: "png", kind: .image)))
    let jpeg = try fixture.jpeg("photo.jpeg")
    #expect(MediaClassifier().classify(atPath: jpeg.path)
              == .media(MediaClassification(content: .still, format: "jpeg", kind: .image)))
  }

  @Test("animated images: a GIF or WebP within the client's frame cap is an image, a longer GIF a video")
  func animations() throws {
    let fixture = try BatchFixture("classify-animations")
    defer { fixture.remove() }
    #expect(try classify(MixedMediaFolder.animatedGIF(frames: 4), "short.gif", in: fixture)
              == .media(MediaClassification(content: .animation(frames: 4), format: "gif", kind: .image)))
    let webp = try fixture.animatedLosslessWebP("spinner.webp", width: 64, height: 64)
    #expect(MediaClassifier().classify(atPath: webp.path)
              == .media(MediaClassification(content: .animation(frames: 12), format: "webp", kind: .image)))

    let cap = MediaClassifier().maxAnimationFrames
    #expect(cap == ImageRenderer.Options(settings: .default).maxAnimationFrames)
    guard case .media(let long) = try classify(MixedMediaFolder.animatedGIF(frames: cap + 4), "long.gif", in: fixture) else {
      Issue.record("a long GIF is not media")
      return
    }
    #expect(long.content == .animation(frames: cap + 4))
    #expect(long.kind == .video)
    #expect(long.note?.contains("\(cap + 4) frames") == true, "\(long.note ?? "")")
  }

  @Test("not media, with the reason: text, sound only, empty, a still cut short, a symbolic link")
  func notMedia() throws {
    let fixture = try BatchFixture("classify-not-media")
    defer { fixture.remove() }
    func reason(_ verdict: MediaClassifier.Verdict) -> String? {
      if case .notMedia(let reason) = verdict { return reason }
      return nil
    }
    let text = try classify(Data("not a video at all\n".utf8), "notes.mp4", in: fixture)
    #expect(reason(text)?.contains("match no container format") == true, "\(text)")
    #expect(reason(try classify(Data(), "empty.png", in: fixture)) == "file is empty")

    let sound = fixture.dir.appendingPathComponent("sound.m4a")
    try Oracle.generate(["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "aac"], to: sound)
    #expect(reason(MediaClassifier().classify(atPath: sound.path)) == "has no video stream")

    // A JPEG cut in half fails validate (it is decoded whole), so init
    // leaves it out rather than print a job that does not validate.
    let jpeg = try Data(contentsOf: try fixture.jpeg("whole.jpg"))
    let cut = try classify(jpeg.prefix(jpeg.count / 2), "cut.jpg", in: fixture)
    #expect(reason(cut) != nil, "\(cut)")

    let link = fixture.dir.appendingPathComponent("link.jpg")
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "whole.jpg")
    #expect(reason(MediaClassifier().classify(atPath: link.path))?.contains("symbolic link") == true)
  }

  @Test("the settings' limits apply: a picture over max_pixels is left out, naming the limit")
  func limits() throws {
    let fixture = try BatchFixture("classify-limits")
    defer { fixture.remove() }
    let png = try fixture.png("big.png")
    var settings = JobSettings.default
    settings.maxPixels = 1000
    guard case .notMedia(let reason) = MediaClassifier(settings: settings).classify(atPath: png.path) else {
      Issue.record("a picture over max_pixels is media")
      return
    }
    #expect(reason.contains("max_pixels"), "\(reason)")
  }

  @Test("image signatures are recognised from the first bytes alone")
  func signatures() {
    #expect(ImageFormat.recognize(Data([0xFF, 0xD8, 0xFF, 0xE0])) == .jpeg)
    #expect(ImageFormat.recognize(Data([0x89]) + Data("PNG\r\n\u{1A}\n".utf8)) == .png)
    #expect(ImageFormat.recognize(Data("GIF89a".utf8)) == .gif)
    #expect(ImageFormat.recognize(Data("RIFF\0\0\0\0WEBP".utf8)) == .webp)
    // An MP4's ftyp with no HEIF brand is not an image.
    #expect(ImageFormat.recognize(Data([0, 0, 0, 0x18]) + Data("ftypisom\0\0\u{2}\0isomiso2".utf8)) == nil)
    #expect(ImageFormat.recognize(Data("hello".utf8)) == nil)
    #expect(ImageFormat.recognize(Data()) == nil)
  }
}
