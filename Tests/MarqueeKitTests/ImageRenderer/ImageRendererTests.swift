import Foundation
import MarqueeTestSupport
import MediaIO
import Testing

@testable import MarqueeKit

// The image-banner stage end to end: corpus files in, bundle files out,
// outputs checked with the ffmpeg/ffprobe CLI (an independent decoder) and
// a RIFF walk of the animated WebPs. Pure planners are checked with exact
// expectations.

/// Renders `file` from the corpus into a fresh bundle folder.
func renderCorpus(_ file: String, id: String = "banner", options: ImageRenderer.Options = .init())
  throws -> (set: RenderedImageSet, root: URL) {
  let url = try Corpus.url(file)
  let root = try temporaryFolder()
  do {
    let set = try ImageRenderer(options: options).render(source: url, id: id, bundleRoot: root)
    return (set, root)
  } catch {
    try? FileManager.default.removeItem(at: root)
    throw error
  }
}

// MARK: - Planners

@Suite("Image renderer planning")
struct ImageRendererPlanningTests {
  @Test("the width ladder never upscales")
  func ladder() {
    func widths(_ w: Int, _ h: Int, _ ladder: [Int]) -> [Int] {
      WidthLadder.sizes(sourceWidth: w, sourceHeight: h, widths: ladder).map(\.width)
    }
    #expect(widths(2000, 1000, [780, 1170]) == [780, 1170])
    #expect(widths(1000, 1000, [780, 1170]) == [780])
    #expect(widths(80, 80, [780, 1170]) == [80])
    #expect(widths(1170, 10, [1170, 780, 780]) == [780, 1170])
    let sizes = WidthLadder.sizes(sourceWidth: 1800, sourceHeight: 1200, widths: [780, 1170])
    #expect(sizes.map(\.height) == [520, 780])
    #expect(WidthLadder.sizes(sourceWidth: 5000, sourceHeight: 1, widths: [780]).map(\.height) == [1])
  }

  @Test("animations keep at most the cap, spread over time, total duration exact")
  func frameSelection() {
    let plan = AnimationPlan.select(durations: Array(repeating: 30, count: 30), maxFrames: 20)
    #expect(plan.count == 20)
    #expect(plan.reduce(0) { $0 + $1.duration } == 900)
    #expect(plan.first?.index == 0)
    #expect(plan.map(\.index) == [0, 1, 3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19, 21, 22, 24, 25, 27, 28])
    #expect(Set(plan.map(\.duration)) == [30, 60])

    #expect(AnimationPlan.select(durations: [100, 200], maxFrames: 20)
            == [.init(index: 0, duration: 100), .init(index: 1, duration: 200)])
    // One long frame and many short ones: the long one fills every time
    // slot, so the free slots go to frames spread by index.
    let uneven = AnimationPlan.select(durations: [1000] + Array(repeating: 10, count: 10), maxFrames: 4)
    #expect(uneven == [.init(index: 0, duration: 1010), .init(index: 2, duration: 30),
                       .init(index: 5, duration: 30), .init(index: 8, duration: 30)])
    #expect(AnimationPlan.retime([0, 2], durations: [10, 20, 30]) == [.init(index: 0, duration: 30), .init(index: 2, duration: 30)])
  }

  @Test("animation sizes fit the decoded-memory cap")
  func fit() {
    let big = AnimationPlan.fit(width: 1170, sourceWidth: 1920, sourceHeight: 1080, frames: 20, maxBytes: 10 << 20)
    #expect(big.width * big.height * 4 * 20 <= 10 << 20)
    #expect(big.width > 350 && big.width < 1170)
    #expect(abs(Double(big.width) / Double(big.height) - 1920.0 / 1080) < 0.01)
    let small = AnimationPlan.fit(width: 245, sourceWidth: 245, sourceHeight: 245, frames: 20, maxBytes: 10 << 20)
    #expect(small.width == 245 && small.height == 245)
  }

  @Test("options from job settings: @2x/@3x ladder, qualities, colours, limits")
  func optionsFromSettings() {
    let o = ImageRenderer.Options(settings: JobSettings())
    #expect(o.widths == [780, 1170])
    #expect(o.webpQuality == 80 && o.jpegQuality == 85)
    #expect(o.background == RGBColor(r: 255, g: 255, b: 255))
    #expect(o.darkSurface == RGBColor(r: 0x1C, g: 0x1C, b: 0x1E))
    #expect(o.limits.maxPixels == 40_000_000)
    #expect(ImageRenderer.Options(settings: JobSettings(imageWidth: 600)).widths == [400, 600])
  }

  @Test("a bad id or bad options are refused before any work")
  func invalidRequests() throws {
    let root = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: root) }
    let source = root.appendingPathComponent("missing.png")
    for id in ["", "..", "a/b"] {
      let e = #expect(throws: MarqueeError.self) { try ImageRenderer().render(source: source, id: id, bundleRoot: root) }
      #expect(e?.code == .invalidRequest)
    }
    let e = #expect(throws: MarqueeError.self) {
      try ImageRenderer(options: .init(widths: [])).render(source: source, id: "x", bundleRoot: root)
    }
    #expect(e?.code == .invalidRequest)
    let missing = #expect(throws: MarqueeError.self) { try ImageRenderer().render(source: source, id: "x", bundleRoot: root) }
    #expect(missing?.code == .unreadableSource)
    #expect(missing?.description == "missing.png: file not found")
  }
}

// MARK: - Stills

@Suite("Image renderer: stills", .serialized, .imageCorpus)
struct ImageRendererStillTests {
  @Test("EXIF orientations 1–8 all come out upright, tag dropped")
  func exifUpright() throws {
    let (reference, refRoot) = try renderCorpus("image-jpeg-exif-orientation-1.jpg")
    defer { try? FileManager.default.removeItem(at: refRoot) }
    let expected = try FFmpegOracle.decode(refRoot.appendingPathComponent(reference.folder).appendingPathComponent(reference.widest.jpegPath))
    for orientation in 1...8 {
      let (set, root) = try renderCorpus("image-jpeg-exif-orientation-\(orientation).jpg")
      defer { try? FileManager.default.removeItem(at: root) }
      #expect(set.sourceWidth == 1800 && set.sourceHeight == 1200)
      #expect(set.widths.map(\.width) == [780, 1170])
      for path in [set.widest.jpegPath, set.widest.webpPath] {
        let url = root.appendingPathComponent(set.folder).appendingPathComponent(path)
        let out = try FFmpegOracle.decode(url)
        #expect(out.width == 1170 && out.height == 780, "EXIF \(orientation) \(path)")
        let mad = meanAbsoluteDifference(out, expected)
        #expect(mad < 4, "EXIF \(orientation) \(path): mean abs diff \(mad) to orientation 1")
        #expect(hammingDistance(dHash(out), dHash(expected)) <= 5, "EXIF \(orientation) \(path)")
        // The check can tell orientations apart: a mirrored picture is far off.
        #expect(meanAbsoluteDifference(out.applying(.mirrorHorizontal), expected) > 4 * max(mad, 2))
        let bytes = try Data(contentsOf: url)
        #expect(bytes.range(of: Data("Exif\0\0".utf8)) == nil, "no EXIF left in \(path)")
      }
    }
  }

  @Test("alpha is kept in WebP; JPEGs are flattened onto the background and the dark surface")
  func alphaFlattening() throws {
    var options = ImageRenderer.Options()
    options.background = RGBColor(r: 0xFF, g: 0x00, b: 0xFF)
    let (set, root) = try renderCorpus("image-png-product-cutout-transparent-shadow-2160.png", options: options)
    defer { try? FileManager.default.removeItem(at: root) }
    #expect(set.widths.map(\.width) == [780, 1170])
    let top = set.widest
    let webp = try FFmpegOracle.decode(root.appendingPathComponent(set.folder).appendingPathComponent(top.webpPath))
    #expect(webp.pixels[3] == 0, "WebP corner is transparent")
    let jpeg = try FFmpegOracle.decode(root.appendingPathComponent(set.folder).appendingPathComponent(top.jpegPath))
    let corner = meanColour(jpeg, x: 0..<8, y: 0..<8)
    #expect(abs(corner.r - 255) < 6 && corner.g < 6 && abs(corner.b - 255) < 6, "JPEG corner \(corner)")
    let dark = try FFmpegOracle.decode(root.appendingPathComponent(set.folder).appendingPathComponent(top.darkJpegPath))
    let darkCorner = meanColour(dark, x: 0..<8, y: 0..<8)
    #expect(abs(darkCorner.r - 0x1C) < 6 && abs(darkCorner.g - 0x1C) < 6 && abs(darkCorner.b - 0x1E) < 6,
            "dark JPEG corner \(darkCorner)")
    let darkWebp = try FFmpegOracle.decode(root.appendingPathComponent(set.folder).appendingPathComponent(top.darkWebpPath))
    #expect(darkWebp.pixels[3] == 0, "dark WebP keeps alpha")
    // Default background: white, never black.
    let (white, whiteRoot) = try renderCorpus("image-png-black-ink-on-transparent-2048x1536.png")
    defer { try? FileManager.default.removeItem(at: whiteRoot) }
    let ink = try FFmpegOracle.decode(whiteRoot.appendingPathComponent(white.folder).appendingPathComponent(white.widest.jpegPath))
    #expect(meanColour(ink, x: 0..<8, y: 0..<8).r > 248)
  }

  @Test("the format is recognised by content, not by the file name")
  func contentNotName() throws {
    let root = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: root) }
    let misnamed = root.appendingPathComponent("actually-a-png.jpg")
    try FileManager.default.copyItem(at: try Corpus.url("image-png-palette-2bit-trns-semitransparent-900x600.png"),
                                     to: misnamed)
    let set = try ImageRenderer().render(source: misnamed, id: "misnamed", bundleRoot: root)
    #expect(set.sourceSummary.hasPrefix("PNG"))
    #expect(set.widths.map(\.width) == [780])
  }

  @Test("Display P3 PNG comes out as clipped sRGB red")
  func p3Output() throws {
    let (set, root) = try renderCorpus("image-png-displayp3-icc-8x8.png")
    defer { try? FileManager.default.removeItem(at: root) }
    #expect(set.widths.map(\.width) == [8])  // never upscaled
    let out = try FFmpegOracle.decode(root.appendingPathComponent(set.folder).appendingPathComponent(set.widest.webpPath))
    let c = meanColour(out, x: 2..<6, y: 2..<6)
    #expect(c.r > 245 && c.g < 20 && c.b < 20, "\(c)")
  }

  @Test("CMYK JPEG output keeps red red")
  func cmykOutput() throws {
    let (set, root) = try renderCorpus("image-jpeg-cmyk-ycck-swop-icc.jpg")
    defer { try? FileManager.default.removeItem(at: root) }
    #expect(set.widths.map(\.width) == [500])
    let out = try FFmpegOracle.decode(root.appendingPathComponent(set.folder).appendingPathComponent(set.widest.jpegPath))
    try checkCMYKColours(out)
    #expect(!out.hasTransparency)
  }

  @Test("the huge JPEG and PNG are refused quickly with a limit error; nothing is written",
        arguments: ["image-jpeg-huge-20000x14000-grayscale.jpg", "image-png-huge-65536x65536-1bit-palette.png"])
  func bombs(file: String) throws {
    let url = try Corpus.url(file)
    let root = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: root) }
    let start = ContinuousClock.now
    let e = #expect(throws: MarqueeError.self) { try ImageRenderer().render(source: url, id: "bomb", bundleRoot: root) }
    #expect(ContinuousClock.now - start < .seconds(5))
    #expect(e?.code == .limitExceeded)
    #expect(e?.description.hasPrefix(file + ": picture is ") == true)
    #expect(e?.message.contains("max_pixels limit of 40000000") == true)
    #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("images/bomb").path))
  }

  @Test("broken JPEGs give a clear error, not a crash",
        arguments: ["broken-jpeg-truncated-10000B.jpg", "broken-jpeg-header-only-exif-overruns-file.jpg"])
  func brokenJPEGs(file: String) throws {
    let url = try Corpus.url(file)
    let root = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: root) }
    let e = #expect(throws: MarqueeError.self) { try ImageRenderer().render(source: url, id: "broken", bundleRoot: root) }
    #expect(e?.code == .corruptSource)
    #expect(e?.message.contains("truncated") == true, "\(e?.description ?? "")")
    #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("images/broken").path))
  }
}

// MARK: - Animations

@Suite("Image renderer: animations", .serialized, .imageCorpus)
struct ImageRendererAnimationTests {
  @Test("animated GIF → animated WebP: ≤ 20 frames, duration kept, transparency and disposal right")
  func gif() throws {
    let (set, root) = try renderCorpus("image-gif-animated-30f-transparent-disposal2.gif")
    defer { try? FileManager.default.removeItem(at: root) }
    #expect(set.isAnimated)
    #expect(set.widths.map(\.width) == [80])
    #expect(set.frameCount == 20)
    #expect(set.animationDuration == 900)
    let data = try Data(contentsOf: root.appendingPathComponent(set.folder).appendingPathComponent(set.widest.webpPath))
    let info = try #require(WebPAnimationInfo(data))
    #expect(info.canvasWidth == 80 && info.canvasHeight == 80)
    #expect(info.durations.count <= 20 && info.durations.count >= 2)
    #expect(abs(info.durations.reduce(0, +) - 900) <= 30)
    #expect(info.loopCount == 0)
    #expect(info.durations.count * 80 * 80 * 4 <= 10 << 20)
    // Disposal 2: each output frame shows one set of squares, not a pile-up,
    // and the background stays transparent.
    let decoded = try WebPFileReader.frames(of: data)
    let coverage = decoded.frames.map { f in stride(from: 3, to: f.pixels.count, by: 4).filter { f.pixels[$0] > 128 }.count }
    let lo = try #require(coverage.min()), hi = try #require(coverage.max())
    #expect(lo > 0 && Double(hi) < Double(lo) * 1.5, "\(coverage)")
    #expect(decoded.frames.allSatisfy { $0.pixels[3] == 0 })
    // JPEG fallback: the first frame on white, decodable by ffmpeg.
    let jpeg = try FFmpegOracle.decode(root.appendingPathComponent(set.folder).appendingPathComponent(set.widest.jpegPath))
    #expect(jpeg.width == 80 && jpeg.height == 80)
    #expect(meanColour(jpeg, x: 0..<4, y: 0..<4).r > 248)
    let dark = try Data(contentsOf: root.appendingPathComponent(set.folder).appendingPathComponent(set.widest.darkWebpPath))
    #expect(WebPAnimationInfo(dark)?.durations.reduce(0, +) ?? 0 > 850)
    // More than 20 frames: the warning says what the frames became and suggests a video item.
    let warning = try #require(set.warnings.first { $0.hasPrefix("animation reduced from 30 to 20 frames") }, "\(set.warnings)")
    #expect(warning.contains(#"give it as "type": "video" to keep every frame"#), "\(warning)")
  }

  @Test("a GIF within 20 frames is kept whole, with no warning; an animated WebP over 20 is not told to become a video")
  func gifWithinCap() throws {
    let root = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: root) }
    let gif = root.appendingPathComponent("twelve.gif")
    try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=size=120x90:rate=10", "-t", "1.2"], to: gif)
    let set = try ImageRenderer().render(source: gif, id: "g", bundleRoot: root)
    #expect(set.frameCount == 12 && !set.warnings.contains { $0.contains("animation reduced") }, "\(set.warnings)")
    let (webp, webpRoot) = try renderCorpus("image-webp-animated-lossless-alpha-42f.webp")
    defer { try? FileManager.default.removeItem(at: webpRoot) }
    #expect(webp.warnings.contains { $0.hasPrefix("animation reduced") } && !webp.warnings.contains { $0.contains("\"type\": \"video\"") })
  }

  @Test("animated WebP → animated WebP within the caps, duration kept")
  func animatedWebP() throws {
    let url = try Corpus.url("image-webp-animated-lossless-alpha-42f.webp")
    let sourceTotal = try ImageSource.open(path: url.path, limits: InputLimits()).header.frameDurations.reduce(0, +)
    let (set, root) = try renderCorpus("image-webp-animated-lossless-alpha-42f.webp")
    defer { try? FileManager.default.removeItem(at: root) }
    #expect(set.widths.map(\.width) == [245])
    #expect(set.frameCount == 20)
    #expect(set.animationDuration == sourceTotal)
    let info = try #require(WebPAnimationInfo(try Data(contentsOf: root.appendingPathComponent(set.folder).appendingPathComponent(set.widest.webpPath))))
    #expect(info.durations.count <= 20)
    let frameTime = sourceTotal / 42 + 1
    #expect(abs(info.durations.reduce(0, +) - sourceTotal) <= frameTime)
    #expect(info.durations.count * 245 * 245 * 4 <= 10 << 20)
  }

  @Test("an animation over the memory cap is downscaled to fit")
  func memoryCap() throws {
    var options = ImageRenderer.Options()
    options.maxAnimationBytes = 200_000
    let (set, root) = try renderCorpus("image-gif-animated-30f-transparent-disposal2.gif", options: options)
    defer { try? FileManager.default.removeItem(at: root) }
    let info = try #require(WebPAnimationInfo(try Data(contentsOf: root.appendingPathComponent(set.folder).appendingPathComponent(set.widest.webpPath))))
    #expect(info.canvasWidth < 80)
    #expect(set.frameCount * info.canvasWidth * info.canvasHeight * 4 <= 200_000)
    #expect(set.warnings.contains { $0.contains("downscaled") })
  }
}

// MARK: - Whole corpus

@Suite("Image renderer: every corpus image", .serialized, .imageCorpus)
struct ImageRendererCorpusTests {
  static let images = [
    "image-gif-animated-30f-transparent-disposal2.gif",
    "image-heic-iphone11promax-displayp3-grid-2566x3313.heic",
    "image-jpeg-adobergb1998-photo-2000x1072.jpg",
    "image-jpeg-cmyk-ycck-swop-icc.jpg",
    "image-jpeg-exif-orientation-1.jpg",
    "image-jpeg-exif-orientation-5.jpg",
    "image-jpeg-grayscale-1ch-gray-gamma22-icc.jpg",
    "image-jpeg-huge-20000x14000-grayscale.jpg",
    "image-jpeg-product-white-mug-on-white-1000.jpg",
    "image-jpeg-progressive-photo-pixel7pro-srgb.jpg",
    "image-jpeg-ultrahdr-gainmap-3072x4080.jpg",
    "image-png-16bit-rgb-trns-32x32.png",
    "image-png-black-ink-on-transparent-2048x1536.png",
    "image-png-displayp3-icc-8x8.png",
    "image-png-huge-65536x65536-1bit-palette.png",
    "image-png-palette-2bit-trns-semitransparent-900x600.png",
    "image-png-product-cutout-transparent-shadow-2160.png",
    "image-webp-animated-lossless-alpha-42f.webp",
    "image-webp-lossless-vp8l-alpha-tux-386x395.webp",
    "image-webp-lossy-alpha-icon-192.webp",
  ]

  @Test("builds, or is refused with a clear limit error", arguments: images)
  func buildsOrRefuses(file: String) throws {
    let url = try Corpus.url(file)
    let root = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: root) }
    let set: RenderedImageSet
    do {
      set = try ImageRenderer().render(source: url, id: "item", bundleRoot: root)
    } catch {
      #expect(error.code == .limitExceeded, "\(error.detailedDescription)")
      #expect(error.message.contains("limit"))
      return
    }
    #expect(!set.widths.isEmpty)
    #expect(set.widths.allSatisfy { $0.width <= set.sourceWidth })
    #expect(set.widths.map(\.width) == set.widths.map(\.width).sorted())
    let names = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("images/item").path)
    // Four files a width, and for a still the AVIF pair of each width
    // whose light and dark AVIFs are both smaller than their WebPs.
    #expect((set.avif == nil) == set.isAnimated)
    let withAVIF = set.widths.filter { $0.avifPath != nil }
    #expect(names.count == set.widths.count * 4 + withAVIF.count * 2)
    #expect(set.widths.allSatisfy { ($0.avifPath == nil) == ($0.darkAvifPath == nil) })
    func bytes(_ path: String) throws -> Int { try Data(contentsOf: root.appendingPathComponent(set.folder).appendingPathComponent(path)).count }
    for r in withAVIF {
      #expect(try bytes(r.avifPath!) < bytes(r.webpPath) && bytes(r.darkAvifPath!) < bytes(r.darkWebpPath), "\(file) w\(r.width)")
    }
    for left in set.avif?.leftOut ?? [] { #expect(left.avifBytes >= left.webpBytes, "\(file): \(left)") }
    #expect((set.avif?.leftOut.isEmpty ?? true) == (withAVIF.count == set.widths.count) || set.isAnimated)
    for r in set.widths {
      for path in [r.webpPath, r.jpegPath, r.darkWebpPath, r.darkJpegPath] {
        #expect(set.folder == "images/item" && path.hasPrefix("w\(r.width)."))
        let fileURL = root.appendingPathComponent(set.folder).appendingPathComponent(path)
        if set.isAnimated && path.hasSuffix(".webp") {
          let info = try #require(WebPAnimationInfo(try Data(contentsOf: fileURL)), "\(path)")
          #expect(info.canvasWidth == r.width && info.canvasHeight == r.height)
        } else {
          let size = try FFmpegOracle.size(fileURL)
          #expect(size.width == r.width && size.height == r.height, "\(path)")
        }
      }
      let expectedHeight = WidthLadder.height(forWidth: r.width, sourceWidth: set.sourceWidth, sourceHeight: set.sourceHeight)
      #expect(set.isAnimated || r.height == expectedHeight)
    }
    let entry = set.manifestEntry(id: "item", link: nil)
    #expect(entry.path == set.widest.webpPath && entry.width == set.widest.width)
    #expect(entry.widths.count == set.widths.count)
  }
}

@Suite("Image renderer: generated inputs")
struct ImageRendererGeneratedInputTests {
  @Test("BMP and TIFF sources go through libavcodec", arguments: ["bmp", "tiff"])
  func otherFormats(ext: String) throws {
    let root = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: root) }
    let input = root.appendingPathComponent("source.\(ext)")
    _ = try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=960x540", "-frames:v", "1",
                               "-pix_fmt", "rgb24", input.path])
    let set = try ImageRenderer().render(source: input, id: "other", bundleRoot: root)
    #expect(set.widths.map(\.width) == [780])
    #expect(set.widths[0].height == 439)
    let reference = try FFmpegOracle.decode(input)
    let out = try FFmpegOracle.decode(root.appendingPathComponent(set.folder).appendingPathComponent(set.widest.jpegPath))
    #expect(meanAbsoluteDifference(out, reference) < 4)
  }
}
