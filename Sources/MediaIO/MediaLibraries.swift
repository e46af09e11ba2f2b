internal import CFFmpeg
internal import CWebP

/// The versions of the C libraries that produce Marquee's output bytes.
///
/// The content-addressed store mixes this into every item's hash, so an
/// upgraded codec library re-encodes instead of reusing outputs it would
/// no longer produce byte for byte.
public enum MediaLibraries {
  /// `avformat 59.27.100, avcodec 59.37.100, …, webp 1.2.4, avif 0.11.1 (…)`: the runtime
  /// versions (`avformat_version()` …, `WebPGetEncoderVersion()`), not the
  /// headers' compile-time ones.
  public static var versionSummary: String {
    func ffmpeg(_ v: UInt32) -> String { "\(v >> 16).\((v >> 8) & 0xFF).\(v & 0xFF)" }
    let webp = UInt32(bitPattern: WebPGetEncoderVersion())
    let lib: [(String, String)] = [
      ("avformat", ffmpeg(avformat_version())),
      ("avcodec", ffmpeg(avcodec_version())),
      ("avfilter", ffmpeg(avfilter_version())),
      ("swscale", ffmpeg(swscale_version())),
      ("swresample", ffmpeg(swresample_version())),
      ("avutil", ffmpeg(avutil_version())),
      ("webp", "\(webp >> 16).\((webp >> 8) & 0xFF).\(webp & 0xFF)"),
      // libavif and the AV1 codecs it was built with (libaom encodes).
      ("avif", AVIFLibrary.version),
    ]
    return lib.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
  }
}
