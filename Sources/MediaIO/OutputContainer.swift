internal import CFFmpeg
import Foundation

/// A libavformat muxer writing local files (`AVFormatContext` for output).
///
/// Every container ends one of two ways, said by its owner: `finish()`
/// writes the trailer and completes the file; `abandon()` gives it up (the
/// item failed and its staging folder is discarded). Debug builds assert in
/// `deinit` that one of them ran, so an error path that forgets its
/// containers is caught in the tests. Freed in `deinit`.
public final class OutputContainer {
  let context: UnsafeMutablePointer<AVFormatContext>
  private var streamTimeBases: [Rational] = []
  private var sourceTimeBases: [Rational] = []
  private var headerWritten = false
  private var finished = false
  private var abandoned = false
  private let ownsIO: Bool
  /// Path of the main output file (the MP4, or the HLS media playlist).
  public let path: String
  /// Where the files the muxer opens itself go (nil: libavformat's `file`
  /// protocol writes them).
  public let files: MuxerFiles?

  /// Allocates a muxer.
  ///
  /// - Parameters:
  ///   - path: local output path.
  ///   - format: libavformat muxer name (`mp4`, `hls`).
  ///   - files: for a muxer that opens its own files (`hls`): hands each
  ///     file to its handler in memory before it is written.
  /// - Throws: `MediaIOError` if the muxer is unknown.
  public init(path: String, format: String, files: MuxerFiles? = nil) throws(MediaIOError) {
    self.path = path
    self.files = files
    var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
    try check(avformat_alloc_output_context2(&ctx, nil, format, path), "avformat_alloc_output_context2", path)
    guard let c = ctx else { throw .failure("avformat_alloc_output_context2", path, "no context") }
    context = c
    // Output files are only ever local files.
    c.pointee.protocol_whitelist = av_strdup("file")
    ownsIO = (c.pointee.oformat.pointee.flags & AVFMT_NOFILE) == 0
    files?.install(on: c)
  }

  /// Throws what went wrong in `files` (a handler's error, a failed write),
  /// which libavformat may have reported only as a status, or not at all.
  private func checkFiles(_ function: String) throws(MediaIOError) {
    guard let failure = files?.failure else { return }
    if let e = failure as? MediaIOError { throw e }
    throw .failure(function, path, "\(failure)")
  }

  deinit {
    assert(finished || abandoned, "OutputContainer \(path) freed without finish() or abandon()")
    if ownsIO && context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
    avformat_free_context(context)
  }

  /// Gives up an unfinished output: its owner discards what was written.
  /// Call on every error path that drops a container before `finish()`,
  /// after whoever writes to it has stopped; nothing may be written
  /// afterwards. Does nothing after `finish()` or a first `abandon()`.
  ///
  /// Once the header is written, the trailer is still written, its errors
  /// (and the handler's, `files`) ignored, so the files may look complete;
  /// they are not to be used. A muxer freed without the trailer keeps what
  /// only the trailer frees (FFmpeg 5.1's `hls` muxer leaks the open
  /// segment's dynamic buffer, a 1,344-byte `avio_open_dyn_buf` block,
  /// found by LeakSanitizer after a segment write failed).
  public func abandon() {
    guard !finished, !abandoned else { return }
    abandoned = true
    if headerWritten { _ = av_write_trailer(context) }
  }

  /// Adds a stream carrying `encoder`'s packets and returns its index.
  public func addStream(from encoder: Encoder) throws(MediaIOError) -> Int {
    guard let st = avformat_new_stream(context, nil) else {
      throw .failure("avformat_new_stream", path, "out of memory")
    }
    try check(avcodec_parameters_from_context(st.pointee.codecpar, encoder.context),
              "avcodec_parameters_from_context", path)
    st.pointee.time_base = encoder.timeBase.av
    if encoder.kind == .video {
      st.pointee.avg_frame_rate = encoder.context.pointee.framerate
      st.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
      // HEVC as `hvc1` (parameter sets in the sample entry only), which
      // Apple's players require; FFmpeg's mov muxer writes `hev1` unless told.
      if encoder.context.pointee.codec_id == AV_CODEC_ID_HEVC {
        st.pointee.codecpar.pointee.codec_tag = UInt32(UInt8(ascii: "h")) | UInt32(UInt8(ascii: "v")) << 8
          | UInt32(UInt8(ascii: "c")) << 16 | UInt32(UInt8(ascii: "1")) << 24
      }
    }
    sourceTimeBases.append(encoder.timeBase)
    return Int(st.pointee.index)
  }

  /// Opens the file and writes the header (`avformat_write_header`).
  ///
  /// - Parameter options: muxer private options such as `movflags` or
  ///   `hls_time`; any option the muxer does not use is an error.
  public func writeHeader(options: [(String, String)]) throws(MediaIOError) {
    if ownsIO {
      try check(avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE), "avio_open", path, writing: true)
    }
    var dict: OpaquePointer? = nil
    defer { av_dict_free(&dict) }
    for (k, v) in options { av_dict_set(&dict, k, v, 0) }
    let status = avformat_write_header(context, &dict)
    try checkFiles("avformat_write_header")
    try check(status, "avformat_write_header", path, writing: true)
    if let left = av_dict_get(dict, "", nil, AV_DICT_IGNORE_SUFFIX) {
      throw .failure("avformat_write_header", path, "muxer option '\(String(cString: left.pointee.key))' was not used")
    }
    headerWritten = true
    streamTimeBases = (0..<Int(context.pointee.nb_streams)).map { Rational(context.pointee.streams[$0]!.pointee.time_base) }
  }

  /// Writes a packet from an encoder to stream `stream`
  /// (`av_interleaved_write_frame`). The packet's timestamps are in the
  /// encoder's time base; they are rescaled here. The payload moves into the
  /// muxer and `packet` is left empty, for refilling (a caller writing one
  /// packet to two muxers writes a `clone()` to the first).
  public func write(_ packet: Packet, stream: Int) throws(MediaIOError) {
    packet.streamIndex = stream
    packet.rescaleTimestamps(from: sourceTimeBases[stream], to: streamTimeBases[stream])
    let status = av_interleaved_write_frame(context, packet.pointer)
    try checkFiles("av_interleaved_write_frame")
    try check(status, "av_interleaved_write_frame", path, writing: true)
  }

  /// Flushes interleaving queues and writes the trailer (`av_write_trailer`);
  /// for MP4 with `movflags=+faststart` this moves `moov` before `mdat`.
  ///
  /// Also ends a container whose header was never written (nothing to
  /// complete). Does nothing after `abandon()` or a first `finish()`.
  /// - Throws: `MediaIOError` when the trailer cannot be written, or what
  ///   `files`' handler threw; the container then counts as finished.
  public func finish() throws(MediaIOError) {
    guard !finished, !abandoned else { return }
    finished = true
    guard headerWritten else { return }
    let status = av_write_trailer(context)
    try checkFiles("av_write_trailer")
    try check(status, "av_write_trailer", path, writing: true)
    if ownsIO { avio_closep(&context.pointee.pb) }
  }
}

extension OutputContainer {
  /// Muxer options that make the output start at 0 in every player, with
  /// or without edit lists; pass them to `writeHeader` (added to the
  /// caller's options). `fragmented` selects the `hls` muxer's form
  /// (fMP4 segments), otherwise the `mp4` muxer's (with `+faststart`).
  ///
  /// What the file then says (ISO/IEC 14496-12):
  /// - Video: decode times start at 0 and the composition offsets are
  ///   signed (`ctts` / `trun` version 1, the mov muxer's
  ///   `negative_cts_offsets`, §8.6.1.3 and §8.8.8), so the first picture's
  ///   composition time is 0 itself: no edit has to shift it, and a player
  ///   that ignores edit lists shows it at 0 too. The video edit list is
  ///   one entry starting at media time 0; there is no empty edit
  ///   (`media_time` −1), which delayed the video by the B-frame reorder
  ///   delay (2 pictures, 33–83 ms) in the HLS init segment.
  /// - Audio: one edit whose `media_time` is the AAC encoder delay (1024
  ///   samples for libavcodec's `aac`, its `initial_padding`), so players
  ///   that honour edit lists (AVPlayer, and FFmpeg) skip the priming
  ///   samples: the mechanism of Apple's QuickTime File Format, Appendix G
  ///   ("Audio Priming – Handling Encoder Delay in AAC"); in a fragmented
  ///   file the edit's `segment_duration` is 0 ("the rest of the media",
  ///   §8.6.6). A player that ignores edit lists plays the 1024 priming
  ///   samples first, so its sound starts 21.3 ms (at 48 kHz) late: under
  ///   one picture. The non-fragmented MP4 also carries the `roll` sample
  ///   group (`sgpd`/`sbgp`, roll distance −1) of that appendix; FFmpeg
  ///   5.1 writes it only in non-fragmented files. In the HLS renditions
  ///   Marquee then moves the sound's media timeline one sample later
  ///   (`media_time` and every `tfdt` together, so nothing presented moves;
  ///   MarqueeKit's `AudioDecodeDelay`): with both tracks decoded from 0,
  ///   Chromium's HLS player started its presentation at the priming frame.
  /// - `avoid_negative_ts=disabled`: the `hls` muxer is not flagged
  ///   `AVFMT_TS_NEGATIVE`, so libavformat would otherwise shift every
  ///   packet by the video's first negative DTS before handing it to the
  ///   fMP4 sub-muxer; that shift is what became the empty edits. The
  ///   `mp4` muxer accepts negative timestamps (it writes them as edits),
  ///   so the option only makes its default explicit.
  ///
  /// A reader note: FFmpeg 5.1's mov demuxer reads a *fragmented* track
  /// with negative offsets as PTS = DTS + offset + the largest negative
  /// offset seen (`dts_shift`, libavformat/mov.c), so ffprobe reports such
  /// a track's first picture one reorder step late; ISO/IEC 14496-12
  /// §8.8.8 defines the composition time as decode time + offset, which is
  /// 0 here. Non-fragmented files are read at 0.
  public static func startAtZeroOptions(fragmented: Bool) -> [(String, String)] {
    if fragmented {
      return [("avoid_negative_ts", "disabled"), ("hls_segment_options", "movflags=+negative_cts_offsets")]
    }
    return [("avoid_negative_ts", "disabled"), ("movflags", "+faststart+negative_cts_offsets")]
  }

  /// Tags stream `stream` with a display matrix that turns it `degrees`
  /// clockwise on display (`av_display_rotation_set`, stored as
  /// `AV_PKT_DATA_DISPLAYMATRIX` side data; the MP4 muxer writes it into
  /// `tkhd`). Call before `writeHeader`.
  public func setDisplayRotation(stream: Int, clockwiseDegrees degrees: Int) throws(MediaIOError) {
    guard let st = context.pointee.streams[stream],
          let raw = av_stream_new_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, 36) else {
      throw .failure("av_stream_new_side_data", path, "cannot add a display matrix")
    }
    raw.withMemoryRebound(to: Int32.self, capacity: 9) {
      // FFmpeg 5.1's av_display_rotation_set(m, θ) writes a matrix that
      // av_display_rotation_get reads back as −θ (ffprobe's `rotation`), and
      // a negative `rotation` is a clockwise turn on display.
      av_display_rotation_set($0, Double(degrees))
    }
  }
}
