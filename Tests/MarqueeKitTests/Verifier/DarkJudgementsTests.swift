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
  /// A sale banner drawn by ffmpeg and rendered by Marquee into a fixture:
  /// the rendered set, the widest rung's four files as banners.json names
  /// them, and the item's folder.
  struct RenderedSale {
    let fixture: BatchFixture
    let rendered: RenderedImageSet
    let assets: ImageAssets
    let folder: URL
    var files: AssetFiles { AssetFiles(root: folder, displayPrefix: "") }
    var widest: RenderedImageSet.Rendition { rendered.widest }

    init(_ name: String) throws {
      fixture = try BatchFixture(name)
      let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
      let source = fixture.dir.appendingPathComponent("sale.png")
      try Oracle.generate(["-f", "lavfi", "-i",
                           "color=white:s=1170x658,drawtext=fontfile=\(font):text='SALE':fontsize=150:fontcolor=0x111111:x=60:y=80",
                           "-frames:v", "1"], to: source)
      let root = fixture.dir.appendingPathComponent("bundle")
      try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
      rendered = try ImageRenderer().render(source: source, id: "sale", bundleRoot: root)
      let widest = rendered.widest
      assets = ImageAssets(id: "sale", files: [
        .init(key: "url", path: widest.webpPath, width: widest.width, height: widest.height),
        .init(key: "jpeg_url", path: widest.jpegPath, width: widest.width, height: widest.height),
        .init(key: "dark_url", path: widest.darkWebpPath, width: widest.width, height: widest.height),
        .init(key: "dark_jpeg_url", path: widest.darkJpegPath, width: widest.width, height: widest.height),
      ])
      folder = root.appendingPathComponent(rendered.folder)
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(path)) }

    func picture(_ path: String) throws -> RGBAImage {
      try ImageSource.open(data: try bytes(path), path: path, limits: InputLimits()).decodeStill().image
    }

    /// What the build's check finds for the dark files, with what the
    /// stages handed over.
    func problems(judged: DarkJudgements = DarkJudgements(), decoded: DecodedFiles = DecodedFiles()) -> [String] {
      var verifier = ImageAssetVerifier(assets: assets, files: files, decode: true)
      verifier.judged = judged
      verifier.decoded = decoded
      return verifier.run().map(\.problem).filter { $0.hasPrefix("dark_url:") || $0.hasPrefix("dark_jpeg_url:") }
    }
  }

  @Test("a rendered still hands over the judgement of its published WebP and JPEG pairs; the check takes it for those bytes only")
  func judgementFollowsTheBytes() throws {
    let sale = try RenderedSale("dark-judgements")
    defer { sale.fixture.remove() }
    let widest = sale.widest
    // The WebP pair and the JPEG pair of the widest rung; a rejected
    // candidate's pairs are not handed over.
    #expect(sale.rendered.darkJudgements.count == 2)

    // Judged afresh and as handed over, the published pairs pass.
    #expect(sale.problems() == [])
    #expect(sale.problems(judged: sale.rendered.darkJudgements) == [])
    // A judgement recorded for exactly the WebP pair's bytes is the one
    // the check reports: it is taken, not made again.
    var planted = DarkJudgements()
    planted.record(light: try sale.bytes(widest.webpPath), dark: try sale.bytes(widest.darkWebpPath), problems: ["planted"])
    #expect(sale.problems(judged: planted).contains("dark_url: planted"), "\(sale.problems(judged: planted))")
    // A dark file changed on disk (the light WebP copied over it: a
    // variant no darker than its light picture) is not the judged bytes,
    // and fails as `verify` would fail it.
    try sale.bytes(widest.webpPath).write(to: sale.folder.appendingPathComponent(widest.darkWebpPath))
    let tampered = sale.problems(judged: sale.rendered.darkJudgements)
    #expect(tampered.contains { $0.hasPrefix("dark_url:") }, "\(tampered)")
    #expect(tampered == sale.problems())
  }

  @Test("the pictures a rendered still decoded of its published files are handed over; the check and the placeholder take them for those bytes only")
  func decodedPicturesFollowTheBytes() throws {
    let sale = try RenderedSale("decoded-files")
    defer { sale.fixture.remove() }
    let widest = sale.widest
    // The widest rung's four files: the light WebP and JPEG, the published
    // dark WebP and JPEG; a rejected candidate's pictures are dropped.
    #expect(sale.rendered.decodedFiles.count == 4)

    // Decoded afresh and as handed over, the published pairs pass.
    #expect(sale.problems() == [])
    #expect(sale.problems(decoded: sale.rendered.decodedFiles) == [])
    // A picture recorded for exactly the dark WebP's bytes is the one the
    // check reads: the light picture planted as the dark one glares.
    let darkDigest = SHA256.hash(try sale.bytes(widest.darkWebpPath))
    var planted = DecodedFiles()
    planted.record(darkDigest, picture: try sale.picture(widest.webpPath))
    let found = sale.problems(decoded: planted)
    #expect(found.contains { $0.hasPrefix("dark_url:") && $0.contains("glares") }, "\(found)")
    // The placeholder takes the planted picture too, and records the
    // file's thumbnail under its digest.
    let placeholder = try Placeholder.read(light: sale.folder.appendingPathComponent(widest.webpPath),
                                           dark: sale.folder.appendingPathComponent(widest.darkWebpPath),
                                           surfaces: .standard, limits: InputLimits(), decoded: &planted)
    #expect(placeholder.thumbHash == placeholder.darkThumbHash, "the planted dark picture is the light one: \(placeholder)")
    #expect(planted.thumbnail(for: darkDigest) != nil)
    // The dark WebP re-encoded on disk is other bytes: decoded afresh.
    let darkPicture = try sale.picture(widest.darkWebpPath)
    try WebPEncoder.encode(darkPicture, quality: 70).write(to: sale.folder.appendingPathComponent(widest.darkWebpPath))
    #expect(sale.problems(decoded: planted) == [])
  }
}
