internal import CFFmpeg
import Foundation

/// Settings for an H.264 encode through libavcodec's libx264 wrapper, or
/// an HEVC one through its libx265 wrapper (`codec`).
///
/// Two rate-control modes: average bit rate (`crf == nil`: `bitRate` under
/// the VBV `maxRate`/`bufferSize`), or capped CRF (`crf` set: x264's
/// constant rate factor decides how many bits each picture takes, and the
/// VBV caps the peaks; `bitRate` is then unused).
public struct VideoEncoderSettings: Sendable {
  /// Output picture size in pixels; both even (4:2:0 chroma).
  public var width: Int
  public var height: Int
  /// Constant output frame rate, frames per second. The encoder time base is
  /// its inverse, so every frame has a distinct integer PTS.
  public var frameRate: Rational
  /// Target average bit rate in bits per second (average-bit-rate mode only).
  public var bitRate: Int
  /// Peak bit rate (VBV `maxrate`) in bits per second.
  public var maxRate: Int
  /// VBV buffer size in bits.
  public var bufferSize: Int
  /// Longest GOP in frames; IDRs are also forced at segment boundaries.
  public var gopLength: Int
  /// x264 preset (`veryfast`, `medium`, …).
  public var preset: String
  /// Encoder threads (0 = libx264's choice).
  public var threads: Int
  /// x264 constant rate factor (`crf`, 1–51; lower is better quality and
  /// more bytes), or nil for average-bit-rate mode.
  public var crf: Double?
  /// Bits in the VBV buffer when the stream starts (x264 `vbv-init` as a
  /// fraction of `bufferSize`); nil keeps x264's default of 90 %. With
  /// `maxRate`, it bounds the bytes of the first `t` seconds to
  /// `initialBufferOccupancy + maxRate × t` bits.
  public var initialBufferOccupancy: Int?
  /// Most consecutive B-frames (x264 `bframes`).
  public var bFrames: Int
  /// More x264 options, each `key=value`, added to `x264-params` in order
  /// (after the fixed `scenecut=0:open-gop=0`, which they must not change).
  public var x264Options: [String]
  /// Which encoder: libx264 (`x264Options`) or libx265 (`x265Options`).
  public var codec: VideoCodec = .h264
  /// More x265 options, each `key=value`, added to `x265-params` in order
  /// after the fixed ones (`Encoder.init(video:)`), for `codec` `.hevc`.
  public var x265Options: [String] = []

  public init(width: Int, height: Int, frameRate: Rational, bitRate: Int, maxRate: Int, bufferSize: Int,
              gopLength: Int, preset: String = "veryfast", threads: Int = 0, crf: Double? = nil,
              initialBufferOccupancy: Int? = nil, bFrames: Int = 2, x264Options: [String] = []) {
    self.width = width
    self.height = height
    self.frameRate = frameRate
    self.bitRate = bitRate
    self.maxRate = maxRate
    self.bufferSize = bufferSize
    self.gopLength = gopLength
    self.preset = preset
    self.threads = threads
    self.crf = crf
    self.initialBufferOccupancy = initialBufferOccupancy
    self.bFrames = bFrames
    self.x264Options = x264Options
  }
}

/// Settings for an AAC-LC encode with libavcodec's native `aac` encoder.
public struct AudioEncoderSettings: Sendable {
  /// Sample rate in Hz (48000).
  public var sampleRate: Int
  /// 1 (mono) or 2 (stereo).
  public var channels: Int
  /// Bit rate in bits per second.
  public var bitRate: Int
  public init(sampleRate: Int = 48_000, channels: Int = 2, bitRate: Int = 128_000) {
    self.sampleRate = sampleRate
    self.channels = channels
    self.bitRate = bitRate
  }
}

/// A libavcodec encoder (`AVCodecContext`), freed in `deinit`.
public final class Encoder {
  let context: UnsafeMutablePointer<AVCodecContext>
  /// Which kind of stream it produces.
  public let kind: MediaKind
  /// Seconds per tick of the PTS of frames sent and packets received.
  public let timeBase: Rational
  let label: String

  /// Opens libx264 for 8-bit 4:2:0 (`yuv420p`) High profile, BT.709 tagged,
  /// closed GOPs and no scene-cut keyframes, so IDRs fall only where
  /// `Frame.forcesKeyframe` asks and at `gopLength` (Apple HLS authoring
  /// spec 1.13 and 7.4). The level is libx264's choice: the lowest one the
  /// picture size, frame rate, VBV and reference frames fit in. libx264
  /// uses every instruction set it detects except AVX-512
  /// (`X264Capabilities`), so the bytes depend only on the pictures.
  ///
  /// - Throws: `MediaIOError` when libx264 is missing, refuses the settings,
  ///   or leaves an option unused.
  ///
  /// With `s.codec` `.hevc`, opens libx265 instead (`openHEVC`).
  public init(video s: VideoEncoderSettings) throws(MediaIOError) {
    kind = .video
    label = "\(s.codec.encoderName) \(s.width)x\(s.height)"
    let (codec, ctx) = try Encoder.context(for: s.codec.encoderName, label: label,
                                           missing: "\(s.codec.encoderName) is not available in this libavcodec")
    context = ctx
    timeBase = Rational(s.frameRate.den, s.frameRate.num)
    ctx.pointee.width = Int32(s.width)
    ctx.pointee.height = Int32(s.height)
    ctx.pointee.pix_fmt = AV_PIX_FMT_YUV420P
    ctx.pointee.time_base = timeBase.av
    ctx.pointee.framerate = s.frameRate.av
    ctx.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
    // Capped CRF: no average target (libx264 would switch to ABR), only
    // the VBV cap.
    ctx.pointee.bit_rate = s.crf == nil ? Int64(s.bitRate) : 0
    ctx.pointee.rc_max_rate = Int64(s.maxRate)
    ctx.pointee.rc_buffer_size = Int32(s.bufferSize)
    if let occupancy = s.initialBufferOccupancy {
      ctx.pointee.rc_initial_buffer_occupancy = Int32(min(occupancy, s.bufferSize))
    }
    ctx.pointee.gop_size = Int32(s.gopLength)
    ctx.pointee.keyint_min = Int32(min(s.gopLength, 25))
    ctx.pointee.max_b_frames = Int32(s.bFrames)
    ctx.pointee.thread_count = Int32(s.threads)
    ctx.pointee.color_primaries = AVCOL_PRI_BT709
    ctx.pointee.color_trc = AVCOL_TRC_BT709
    ctx.pointee.colorspace = AVCOL_SPC_BT709
    ctx.pointee.color_range = AVCOL_RANGE_MPEG
    ctx.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) | Int32(bitPattern: AV_CODEC_FLAG_CLOSED_GOP)
    if s.codec == .hevc {
      try Encoder.openHEVC(ctx, codec, s, label)
      return
    }
    var options: OpaquePointer? = nil
    defer { av_dict_free(&options) }
    av_dict_set(&options, "preset", s.preset, 0)
    av_dict_set(&options, "profile", "high", 0)
    if let crf = s.crf { av_dict_set(&options, "crf", String(format: "%.2f", crf), 0) }
    // No scene-cut IDRs; forced I frames become IDRs; no open GOPs. No
    // AVX-512: its macroblock-tree code reads memory nothing wrote
    // (`X264Capabilities`), so the bytes would depend on the heap.
    let cpu = X264Capabilities.parameter.map { [$0] } ?? []
    let params = (["scenecut=0", "open-gop=0"] + s.x264Options + cpu).joined(separator: ":")
    av_dict_set(&options, "x264-params", params, 0)
    av_dict_set(&options, "forced-idr", "1", 0)
    try Encoder.open(ctx, codec, &options, label)
  }

  /// Opens libx265 on a context `init(video:)` set up: Main profile, 8-bit
  /// 4:2:0, BT.709, closed GOPs (`open-gop=0`), no scene-cut keyframes
  /// (`scenecut=0`), forced I pictures coded as IDRs (`forced-idr`), the
  /// VBV from the context (`rc_max_rate`, `rc_buffer_size`; libavcodec
  /// passes them in kbit/s) and `vbv-init` from `initialBufferOccupancy`.
  ///
  /// One thread, whatever `threads` says: `pools=none` (no worker pool, so
  /// no wavefront rows in parallel), `frame-threads=1` and
  /// `lookahead-slices=0`. libx265's frame threads code a picture while
  /// its references are still being coded, and its rate control then reads
  /// estimates whose values depend on timing; one thread gives the same
  /// bytes on every run and machine. Parallelism comes from the renditions
  /// encoded side by side, as for libx264.
  private static func openHEVC(_ ctx: UnsafeMutablePointer<AVCodecContext>, _ codec: UnsafePointer<AVCodec>,
                               _ s: VideoEncoderSettings, _ label: String) throws(MediaIOError) {
    ctx.pointee.thread_count = 1
    var options: OpaquePointer? = nil
    defer { av_dict_free(&options) }
    av_dict_set(&options, "preset", s.preset, 0)
    av_dict_set(&options, "profile", "main", 0)
    if let crf = s.crf { av_dict_set(&options, "crf", String(format: "%.2f", crf), 0) }
    var params = ["pools=none", "frame-threads=1", "lookahead-slices=0", "scenecut=0", "open-gop=0",
                  "log-level=error", "info=0"]
    if let occupancy = s.initialBufferOccupancy, s.bufferSize > 0 {
      params.append(String(format: "vbv-init=%.4f", Double(min(occupancy, s.bufferSize)) / Double(s.bufferSize)))
    }
    av_dict_set(&options, "x265-params", (params + s.x265Options).joined(separator: ":"), 0)
    av_dict_set(&options, "forced-idr", "1", 0)
    try Encoder.open(ctx, codec, &options, label)
  }

  /// Opens the native AAC encoder, AAC-LC, planar float input.
  public init(audio s: AudioEncoderSettings) throws(MediaIOError) {
    kind = .audio
    label = "aac \(s.sampleRate) Hz \(s.channels) ch"
    let (codec, ctx) = try Encoder.context(for: "aac", label: label, missing: "AAC encoder missing")
    context = ctx
    timeBase = Rational(1, Int32(s.sampleRate))
    ctx.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
    ctx.pointee.sample_rate = Int32(s.sampleRate)
    av_channel_layout_default(&ctx.pointee.ch_layout, Int32(s.channels))
    ctx.pointee.bit_rate = Int64(s.bitRate)
    ctx.pointee.time_base = timeBase.av
    ctx.pointee.profile = FF_PROFILE_AAC_LOW
    ctx.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)
    var options: OpaquePointer? = nil
    defer { av_dict_free(&options) }
    try Encoder.open(ctx, codec, &options, label)
  }

  /// The libavcodec encoder called `name` and a fresh context for it
  /// (`avcodec_find_encoder_by_name`, `avcodec_alloc_context3`); the caller
  /// owns the context.
  ///
  /// - Throws: `MediaIOError` saying `missing` when this libavcodec has no
  ///   such encoder, or "out of memory" under `label` when no context could
  ///   be allocated.
  private static func context(for name: String, label: String, missing: String) throws(MediaIOError)
    -> (UnsafePointer<AVCodec>, UnsafeMutablePointer<AVCodecContext>)
  {
    guard let codec = avcodec_find_encoder_by_name(name) else {
      throw .failure("avcodec_find_encoder_by_name", name, missing)
    }
    guard let ctx = avcodec_alloc_context3(codec) else { throw .failure("avcodec_alloc_context3", label, "out of memory") }
    return (codec, ctx)
  }

  private static func open(_ ctx: UnsafeMutablePointer<AVCodecContext>, _ codec: UnsafePointer<AVCodec>,
                           _ options: inout OpaquePointer?, _ label: String) throws(MediaIOError) {
    try check(avcodec_open2(ctx, codec, &options), "avcodec_open2", label)
    if let left = av_dict_get(options, "", nil, AV_DICT_IGNORE_SUFFIX) {
      throw .failure("avcodec_open2", label, "option '\(String(cString: left.pointee.key))' was not used")
    }
  }

  deinit {
    var c: UnsafeMutablePointer<AVCodecContext>? = context
    avcodec_free_context(&c)
  }

  /// Samples per channel the audio encoder takes per frame (1024 for AAC).
  public var frameSize: Int { Int(context.pointee.frame_size) }

  /// The H.264 profile_idc and level_idc of the encoded stream, read from
  /// the SPS in the encoder's extradata (ISO/IEC 14496-10 7.3.2.1.1);
  /// nil for other codecs or when no SPS is found.
  public var h264ProfileAndLevel: (profile: UInt8, constraints: UInt8, level: UInt8)? {
    guard kind == .video, let data = context.pointee.extradata, context.pointee.extradata_size > 4 else { return nil }
    let n = Int(context.pointee.extradata_size)
    let bytes = UnsafeBufferPointer(start: data, count: n)
    if bytes[0] == 1 { return (bytes[1], bytes[2], bytes[3]) }  // avcC
    var i = 0
    while i + 4 < n {  // Annex B: find a NAL of type 7 (SPS)
      if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 {
        if bytes[i + 3] & 0x1F == 7 && i + 6 < n { return (bytes[i + 4], bytes[i + 5], bytes[i + 6]) }
        i += 3
      } else {
        i += 1
      }
    }
    return nil
  }

  /// The `profile_tier_level` of the SPS libx265 wrote into the encoder's
  /// extradata (its `codecs` is the RFC 6381 `CODECS` value); nil for
  /// other codecs or when no SPS is found.
  public var hevcParameterSets: HEVCParameterSets? {
    guard kind == .video, context.pointee.codec_id == AV_CODEC_ID_HEVC, let data = context.pointee.extradata,
          context.pointee.extradata_size > 4 else { return nil }
    let bytes = Array(UnsafeBufferPointer(start: data, count: Int(context.pointee.extradata_size)))
    return HEVCParameterSets(annexB: bytes)
  }

  /// Sends a frame (its PTS in `timeBase` ticks), or `nil` to say the input
  /// ended so the encoder drains (`avcodec_send_frame`). A frame taken is
  /// referenced by the encoder; the caller's `frame` stays its own.
  ///
  /// - Returns: `.accepted` when taken; `.tryAgain` when the encoder is
  ///   full and did not take it (receive packets, then send it again);
  ///   `.endOfStream` when the encoder was already told the input ended.
  /// - Throws: `MediaIOError` when libx264 or `aac` refuses the frame.
  public func send(_ frame: Frame?) throws(MediaIOError) -> SendResult {
    try SendResult(status: avcodec_send_frame(context, frame?.pointer), "avcodec_send_frame", label)
  }

  /// Receives the next packet (timestamps in `timeBase` ticks).
  public func receive(_ packet: Packet) throws(MediaIOError) -> Step {
    packet.unref()
    let step = try Step(status: avcodec_receive_packet(context, packet.pointer), "avcodec_receive_packet", label)
    if step == .produced { packet.timeBase = timeBase }
    return step
  }
}

extension Encoder {
  /// Samples per channel of silence an audio encoder puts before the first
  /// real sample (`initial_padding`; 1024 for libavcodec's `aac`), which
  /// the muxers hide behind an edit list; 0 for video.
  public var encoderDelay: Int { kind == .audio ? Int(context.pointee.initial_padding) : 0 }
}
