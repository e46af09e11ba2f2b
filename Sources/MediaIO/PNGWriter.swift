internal import CFFmpeg
import Foundation

/// Encodes RGBA rasters as PNG with libavcodec's `png` encoder (alpha kept).
public enum PNGWriter {
  /// - Returns: the `.png` file bytes.
  /// - Throws: `MediaIOError` if the encoder fails.
  public static func encode(_ image: RGBAImage) throws(MediaIOError) -> Data {
    guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG) else {
      throw .failure("avcodec_find_encoder", "png", "PNG encoder missing")
    }
    var ctxOpt = avcodec_alloc_context3(codec)
    guard let ctx = ctxOpt else { throw .failure("avcodec_alloc_context3", "png", "out of memory") }
    defer { avcodec_free_context(&ctxOpt) }
    ctx.pointee.width = Int32(image.width)
    ctx.pointee.height = Int32(image.height)
    ctx.pointee.pix_fmt = AV_PIX_FMT_RGBA
    ctx.pointee.time_base = AVRational(num: 1, den: 25)
    try check(avcodec_open2(ctx, codec, nil), "avcodec_open2", "png")
    let frame = try Frame()
    frame.pointer.pointee.width = Int32(image.width)
    frame.pointer.pointee.height = Int32(image.height)
    frame.pointer.pointee.format = AV_PIX_FMT_RGBA.rawValue
    try check(av_frame_get_buffer(frame.pointer, 0), "av_frame_get_buffer", "png")
    let stride = Int(frame.pointer.pointee.linesize.0)
    guard let dst = frame.pointer.pointee.data.0 else { throw .failure("av_frame_get_buffer", "png", "no buffer") }
    image.pixels.withUnsafeBufferPointer { src in
      for y in 0..<image.height {
        (dst + y * stride).update(from: src.baseAddress! + y * image.width * 4, count: image.width * 4)
      }
    }
    try check(avcodec_send_frame(ctx, frame.pointer), "avcodec_send_frame", "png")
    try check(avcodec_send_frame(ctx, nil), "avcodec_send_frame", "png")
    let packet = try Packet()
    var data = Data()
    while avcodec_receive_packet(ctx, packet.pointer) >= 0 {
      data.append(packet.pointer.pointee.data, count: Int(packet.pointer.pointee.size))
      packet.unref()
    }
    if data.isEmpty { throw .failure("avcodec_receive_packet", "png", "no PNG produced") }
    return data
  }
}
