internal import CAVIF
import Foundation

/// AVIF stills with libavif (0.11): encoded by libaom, decoded by dav1d.
///
/// Every file Marquee writes is 8-bit YUV 4:4:4, full range, with nclx
/// colour signalled as sRGB: primaries BT.709 (1), transfer sRGB (13),
/// matrix BT.601 (6). 4:4:4 was measured smaller than 4:2:0 at the same
/// SSIM on photos and product shots (BENCHMARKS.md, "AVIF"). libavif 0.11
/// has no `quality` field: quality is libaom's quantizer, 0 (lossless-ish)
/// to 63 (coarsest), pinned by setting `minQuantizer = maxQuantizer`.
/// Encoding runs on one thread at a fixed speed, so the same pixels give
/// the same bytes on every run and with any `--jobs`.
public enum AVIFEncoder {
  /// The largest side Marquee encodes (WebP's limit: every AVIF is a
  /// twin of a WebP).
  public static let maxDimension = 16383
  /// Accepted quantizers (libaom's 0–63).
  public static let quantizerRange: ClosedRange<Int> = 0...63
  /// libaom's speed preset (0 slowest … 10 fastest) of every file
  /// Marquee writes: 6 encodes a 1170x880 photo in about 0.2–0.7 s on
  /// one core.
  public static let speed = 6
  /// The speed of a probe encode, one that is measured and never
  /// written (``AVIFQualityMatch``'s search): libaom at 9 encodes a
  /// 1280x720 cover in 0.02 s against 0.8 s at 6, and a 1280x686 photo in
  /// 0.05 s against 0.43 s (8–40x faster), at a lower SSIM
  /// for the same quantizer (BENCHMARKS.md, "AVIF").
  public static let probeSpeed = 9

  /// Encodes `image` as a one-picture AVIF.
  ///
  /// - Parameters:
  ///   - image: RGBA, sRGB; alpha is kept (an auxiliary alpha image) when
  ///     any pixel is not opaque.
  ///   - quantizer: colour quantizer, 0–63 (clamped); lower is better.
  ///   - alphaQuantizer: alpha quantizer, 0–63 (clamped).
  ///   - speed: libaom's speed preset, 0–10 (clamped): ``speed`` for
  ///     files, ``probeSpeed`` for measuring.
  /// - Returns: the `.avif` file bytes.
  /// - Throws: `MediaIOError` (`.failed`) when a side exceeds 16383 px or
  ///   libavif cannot convert or encode (its `avifResultToString`).
  public static func encode(_ image: RGBAImage, quantizer: Int, alphaQuantizer: Int,
                            speed: Int = AVIFEncoder.speed) throws(MediaIOError) -> Data {
    guard image.width >= 1, image.height >= 1, image.width <= maxDimension, image.height <= maxDimension else {
      throw .failure("avifEncoderWrite", "", "\(image.width)x\(image.height) is outside AVIF's 1...16383 px")
    }
    let yuv = try AVIFImage(width: image.width, height: image.height)
    let avif = yuv.pointer
    avif.pointee.colorPrimaries = UInt16(AVIF_COLOR_PRIMARIES_BT709)
    avif.pointee.transferCharacteristics = UInt16(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
    avif.pointee.matrixCoefficients = UInt16(AVIF_MATRIX_COEFFICIENTS_BT601)
    avif.pointee.yuvRange = AVIF_RANGE_FULL
    var pixels = image.pixels
    let converted: avifResult = pixels.withUnsafeMutableBufferPointer { buffer in
      var rgb = avifRGBImage()
      avifRGBImageSetDefaults(&rgb, avif)
      rgb.format = AVIF_RGB_FORMAT_RGBA
      rgb.depth = 8
      rgb.pixels = buffer.baseAddress
      rgb.rowBytes = UInt32(image.width * 4)
      // Alpha is straight (not premultiplied), as RGBAImage holds it; an
      // opaque picture gets no alpha plane at all.
      if !image.hasTransparency { rgb.ignoreAlpha = AVIF_TRUE }
      return avifImageRGBToYUV(avif, &rgb)
    }
    guard converted == AVIF_RESULT_OK else {
      throw .failure("avifImageRGBToYUV", "", String(cString: avifResultToString(converted)))
    }
    let encoder = try AVIFEncoderHandle()
    let e = encoder.pointer
    e.pointee.codecChoice = AVIF_CODEC_CHOICE_AOM
    e.pointee.maxThreads = 1
    e.pointee.speed = Int32(min(max(speed, 0), 10))
    let q = Int32(min(max(quantizer, quantizerRange.lowerBound), quantizerRange.upperBound))
    let qa = Int32(min(max(alphaQuantizer, quantizerRange.lowerBound), quantizerRange.upperBound))
    e.pointee.minQuantizer = q
    e.pointee.maxQuantizer = q
    e.pointee.minQuantizerAlpha = qa
    e.pointee.maxQuantizerAlpha = qa
    var output = avifRWData(data: nil, size: 0)
    defer { avifRWDataFree(&output) }
    let written = avifEncoderWrite(e, avif, &output)
    guard written == AVIF_RESULT_OK, let bytes = output.data, output.size > 0 else {
      throw .failure("avifEncoderWrite", "", "libavif could not encode: \(String(cString: avifResultToString(written)))")
    }
    return Data(bytes: bytes, count: output.size)
  }
}

/// Reads AVIF stills with libavif, decoding with dav1d.
public enum AVIFDecoder {
  /// The first picture's size, from the container (`ispe`) after
  /// `avifDecoderParse`, without decoding any AV1.
  ///
  /// - Throws: `MediaIOError` (`.invalidData`) when the bytes are not an
  ///   AVIF libavif can parse, or the picture exceeds `maxPixels`.
  public static func size(of data: Data, maxPixels: Int = 40_000_000) throws(MediaIOError) -> (width: Int, height: Int) {
    let decoder = try AVIFDecoderHandle(maxPixels: maxPixels)
    return try data.withUnsafeBytes { raw in
      Result { () throws(MediaIOError) -> (width: Int, height: Int) in
        let image = try decoder.parse(raw)
        return (Int(image.pointee.width), Int(image.pointee.height))
      }
    }.get()
  }

  /// Decodes the first picture to RGBA (straight alpha, 255 when the file
  /// has none), converting from the file's YUV by its signalled matrix
  /// and range (libavif's `avifImageYUVToRGB`).
  ///
  /// - Throws: `MediaIOError` (`.invalidData`) when the file does not
  ///   parse or its AV1 data does not decode (cut short, corrupt), or the
  ///   picture exceeds `maxPixels`.
  public static func decode(_ data: Data, maxPixels: Int = 40_000_000) throws(MediaIOError) -> RGBAImage {
    let decoder = try AVIFDecoderHandle(maxPixels: maxPixels)
    return try data.withUnsafeBytes { raw in Result { () throws(MediaIOError) -> RGBAImage in
      _ = try decoder.parse(raw)
      let next = avifDecoderNextImage(decoder.pointer)
      guard next == AVIF_RESULT_OK, let image = decoder.pointer.pointee.image else {
        throw .failure("avifDecoderNextImage", "", String(cString: avifResultToString(next)), kind: .invalidData)
      }
      let width = Int(image.pointee.width), height = Int(image.pointee.height)
      var pixels = [UInt8](repeating: 0, count: width * height * 4)
      let converted: avifResult = pixels.withUnsafeMutableBufferPointer { buffer in
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.depth = 8
        rgb.pixels = buffer.baseAddress
        rgb.rowBytes = UInt32(width * 4)
        return avifImageYUVToRGB(image, &rgb)
      }
      guard converted == AVIF_RESULT_OK else {
        throw .failure("avifImageYUVToRGB", "", String(cString: avifResultToString(converted)), kind: .invalidData)
      }
      return RGBAImage(width: width, height: height, pixels: pixels)
    } }.get()
  }

  /// The colour the file signals (nclx): primaries, transfer, matrix and
  /// whether it is full range.
  public static func colour(of data: Data) throws(MediaIOError) -> (primaries: Int, transfer: Int, matrix: Int, fullRange: Bool) {
    let decoder = try AVIFDecoderHandle(maxPixels: 40_000_000)
    return try data.withUnsafeBytes { raw in
      Result { () throws(MediaIOError) -> (primaries: Int, transfer: Int, matrix: Int, fullRange: Bool) in
        let image = try decoder.parse(raw).pointee
        return (Int(image.colorPrimaries), Int(image.transferCharacteristics), Int(image.matrixCoefficients),
                image.yuvRange == AVIF_RANGE_FULL)
      }
    }.get()
  }

  /// The AV1 decoder libavif uses here (`dav1d`), or nil when this libavif
  /// was built without one (then libavif's own choice decodes).
  static let codec: avifCodecChoice? =
    avifCodecName(AVIF_CODEC_CHOICE_DAV1D, avifCodecFlags(AVIF_CODEC_FLAG_CAN_DECODE.rawValue)) != nil ? AVIF_CODEC_CHOICE_DAV1D : nil
}

/// libavif's run-time version and the AV1 codecs it was built with, e.g.
/// `0.11.1 (dav1d [dec]:1.0.0, aom [enc/dec]:3.6.0)`.
public enum AVIFLibrary {
  public static var version: String {
    var buffer = [CChar](repeating: 0, count: 256)
    avifCodecVersions(&buffer)
    let codecs = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return "\(String(cString: avifVersion())) (\(codecs))"
  }
}

// MARK: - Owned libavif objects

/// An `avifImage` (YUV 4:4:4, 8-bit), destroyed with its owner.
final class AVIFImage {
  let pointer: UnsafeMutablePointer<avifImage>

  init(width: Int, height: Int) throws(MediaIOError) {
    guard let image = avifImageCreate(UInt32(width), UInt32(height), 8, AVIF_PIXEL_FORMAT_YUV444) else {
      throw .failure("avifImageCreate", "", "out of memory")
    }
    pointer = image
  }

  deinit { avifImageDestroy(pointer) }
}

/// An `avifEncoder`, destroyed with its owner.
final class AVIFEncoderHandle {
  let pointer: UnsafeMutablePointer<avifEncoder>

  init() throws(MediaIOError) {
    guard let encoder = avifEncoderCreate() else { throw .failure("avifEncoderCreate", "", "out of memory") }
    pointer = encoder
  }

  deinit { avifEncoderDestroy(pointer) }
}

/// An `avifDecoder` for one still, with Marquee's limits: one thread,
/// `maxPixels` (libavif's `imageSizeLimit`), EXIF and XMP ignored.
final class AVIFDecoderHandle {
  let pointer: UnsafeMutablePointer<avifDecoder>

  init(maxPixels: Int) throws(MediaIOError) {
    guard let decoder = avifDecoderCreate() else { throw .failure("avifDecoderCreate", "", "out of memory") }
    pointer = decoder
    decoder.pointee.maxThreads = 1
    if let codec = AVIFDecoder.codec { decoder.pointee.codecChoice = codec }
    decoder.pointee.imageSizeLimit = UInt32(clamping: max(1, maxPixels))
    decoder.pointee.ignoreExif = AVIF_TRUE
    decoder.pointee.ignoreXMP = AVIF_TRUE
  }

  /// Points the decoder at `bytes` (which must outlive the decoding) and
  /// parses the container.
  ///
  /// - Returns: the decoder's image (its size and colour set, no pixels yet).
  @discardableResult
  func parse(_ bytes: UnsafeRawBufferPointer) throws(MediaIOError) -> UnsafeMutablePointer<avifImage> {
    guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0 else {
      throw .failure("avifDecoderParse", "", "empty file", kind: .invalidData)
    }
    let memory = avifDecoderSetIOMemory(pointer, base, bytes.count)
    guard memory == AVIF_RESULT_OK else {
      throw .failure("avifDecoderSetIOMemory", "", String(cString: avifResultToString(memory)))
    }
    let parsed = avifDecoderParse(pointer)
    guard parsed == AVIF_RESULT_OK, let image = pointer.pointee.image else {
      throw .failure("avifDecoderParse", "", String(cString: avifResultToString(parsed)), kind: .invalidData)
    }
    return image
  }

  deinit { avifDecoderDestroy(pointer) }
}
