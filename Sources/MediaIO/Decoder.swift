internal import CFFmpeg
import Foundation

/// A libavcodec decoder for one input stream (`AVCodecContext`), freed in
/// `deinit` with `avcodec_free_context`.
public final class Decoder {
  let context: UnsafeMutablePointer<AVCodecContext>
  /// The stream this decoder reads, as described by the container.
  public let stream: StreamInfo
  private let label: String

  /// Opens the decoder for `streamIndex` of `container`.
  ///
  /// - Parameters:
  ///   - threads: decoder threads; 0 lets libavcodec choose.
  ///   - strict: report damage instead of concealing it: libavcodec's
  ///     `err_recognition` gets `AV_EF_CRCCHECK | AV_EF_BITSTREAM |
  ///     AV_EF_BUFFER | AV_EF_EXPLODE`, so a corrupt slice makes `send` or
  ///     `receive` throw (for checking our own output; sources are decoded
  ///     leniently, as players do).
  /// - Throws: `MediaIOError` when libavcodec has no decoder for the codec or
  ///   cannot open it.
  public init(container: InputContainer, streamIndex: Int, threads: Int = 0, strict: Bool = false) throws(MediaIOError) {
    let name = (container.path as NSString).lastPathComponent
    guard let s = container.stream(streamIndex), let par = s.pointee.codecpar else {
      throw .failure("avcodec_find_decoder", name, "no stream \(streamIndex)")
    }
    stream = container.streams[streamIndex]
    label = "\(name) stream \(streamIndex) (\(stream.codecName))"
    guard let codec = avcodec_find_decoder(par.pointee.codec_id) else {
      throw .failure("avcodec_find_decoder", label, "no decoder for codec \(stream.codecName)")
    }
    guard let ctx = avcodec_alloc_context3(codec) else {
      throw .failure("avcodec_alloc_context3", label, "out of memory")
    }
    context = ctx
    try check(avcodec_parameters_to_context(ctx, par), "avcodec_parameters_to_context", label)
    ctx.pointee.pkt_timebase = s.pointee.time_base
    ctx.pointee.thread_count = Int32(threads)
    if strict {
      ctx.pointee.err_recognition |= AV_EF_CRCCHECK | AV_EF_BITSTREAM | AV_EF_BUFFER | AV_EF_EXPLODE
    }
    var options: OpaquePointer? = nil
    defer { av_dict_free(&options) }
    try check(avcodec_open2(ctx, codec, &options), "avcodec_open2", label)
  }

  /// Opens a decoder for the packets `encoder` produces (its codec and
  /// extradata: the SPS and PPS of libx264's global header), so an encode
  /// can be decoded as a player would see it (`PictureQualityMeter`).
  ///
  /// - Parameters:
  ///   - threads: decoder threads; 1 decodes on the caller's thread.
  /// - Throws: `MediaIOError` when libavcodec has no decoder for the
  ///   encoder's codec or cannot open it.
  public init(decoding encoder: Encoder, threads: Int = 1) throws(MediaIOError) {
    let enc = encoder.context.pointee
    let name = avcodec_get_name(enc.codec_id).map { String(cString: $0) } ?? "unknown"
    label = "decoder of \(encoder.label)"
    stream = StreamInfo(index: 0, kind: encoder.kind, codecName: name, timeBase: encoder.timeBase,
                        width: Int(enc.width), height: Int(enc.height), sampleAspectRatio: Rational(1, 1),
                        frameRate: Rational(enc.framerate), baseFrameRate: Rational(enc.framerate),
                        orientation: .identity, sampleRate: Int(enc.sample_rate), channels: Int(enc.ch_layout.nb_channels),
                        duration: nil, colorTransfer: "", colorPrimaries: "", colorSpace: "", isAttachedPicture: false)
    guard let codec = avcodec_find_decoder(enc.codec_id) else {
      throw .failure("avcodec_find_decoder", label, "no decoder for codec \(name)")
    }
    guard let ctx = avcodec_alloc_context3(codec) else {
      throw .failure("avcodec_alloc_context3", label, "out of memory")
    }
    context = ctx
    guard let par = avcodec_parameters_alloc() else { throw .failure("avcodec_parameters_alloc", label, "out of memory") }
    var parameters: UnsafeMutablePointer<AVCodecParameters>? = par
    defer { avcodec_parameters_free(&parameters) }
    try check(avcodec_parameters_from_context(par, encoder.context), "avcodec_parameters_from_context", label)
    try check(avcodec_parameters_to_context(ctx, par), "avcodec_parameters_to_context", label)
    ctx.pointee.pkt_timebase = encoder.timeBase.av
    ctx.pointee.thread_count = Int32(threads)
    var options: OpaquePointer? = nil
    defer { av_dict_free(&options) }
    try check(avcodec_open2(ctx, codec, &options), "avcodec_open2", label)
  }

  deinit {
    var c: UnsafeMutablePointer<AVCodecContext>? = context
    avcodec_free_context(&c)
  }

  /// How many pictures the decoder may hand over before one it decoded
  /// earlier (`AVCodecContext.has_b_frames`: its reorder depth, as far as
  /// it has seen the stream); 0 without reordering.
  public var reorderDelay: Int { Int(max(0, context.pointee.has_b_frames)) }

  /// Whether libavcodec decodes several pictures at once on frame threads
  /// (`active_thread_type & FF_THREAD_FRAME`): its errors then come back
  /// from a later `send` or `receive` than the packet's own.
  public var usesFrameThreads: Bool { context.pointee.active_thread_type & FF_THREAD_FRAME != 0 }

  /// Decoded picture format (video): width, height, pixel format name.
  public var pixelFormatName: String {
    av_get_pix_fmt_name(context.pointee.pix_fmt).map { String(cString: $0) } ?? "none"
  }

  /// Sends one packet, or `nil` to start draining (`avcodec_send_packet`).
  ///
  /// - Returns: `.accepted` when taken; `.tryAgain` when the decoder is
  ///   full and frames must be received first (the packet was not taken:
  ///   send it again after); `.endOfStream` after draining began.
  /// - Throws: `MediaIOError` for corrupt data or a decoder failure.
  public func send(_ packet: Packet?) throws(MediaIOError) -> SendResult {
    try SendResult(status: avcodec_send_packet(context, packet?.pointer), "avcodec_send_packet", label)
  }

  /// Receives the next decoded frame into `frame` (`avcodec_receive_frame`).
  public func receive(_ frame: Frame) throws(MediaIOError) -> Step {
    frame.unref()
    return try Step(status: avcodec_receive_frame(context, frame.pointer), "avcodec_receive_frame", label)
  }

  /// Filter-source arguments describing this decoder's output, for
  /// `FilterGraph` (`buffer` / `abuffer` filter options).
  public func bufferSourceArguments(for frame: Frame) -> String {
    let f = frame.pointer.pointee
    let tb = stream.timeBase
    if stream.kind == .video {
      var sar = Rational(f.sample_aspect_ratio)
      if !sar.isValid { sar = stream.sampleAspectRatio.isValid ? stream.sampleAspectRatio : Rational(1, 1) }
      return "video_size=\(f.width)x\(f.height):pix_fmt=\(f.format):time_base=\(tb.num)/\(tb.den):pixel_aspect=\(sar.num)/\(sar.den)"
    }
    var layoutName = [CChar](repeating: 0, count: 128)
    var layout = f.ch_layout
    if layout.order == AV_CHANNEL_ORDER_UNSPEC {
      av_channel_layout_default(&layout, f.ch_layout.nb_channels)
    }
    av_channel_layout_describe(&layout, &layoutName, layoutName.count)
    let layoutText = String(decoding: layoutName.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return "time_base=\(tb.num)/\(tb.den):sample_rate=\(f.sample_rate):sample_fmt=\(f.format):channel_layout=\(layoutText)"
  }
}
