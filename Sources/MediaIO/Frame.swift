internal import CFFmpeg

/// An owned `AVFrame`: one decoded picture or block of audio samples.
///
/// Ownership, stated in the API:
/// - A `Frame` is a slot its owner fills again and again: `Decoder.receive`
///   and `FilterGraph.pull` drop what it held (`unref()`) and fill it, and
///   `FilterGraph.push` moves its buffers into the graph. A frame is never
///   kept past the next refill; a keeper takes `clone()`.
/// - `clone()` returns a new frame holding a new reference to the same
///   buffers (`av_frame_ref`, what `av_frame_clone` does), `sending`: it is
///   in no one else's region, so it can be handed to another thread.
/// - Not `Sendable`: a frame crosses threads only as a `sending` value
///   (`HandOffQueue.push`), and the compiler rejects any use of it by the
///   sender afterwards.
///
/// Freed with `av_frame_free` in `deinit`.
public final class Frame {
  let pointer: UnsafeMutablePointer<AVFrame>

  /// - Throws: `MediaIOError` when `av_frame_alloc` fails (out of memory).
  public init() throws(MediaIOError) {
    guard let f = av_frame_alloc() else {
      throw .failure("av_frame_alloc", "", "out of memory")
    }
    pointer = f
  }

  deinit {
    var f: UnsafeMutablePointer<AVFrame>? = pointer
    av_frame_free(&f)
  }

  /// Drops the buffers the frame references, leaving it empty for refilling.
  public func unref() { av_frame_unref(pointer) }

  /// A new frame referencing the same buffers (`av_frame_ref`), owned by
  /// the caller alone: the buffers are shared, read-only by convention
  /// (libavfilter and libavcodec copy a buffer with other references before
  /// writing, `av_frame_make_writable`); the fields (PTS, flags) are its own.
  /// - Throws: `MediaIOError` when out of memory.
  public func clone() throws(MediaIOError) -> sending Frame {
    // New and referenced by nothing else: `av_frame_ref` only sees the raw
    // pointers (which tie it to `self` for region checking) and keeps none.
    nonisolated(unsafe) let copy = try Frame()
    try check(av_frame_ref(copy.pointer, pointer), "av_frame_ref", "")
    return copy
  }

  /// The value stored under `key` in the frame's metadata dictionary
  /// (`AVFrame.metadata`, where filters such as `ssim` leave their
  /// per-frame results, e.g. `lavfi.ssim.All`); nil when absent.
  public func metadata(_ key: String) -> String? {
    guard let entry = av_dict_get(pointer.pointee.metadata, key, nil, 0), let value = entry.pointee.value else { return nil }
    return String(cString: value)
  }

  /// Width of a picture in pixels (0 for audio).
  public var width: Int { Int(pointer.pointee.width) }
  /// Height of a picture in pixels (0 for audio).
  public var height: Int { Int(pointer.pointee.height) }
  /// Presentation timestamp in ticks of the producer's time base, nil if unknown.
  public var pts: Int64? {
    get { pointer.pointee.pts == Status.noPTS ? nil : pointer.pointee.pts }
    set { pointer.pointee.pts = newValue ?? Status.noPTS }
  }
  /// `best_effort_timestamp`: the decoder's guess when `pts` is missing.
  public var bestEffortTimestamp: Int64? {
    let t = pointer.pointee.best_effort_timestamp
    return t == Status.noPTS ? nil : t
  }
  /// How long the picture is shown, in time-base ticks, from the demuxed
  /// packet (`pkt_duration` in FFmpeg 5.1); 0 when unknown.
  public var duration: Int64 { pointer.pointee.pkt_duration }
  /// Number of audio samples per channel (0 for video).
  public var sampleCount: Int { Int(pointer.pointee.nb_samples) }
  /// Keeps only the first `count` samples per channel of an audio frame
  /// (`nb_samples` lowered; the buffers stay, the rest is ignored). An
  /// encoder with `AV_CODEC_CAP_SMALL_LAST_FRAME`, such as `aac`, takes
  /// such a short frame as its last one. `count` is clamped to 0…`sampleCount`.
  public func truncateSamples(to count: Int) {
    pointer.pointee.nb_samples = Int32(max(0, min(count, sampleCount)))
  }
  /// Sample aspect ratio of a picture (0/1 when unknown).
  public var sampleAspectRatio: Rational { Rational(pointer.pointee.sample_aspect_ratio) }
  /// The pixel format name (`av_get_pix_fmt_name`), such as `yuv420p`.
  public var pixelFormatName: String {
    guard let n = av_get_pix_fmt_name(AVPixelFormat(pointer.pointee.format)) else { return "none" }
    return String(cString: n)
  }
  /// Whether the frame is interlaced (`AVFrame.interlaced_frame`, FFmpeg 5.1).
  public var isInterlaced: Bool { pointer.pointee.interlaced_frame != 0 }

  /// Asks the encoder to code this picture as an IDR frame
  /// (`pict_type = AV_PICTURE_TYPE_I`; libx264 makes it an IDR with
  /// `forced-idr=1`), or leaves the choice to the encoder.
  public var forcesKeyframe: Bool {
    get { pointer.pointee.pict_type == AV_PICTURE_TYPE_I }
    set { pointer.pointee.pict_type = newValue ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE }
  }

  /// Calls `body` with the bytes of plane `index`: its row stride in bytes and
  /// a buffer of `stride * rows` bytes. For an 8-bit planar YUV picture plane
  /// 0 is luma with `height` rows.
  public func withPlane<R>(_ index: Int, rows: Int, _ body: (UnsafeBufferPointer<UInt8>, Int) throws -> R) rethrows -> R {
    let stride = Int(pointer.pointee.linesize.0)
    let data: UnsafeMutablePointer<UInt8>? = withUnsafePointer(to: &pointer.pointee.data) {
      $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { $0[index] }
    }
    let lines: Int32 = withUnsafePointer(to: &pointer.pointee.linesize) {
      $0.withMemoryRebound(to: Int32.self, capacity: 8) { $0[index] }
    }
    _ = stride
    guard let base = data, lines > 0 else { return try body(UnsafeBufferPointer(start: nil, count: 0), 0) }
    return try body(UnsafeBufferPointer(start: base, count: Int(lines) * rows), Int(lines))
  }
}

/// A frame is handed between threads only as a `sending` value (see `Frame`).
@available(*, unavailable)
extension Frame: Sendable {}

extension Frame {
  /// The frame's transfer characteristic (`av_color_transfer_name`), e.g.
  /// `smpte2084` (PQ), `arib-std-b67` (HLG), `bt709`, or `unknown`.
  public var colorTransferName: String {
    av_color_transfer_name(pointer.pointee.color_trc).map { String(cString: $0) } ?? "unknown"
  }
  /// The frame's matrix coefficients name (`av_color_space_name`).
  public var colorSpaceName: String {
    av_color_space_name(pointer.pointee.colorspace).map { String(cString: $0) } ?? "unknown"
  }
  /// Whether samples use the full 0–255 range (JPEG range: `color_range`
  /// `AVCOL_RANGE_JPEG` or a deprecated `yuvj*` pixel format).
  public var isFullRange: Bool {
    let f = AVPixelFormat(pointer.pointee.format)
    return pointer.pointee.color_range == AVCOL_RANGE_JPEG
      || f == AV_PIX_FMT_YUVJ420P || f == AV_PIX_FMT_YUVJ422P || f == AV_PIX_FMT_YUVJ444P || f == AV_PIX_FMT_YUVJ440P
  }
  /// The frame's colour primaries name (`av_color_primaries_name`).
  public var colorPrimariesName: String {
    av_color_primaries_name(pointer.pointee.color_primaries).map { String(cString: $0) } ?? "unknown"
  }
}
