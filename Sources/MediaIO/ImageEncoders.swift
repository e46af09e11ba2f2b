internal import CFFmpeg
internal import CWebP
import Foundation

/// Encodes RGBA rasters as WebP with libwebp (`WebPEncodeRGBA`).
public enum WebPEncoder {
  /// The largest side libwebp accepts (`WEBP_MAX_DIMENSION`).
  public static let maxDimension = 16383

  /// Lossy WebP with alpha kept.
  ///
  /// - Parameters:
  ///   - quality: 0–100 (libwebp's quality factor; about 80 is visually
  ///     lossless for photos).
  /// - Returns: the `.webp` file bytes.
  /// - Throws: `MediaIOError` when a side exceeds 16383 px or libwebp fails.
  public static func encode(_ image: RGBAImage, quality: Int) throws(MediaIOError) -> Data {
    guard image.width <= maxDimension, image.height <= maxDimension else {
      throw .failure("WebPEncodeRGBA", "", "\(image.width)x\(image.height) exceeds WebP's 16383 px limit")
    }
    var output: UnsafeMutablePointer<UInt8>? = nil
    let size = image.pixels.withUnsafeBufferPointer {
      WebPEncodeRGBA($0.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width * 4),
                     Float(max(0, min(100, quality))), &output)
    }
    guard size > 0, let out = output else { throw .failure("WebPEncodeRGBA", "", "libwebp could not encode") }
    defer { WebPFree(out) }
    return Data(bytes: out, count: size)
  }
}

/// Encodes opaque RGB rasters as baseline JPEG (JFIF, 4:2:0, BT.601 full
/// range) with libavcodec's `mjpeg` encoder.
public enum JPEGEncoder {
  /// - Parameters:
  ///   - image: alpha is ignored: flatten transparent images first.
  ///   - quality: 1–100, mapped onto the encoder's quantiser scale (2–31).
  /// - Returns: the `.jpg` file bytes.
  public static func encode(_ image: RGBAImage, quality: Int) throws(MediaIOError) -> Data {
    let w = image.width, h = image.height
    guard let codec = avcodec_find_encoder(AV_CODEC_ID_MJPEG) else {
      throw .failure("avcodec_find_encoder", "mjpeg", "MJPEG encoder missing")
    }
    var ctxOpt = avcodec_alloc_context3(codec)
    guard let ctx = ctxOpt else { throw .failure("avcodec_alloc_context3", "mjpeg", "out of memory") }
    defer { avcodec_free_context(&ctxOpt) }
    // 4:2:0 needs even sizes for exact chroma; libavcodec pads internally.
    ctx.pointee.width = Int32(w)
    ctx.pointee.height = Int32(h)
    ctx.pointee.pix_fmt = AV_PIX_FMT_YUVJ420P
    ctx.pointee.color_range = AVCOL_RANGE_JPEG
    ctx.pointee.time_base = AVRational(num: 1, den: 25)
    ctx.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
    let q = max(1, min(100, quality))
    // 100 → 2 (finest), 1 → 31 (coarsest), roughly libjpeg's curve.
    let qscale = max(2, min(31, Int((31.0 - 29.0 * pow(Double(q) / 100.0, 0.6)).rounded())))
    ctx.pointee.global_quality = Int32(qscale) * FF_QP2LAMBDA
    try check(avcodec_open2(ctx, codec, nil), "avcodec_open2", "mjpeg")

    let frame = try Frame()
    frame.pointer.pointee.width = Int32(w)
    frame.pointer.pointee.height = Int32(h)
    frame.pointer.pointee.format = AV_PIX_FMT_YUVJ420P.rawValue
    frame.pointer.pointee.quality = ctx.pointee.global_quality
    frame.pointer.pointee.pts = 0
    try check(av_frame_get_buffer(frame.pointer, 0), "av_frame_get_buffer", "mjpeg")
    guard let sws = sws_getContext(Int32(w), Int32(h), AV_PIX_FMT_RGBA, Int32(w), Int32(h), AV_PIX_FMT_YUVJ420P,
                                   Int32(SWS_BICUBIC | SWS_ACCURATE_RND), nil, nil, nil) else {
      throw .failure("sws_getContext", "mjpeg", "cannot convert RGBA")
    }
    defer { sws_freeContext(sws) }
    let bt601 = sws_getCoefficients(SWS_CS_ITU601)
    sws_setColorspaceDetails(sws, bt601, 1, bt601, 1, 0, 1 << 16, 1 << 16)
    let source = Self.swscaleSource(image)
    source.pixels.withUnsafeBufferPointer { src in
      let s: [UnsafePointer<UInt8>?] = [src.baseAddress, nil, nil, nil]
      let ss: [Int32] = [Int32(source.stride), 0, 0, 0]
      let dst = withUnsafePointer(to: frame.pointer.pointee.data) {
        $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { p in (0..<8).map { p[$0] } }
      }
      let ds = withUnsafePointer(to: frame.pointer.pointee.linesize) {
        $0.withMemoryRebound(to: Int32.self, capacity: 8) { p in (0..<8).map { p[$0] } }
      }
      _ = sws_scale(sws, s, ss, 0, Int32(h), dst, ds)
    }
    try check(avcodec_send_frame(ctx, frame.pointer), "avcodec_send_frame", "mjpeg")
    try check(avcodec_send_frame(ctx, nil), "avcodec_send_frame", "mjpeg")
    let packet = try Packet()
    var data = Data()
    while true {
      let status = avcodec_receive_packet(ctx, packet.pointer)
      if status == Status.eof || status == Status.again { break }
      try check(status, "avcodec_receive_packet", "mjpeg")
      data.append(packet.pointer.pointee.data, count: Int(packet.pointer.pointee.size))
      packet.unref()
    }
    if data.isEmpty { throw .failure("avcodec_receive_packet", "mjpeg", "no JPEG produced") }
    return data
  }

  /// Bytes of slack after the last row of ``swscaleSource(_:)``: libswscale's
  /// SIMD input readers may load a vector's worth past a row's last pixel.
  static let swscaleSlack = 64

  /// `image`'s pixels laid out for libswscale's RGBA → 4:2:0 conversion, so
  /// that it reads nothing but the picture.
  ///
  /// Without `SWS_FULL_CHR_H_INP` libswscale makes chroma sample `i` of a row
  /// from RGBA pixels `2i` and `2i + 1` (`rgb32ToUV_half`), for
  /// `ceil(width / 2)` samples. With an odd width the last sample's second
  /// pixel is one past the row: the next row's first pixel inside the
  /// picture, and on the last row 4 bytes past the end of the pixel buffer,
  /// memory nothing wrote, so the JPEG's bottom-right chroma (and with it
  /// the file's bytes) changed from run to run. Here every row is padded to
  /// an even width with its last pixel repeated (the sample is that pixel's
  /// colour, as at every other edge), rows are 64-byte multiples and
  /// ``swscaleSlack`` zero bytes follow the last row.
  ///
  /// - Returns: the pixels and the row stride in bytes.
  static func swscaleSource(_ image: RGBAImage) -> (pixels: [UInt8], stride: Int) {
    let w = image.width, h = image.height
    let rowBytes = w * 4
    let stride = ((w + 1) / 2 * 2 * 4 + 63) / 64 * 64
    var padded = [UInt8](repeating: 0, count: stride * h + swscaleSlack)
    image.pixels.withUnsafeBufferPointer { src in
      padded.withUnsafeMutableBufferPointer { dst in
        guard let from = src.baseAddress, let to = dst.baseAddress else { return }
        for y in 0..<h {
          let row = to + y * stride
          (row).update(from: from + y * rowBytes, count: rowBytes)
          if w % 2 == 1 {
            (row + rowBytes).update(from: from + y * rowBytes + rowBytes - 4, count: 4)
          }
        }
      }
    }
    return (padded, stride)
  }
}
