import Foundation
import MarqueeTestSupport
import MediaIO
import Testing

@testable import MarqueeKit

// MediaIO's image layer: header parsing and limits, EXIF, colour, GIF
// disposal, WebP animation round trips. Inputs are either built here
// (TIFF/EXIF blocks, GIFs written by `SyntheticGIF`) or come from the
// shared corpus (see ../shared/corpus/SOURCES.md for each file's origin).

// MARK: - Fixtures


/// A TIFF block (as inside APP1 Exif) holding one IFD0 entry.
func tiff(littleEndian: Bool, tag: Int, type: Int, value: Int, ifdOffset: Int = 8) -> Data {
  var d = Data(littleEndian ? Array("II".utf8) : Array("MM".utf8))
  func u16(_ v: Int) { littleEndian ? d.append(contentsOf: [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)])
                                    : d.append(contentsOf: [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]) }
  func u32(_ v: Int) { if littleEndian { u16(v & 0xFFFF); u16(v >> 16) } else { u16(v >> 16); u16(v & 0xFFFF) } }
  u16(42); u32(ifdOffset)
  while d.count < ifdOffset { d.append(0) }
  u16(1)
  u16(tag); u16(type); u32(1)
  if type == 3 { u16(value); u16(0) } else { u32(value) }
  u32(0)
  return d
}

func writeTemporary(_ data: Data, name: String) throws -> URL {
  let url = try temporaryFolder().appendingPathComponent(name)
  try data.write(to: url)
  return url
}

// MARK: - EXIF

@Suite("EXIF orientation reader")
struct ExifReaderTests {
  @Test("reads Orientation from little- and big-endian TIFF", arguments: [true, false])
  func readsBothByteOrders(littleEndian: Bool) {
    for value in 1...8 {
      #expect(ExifReader.orientation(tiff: tiff(littleEndian: littleEndian, tag: 0x0112, type: 3, value: value)) == value)
    }
  }

  @Test("returns nil for other tags, bad headers and offsets past the end")
  func boundsChecked() {
    #expect(ExifReader.orientation(tiff: tiff(littleEndian: true, tag: 0x010F, type: 3, value: 6)) == nil)
    #expect(ExifReader.orientation(tiff: Data("XX*\0".utf8)) == nil)
    #expect(ExifReader.orientation(tiff: Data()) == nil)
    var overrun = tiff(littleEndian: true, tag: 0x0112, type: 3, value: 6)
    overrun[4] = 0xF0; overrun[5] = 0xFF  // IFD0 offset far past the end
    #expect(ExifReader.orientation(tiff: overrun) == nil)
    let truncated = tiff(littleEndian: false, tag: 0x0112, type: 3, value: 6).prefix(14)
    #expect(ExifReader.orientation(tiff: Data(truncated)) == nil)
  }

  /// FuzzImageHeaders' first finding: the oracle said every value fits a
  /// SHORT, but a LONG Orientation comes back as stored, and must become
  /// no transform.
  @Test("a LONG Orientation is returned as stored, and an out-of-range one is no transform")
  func longOrientation() throws {
    let found = Data([0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00, 0x12, 0x01, 0x04, 0x00,
                      0x01, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00])
    let value = try #require(ExifReader.orientation(tiff: found))
    #expect(value == 0xFFFF_FFFF)
    #expect(DisplayTransform(exifOrientation: value) == nil)
    #expect(ExifReader.orientation(tiff: tiff(littleEndian: false, tag: 0x0112, type: 4, value: 6)) == 6)
  }
}

// MARK: - Orientation on pixels

@Suite("Display transforms on pixels")
struct OrientationPixelTests {
  /// 3×2 picture whose pixels are numbered 0…5 in the red channel.
  let numbered = RGBAImage(width: 3, height: 2, pixels: (0..<6).flatMap { [UInt8($0), 0, 0, 255] })

  func reds(_ image: RGBAImage) -> [[Int]] {
    (0..<image.height).map { y in (0..<image.width).map { x in Int(image.pixels[image.offset(x: x, y: y)]) } }
  }

  @Test("each EXIF orientation moves pixels as TIFF 6.0 defines it")
  func exifSemantics() throws {
    // Stored:  0 1 2
    //          3 4 5
    let expected: [Int: [[Int]]] = [
      1: [[0, 1, 2], [3, 4, 5]],
      2: [[2, 1, 0], [5, 4, 3]],
      3: [[5, 4, 3], [2, 1, 0]],
      4: [[3, 4, 5], [0, 1, 2]],
      5: [[0, 3], [1, 4], [2, 5]],
      6: [[3, 0], [4, 1], [5, 2]],  // turned 90° clockwise
      7: [[5, 2], [4, 1], [3, 0]],
      8: [[2, 5], [1, 4], [0, 3]],  // turned 90° counter-clockwise
    ]
    for (value, rows) in expected.sorted(by: { $0.key < $1.key }) {
      let t = try #require(DisplayTransform(exifOrientation: value))
      #expect(reds(numbered.applying(t)) == rows, "EXIF \(value)")
    }
  }
}

// MARK: - Headers and limits

@Suite("Image headers and limits", .imageCorpus)
struct ImageHeaderTests {
  @Test("the 280 MP JPEG is refused from its SOF, quickly")
  func hugeJPEG() throws {
    let url = try Corpus.url("image-jpeg-huge-20000x14000-grayscale.jpg")
    let start = ContinuousClock.now
    let error = #expect(throws: MediaIOError.self) { try ImageSource.open(path: url.path, limits: InputLimits()) }
    #expect(error?.function == "limit")
    #expect(error?.reason.contains("20000x14000") == true)
    #expect(error?.reason.contains("max_pixels limit of 40000000") == true)
    #expect(ContinuousClock.now - start < .seconds(5))
  }

  @Test("the 65536x65536 PNG is refused from its IHDR, quickly")
  func hugePNG() throws {
    let url = try Corpus.url("image-png-huge-65536x65536-1bit-palette.png")
    let start = ContinuousClock.now
    let error = #expect(throws: MediaIOError.self) { try ImageSource.open(path: url.path, limits: InputLimits()) }
    #expect(error?.function == "limit")
    #expect(error?.reason.contains("65536x65536") == true)
    #expect(ContinuousClock.now - start < .seconds(5))
  }

  @Test("file size and animation size limits name the limit and the value")
  func otherLimits() throws {
    let gif = try Corpus.url("image-gif-animated-30f-transparent-disposal2.gif")
    let small = #expect(throws: MediaIOError.self) {
      try ImageSource.open(path: gif.path, limits: InputLimits(maxFileSize: 1000))
    }
    #expect(small?.reason.contains("max_file_size limit of 1000 bytes") == true)
    let frames = #expect(throws: MediaIOError.self) {
      try ImageSource.open(path: gif.path, limits: InputLimits(), maxAnimationPixels: 100_000)
    }
    #expect(frames?.function == "limit")
    #expect(frames?.reason.contains("30 frames of 80x80 = 192000 pixels") == true)
  }

  @Test("EXIF orientation sets the upright size", arguments: 1...8)
  func exifSizes(orientation: Int) throws {
    let url = try Corpus.url("image-jpeg-exif-orientation-\(orientation).jpg")
    let header = try ImageSource.open(path: url.path, limits: InputLimits()).header
    #expect(header.format == .jpeg)
    #expect(header.orientation == DisplayTransform(exifOrientation: orientation))
    #expect(header.width == 1800 && header.height == 1200)
  }

  @Test("GIF and WebP animations: frame counts and durations from the headers")
  func animationHeaders() throws {
    let gif = try ImageSource.open(path: Corpus.url("image-gif-animated-30f-transparent-disposal2.gif").path,
                                   limits: InputLimits()).header
    #expect(gif.frameCount == 30)
    #expect(gif.frameDurations == Array(repeating: 30, count: 30))
    #expect(gif.loopCount == 0)
    let webp = try ImageSource.open(path: Corpus.url("image-webp-animated-lossless-alpha-42f.webp").path,
                                    limits: InputLimits()).header
    #expect(webp.frameCount == 42)
    #expect(webp.frameDurations.count == 42)
    #expect(webp.width == 245 && webp.height == 245)
  }

  @Test("a JPEG whose APP1 segment overruns the file gets a clear error")
  func overrunningExif() throws {
    let url = try Corpus.url("broken-jpeg-header-only-exif-overruns-file.jpg")
    let error = #expect(throws: MediaIOError.self) { try ImageSource.open(path: url.path, limits: InputLimits()) }
    #expect(error?.reason.contains("truncated") == true)
    #expect(error?.reason.contains("APP1") == true)
  }

  @Test("a truncated JPEG fails to decode with a clear error")
  func truncatedJPEG() throws {
    let url = try Corpus.url("broken-jpeg-truncated-10000B.jpg")
    let source = try ImageSource.open(path: url.path, limits: InputLimits())
    let error = #expect(throws: MediaIOError.self) { try source.decodeStill() }
    #expect(error?.reason.contains("truncated") == true)
  }

}

// MARK: - Decoding and colour

@Suite("Image decoding and colour", .imageCorpus)
struct ImageColourTests {
  @Test("Display P3 PNG: a saturated P3 red becomes clipped sRGB red, not the raw values")
  func displayP3PNG() throws {
    let url = try Corpus.url("image-png-displayp3-icc-8x8.png")
    let raw = try FFmpegOracle.decode(url)  // ffmpeg ignores the profile
    #expect(raw.pixels[0] < 245)  // about (241, 0, 0) as stored
    let picture = try ImageSource.open(path: url.path, limits: InputLimits()).decodeStill()
    let p = picture.image.pixels
    #expect(p[0] >= 250 && p[1] <= 8 && p[2] <= 8, "got \(p[0]),\(p[1]),\(p[2])")
    #expect(p[0] != raw.pixels[0])
    #expect(picture.warnings.isEmpty)
  }

  @Test("Adobe RGB JPEG is converted: colours move away from the raw values and gain saturation")
  func adobeRGB() throws {
    let url = try Corpus.url("image-jpeg-adobergb1998-photo-2000x1072.jpg")
    let raw = try FFmpegOracle.decode(url)
    let picture = try ImageSource.open(path: url.path, limits: InputLimits()).decodeStill()
    #expect(picture.image.width == 2000 && picture.image.height == 1072)
    #expect(picture.warnings.isEmpty)
    // Most of this photo is near-neutral, where Adobe RGB and sRGB agree;
    // the saturated parts move.
    #expect(meanAbsoluteDifference(raw, picture.image) > 0.5)
    func chroma(_ i: RGBAImage) -> Double {
      let t = thumbnail(i, width: 48, height: 32)
      var s = 0.0
      for k in stride(from: 0, to: t.count, by: 4) { s += max(t[k], t[k + 1], t[k + 2]) - min(t[k], t[k + 1], t[k + 2]) }
      return s
    }
    #expect(chroma(picture.image) > chroma(raw) * 1.05)
    // Without its profile the same file decodes to the raw values: the
    // change is the profile's doing.
    let stripped = try writeTemporary(try stripAPP2(Data(contentsOf: url)), name: "adobe-no-icc.jpg")
    defer { try? FileManager.default.removeItem(at: stripped.deletingLastPathComponent()) }
    let untagged = try ImageSource.open(path: stripped.path, limits: InputLimits()).decodeStill().image
    #expect(abs(chroma(untagged) - chroma(raw)) < chroma(raw) * 0.01)
  }

  @Test("gray JPEG with a Gray Gamma 2.2 profile decodes to neutral gray")
  func grayJPEG() throws {
    let url = try Corpus.url("image-jpeg-grayscale-1ch-gray-gamma22-icc.jpg")
    let picture = try ImageSource.open(path: url.path, limits: InputLimits()).decodeStill()
    #expect(picture.image.width == 400 && picture.image.height == 267)
    #expect(picture.warnings.isEmpty)
    var maxSpread = 0
    for i in stride(from: 0, to: picture.image.pixels.count, by: 4) {
      let p = picture.image.pixels
      maxSpread = max(maxSpread, Int(max(p[i], p[i + 1], p[i + 2])) - Int(min(p[i], p[i + 1], p[i + 2])))
    }
    #expect(maxSpread <= 2)
    let raw = try FFmpegOracle.decode(url)
    #expect(meanAbsoluteDifference(raw, picture.image) < 4)  // gamma 2.2 ≈ sRGB
  }

  @Test("CMYK (Adobe YCCK) JPEG with a SWOP profile: right colours, opaque")
  func cmykJPEG() throws {
    let url = try Corpus.url("image-jpeg-cmyk-ycck-swop-icc.jpg")
    let picture = try ImageSource.open(path: url.path, limits: InputLimits()).decodeStill()
    let image = picture.image
    #expect(image.width == 500 && image.height == 333)
    #expect(!image.hasTransparency)
    #expect(picture.warnings.isEmpty, "\(picture.warnings)")
    try checkCMYKColours(image)
  }

  @Test("CMYK JPEG without its profile still gets plausible colours (naive formula)")
  func cmykWithoutProfile() throws {
    let url = try Corpus.url("image-jpeg-cmyk-ycck-swop-icc.jpg")
    let stripped = try stripAPP2(Data(contentsOf: url))
    let copy = try writeTemporary(stripped, name: "cmyk-no-icc.jpg")
    defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
    let picture = try ImageSource.open(path: copy.path, limits: InputLimits()).decodeStill()
    #expect(picture.warnings.contains { $0.contains("naive") })
    try checkCMYKColours(picture.image)
  }

  @Test("16-bit PNG with tRNS keeps its transparent colour transparent")
  func sixteenBitPNG() throws {
    let url = try Corpus.url("image-png-16bit-rgb-trns-32x32.png")
    let image = try ImageSource.open(path: url.path, limits: InputLimits()).decodeStill().image
    #expect(image.width == 32 && image.height == 32)
    #expect(image.pixels[3] == 0)  // the corner is the tRNS colour
    #expect(image.pixels.enumerated().contains { $0.offset % 4 == 3 && $0.element == 255 })
  }

  @Test("2-bit palette PNG with semi-transparent tRNS keeps 50 % alpha")
  func palettePNG() throws {
    let url = try Corpus.url("image-png-palette-2bit-trns-semitransparent-900x600.png")
    let image = try ImageSource.open(path: url.path, limits: InputLimits()).decodeStill().image
    let alpha = Int(image.pixels[image.offset(x: 450, y: 300) + 3])
    #expect(abs(alpha - 128) <= 2, "alpha \(alpha)")
  }

  @Test("HEIC grid image from an iPhone decodes with its Display P3 profile")
  func heic() throws {
    let url = try Corpus.url("image-heic-iphone11promax-displayp3-grid-2566x3313.heic")
    let source = try ImageSource.open(path: url.path, limits: InputLimits())
    #expect(source.header.format == .heif)
    #expect(source.header.width == 2566 && source.header.height == 3313)
    #expect(source.header.iccProfile != nil)
    let picture = try source.decodeStill()
    #expect(picture.image.width == 2566 && picture.image.height == 3313)
    #expect(picture.warnings.isEmpty, "\(picture.warnings)")
    let mean = meanColour(picture.image, x: 0..<2566, y: 0..<3313)
    #expect(mean.r > 20 && mean.r < 235 && mean.a == 255)
    // The tiles join without seams: neighbouring rows across a 512 px tile
    // edge differ no more than rows inside a tile.
    func rowDiff(_ y: Int) -> Double {
      var s = 0.0
      for x in 0..<2566 { s += abs(Double(picture.image.pixels[picture.image.offset(x: x, y: y)]) - Double(picture.image.pixels[picture.image.offset(x: x, y: y + 1)])) }
      return s / 2566
    }
    #expect(rowDiff(511) < rowDiff(300) * 3 + 4)
  }

  @Test("JPEG shrink-on-load never goes below the width asked for")
  func jpegScaledDecode() throws {
    let url = try Corpus.url("image-jpeg-ultrahdr-gainmap-3072x4080.jpg")
    let picture = try ImageSource.open(path: url.path, limits: InputLimits()).decodeStill(minimumWidth: 1170)
    #expect(picture.image.width == 1536 && picture.image.height == 2040)
  }
}


/// Removes APP2 (ICC_PROFILE) segments from a JPEG.
func stripAPP2(_ data: Data) throws -> Data {
  let b = [UInt8](data)
  var out: [UInt8] = [0xFF, 0xD8]
  var pos = 2
  while pos + 4 <= b.count, b[pos] == 0xFF {
    let marker = b[pos + 1]
    if marker == 0xDA { break }
    let length = Int(b[pos + 2]) << 8 | Int(b[pos + 3])
    if marker != 0xE2 { out += b[pos..<(pos + 2 + length)] }
    pos += 2 + length
  }
  out += b[pos...]
  return Data(out)
}

// MARK: - Resampling

@Suite("Resampling with alpha")
struct ResamplingTests {
  /// The same picture resized by ffmpeg's `scale` filter, on packed RGBA,
  /// with the flags `PixelConverter.resize` documents.
  func ffmpegResize(_ image: RGBAImage, width: Int, height: Int) throws -> Data {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-resize-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let input = dir.appendingPathComponent("in.rgba")
    try Data(image.pixels).write(to: input)
    return try runTool("ffmpeg", ["-v", "error", "-f", "rawvideo", "-pix_fmt", "rgba", "-s", "\(image.width)x\(image.height)",
                                  "-i", input.path, "-vf",
                                  "scale=\(width):\(height):flags=lanczos+accurate_rnd+full_chroma_int+full_chroma_inp",
                                  "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
  }

  /// Noise over gradients, with `alpha` per pixel.
  func noisePicture(width: Int, height: Int, alpha: (Int, Int) -> UInt8) -> RGBAImage {
    var random = SplitMix64(seed: 7)
    var pixels: [UInt8] = []
    for y in 0..<height {
      for x in 0..<width {
        let n = UInt8(truncatingIfNeeded: random.next() & 63)
        pixels += [UInt8(x * 191 / width) &+ n, UInt8(y * 191 / height) &+ n, UInt8((x + y) * 95 / (width + height)) &+ n,
                   alpha(x, y)]
      }
    }
    return RGBAImage(width: width, height: height, pixels: pixels)
  }

  @Test("resizing an opaque picture gives ffmpeg's Lanczos scale of packed RGBA byte for byte (planar in and out)",
        arguments: [(117, 66), (240, 135), (37, 21)])
  func opaqueResizeMatchesFFmpeg(size: (Int, Int)) throws {
    let image = noisePicture(width: 351, height: 197) { _, _ in 255 }
    let ours = try PixelConverter.resize(image, width: size.0, height: size.1)
    let theirs = try ffmpegResize(image, width: size.0, height: size.1)
    #expect(ByteComparison.difference(Data(ours.pixels), theirs) == nil)
  }

  @Test("alpha is filtered like the colours: within 2 levels of ffmpeg's packed RGBA scale, colours equal")
  func alphaResizeMatchesFFmpeg() throws {
    let image = noisePicture(width: 351, height: 197) { x, _ in UInt8(x * 255 / 350) }
    let ours = try PixelConverter.resize(image, width: 130, height: 73)
    let theirs = [UInt8](try ffmpegResize(image, width: 130, height: 73))
    #expect(theirs.count == ours.pixels.count)
    var colour = 0, alpha = 0
    for i in 0..<min(theirs.count, ours.pixels.count) {
      let d = abs(Int(theirs[i]) - Int(ours.pixels[i]))
      if i % 4 == 3 { alpha = max(alpha, d) } else { colour = max(colour, d) }
    }
    #expect(colour == 0 && alpha <= 2, "colours differ by up to \(colour), alpha by up to \(alpha)")
  }

  @Test("transparent pixels' hidden colour does not bleed into the edge")
  func noDarkFringe() throws {
    // Left half opaque white, right half fully transparent *black*.
    var pixels: [UInt8] = []
    for _ in 0..<30 { for x in 0..<30 { pixels += x < 15 ? [255, 255, 255, 255] : [0, 0, 0, 0] } }
    let image = RGBAImage(width: 30, height: 30, pixels: pixels)
    let small = try ImageResampler.resize(image, width: 10, height: 10)
    for x in 0..<10 {
      let o = small.offset(x: x, y: 5)
      if small.pixels[o + 3] > 8 {
        #expect(small.pixels[o] > 240, "x=\(x): \(Array(small.pixels[o..<(o + 4)])) is a dark fringe")
      }
    }
    #expect(small.pixels[small.offset(x: 0, y: 5) + 3] == 255)
    #expect(small.pixels[small.offset(x: 9, y: 5) + 3] == 0)
    // A naive resize of the same picture does fringe, so the test can fail.
    let naive = try PixelConverter.resize(image, width: 10, height: 10)
    let edge = (0..<10).map { naive.offset(x: $0, y: 5) }.filter { naive.pixels[$0 + 3] > 8 && naive.pixels[$0 + 3] < 247 }
    #expect(edge.contains { naive.pixels[$0] < 200 })
  }
}

// MARK: - GIF disposal

@Suite("GIF compositing")
struct GIFDisposalTests {
  /// 8×4 canvas. Frame 1 paints the left half red (right half
  /// transparent) with the given disposal; frame 2 paints only the right
  /// half blue.
  func twoFrames(disposal: Int) -> Data {
    var first = [UInt8](repeating: 0, count: 32)
    for y in 0..<4 { for x in 0..<4 { first[y * 8 + x] = 1 } }
    return SyntheticGIF.make(
      width: 8, height: 4, palette: [(0, 0, 0), (255, 0, 0), (0, 0, 255)],
      frames: [
        .init(width: 8, height: 4, indices: first, disposal: disposal, transparentIndex: 0, delayCentiseconds: 10),
        .init(x: 4, y: 0, width: 4, height: 4, indices: [UInt8](repeating: 2, count: 16), disposal: 1,
              transparentIndex: 0, delayCentiseconds: 20),
      ])
  }

  func frames(of data: Data) throws -> [RGBAImage] {
    let url = try writeTemporary(data, name: "synthetic.gif")
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let source = try ImageSource.open(path: url.path, limits: InputLimits())
    #expect(source.header.frameDurations == [100, 200])
    var out: [RGBAImage] = []
    _ = try source.decodeFrames(keeping: [0, 1]) { (_, image) throws(MediaIOError) in out.append(image) }
    return out
  }

  @Test("disposal 2 (restore to background) clears the first frame's area to transparent")
  func restoreToBackground() throws {
    let f = try frames(of: twoFrames(disposal: 2))
    try #require(f.count == 2)
    #expect(f[0].pixels[0...3] == [255, 0, 0, 255])
    #expect(f[1].pixels[3] == 0, "left half must be cleared")
    let right = f[1].offset(x: 6, y: 2)
    #expect(Array(f[1].pixels[right..<(right + 4)]) == [0, 0, 255, 255])
  }

  @Test("disposal 1 (keep) leaves the first frame under the second")
  func keep() throws {
    let f = try frames(of: twoFrames(disposal: 1))
    try #require(f.count == 2)
    #expect(Array(f[1].pixels[0...3]) == [255, 0, 0, 255])
    let right = f[1].offset(x: 6, y: 2)
    #expect(Array(f[1].pixels[right..<(right + 4)]) == [0, 0, 255, 255])
  }

  @Test("corpus GIF with disposal 2: drawn area stays bounded from frame to frame", .imageCorpus)
  func corpusDisposal() throws {
    let source = try ImageSource.open(path: Corpus.url("image-gif-animated-30f-transparent-disposal2.gif").path,
                                      limits: InputLimits())
    var coverage: [Int] = []
    let summary = try source.decodeFrames(keeping: Set(0..<30)) { (_, image) throws(MediaIOError) in
      coverage.append(stride(from: 3, to: image.pixels.count, by: 4).filter { image.pixels[$0] > 0 }.count)
    }
    #expect(summary.decodedCount == 30)
    #expect(coverage.count == 30)
    let lo = try #require(coverage.min()), hi = try #require(coverage.max())
    #expect(lo > 0)
    // Without disposal the squares would pile up and cover ever more.
    #expect(Double(hi) < Double(lo) * 1.5, "opaque pixels per frame: \(coverage)")
    #expect(coverage.last ?? 0 < 80 * 80)
  }
}

// MARK: - Animated WebP

@Suite("Animated WebP encode and decode")
struct AnimatedWebPTests {
  @Test("frames and durations survive a round trip")
  func roundTrip() throws {
    let colours: [(UInt8, UInt8, UInt8, UInt8)] = [(255, 0, 0, 255), (0, 255, 0, 128), (0, 0, 255, 255)]
    let frames = colours.map { RGBAImage(width: 16, height: 8, fill: $0) }
    let data = try AnimatedWebPEncoder.encode(frames: frames, durations: [100, 200, 300], loopCount: 0, quality: 90)
    let info = try #require(WebPAnimationInfo(data))
    #expect(info.canvasWidth == 16 && info.canvasHeight == 8)
    #expect(info.durations == [100, 200, 300])
    let decoded = try WebPFileReader.frames(of: data)
    #expect(decoded.frames.count == 3)
    for (frame, colour) in zip(decoded.frames, colours) {
      let p = frame.pixels
      #expect(abs(Int(p[0]) - Int(colour.0)) < 12 && abs(Int(p[1]) - Int(colour.1)) < 12
              && abs(Int(p[2]) - Int(colour.2)) < 12 && abs(Int(p[3]) - Int(colour.3)) < 3)
    }
  }
}

@Suite("Image files that are not images")
struct NotAnImageTests {
  @Test("not an image: a clear error")
  func notAnImage() throws {
    let url = try writeTemporary(Data("hello, not an image".utf8), name: "note.jpg")
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let error = #expect(throws: MediaIOError.self) { try ImageSource.open(path: url.path, limits: InputLimits()) }
    #expect(error?.reason.contains("not a supported image") == true)
  }
}
