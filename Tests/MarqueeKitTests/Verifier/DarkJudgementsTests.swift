import Foundation
import MarqueeTestSupport
import MediaIO
import Testing

@testable import MarqueeKit

// The build's check of its own outputs takes the dark-variant judgement the
// renderer made of exactly the bytes on disk, and judges any other bytes
// afresh. The banner is drawn by the ffmpeg CLI; the files are Marquee's.
@Suite("Dark judgements handed to the build's check")
struct DarkJudgementsTests {
  @Test("a rendered still hands over the judgement of its published WebP and JPEG pairs; the check takes it for those bytes only")
  func judgementFollowsTheBytes() throws {
    let fixture = try BatchFixture("dark-judgements")
    defer { fixture.remove() }
    let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
    let source = fixture.dir.appendingPathComponent("sale.png")
    try Oracle.generate(["-f", "lavfi", "-i",
                         "color=white:s=1170x658,drawtext=fontfile=\(font):text='SALE':fontsize=150:fontcolor=0x111111:x=60:y=80",
                         "-frames:v", "1"], to: source)
    let root = fixture.dir.appendingPathComponent("bundle")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    let set = try ImageRenderer().render(source: source, id: "sale", bundleRoot: root)
    // The WebP pair and the JPEG pair of the widest rung; a rejected
    // candidate's pairs are not handed over.
    #expect(set.darkJudgements.count == 2)

    let widest = set.widest
    let assets = ImageAssets(id: "sale", files: [
      .init(key: "url", path: widest.webpPath, width: widest.width, height: widest.height),
      .init(key: "jpeg_url", path: widest.jpegPath, width: widest.width, height: widest.height),
      .init(key: "dark_url", path: widest.darkWebpPath, width: widest.width, height: widest.height),
      .init(key: "dark_jpeg_url", path: widest.darkJpegPath, width: widest.width, height: widest.height),
    ])
    let folder = root.appendingPathComponent(set.folder)
    let files = AssetFiles(root: folder, displayPrefix: "")
    func problems(_ judged: DarkJudgements) -> [String] {
      var verifier = ImageAssetVerifier(assets: assets, files: files, decode: true)
      verifier.judged = judged
      return verifier.run().map(\.problem).filter { $0.hasPrefix("dark_url:") || $0.hasPrefix("dark_jpeg_url:") }
    }
    func bytes(_ path: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(path)) }

    // Judged afresh and as handed over, the published pairs pass.
    #expect(problems(DarkJudgements()) == [])
    #expect(problems(set.darkJudgements) == [])
    // A judgement recorded for exactly the WebP pair's bytes is the one
    // the check reports: it is taken, not made again.
    var planted = DarkJudgements()
    planted.record(light: try bytes(widest.webpPath), dark: try bytes(widest.darkWebpPath), problems: ["planted"])
    #expect(problems(planted).contains("dark_url: planted"), "\(problems(planted))")
    // A dark file changed on disk (the light WebP copied over it: a
    // variant no darker than its light picture) is not the judged bytes,
    // and fails as `verify` would fail it.
    try bytes(widest.webpPath).write(to: folder.appendingPathComponent(widest.darkWebpPath))
    let tampered = problems(set.darkJudgements)
    #expect(tampered.contains { $0.hasPrefix("dark_url:") }, "\(tampered)")
    #expect(tampered == problems(DarkJudgements()))
  }

  @Test("the pictures a rendered still decoded of its published files are handed over; the check and the placeholder take them for those bytes only")
  func decodedPicturesFollowTheBytes() throws {
    let fixture = try BatchFixture("decoded-files")
    defer { fixture.remove() }
    let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
    let source = fixture.dir.appendingPathComponent("sale.png")
    try Oracle.generate(["-f", "lavfi", "-i",
                         "color=white:s=1170x658,drawtext=fontfile=\(font):text='SALE':fontsize=150:fontcolor=0x111111:x=60:y=80",
                         "-frames:v", "1"], to: source)
    let root = fixture.dir.appendingPathComponent("bundle")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    let set = try ImageRenderer().render(source: source, id: "sale", bundleRoot: root)
    // The widest rung's four files: the light WebP and JPEG, the published
    // dark WebP and JPEG; a rejected candidate's pictures are dropped.
    #expect(set.decodedFiles.count == 4)

    let widest = set.widest
    let assets = ImageAssets(id: "sale", files: [
      .init(key: "url", path: widest.webpPath, width: widest.width, height: widest.height),
      .init(key: "jpeg_url", path: widest.jpegPath, width: widest.width, height: widest.height),
      .init(key: "dark_url", path: widest.darkWebpPath, width: widest.width, height: widest.height),
      .init(key: "dark_jpeg_url", path: widest.darkJpegPath, width: widest.width, height: widest.height),
    ])
    let folder = root.appendingPathComponent(set.folder)
    let files = AssetFiles(root: folder, displayPrefix: "")
    func problems(_ decoded: DecodedFiles) -> [String] {
      var verifier = ImageAssetVerifier(assets: assets, files: files, decode: true)
      verifier.decoded = decoded
      return verifier.run().map(\.problem).filter { $0.hasPrefix("dark_url:") }
    }
    func bytes(_ path: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(path)) }
    let lightPicture = try ImageSource.open(data: try bytes(widest.webpPath), path: widest.webpPath,
                                            limits: InputLimits()).decodeStill().image

    // Decoded afresh and as handed over, the published pairs pass.
    #expect(problems(DecodedFiles()) == [])
    #expect(problems(set.decodedFiles) == [])
    // A picture recorded for exactly the dark WebP's bytes is the one the
    // check reads: the light picture planted as the dark one glares.
    var planted = DecodedFiles()
    planted.record(try bytes(widest.darkWebpPath), picture: lightPicture)
    let found = problems(planted)
    #expect(found.contains { $0.contains("glares") }, "\(found)")
    // The placeholder takes the planted picture too, and records each
    // file's thumbnail under its bytes.
    let placeholder = try Placeholder.read(light: folder.appendingPathComponent(widest.webpPath),
                                           dark: folder.appendingPathComponent(widest.darkWebpPath),
                                           surfaces: .standard, limits: InputLimits(), decoded: &planted)
    #expect(placeholder.thumbHash == placeholder.darkThumbHash, "the planted dark picture is the light one: \(placeholder)")
    #expect(planted.thumbnail(for: try bytes(widest.darkWebpPath)) != nil)
    // The dark WebP re-encoded on disk is other bytes: decoded afresh.
    let darkPicture = try ImageSource.open(data: try bytes(widest.darkWebpPath), path: widest.darkWebpPath,
                                           limits: InputLimits()).decodeStill().image
    try WebPEncoder.encode(darkPicture, quality: 70).write(to: folder.appendingPathComponent(widest.darkWebpPath))
    #expect(problems(planted) == [])
  }
}
