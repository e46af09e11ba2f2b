internal import CFFmpeg
import Foundation

/// A decoded still picture and what the file said about it.
public struct DecodedImage: Sendable {
  /// The first frame, as stored (no orientation applied), converted to RGBA.
  public var image: RGBAImage
  /// libavcodec's codec name (`mjpeg`, `png`, `webp`, `gif`).
  public var codecName: String
  /// The decoder's pixel format, such as `yuvj420p`, `pal8`, `rgba64be`.
  public var pixelFormat: String
}

/// Decodes the first frame of an image file with libavformat + libavcodec.
public enum ImageDecoder {
  /// - Parameters:
  ///   - path: local file path.
  ///   - limits: file size and pixel limits, checked from the header before
  ///     any pixel is decoded.
  /// - Throws: `MediaIOError` for missing, non-image, oversize or corrupt files.
  public static func decodeFirstFrame(path: String, limits: InputLimits) throws(MediaIOError) -> DecodedImage {
    try decodeFirstFrame(file: try limits.openSourceFile(atPath: path), path: path, limits: limits)
  }

  /// Like `decodeFirstFrame(path:limits:)`, for a file already opened
  /// (`ReadableFile.open(_:beneath:)` for a file inside a bundle).
  public static func decodeFirstFrame(file: ReadableFile, path: String, limits: InputLimits) throws(MediaIOError) -> DecodedImage {
    let name = (path as NSString).lastPathComponent
    let input = try InputContainer(file: file, path: path, allowedFormats: InputContainer.imageFormats, limits: limits)
    guard let stream = input.bestStream(.video) else {
      throw .failure("av_find_best_stream", name, "no picture in the file")
    }
    if stream.width <= 0 || stream.height <= 0 {
      throw .failure("avformat_find_stream_info", name, "picture size unknown or invalid (too large for the decoder?)")
    }
    input.keepOnly([stream.index])
    let decoder = try Decoder(container: input, streamIndex: stream.index, threads: 1)
    let packet = try Packet()
    let frame = try Frame()
    guard try decoder.decodePictures(from: input, packet: packet, frame: frame, { _, _ in false }) > 0 else {
      throw .failure("avcodec_receive_frame", name, "no picture could be decoded")
    }
    let rgba = try PixelConverter.rgba(from: frame)
    return DecodedImage(image: rgba, codecName: stream.codecName, pixelFormat: frame.pixelFormatName)
  }
}
