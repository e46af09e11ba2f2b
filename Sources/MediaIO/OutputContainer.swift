internal import CFFmpeg
import Foundation

/// A libavformat muxer writing local files (`AVFormatContext` for output).
///
/// Call `finish()` to write the trailer; without it the file is incomplete
/// and the caller's staging folder is discarded. Freed in `deinit`.
public final class OutputContainer {
  let context: UnsafeMutablePointer<AVFormatContext>
  private var streamTimeBases: [Rational] = []
  private var sourceTimeBases: [Rational] = []
  private var headerWritten = false
  private var finished = false
  private let ownsIO: Bool
  /// Path of the main output file (the MP4, or the HLS media playlist).
  public let path: String

  /// Allocates a muxer.
  ///
  /// - Parameters:
  ///   - path: local output path.
  ///   - format: libavformat muxer name (`mp4`, `hls`).
  /// - Throws: `MediaIOError` if the muxer is unknown.
  public init(path: String, format: String) throws(MediaIOError) {
    self.path = path
    var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
    try check(avformat_alloc_output_context2(&ctx, nil, format, path), "avformat_alloc_output_context2", path)
    guard let c = ctx else { throw .failure("avformat_alloc_output_context2", path, "no context") }
    context = c
    // Output files are only ever local files.
    c.pointee.protocol_whitelist = av_strdup("file")
    ownsIO = (c.pointee.oformat.pointee.flags & AVFMT_NOFILE) == 0
  }

  deinit {
    if ownsIO && context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
    avformat_free_context(context)
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
      try check(avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE), "avio_open", path)
    }
    var dict: OpaquePointer? = nil
    defer { av_dict_free(&dict) }
    for (k, v) in options { av_dict_set(&dict, k, v, 0) }
    try check(avformat_write_header(context, &dict), "avformat_write_header", path)
    if let left = av_dict_get(dict, "", nil, AV_DICT_IGNORE_SUFFIX) {
      throw .failure("avformat_write_header", path, "muxer option '\(String(cString: left.pointee.key))' was not used")
    }
    headerWritten = true
    streamTimeBases = (0..<Int(context.pointee.nb_streams)).map { Rational(context.pointee.streams[$0]!.pointee.time_base) }
  }

  /// Writes a packet from an encoder to stream `stream`
  /// (`av_interleaved_write_frame`). The packet's timestamps are in the
  /// encoder's time base; they are rescaled here. The packet is consumed.
  public func write(_ packet: Packet, stream: Int) throws(MediaIOError) {
    packet.streamIndex = stream
    packet.rescaleTimestamps(from: sourceTimeBases[stream], to: streamTimeBases[stream])
    try check(av_interleaved_write_frame(context, packet.pointer), "av_interleaved_write_frame", path)
  }

  /// Flushes interleaving queues and writes the trailer (`av_write_trailer`);
  /// for MP4 with `movflags=+faststart` this moves `moov` before `mdat`.
  public func finish() throws(MediaIOError) {
    guard headerWritten, !finished else { return }
    finished = true
    try check(av_write_trailer(context), "av_write_trailer", path)
    if ownsIO { avio_closep(&context.pointee.pb) }
  }
}

extension OutputContainer {
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
