import Foundation
import MarqueeKit

/// A job folder with a `media/` folder of mixed files, for `marquee init`:
/// videos (one behind a misleading `.jpg` name), a PNG, a JPEG, an animated
/// GIF and an animated WebP, two names that slug to the same id, and files
/// init leaves out (text named `.mp4`, an empty file, a hidden file, a
/// symbolic link, a subfolder). Small and quick to build (1 s 160x90
/// clips); removed by `remove()`.
public struct MixedMediaFolder {
  /// The job folder (`BatchFixture.dir`).
  public let root: URL
  /// `root/media`.
  public let media: URL
  private let fixture: BatchFixture

  /// A file init lists: its name, the id and type it gets, what it holds.
  public struct Listed: Sendable {
    public var file: String
    public var id: String
    public var type: String
    public var content: MediaContent
  }

  /// What init lists, in its order (file names sorted by UTF-8 bytes).
  public static let listed: [Listed] = [
    Listed(file: "Launch Clip.mp4", id: "launch-clip", type: "video", content: .video),
    Listed(file: "Summer Sale.png", id: "summer-sale", type: "image", content: .still),
    Listed(file: "animated.gif", id: "animated", type: "image", content: .animation(frames: 4)),
    Listed(file: "spinner.webp", id: "spinner", type: "image", content: .animation(frames: 12)),
    Listed(file: "summer-sale.jpg", id: "summer-sale-2", type: "image", content: .still),
    Listed(file: "teaser.jpg", id: "teaser", type: "video", content: .video),
  ]

  /// What init leaves out, in its order, with a part of the reason.
  public static let skipped: [(file: String, reason: String)] = [
    (".DS_Store", "hidden"),
    ("empty.png", "file is empty"),
    ("link.mp4", "symbolic link"),
    ("notes.mp4", "match no container format"),
    ("raw", "is a folder"),
  ]

  public init(_ label: String = "init") throws {
    fixture = try BatchFixture(label)
    root = fixture.dir
    media = root.appendingPathComponent("media")
    try FileManager.default.createDirectory(at: media.appendingPathComponent("raw"), withIntermediateDirectories: true)
    try Self.clip(media.appendingPathComponent("Launch Clip.mp4"), hue: 0, tone: 440)
    // An MP4 behind a picture's extension: a video by its content.
    try Self.clip(media.appendingPathComponent("teaser.jpg"), hue: 120, tone: nil)
    try fixture.png("media/Summer Sale.png")
    try fixture.jpeg("media/summer-sale.jpg")
    try Self.animatedGIF(frames: 4).write(to: media.appendingPathComponent("animated.gif"))
    try fixture.animatedLosslessWebP("media/spinner.webp", width: 64, height: 64)
    try Data("These are the notes for the campaign.\n".utf8).write(to: media.appendingPathComponent("notes.mp4"))
    try Data().write(to: media.appendingPathComponent("empty.png"))
    try Data("Finder".utf8).write(to: media.appendingPathComponent(".DS_Store"))
    try FileManager.default.createSymbolicLink(atPath: media.appendingPathComponent("link.mp4").path,
                                               withDestinationPath: "Launch Clip.mp4")
    try Self.clip(media.appendingPathComponent("raw/take-1.mp4"), hue: 240, tone: nil)
  }

  public func remove() { fixture.remove() }

  /// A 1 s, 160x90, 25 fps H.264 clip (`testsrc2`, its hue turned by
  /// `hue` degrees), with a tone unless `tone` is nil.
  public static func clip(_ url: URL, hue: Int, tone: Int?) throws {
    try SyntheticMedia.writeClip(
      .init(video: "testsrc2=size=160x90:rate=25,hue=h=\(hue)", frameRate: Rational(25, 1), duration: 1, toneHz: tone),
      to: url.path)
  }

  /// A 96x64 animated GIF of `frames` frames of 0.1 s: a red block
  /// moving over white, with a dark bar (`SyntheticGIF`).
  public static func animatedGIF(frames: Int) -> Data {
    let (width, height) = (96, 64)
    var list: [SyntheticGIF.Frame] = []
    for n in 0..<frames {
      var indices = [UInt8](repeating: 0, count: width * height)
      let left = (n * 7) % (width - 24)
      for y in 0..<height {
        for x in 0..<width {
          if (20..<44).contains(y) && (left..<(left + 24)).contains(x) { indices[y * width + x] = 1 }
          if y >= height - 8 { indices[y * width + x] = 2 }
        }
      }
      list.append(.init(width: width, height: height, indices: indices, disposal: 1, delayCentiseconds: 10))
    }
    return SyntheticGIF.make(width: width, height: height, palette: [(255, 255, 255), (220, 40, 40), (30, 30, 60)], frames: list)
  }
}
