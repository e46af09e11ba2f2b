import Foundation
import MarqueeTestSupport
import MediaIO
import Testing

@testable import MarqueeKit

/// A still whose image data is damaged (libjpeg conceals it and carries
/// on) is never published silently: it fails like a damaged video, in the
/// one error form, unless `allow_damaged_sources`. Whether a file is
/// damaged is told by FFmpeg's own MJPEG decoder (it reports the overread),
/// not by Marquee.
@Suite("Damaged stills in a build", .serialized)
struct DamagedStillBuildTests {
  /// A 1170x658 JPEG made by ffmpeg, then `damaged` (2000 bytes of
  /// seeded garbage over the middle of the entropy-coded data, with a
  /// stray marker in it) and
  /// `padded` (300 zero bytes before the end-of-image marker, as some
  /// cameras write) and `zeroed` (a hole of 64 zero bytes in the image
  /// data).
  static func make(in folder: URL) throws -> (whole: URL, damaged: URL, padded: URL, zeroed: URL) {
    let whole = folder.appendingPathComponent("whole.jpg")
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=s=1170x658", "-frames:v", "1", "-q:v", "2"], to: whole)
    let bytes = try Data(contentsOf: whole)
    var damaged = bytes
    var random = SplitMix64(seed: 20)
    let middle = bytes.count / 2
    for i in middle..<(middle + 2000) { damaged[damaged.startIndex + i] = UInt8(random.next() % 0xFF) }
    // A marker where image data should be (a restart marker the file never
    // declared), as a bad copy leaves: no 0xFF elsewhere, so it is the
    // only marker libjpeg meets in the garbage.
    damaged[damaged.startIndex + middle + 1000] = 0xFF
    damaged[damaged.startIndex + middle + 1001] = 0xD2
    let damagedURL = folder.appendingPathComponent("damaged.jpg")
    try damaged.write(to: damagedURL)
    #expect(bytes.suffix(2) == Data([0xFF, 0xD9]))
    let paddedURL = folder.appendingPathComponent("padded.jpg")
    try (bytes.dropLast(2) + Data(repeating: 0, count: 300) + Data([0xFF, 0xD9])).write(to: paddedURL)
    // A hole of zeros in the image data, as an interrupted copy leaves: no
    // marker in it, so libjpeg decodes the zeros as codes, loses its place
    // and finishes the last block early, 6 bytes before the end marker.
    var zeroed = bytes
    let hole = bytes.count * 6 / 10
    for i in hole..<(hole + 64) { zeroed[zeroed.startIndex + i] = 0 }
    let zeroedURL = folder.appendingPathComponent("zeroed.jpg")
    try zeroed.write(to: zeroedURL)
    return (whole, damagedURL, paddedURL, zeroedURL)
  }

  /// What FFmpeg's MJPEG decoder says decoding `url` (empty: nothing wrong).
  static func ffmpegErrors(_ url: URL) throws -> String {
    let r = try Run.process("ffmpeg", ["-v", "error", "-i", url.path, "-f", "null", "-"])
    return r.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test("the decoder's word: garbage in the image data is damage, padding before the end marker is not")
  func decodedPictureDamage() throws {
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let files = try Self.make(in: folder)
    // The oracle: FFmpeg's decoder finds the damaged file wrong, the others whole.
    #expect(try !Self.ffmpegErrors(files.damaged).isEmpty)
    #expect(try Self.ffmpegErrors(files.padded).isEmpty)
    #expect(try Self.ffmpegErrors(files.whole).isEmpty)
    // The hole of zeros: FFmpeg's decoder does not flag it, so the oracle
    // is the picture: its lower part differs from the whole file's.
    let wholePicture = try FFmpegOracle.decode(files.whole), zeroedPicture = try FFmpegOracle.decode(files.zeroed)
    let bottom = (wholePicture.height * 9 / 10) * wholePicture.width * 4
    let differing = stride(from: bottom, to: wholePicture.pixels.count, by: 4).filter {
      abs(Int(wholePicture.pixels[$0]) - Int(zeroedPicture.pixels[$0])) > 24
    }.count
    #expect(differing * 10 > (wholePicture.pixels.count - bottom) / 4, "the zeroed file's bottom rows match the whole file's")
    let zeroedDamage = try ImageSource.open(path: files.zeroed.path, limits: InputLimits()).decodeStill().damage ?? ""
    #expect(zeroedDamage.contains("extraneous bytes before marker 0xd9"), "\(zeroedDamage)")

    // (`DecodedPicture` is never printed: its pixels are megabytes.)
    let damage = try ImageSource.open(path: files.damaged.path, limits: InputLimits()).decodeStill().damage ?? ""
    #expect(damage.contains("libjpeg concealed it") && damage.contains("Corrupt JPEG data"), "\(damage)")
    // The validate rule sees it at 1/8 scale too.
    #expect(try ImageSource.open(path: files.damaged.path, limits: InputLimits()).checkDecodes() != nil)

    let padded = try ImageSource.open(path: files.padded.path, limits: InputLimits()).decodeStill()
    #expect(padded.damage == nil, "\(padded.damage ?? "")")
    #expect(padded.warnings.contains { $0.contains("extraneous bytes before marker 0xd9") }, "\(padded.warnings)")
    let whole = try ImageSource.open(path: files.whole.path, limits: InputLimits()).decodeStill()
    #expect(whole.damage == nil && whole.warnings.isEmpty, "\(whole.warnings)")
  }

  @Test("a damaged JPEG fails as `decode failed: <source>: the picture is damaged: …` and validate says so; allowed, it is built with a warning and counted; without the setting again, its stored object is not reused")
  func damagedStillInARun() throws {
    let fixture = try BatchFixture("damaged-still")
    defer { fixture.remove() }
    let media = fixture.dir.appendingPathComponent("media")
    try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
    _ = try Self.make(in: media)
    let banners: [[String: Any]] = [["id": "whole", "type": "image", "source": "media/whole.jpg"],
                                    ["id": "padded", "type": "image", "source": "media/padded.jpg"],
                                    ["id": "upload", "type": "image", "source": "media/damaged.jpg"]]
    let job = try fixture.job(banners).path

    let run = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(run.status == 1)
    let failure = try #require(DamagedSourceBuildTests.itemError(run.stderr, id: "upload"), "\(run.stderr)")
    #expect(failure.stage == "decode" && failure.source == "media/damaged.jpg", "\(failure)")
    #expect(failure.reason.hasPrefix("the picture is damaged: part of its image data cannot be decoded"), "\(failure.reason)")
    #expect(failure.reason.contains("set \"allow_damaged_sources\": true"), "\(failure.reason)")
    // The padded and whole files build; nothing is published while an item fails.
    #expect(DamagedSourceBuildTests.itemError(run.stderr, id: "padded") == nil, "\(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: fixture.out.appendingPathComponent("home/banners.json").path))

    let validate = try MarqueeCLI.run(["validate", job])
    let said = validate.stdoutText + validate.stderr
    #expect(validate.status != 0)
    #expect(said.contains("banners[2].source: the picture is damaged: "), "\(said)")
    #expect(!said.contains("banners[1]"), "\(said)")

    // Allowed: published, with a warning, and counted as one damaged picture.
    try fixture.job(banners, settings: ["allow_damaged_sources": true])
    let allowed = try MarqueeCLI.run(["build", job, "--out", fixture.out.path, "--log-format", "json"])
    #expect(allowed.status == 0, "\(allowed.stderr)")
    let objects = DamagedSourceBuildTests.jsonObjects(allowed.stdoutText)
    #expect(objects.contains { $0["item"] as? String == "upload" && $0["event"] as? String == "warning"
      && ($0["message"] as? String)?.contains("the picture is damaged: ") == true
      && ($0["message"] as? String)?.contains("built anyway (allow_damaged_sources)") == true }, "\(allowed.stdoutText)")
    let finished = try #require(objects.first { $0["item"] as? String == "upload" && $0["event"] as? String == "finished" })
    #expect(finished["damaged_pictures"] as? String == "1", "\(finished)")
    let summary = try #require(objects.first { $0["event"] as? String == "summary" })
    #expect(summary["damaged_items"] as? String == "1", "\(summary)")

    // The setting is not in the item's hash: without it, the stored object
    // is not reused; the item fails as its build would.
    try fixture.job(banners)
    let again = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(again.status == 1)
    let refused = try #require(DamagedSourceBuildTests.itemError(again.stderr, id: "upload"), "\(again.stderr)")
    #expect(refused.stage == "decode" && refused.reason.hasPrefix("the picture is damaged: "), "\(refused)")
    #expect(again.stdoutText.contains("2 reused, 0 built, 1 failed"), "\(again.stdoutText)")
  }

  @Test("an animated GIF cut short inside a frame fails as damaged, validate says so; allowed, it is built with a warning")
  func truncatedAnimation() throws {
    let fixture = try BatchFixture("damaged-gif")
    defer { fixture.remove() }
    let whole = fixture.dir.appendingPathComponent("whole.gif")
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=s=320x180:r=10", "-t", "2"], to: whole)
    let bytes = try Data(contentsOf: whole)
    try bytes.prefix(bytes.count * 2 / 3).write(to: fixture.dir.appendingPathComponent("cut.gif"))
    // The oracle: ffprobe counts fewer frames in the cut file than in the whole one.
    func frames(_ name: String) throws -> Int {
      let r = try Run.process("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                          "stream=nb_read_frames", "-of", "csv=p=0", fixture.dir.appendingPathComponent(name).path])
      return Int(r.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
    #expect(try frames("cut.gif") < frames("whole.gif"))
    let banners: [[String: Any]] = [["id": "whole", "type": "image", "source": "whole.gif"],
                                    ["id": "cut", "type": "image", "source": "cut.gif"]]
    let job = try fixture.job(banners).path
    let run = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(run.status == 1)
    let failure = try #require(DamagedSourceBuildTests.itemError(run.stderr, id: "cut"), "\(run.stderr)")
    #expect(failure.stage == "decode" && failure.reason.hasPrefix("the picture is damaged: the GIF is cut short"), "\(failure)")
    #expect(DamagedSourceBuildTests.itemError(run.stderr, id: "whole") == nil, "\(run.stderr)")
    let validate = try MarqueeCLI.run(["validate", job])
    #expect((validate.stdoutText + validate.stderr).contains("banners[1].source: the picture is damaged: the GIF is cut short"),
            "\(validate.stdoutText)\(validate.stderr)")
    try fixture.job(banners, settings: ["allow_damaged_sources": true])
    let allowed = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(allowed.status == 0, "\(allowed.stderr)")
    #expect(allowed.stderr.contains("built anyway (allow_damaged_sources)"), "\(allowed.stderr)")
  }

  @Test("a damaged poster or designer's dark picture fails the item naming that file, unless allowed")
  func damagedSuppliedStills() throws {
    let fixture = try BatchFixture("damaged-supplied")
    defer { fixture.remove() }
    let media = fixture.dir.appendingPathComponent("media")
    try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
    _ = try Self.make(in: media)
    try fixture.clip("a.mp4")
    let banners: [[String: Any]] = [
      ["id": "clip", "type": "video", "source": "a.mp4", "cover": ["image": "media/damaged.jpg"]],
      ["id": "card", "type": "image", "source": "media/whole.jpg", "dark": ["image": "media/damaged.jpg"]],
    ]
    let job = try fixture.job(banners).path
    let run = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(run.status == 1)
    let clip = try #require(DamagedSourceBuildTests.itemError(run.stderr, id: "clip"), "\(run.stderr)")
    #expect(clip.stage == "cover" && clip.source == "media/damaged.jpg", "\(clip)")
    #expect(clip.reason.contains("the poster (cover.image) cannot be used: the picture is damaged: "), "\(clip.reason)")
    let card = try #require(DamagedSourceBuildTests.itemError(run.stderr, id: "card"), "\(run.stderr)")
    #expect(card.stage == "decode" && card.source == "media/damaged.jpg", "\(card)")
    #expect(card.reason.contains("the designer's dark picture (dark.image) cannot be used: the picture is damaged: "), "\(card.reason)")

    let validate = try MarqueeCLI.run(["validate", job])
    let said = validate.stdoutText + validate.stderr
    #expect(said.contains("banners[0].cover.image: not a usable poster: the picture is damaged: "), "\(said)")
    #expect(said.contains("banners[1].dark.image: not a usable dark picture: the picture is damaged: "), "\(said)")

    try fixture.job(banners, settings: ["allow_damaged_sources": true])
    let allowed = try MarqueeCLI.run(["build", job, "--out", fixture.out.path])
    #expect(allowed.status == 0, "\(allowed.stderr)")
    #expect(allowed.stderr.contains("poster media/damaged.jpg: the picture is damaged: "), "\(allowed.stderr)")
    #expect(allowed.stderr.contains("dark picture media/damaged.jpg: the picture is damaged: "), "\(allowed.stderr)")
  }
}
