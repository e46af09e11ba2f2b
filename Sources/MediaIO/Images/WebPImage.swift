internal import CWebP
import Foundation

// MARK: - Header

enum WebPHeader {
  /// Reads canvas size, frame count, per-frame durations, loop count and the
  /// ICCP chunk with libwebp's demuxer (`WebPDemux`), which parses the RIFF
  /// structure and the bitstream headers but decodes no pixels.
  static func header(_ b: ByteView, name: String) throws(MediaIOError) -> ImageHeader {
    guard let base = b.bytes.baseAddress else { throw .failure("WebPDemux", name, "file is empty") }
    var data = WebPData(bytes: base.assumingMemoryBound(to: UInt8.self), size: b.count)
    guard let demux = WebPDemux(&data) else {
      throw .failure("WebPDemux", name, "WebP is truncated or corrupt (libwebp cannot parse its chunks)")
    }
    defer { WebPDemuxDelete(demux) }
    let width = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH))
    let height = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT))
    let flags = WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS)
    let frames = Int(WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT))
    let loops = Int(WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT))
    guard width > 0, height > 0, frames > 0 else {
      throw .failure("WebPDemux", name, "WebP has no picture (canvas \(width)x\(height), \(frames) frames)")
    }
    let animated = flags & ANIMATION_FLAG.rawValue != 0 && frames > 1
    var durations: [Int] = []
    if animated {
      var iter = WebPIterator()
      for i in 1...frames {
        guard WebPDemuxGetFrame(demux, Int32(i), &iter) != 0 else {
          throw .failure("WebPDemuxGetFrame", name, "WebP frame \(i) of \(frames) is missing")
        }
        durations.append(ImageHeader.effectiveDuration(milliseconds: Int(iter.duration)))
        WebPDemuxReleaseIterator(&iter)
      }
    }
    var icc: Data?
    if flags & ICCP_FLAG.rawValue != 0 {
      var chunk = WebPChunkIterator()
      if WebPDemuxGetChunk(demux, "ICCP", 1, &chunk) != 0, let bytes = chunk.chunk.bytes, chunk.chunk.size > 0 {
        icc = Data(bytes: bytes, count: chunk.chunk.size)
      }
      WebPDemuxReleaseChunkIterator(&chunk)
    }
    let lossless = b.matches(12, "VP8L")
    let summary = animated ? "WebP animation, \(frames) frames" : (lossless ? "WebP lossless" : "WebP")
    return ImageHeader(format: .webp, storedWidth: width, storedHeight: height,
                       frameCount: animated ? frames : 1, frameDurations: durations,
                       loopCount: animated ? loops : 0, iccProfile: icc, summary: summary)
  }
}

// MARK: - Decoding

enum WebPFrameDecoder {
  /// Decodes every frame of a WebP (still or animated) as a full canvas,
  /// composited by libwebp (`WebPAnimDecoder`, `MODE_RGBA`: straight alpha),
  /// calling `body` with the 0-based frame index and the canvas. `body`
  /// returns false to stop early.
  ///
  /// - Returns: the number of frames decoded.
  static func decode(_ b: ByteView, name: String,
                     _ body: (Int, RGBAImage) throws(MediaIOError) -> Bool) throws(MediaIOError) -> Int {
    guard let base = b.bytes.baseAddress else { throw .failure("WebPAnimDecoderNew", name, "file is empty") }
    var data = WebPData(bytes: base.assumingMemoryBound(to: UInt8.self), size: b.count)
    var options = WebPAnimDecoderOptions()
    guard WebPAnimDecoderOptionsInit(&options) != 0 else {
      throw .failure("WebPAnimDecoderOptionsInit", name, "libwebp version mismatch")
    }
    options.color_mode = MODE_RGBA
    options.use_threads = 0
    guard let decoder = WebPAnimDecoderNew(&data, &options) else {
      throw .failure("WebPAnimDecoderNew", name, "WebP is truncated or corrupt (libwebp cannot open it)")
    }
    defer { WebPAnimDecoderDelete(decoder) }
    var info = WebPAnimInfo()
    guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else {
      throw .failure("WebPAnimDecoderGetInfo", name, "WebP is corrupt")
    }
    let width = Int(info.canvas_width), height = Int(info.canvas_height)
    var index = 0
    while WebPAnimDecoderHasMoreFrames(decoder) != 0 {
      var buffer: UnsafeMutablePointer<UInt8>? = nil
      var timestamp: Int32 = 0
      guard WebPAnimDecoderGetNext(decoder, &buffer, &timestamp) != 0, let pixels = buffer else {
        throw .failure("WebPAnimDecoderGetNext", name, "WebP frame \(index + 1) is corrupt and cannot be decoded")
      }
      let image = RGBAImage(width: width, height: height,
                            pixels: Array(UnsafeBufferPointer(start: pixels, count: width * height * 4)))
      index += 1
      if try !body(index - 1, image) { break }
    }
    if index == 0 { throw .failure("WebPAnimDecoderGetNext", name, "WebP holds no frame") }
    return index
  }
}

// MARK: - Animated encoding

/// Encodes a sequence of RGBA frames as an animated WebP with libwebp's
/// `WebPAnimEncoder` (lossy frames with alpha; the encoder stores only the
/// changed rectangle of each frame and merges identical frames).
public enum AnimatedWebPEncoder {
  /// - Parameters:
  ///   - frames: canvases of one size, straight alpha.
  ///   - durations: display time of each frame in milliseconds (≥ 1).
  ///   - loopCount: 0 = forever.
  ///   - quality: 0–100, as for still WebP.
  /// - Returns: the `.webp` file bytes (`ANIM` + `ANMF` chunks).
  /// - Throws: `MediaIOError` when sizes differ, exceed 16383 px, or libwebp fails.
  public static func encode(frames: [RGBAImage], durations: [Int], loopCount: Int,
                            quality: Int) throws(MediaIOError) -> Data {
    guard let first = frames.first, frames.count == durations.count else {
      throw .failure("WebPAnimEncoderAdd", "", "need one duration per frame and at least one frame")
    }
    let w = first.width, h = first.height
    guard w <= WebPEncoder.maxDimension, h <= WebPEncoder.maxDimension else {
      throw .failure("WebPAnimEncoderNew", "", "\(w)x\(h) exceeds WebP's 16383 px limit")
    }
    var encOptions = WebPAnimEncoderOptions()
    guard WebPAnimEncoderOptionsInit(&encOptions) != 0 else {
      throw .failure("WebPAnimEncoderOptionsInit", "", "libwebp version mismatch")
    }
    encOptions.anim_params.loop_count = Int32(max(0, min(65535, loopCount)))
    encOptions.anim_params.bgcolor = 0  // transparent; clients ignore it anyway
    guard let encoder = WebPAnimEncoderNew(Int32(w), Int32(h), &encOptions) else {
      throw .failure("WebPAnimEncoderNew", "", "libwebp could not create an animation encoder")
    }
    defer { WebPAnimEncoderDelete(encoder) }
    var config = WebPConfig()
    guard WebPConfigInit(&config) != 0 else { throw .failure("WebPConfigInit", "", "libwebp version mismatch") }
    config.quality = Float(max(0, min(100, quality)))
    config.lossless = 0
    config.method = 4
    var timestamp = 0
    for (i, frame) in frames.enumerated() {
      guard frame.width == w, frame.height == h else {
        throw .failure("WebPAnimEncoderAdd", "", "frame \(i) is \(frame.width)x\(frame.height), not \(w)x\(h)")
      }
      var picture = WebPPicture()
      guard WebPPictureInit(&picture) != 0 else { throw .failure("WebPPictureInit", "", "libwebp version mismatch") }
      picture.use_argb = 1
      picture.width = Int32(w)
      picture.height = Int32(h)
      let imported = frame.pixels.withUnsafeBufferPointer {
        WebPPictureImportRGBA(&picture, $0.baseAddress, Int32(w * 4))
      }
      defer { WebPPictureFree(&picture) }
      guard imported != 0 else { throw .failure("WebPPictureImportRGBA", "", "out of memory") }
      guard WebPAnimEncoderAdd(encoder, &picture, Int32(timestamp), &config) != 0 else {
        throw .failure("WebPAnimEncoderAdd", "", errorText(encoder))
      }
      timestamp += max(1, durations[i])
    }
    // A final NULL frame gives the last frame its duration.
    guard WebPAnimEncoderAdd(encoder, nil, Int32(timestamp), nil) != 0 else {
      throw .failure("WebPAnimEncoderAdd", "", errorText(encoder))
    }
    var output = WebPData()
    guard WebPAnimEncoderAssemble(encoder, &output) != 0, let bytes = output.bytes else {
      throw .failure("WebPAnimEncoderAssemble", "", errorText(encoder))
    }
    defer { WebPDataClear(&output) }
    return Data(bytes: bytes, count: output.size)
  }

  static func errorText(_ encoder: OpaquePointer) -> String {
    WebPAnimEncoderGetError(encoder).map { String(cString: $0) } ?? "libwebp failed"
  }
}

/// Reads an encoded WebP back: its canvas size and the composited frames,
/// for tests and for checking our own output.
public enum WebPFileReader {
  /// All frames of `data` as canvases (one for a still WebP) and each
  /// frame's duration in milliseconds (empty for a still).
  public static func frames(of data: Data) throws(MediaIOError) -> (frames: [RGBAImage], durations: [Int]) {
    try data.withByteView { (b) throws(MediaIOError) in
      let header = try WebPHeader.header(b, name: "webp")
      var frames: [RGBAImage] = []
      _ = try WebPFrameDecoder.decode(b, name: "webp") { (_, image) throws(MediaIOError) in
        frames.append(image)
        return true
      }
      return (frames, header.frameDurations)
    }
  }
}
