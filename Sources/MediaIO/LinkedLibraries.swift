internal import CAVIF
internal import CFFmpeg
internal import CHeif
internal import CJPEG
internal import CLCMS2
internal import CWebP
import Foundation

/// The C libraries this process runs with and the versions they report
/// (`marquee --version`), asked of the loaded libraries at run time, so a
/// release binary on another machine names what it actually linked there.
///
/// libjpeg-turbo is the one exception: its libjpeg API has no call that
/// returns the libjpeg-turbo release, so `jpegTurbo` is the release of the
/// headers Marquee was compiled with (`LIBJPEG_TURBO_VERSION_NUMBER`), and
/// `jpegAPI` is what the loaded library itself reports (its `JMSG_VERSION`
/// message, "6b" for the libjpeg 6b ABI of `libjpeg.so.62`).
public struct LinkedLibraries: Sendable, Equatable {
  /// A library and its version, `libavformat` `59.27.100`.
  public struct Library: Sendable, Equatable {
    public let name: String
    public let version: String
  }

  /// FFmpeg's release as libavutil reports it (`av_version_info()`, such as
  /// `5.1.6-0+deb12u1` for Debian's build).
  public let ffmpegRelease: String
  /// FFmpeg's licence as libavcodec reports it (`avcodec_license()`):
  /// Debian builds it with `--enable-gpl`, so "GPL version 2 or later".
  public let ffmpegLicense: String
  /// libavformat, libavcodec, libavfilter, libswscale, libswresample,
  /// libavutil (`avformat_version()` …).
  public let ffmpeg: [Library]
  /// libwebp (`WebPGetEncoderVersion()`), libwebpmux, libwebpdemux.
  public let webp: [Library]
  /// Little CMS (`cmsGetEncodedCMMversion()`), such as `2.14`.
  public let lcms: String
  /// libheif (`heif_get_version()`), such as `1.15.1`.
  public let heif: String
  /// libjpeg-turbo's release in the headers at build time, such as `2.1.5`.
  public let jpegTurbo: String
  /// The libjpeg API version the loaded library reports, such as `6b`.
  public let jpegAPI: String
  /// libavif (`avifVersion()`), such as `0.11.1`.
  public let avif: String
  /// The AV1 codecs libavif reports (`avifCodecVersions()`) for the two
  /// Marquee asks for: libaom encodes, dav1d decodes (`AVIFCodec`), such as
  /// `aom v3.6.0`, `dav1d 1.0.0`; "not built in" when absent.
  public let avifEncoder: String
  public let avifDecoder: String
  /// libx264's API build, the number in the soname of the copy libavcodec
  /// loaded (`libx264.so.164`: x264 exports no version string, and its
  /// build number is what fixes the bitstream API), from `/proc/self/maps`.
  public let x264Build: String
  /// libx265's `x265_version_str` (x265.h), such as `3.5+1-f0c1022b6`,
  /// looked up in the loaded libraries (`dlsym`): libavcodec, not Marquee,
  /// links libx265.
  public let x265: String

  /// What this process has loaded.
  public static let current = LinkedLibraries()

  private init() {
    ffmpegRelease = String(cString: av_version_info())
    ffmpegLicense = String(cString: avcodec_license())
    ffmpeg = [
      Library(name: "libavformat", version: Self.ffmpegVersion(avformat_version())),
      Library(name: "libavcodec", version: Self.ffmpegVersion(avcodec_version())),
      Library(name: "libavfilter", version: Self.ffmpegVersion(avfilter_version())),
      Library(name: "libswscale", version: Self.ffmpegVersion(swscale_version())),
      Library(name: "libswresample", version: Self.ffmpegVersion(swresample_version())),
      Library(name: "libavutil", version: Self.ffmpegVersion(avutil_version())),
    ]
    webp = [
      Library(name: "libwebp", version: Self.webpVersion(WebPGetEncoderVersion())),
      Library(name: "libwebpmux", version: Self.webpVersion(WebPGetMuxVersion())),
      Library(name: "libwebpdemux", version: Self.webpVersion(WebPGetDemuxVersion())),
    ]
    lcms = Self.lcmsVersion(cmsGetEncodedCMMversion())
    heif = String(cString: heif_get_version())
    jpegTurbo = Self.jpegTurboVersion(Int(LIBJPEG_TURBO_VERSION_NUMBER))
    jpegAPI = Self.jpegAPIVersion()
    avif = String(cString: avifVersion())
    let codecs = Self.avifCodecs()
    avifEncoder = codecs["aom"].map { "aom \($0)" } ?? "aom not built in"
    avifDecoder = codecs["dav1d"].map { "dav1d \($0)" } ?? "dav1d not built in"
    x264Build = Self.loadedSonameVersion("libx264.so.") ?? "not loaded"
    x265 = Self.x265Version() ?? "not loaded"
  }

  /// One line per library family, for `--version`.
  public var lines: [String] {
    func list(_ libraries: [Library]) -> String {
      libraries.map { "\($0.name) \($0.version)" }.joined(separator: ", ")
    }
    return [
      "FFmpeg \(ffmpegRelease) (\(ffmpegLicense)): \(list(ffmpeg))",
      list(webp),
      "Little CMS \(lcms)",
      "libheif \(heif)",
      "libjpeg-turbo \(jpegTurbo) (build headers; the library reports libjpeg API \(jpegAPI))",
      "libavif \(avif): \(avifEncoder) encodes, \(avifDecoder) decodes",
      "libx264 build \(x264Build), libx265 \(x265) (through libavcodec)",
    ]
  }

  /// FFmpeg's `AV_VERSION_INT`: major << 16 | minor << 8 | micro.
  static func ffmpegVersion(_ v: UInt32) -> String {
    "\(v >> 16).\((v >> 8) & 0xFF).\(v & 0xFF)"
  }

  /// libwebp's `0xMMmmpp`.
  static func webpVersion(_ v: Int32) -> String {
    let u = UInt32(bitPattern: v)
    return "\(u >> 16).\((u >> 8) & 0xFF).\(u & 0xFF)"
  }

  /// Little CMS's `LCMS_VERSION` form: 2140 is 2.14, 2131 is 2.13.1.
  static func lcmsVersion(_ v: Int32) -> String {
    let major = v / 1000, minor = (v / 10) % 100, patch = v % 10
    return patch == 0 ? "\(major).\(minor)" : "\(major).\(minor).\(patch)"
  }

  /// `LIBJPEG_TURBO_VERSION_NUMBER`: 2001005 is 2.1.5.
  static func jpegTurboVersion(_ v: Int) -> String {
    "\(v / 1_000_000).\((v / 1000) % 1000).\(v % 1000)"
  }

  /// libavif's `avifCodecVersions` text (`dav1d [dec]:1.0.0, aom
  /// [enc/dec]:v3.6.0, …`) as codec name → version.
  static func avifCodecs() -> [String: String] {
    var buffer = [CChar](repeating: 0, count: 256)
    buffer.withUnsafeMutableBufferPointer { avifCodecVersions($0.baseAddress!) }
    return parseAVIFCodecs(String(cString: buffer))
  }

  static func parseAVIFCodecs(_ text: String) -> [String: String] {
    var codecs: [String: String] = [:]
    for entry in text.split(separator: ",") {
      // `aom [enc/dec]:v3.6.0`; rav1e adds ` (v0.5.1)` after its version.
      guard let name = entry.split(separator: " ").first, let colon = entry.firstIndex(of: ":") else { continue }
      let version = entry[entry.index(after: colon)...].split(separator: " ").first.map(String.init) ?? ""
      codecs[String(name)] = version
    }
    return codecs
  }

  /// The version suffix of the first loaded library whose file name starts
  /// with `prefix` (`libx264.so.` → `164`), read from `/proc/self/maps`.
  static func loadedSonameVersion(_ prefix: String) -> String? {
    // /proc files report a size of 0, so read to the end rather than by size.
    guard let file = FileHandle(forReadingAtPath: "/proc/self/maps") else { return nil }
    defer { try? file.close() }
    guard let data = try? file.readToEnd(), let maps = String(data: data, encoding: .utf8) else { return nil }
    for line in maps.split(separator: "\n") {
      guard let slash = line.lastIndex(of: "/") else { continue }
      let file = line[line.index(after: slash)...]
      if file.hasPrefix(prefix) { return String(file.dropFirst(prefix.count)) }
    }
    return nil
  }

  /// `x265_version_str` of the libx265 in this process, if one is loaded.
  static func x265Version() -> String? {
    guard let symbol = dlsym(nil, "x265_version_str") else { return nil }
    guard let text = symbol.assumingMemoryBound(to: UnsafePointer<CChar>?.self).pointee else { return nil }
    return String(cString: text)
  }

  /// The first word of the loaded library's `JMSG_VERSION` message
  /// (`"6b  27-Mar-1998"`): the message table lives in the library, not in
  /// the headers.
  static func jpegAPIVersion() -> String {
    var errors = jpeg_error_mgr()
    guard let manager = jpeg_std_error(&errors), let table = manager.pointee.jpeg_message_table,
          Int(JMSG_VERSION.rawValue) <= Int(manager.pointee.last_jpeg_message),
          let message = table[Int(JMSG_VERSION.rawValue)]
    else { return "unknown" }
    let text = String(cString: message)
    return text.split(separator: " ").first.map(String.init) ?? text
  }
}
