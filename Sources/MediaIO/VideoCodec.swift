/// The video codecs Marquee encodes, and how each is named in files,
/// playlists and logs.
public enum VideoCodec: String, Sendable, Equatable, Hashable, CaseIterable, Codable {
  /// H.264 / AVC through libx264: every rendition, the MP4.
  case h264
  /// H.265 / HEVC through libx265: a twin of each H.264 rendition in the
  /// same master playlist, for the players that decode it in hardware.
  case hevc

  /// libavcodec's encoder.
  public var encoderName: String {
    switch self {
    case .h264: return "libx264"
    case .hevc: return "libx265"
    }
  }

  /// libavcodec's decoder and FFmpeg's `codec_name` of the stream.
  public var codecName: String {
    switch self {
    case .h264: return "h264"
    case .hevc: return "hevc"
    }
  }

  /// The name people read in logs: `H.264`, `HEVC`.
  public var displayName: String {
    switch self {
    case .h264: return "H.264"
    case .hevc: return "HEVC"
    }
  }

  /// The ISO BMFF sample entry the muxers write (`avc1`; `hvc1`, with the
  /// parameter sets in the sample entry only, as Apple's HLS authoring
  /// specification 1.10 requires, never `hev1`), which also starts the
  /// RFC 6381 `CODECS` string.
  public var sampleEntry: String {
    switch self {
    case .h264: return "avc1"
    case .hevc: return "hvc1"
    }
  }
}
