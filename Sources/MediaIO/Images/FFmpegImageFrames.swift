internal import CFFmpeg
import Foundation

/// PNG, GIF (and BMP/TIFF) pictures through libavformat + libavcodec.
///
/// libavcodec is right for these: its PNG decoder handles every bit depth,
/// palette and tRNS case (16-bit → `rgba64be`, palette → `pal8` with the
/// tRNS alpha in the palette) and exports the zlib-compressed `iCCP`
/// profile as `AV_FRAME_DATA_ICC_PROFILE` frame side data (so we need no
/// zlib of our own); its GIF decoder keeps a canvas and applies each frame's
/// disposal method, so every frame it returns is the full composited
/// picture (`bgra`, transparent where nothing is drawn).
enum FFmpegImageFrames {
  /// libavformat demuxers for each format: each reads the one file it is
  /// given (no `image2`, which expands `%d` patterns in file names).
  static func demuxers(for format: ImageFormat) -> [String] {
    switch format {
    case .png: return ["png_pipe", "apng"]
    case .gif: return ["gif"]
    default: return ["bmp_pipe", "tiff_pipe"]
    }
  }

  /// The picture size libavformat probed (BMP/TIFF headers).
  static func header(data: Data, format: ImageFormat, limits: InputLimits, name: String) throws(MediaIOError) -> ImageHeader {
    let input = try InputContainer(data: data, name: name, allowedFormats: demuxers(for: format), limits: limits)
    guard let stream = input.bestStream(.video), stream.width > 0, stream.height > 0 else {
      throw .failure("avformat_find_stream_info", name, "picture size unknown or invalid")
    }
    return ImageHeader(format: format, storedWidth: stream.width, storedHeight: stream.height,
                       summary: "\(stream.codecName.uppercased()) image")
  }

  /// Decodes the frames of `data` in order, calling `body` with the 0-based
  /// index and the decoded frame (valid only during the call); `body`
  /// returns false to stop.
  ///
  /// A read error after at least one frame ends the stream (GIFs with junk
  /// after the trailer are common; browsers show the frames they got).
  ///
  /// - Returns: the number of frames decoded.
  static func decode(data: Data, format: ImageFormat, limits: InputLimits, name: String,
                     _ body: (Int, Frame) throws(MediaIOError) -> Bool) throws(MediaIOError) -> Int {
    let input = try InputContainer(data: data, name: name, allowedFormats: demuxers(for: format), limits: limits)
    guard let stream = input.bestStream(.video) else {
      throw .failure("av_find_best_stream", name, "no picture in the file")
    }
    guard stream.width > 0, stream.height > 0 else {
      throw .failure("avformat_find_stream_info", name, "picture size unknown or invalid")
    }
    input.keepOnly([stream.index])
    let decoder = try Decoder(container: input, streamIndex: stream.index, threads: 1)
    let packet = try Packet()
    let frame = try Frame()
    let produced = try decoder.decodePictures(from: input, packet: packet, frame: frame, damage: .endsStream(name: name), body)
    if produced == 0 { throw .failure("avcodec_receive_frame", name, "no picture could be decoded") }
    return produced
  }

  /// The ICC profile libavcodec found in the file (PNG `iCCP`, JPEG APP2),
  /// exported as `AV_FRAME_DATA_ICC_PROFILE` side data.
  static func iccProfile(of frame: Frame) -> Data? {
    guard let sd = av_frame_get_side_data(frame.pointer, AV_FRAME_DATA_ICC_PROFILE),
          let bytes = sd.pointee.data, sd.pointee.size > 0 else { return nil }
    return Data(bytes: bytes, count: Int(sd.pointee.size))
  }

  /// PNG `gAMA` as FFmpeg 5.1 exports it: frame metadata `gamma` =
  /// "100000/100000" (the file gamma, 1/2.2 ≈ 0.45455 for sRGB-like data).
  static func pngGamma(of frame: Frame) -> Double? {
    guard let entry = av_dict_get(frame.pointer.pointee.metadata, "gamma", nil, 0),
          let value = entry.pointee.value else { return nil }
    let parts = String(cString: value).split(separator: "/")
    guard parts.count == 2, let n = Double(parts[0]), let d = Double(parts[1]), d > 0, n > 0 else { return nil }
    return n / d
  }

  /// Converts a decoded frame to RGBA (libswscale), then to sRGB using its
  /// ICC profile, or its PNG gamma when it has no profile.
  static func rgba(_ frame: Frame, name: String, conversion: inout CachedConversion) throws(MediaIOError) -> (RGBAImage, [String]) {
    var image = try PixelConverter.rgba(from: frame)
    var warnings: [String] = []
    warnings += conversion.apply(to: &image, icc: iccProfile(of: frame), gamma: pngGamma(of: frame))
    return (image, warnings)
  }
}

/// Caches the sRGB conversion of the first frame for the following frames
/// of an animation (a profile does not change between frames).
struct CachedConversion {
  private var prepared = false
  private var profile: ColorManager.Profile?
  private var warnings: [String] = []

  init() {}

  /// Converts `image` in place; returns warnings the first time only.
  mutating func apply(to image: inout RGBAImage, icc: Data?, gamma: Double?) -> [String] {
    if !prepared {
      prepared = true
      if let icc {
        if let p = ColorManager.Profile(icc: icc) {
          profile = p
        } else {
          warnings.append("the embedded ICC profile (\(icc.count) bytes) cannot be read; treated as sRGB")
        }
      } else if let gamma, abs(gamma - 1 / 2.2) > 0.01 {
        // gAMA without iCCP/sRGB: the data is encoded with that gamma on
        // sRGB primaries (PNG 1.2 §10.5: decoding exponent 1/gamma).
        profile = ColorManager.rgbProfile(red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06),
                                          white: (0.3127, 0.3290), transfer: .gamma(1 / gamma))
      }
      let first = warnings
      if let profile { return first + ColorManager.convertToSRGB(&image, profile: profile) }
      return first
    }
    if let profile { _ = ColorManager.convertToSRGB(&image, profile: profile) }
    return []
  }
}
