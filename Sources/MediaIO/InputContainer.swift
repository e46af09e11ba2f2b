internal import CFFmpeg
import Foundation

/// What kind of media a stream carries.
public enum MediaKind: Sendable, Equatable {
  case video, audio, other
}

/// The facts about one input stream that the pipeline plans from.
public struct StreamInfo: Sendable {
  /// Index in the container.
  public var index: Int
  public var kind: MediaKind
  /// libavcodec's codec name, such as `h264`, `hevc`, `aac`.
  public var codecName: String
  /// Seconds per timestamp tick of this stream's packets.
  public var timeBase: Rational
  /// Coded picture width and height in pixels (video).
  public var width: Int
  public var height: Int
  /// Sample aspect ratio (video); 0/1 when unknown (treated as 1:1).
  public var sampleAspectRatio: Rational
  /// Average frame rate (`avg_frame_rate`: frames ÷ duration) in frames
  /// per second; 0/0 when unknown.
  public var frameRate: Rational
  /// The container's base rate (`r_frame_rate`: the lowest rate all
  /// timestamps fit), frames per second; meaningless for some VFR files.
  public var baseFrameRate: Rational
  /// How the display matrix (`AV_PKT_DATA_DISPLAYMATRIX` stream side data,
  /// the ISO BMFF `tkhd` matrix) turns stored pixels into displayed ones.
  public var orientation: DisplayTransform
  /// Audio sample rate in Hz and channel count.
  public var sampleRate: Int
  public var channels: Int
  /// Stream duration in seconds, when the container states one.
  public var duration: Double?
  /// The stream's first timestamp in seconds (`AVStream.start_time`), when known.
  public var startTime: Double? = nil
  /// How many frames the container's header says the stream holds
  /// (`AVStream.nb_frames`: an AVI stream header's length, an MP4 track's
  /// sample count); 0 when it does not say.
  public var frameCount: Int = 0
  /// Colour signalling from codec parameters: transfer characteristic name
  /// (`smpte2084` for PQ, `arib-std-b67` for HLG), primaries, matrix.
  public var colorTransfer: String
  public var colorPrimaries: String
  public var colorSpace: String
  /// Whether this stream is an attached picture (cover art), not real video.
  public var isAttachedPicture: Bool
}

/// Limits checked when an untrusted source is opened.
public struct InputLimits: Sendable {
  /// Largest accepted file size in bytes.
  public var maxFileSize: Int64
  /// Largest accepted picture, width × height.
  public var maxPixels: Int
  /// Longest accepted duration in seconds.
  public var maxDuration: Double
  public init(maxFileSize: Int64 = 2 << 30, maxPixels: Int = 40_000_000, maxDuration: Double = 600) {
    self.maxFileSize = maxFileSize
    self.maxPixels = maxPixels
    self.maxDuration = maxDuration
  }
}

extension InputLimits {
  /// Opens an untrusted source and checks it before anything reads it
  /// (`ReadableFile`: never blocking on a FIFO, a regular file only, a
  /// symbolic link followed to what it names: a content team's media
  /// folder may be a link), then that it is not empty and is within
  /// `maxFileSize`. Shared by video and image inputs.
  ///
  /// - Returns: the opened file.
  /// - Throws: `MediaIOError` with function `open` or `stat`, or `limit`
  ///   naming the limit and the value.
  public func openSourceFile(atPath path: String) throws(MediaIOError) -> ReadableFile {
    let file = try ReadableFile.open(path: path)
    try check(file)
    return file
  }

  /// Checks an opened file's size: not empty, within `maxFileSize`.
  ///
  /// - Throws: `MediaIOError` with function `stat` (empty) or `limit`.
  public func check(_ file: ReadableFile) throws(MediaIOError) {
    if file.size == 0 { throw .failure("stat", file.name, "file is empty", kind: .input(errno: 0)) }
    if file.size > maxFileSize {
      throw .limit(file.name, "file is \(file.size) bytes, over the max_file_size limit of \(maxFileSize) bytes")
    }
  }
}

/// An opened media file: an `AVFormatContext` restricted to local files and
/// to an allow-list of container formats. Closed with `avformat_close_input`.
public final class InputContainer {
  /// Container formats (libavformat short names) accepted for video sources.
  /// Playlist and concat demuxers (`hls`, `concat`, `ffconcat`, …) and
  /// network/device inputs are never on it: they would follow references
  /// inside an untrusted file.
  public static let videoFormats = [
    "mov", "mp4", "m4a", "3gp", "3g2", "mj2", "matroska", "webm", "avi", "mpegts",
    "mpeg", "flv", "gif", "m4v", "asf", "ogg", "mxf",
  ]
  /// Demuxers accepted for still and animated images: the `*_pipe`
  /// demuxers, which recognise a format by its content and read one file.
  /// `image2` is not on it: it picks a decoder by file name and expands a
  /// name like `img%d.bmp` into a sequence of other files.
  public static let imageFormats = [
    "jpeg_pipe", "png_pipe", "webp_pipe", "gif", "bmp_pipe", "tiff_pipe",
  ]

  let context: UnsafeMutablePointer<AVFormatContext>
  /// The custom I/O the demuxer reads through, and what it reads.
  private var io: UnsafeMutablePointer<AVIOContext>?
  private let reader: ByteReader
  /// The path this container was opened from.
  public let path: String
  /// The demuxer's short name, such as `mov,mp4,m4a,3gp,3g2,mj2`.
  public let formatName: String
  /// Every stream in the container.
  public let streams: [StreamInfo]

  /// Opens and probes a local file (`ReadableFile.open(path:)`: a regular
  /// file, a symbolic link followed).
  ///
  /// - Parameters:
  ///   - path: a local file path (not a URL).
  ///   - allowedFormats: demuxer short names accepted; the probed format must
  ///     be one of them (`format_whitelist`).
  ///   - limits: size is checked before opening; pixel and duration limits
  ///     after probing.
  /// - Throws: `MediaIOError` when the file is missing, not a regular file,
  ///   too large, of a format not allowed, unreadable, or beyond a limit;
  ///   `truncated` when an MP4 is cut before its index, `invalidData` when
  ///   no container is recognised (`diagnoseInvalidData`).
  public convenience init(path: String, allowedFormats: [String], limits: InputLimits = InputLimits()) throws(MediaIOError) {
    let file = try limits.openSourceFile(atPath: path)
    try self.init(reader: ByteReader(.file(file)), path: path, allowedFormats: allowedFormats, limits: limits)
  }

  /// Opens and probes an already opened file (see `init(path:…)`).
  public convenience init(file: ReadableFile, path: String, allowedFormats: [String], limits: InputLimits = InputLimits()) throws(MediaIOError) {
    try limits.check(file)
    try self.init(reader: ByteReader(.file(file)), path: path, allowedFormats: allowedFormats, limits: limits)
  }

  /// Opens and probes bytes in memory; `name` stands for the file in
  /// messages.
  public convenience init(data: Data, name: String, allowedFormats: [String], limits: InputLimits = InputLimits()) throws(MediaIOError) {
    guard !data.isEmpty else { throw .failure("stat", name, "file is empty", kind: .input(errno: 0)) }
    try self.init(reader: ByteReader(.memory(data)), path: name, allowedFormats: allowedFormats, limits: limits)
  }

  /// libavformat reads only through `reader` (a custom `AVIOContext`), and
  /// the context's `io_open` refuses every other file, so no demuxer can
  /// follow a reference inside an untrusted file to another one.
  private init(reader: ByteReader, path: String, allowedFormats: [String], limits: InputLimits) throws(MediaIOError) {
    self.path = path
    self.reader = reader
    let name = (path as NSString).lastPathComponent

    var options: OpaquePointer? = nil
    av_dict_set(&options, "format_whitelist", allowedFormats.joined(separator: ","), 0)
    defer { av_dict_free(&options) }
    var ctx: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
    guard let allocated = ctx, let pb = ByteReader.makeContext(reader) else {
      avformat_free_context(ctx)
      throw .failure("avformat_alloc_context", name, "out of memory")
    }
    var ownedIO: UnsafeMutablePointer<AVIOContext>? = pb
    io = pb
    allocated.pointee.pb = pb
    allocated.pointee.io_open = { _, _, _, _, _ in marquee_AVERROR(EPERM) }
    // The file name helps libavformat's probe tell containers apart, but
    // pictures are recognised by content alone: image2's probe would win
    // on a `.jpg` or `.bmp` extension (and image2 is never allowed).
    let picturesOnly = !Set(allowedFormats).isDisjoint(with: ["jpeg_pipe", "png_pipe", "webp_pipe", "bmp_pipe", "tiff_pipe"])
    let status = avformat_open_input(&ctx, picturesOnly ? "" : name, nil, &options)
    guard status >= 0, let opened = ctx else {
      // avformat_open_input freed the context; the custom I/O is ours.
      ByteReader.freeContext(&ownedIO)
      if status == marquee_AVERROR(EINVAL) {
        if reader.looksLikeAnnexB {
          throw .failure("avformat_open_input", name,
                         "is a raw H.264/HEVC elementary stream, with no timestamps or duration to check; wrap it in MP4 first (ffmpeg -i \(name) -c copy out.mp4)", kind: .unsupported)
        }
        // The probed format is not on the allow-list (a playlist, a concat
        // list, a picture where a video is expected, …).
        throw .failure("avformat_open_input", name,
                       "not a container format accepted here (accepted: \(allowedFormats.joined(separator: ", ")))", kind: .unsupported)
      }
      if status == marquee_AVERROR_INVALIDDATA(),
         let diagnosis = InputContainer.diagnoseInvalidData(reader, function: "avformat_open_input", name: name) {
        throw diagnosis
      }
      throw MediaIOError(status: status, function: "avformat_open_input", context: name)
    }
    context = opened
    let fmt = opened.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "unknown"
    formatName = fmt
    let probe = avformat_find_stream_info(opened, nil)
    if probe < 0 {
      var c: UnsafeMutablePointer<AVFormatContext>? = opened
      avformat_close_input(&c)
      ByteReader.freeContext(&ownedIO)
      if probe == marquee_AVERROR_INVALIDDATA(),
         let diagnosis = InputContainer.diagnoseInvalidData(reader, function: "avformat_find_stream_info", name: name) {
        throw diagnosis
      }
      throw MediaIOError(status: probe, function: "avformat_find_stream_info", context: name)
    }
    var infos: [StreamInfo] = []
    for i in 0..<Int(opened.pointee.nb_streams) {
      guard let s = opened.pointee.streams[i] else { continue }
      infos.append(InputContainer.describe(s, index: i))
    }
    streams = infos
    for s in infos where s.kind == .video && !s.isAttachedPicture {
      if s.width * s.height > limits.maxPixels {
        throw .limit(name, "picture is \(s.width)x\(s.height) = \(s.width * s.height) pixels, over the max_pixels limit of \(limits.maxPixels)")
      }
    }
    if let d = duration, d > limits.maxDuration {
      throw .limit(name, String(format: "duration is %.1f s, over the max_duration limit of %.0f s", d, limits.maxDuration))
    }
  }

  deinit {
    var c: UnsafeMutablePointer<AVFormatContext>? = context
    avformat_close_input(&c)
    ByteReader.freeContext(&io)
  }

  /// The container's duration in seconds, if it states one.
  public var duration: Double? {
    let d = context.pointee.duration
    return d == Status.noPTS || d <= 0 ? nil : Double(d) / Double(AV_TIME_BASE)
  }

  /// Whether libavformat estimated `duration` from the file size and bit
  /// rate (`AVFMT_DURATION_FROM_BITRATE`) rather than read it from the
  /// container or from the timestamps: such a duration is a guess.
  public var durationIsEstimated: Bool {
    av_fmt_ctx_get_duration_estimation_method(context) == AVFMT_DURATION_FROM_BITRATE
  }

  /// The container's start time in seconds (0 when unknown).
  public var startTime: Double {
    let s = context.pointee.start_time
    return s == Status.noPTS ? 0 : Double(s) / Double(AV_TIME_BASE)
  }

  /// The stream libavformat considers best for `kind` (`av_find_best_stream`),
  /// skipping attached pictures.
  public func bestStream(_ kind: MediaKind) -> StreamInfo? {
    let type: AVMediaType = kind == .video ? AVMEDIA_TYPE_VIDEO : AVMEDIA_TYPE_AUDIO
    let i = av_find_best_stream(context, type, -1, -1, nil, 0)
    guard i >= 0, Int(i) < streams.count, !streams[Int(i)].isAttachedPicture else {
      return streams.first { $0.kind == kind && !$0.isAttachedPicture }
    }
    return streams[Int(i)]
  }

  /// Tells the demuxer to drop packets of every stream not in `indices`
  /// (`AVDISCARD_ALL`), saving the read of unused tracks.
  public func keepOnly(_ indices: Set<Int>) {
    for i in 0..<Int(context.pointee.nb_streams) {
      context.pointee.streams[i]?.pointee.discard = indices.contains(i) ? AVDISCARD_DEFAULT : AVDISCARD_ALL
    }
  }

  /// Reads the next packet into `packet` (`av_read_frame`).
  ///
  /// - Returns: false at the end of the file.
  /// - Throws: `MediaIOError` for a read or demux error.
  public func read(into packet: Packet) throws(MediaIOError) -> Bool {
    packet.unref()
    let status = av_read_frame(context, packet.pointer)
    if status == Status.eof { return false }
    try check(status, "av_read_frame", (path as NSString).lastPathComponent)
    if let s = context.pointee.streams[packet.streamIndex] {
      packet.timeBase = Rational(s.pointee.time_base)
    }
    return true
  }

  /// Seeks to the keyframe at or before `seconds` (`avformat_seek_file`).
  public func seek(toSeconds seconds: Double) throws(MediaIOError) {
    let ts = Int64(seconds * Double(AV_TIME_BASE))
    try check(avformat_seek_file(context, -1, Int64.min, ts, ts, 0), "avformat_seek_file",
              (path as NSString).lastPathComponent)
  }

  func stream(_ index: Int) -> UnsafeMutablePointer<AVStream>? {
    guard index >= 0, index < Int(context.pointee.nb_streams) else { return nil }
    return context.pointee.streams[index]
  }

  static func describe(_ s: UnsafeMutablePointer<AVStream>, index: Int) -> StreamInfo {
    let par = s.pointee.codecpar!
    let kind: MediaKind
    switch par.pointee.codec_type {
    case AVMEDIA_TYPE_VIDEO: kind = .video
    case AVMEDIA_TYPE_AUDIO: kind = .audio
    default: kind = .other
    }
    let codec = avcodec_get_name(par.pointee.codec_id).map { String(cString: $0) } ?? "unknown"
    let rate = Rational(s.pointee.avg_frame_rate)
    var sar = Rational(par.pointee.sample_aspect_ratio)
    if !sar.isValid { sar = Rational(s.pointee.sample_aspect_ratio) }
    let tb = Rational(s.pointee.time_base)
    var duration: Double? = nil
    if s.pointee.duration != Status.noPTS && s.pointee.duration > 0 {
      duration = Double(s.pointee.duration) * tb.doubleValue
    }
    let start: Double? = s.pointee.start_time == Status.noPTS ? nil : Double(s.pointee.start_time) * tb.doubleValue
    func name(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "unknown" }
    return StreamInfo(
      index: index, kind: kind, codecName: codec, timeBase: tb,
      width: Int(par.pointee.width), height: Int(par.pointee.height),
      sampleAspectRatio: sar, frameRate: rate, baseFrameRate: Rational(s.pointee.r_frame_rate),
      orientation: orientation(of: s),
      sampleRate: Int(par.pointee.sample_rate), channels: Int(par.pointee.ch_layout.nb_channels),
      duration: duration, startTime: start, frameCount: Int(max(0, s.pointee.nb_frames)),
      colorTransfer: name(av_color_transfer_name(par.pointee.color_trc)),
      colorPrimaries: name(av_color_primaries_name(par.pointee.color_primaries)),
      colorSpace: name(av_color_space_name(par.pointee.color_space)),
      isAttachedPicture: s.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0)
  }

  /// Reads the display matrix (FFmpeg 5.1 keeps it as stream side data
  /// `AV_PKT_DATA_DISPLAYMATRIX`). This is the one place it is read.
  static func orientation(of s: UnsafeMutablePointer<AVStream>) -> DisplayTransform {
    var size: Int = 0
    guard let raw = av_stream_get_side_data(s, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else {
      return .identity
    }
    return raw.withMemoryRebound(to: Int32.self, capacity: 9) { m in
      DisplayTransform(matrix: (m[0], m[1], m[3], m[4]))
    }
  }
}

