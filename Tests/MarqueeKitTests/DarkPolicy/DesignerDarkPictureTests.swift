import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// `DesignerDarkPicture` and `DarkSource` on their own: read under the
/// image sources' rules, matched to the light aspect ratio, judged for
/// glare, and failing with the picture's name and JSON path.
@Suite("Dark policy: the designer's picture, read and fitted")
struct DesignerDarkPictureTests {
  static let surface = RGBColor(r: 0x1C, g: 0x1C, b: 0x1E)

  @Test("within 1 % of the light aspect ratio it is kept whole; beyond, centre-cropped with a warning")
  func aspectRule() {
    let picture = DesignerDarkPicture(image: DarkArt.picture(width: 960, height: 545), text: "d.png")
    // 960x545 against 480x270: 0.9 % apart.
    #expect(picture.aspectMismatch(width: 480, height: 270) < DesignerDarkPicture.aspectTolerance)
    let kept = picture.matchingAspect(ofWidth: 480, height: 270)
    #expect(kept.warning == nil)
    #expect(kept.picture.width == 960 && kept.picture.height == 545)

    let tall = DesignerDarkPicture(image: DarkArt.picture(width: 480, height: 360), text: "tall.png")
    let cut = tall.matchingAspect(ofWidth: 480, height: 270)
    #expect(cut.picture.width == 480 && cut.picture.height == 270)
    // The middle rows: row 0 of the crop is row 45 of the picture.
    #expect(cut.picture.pixels[0..<(480 * 4)] == tall.image.pixels[(45 * 480 * 4)..<(46 * 480 * 4)])
    let warning = cut.warning ?? ""
    #expect(warning.contains("dark picture tall.png is 480x360 (aspect 1.333), the image 480x270 (1.778), 25.0 % apart"), "\(warning)")
    #expect(warning.contains("cover-cropped, centred, to 480x270"))
  }

  @Test("read under the image sources' rules: transparency flattened onto dark_surface, EXIF orientation applied")
  func readLikeAnImageSource() throws {
    let dir = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    // Left half transparent, right half opaque orange.
    var art = RGBAImage(width: 64, height: 32, fill: (230, 120, 30, 255))
    for y in 0..<32 { for x in 0..<32 { art.pixels[art.offset(x: x, y: y) + 3] = 0 } }
    let png = dir.appendingPathComponent("alpha.png")
    try DarkArt.write(art, to: png)
    let read = try DesignerDarkPicture.load(png, text: "alpha.png", limits: InputLimits(), darkSurface: Self.surface)
    #expect(!read.image.hasTransparency)
    let left = read.image.offset(x: 5, y: 5), right = read.image.offset(x: 50, y: 5)
    #expect(Array(read.image.pixels[left..<left + 3]) == [0x1C, 0x1C, 0x1E])
    #expect(Array(read.image.pixels[right..<right + 3]) == [230, 120, 30])

    // A 64x32 picture stored turned 90° counter-clockwise (32x64), EXIF 6.
    let upright = dir.appendingPathComponent("upright.png")
    try DarkArt.write(DarkArt.picture(width: 64, height: 32), to: upright)
    let stored = dir.appendingPathComponent("stored.jpg")
    try Oracle.generate(["-i", upright.path, "-vf", "transpose=2", "-q:v", "2", "-pix_fmt", "yuvj444p"], to: stored)
    let rotated = dir.appendingPathComponent("rotated.jpg")
    try CoverJudgementTests.withOrientation(6, jpeg: try Data(contentsOf: stored)).write(to: rotated)
    let turned = try DesignerDarkPicture.load(rotated, text: "rotated.jpg", limits: InputLimits(), darkSurface: Self.surface)
    #expect(turned.image.width == 64 && turned.image.height == 32)
    let expected = try PictureOracle.rgba(upright, width: 64, height: 32)
    #expect(PictureOracle.meanAbsoluteDifference(turned.image.pixels, expected) < 6)
  }

  @Test("a picture that cannot be used fails with its name, its JSON path and the reason")
  func failuresNameThePicture() throws {
    let dir = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let big = dir.appendingPathComponent("big.png")
    try DarkArt.write(DarkArt.picture(width: 100, height: 50), to: big)
    var settings = JobSettings.default
    settings.maxPixels = 1000
    let spec = BannerSpec(id: "sale", kind: .image, source: dir.appendingPathComponent("light.png"), sourceText: "light.png",
                          link: nil, autoplay: false, muted: true, cover: .auto,
                          dark: .image(source: big, text: "media/big.png"), jsonPath: "banners[2]")
    do {
      _ = try DarkSource.load(for: spec, settings: settings)
      Issue.record("an over-limit picture was read")
    } catch {
      #expect(error.code == .limitExceeded)
      #expect(error.file == "media/big.png")
      #expect(error.field == "banners[2].dark.image")
      #expect(error.message.contains("the designer's dark picture (dark.image) cannot be used: picture is 100x50 = 5000 pixels, over the max_pixels limit of 1000"),
              "\(error.message)")
      let failure = ItemFailure.classify(error, spec: spec)
      #expect(failure.description.hasPrefix("sale: media/big.png: the designer's dark picture"), "\(failure)")
    }
    var generated = spec
    generated.dark = .generated
    if case .generated = try DarkSource.load(for: generated, settings: settings) {} else { Issue.record("not generated") }
    generated.dark = .same
    #expect(try DarkSource.load(for: generated, settings: settings).kind == .same)
  }

  @Test("glare: more than 25 % near white on dark_surface is a warning, a dark picture none")
  func glare() {
    let warning = DesignerDarkPicture.glareWarning(DarkArt.glaring(width: 90, height: 60), on: Self.surface) ?? ""
    #expect(warning.contains("glares in dark mode: 89 % of it is near white (luma 225 or more) on #1C1C1E, over 25 %; used as supplied"),
            "\(warning)")
    #expect(DesignerDarkPicture.glareWarning(DarkArt.picture(width: 90, height: 60), on: Self.surface) == nil)
  }
}
