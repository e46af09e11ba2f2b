internal import CFFmpeg
import Foundation

/// The SSIM of two stills of the same size, as `ffmpeg` measures it:
///
/// ```
/// ffmpeg -i a.png -i b.png -lavfi "[0]format=yuv444p[a];[1]format=yuv444p[b];[a][b]ssim" -f null -
/// ```
///
/// Each RGBA picture goes through a libavfilter graph that converts it to
/// YUV 4:4:4 (libswscale's default BT.601, limited range) and compares the
/// two with libavfilter's `ssim` filter; the figure is its `All` (Y, U and
/// V weighted by their sample counts, 1:1:1 in 4:4:4), 0–1, 1 meaning
/// identical. Alpha is ignored: composite transparent pictures onto the
/// colour they are shown on first.
public enum StillSSIM {
  /// - Throws: `MediaIOError` (`.failed`) when the sizes differ or the
  ///   graph cannot be built or gives no figure.
  public static func compare(_ a: RGBAImage, _ b: RGBAImage) throws(MediaIOError) -> Double {
    guard a.width == b.width, a.height == b.height, a.width > 0, a.height > 0 else {
      throw .failure("ssim", "", "the pictures differ in size: \(a.width)x\(a.height) and \(b.width)x\(b.height)")
    }
    let args = "video_size=\(a.width)x\(a.height):pix_fmt=rgba:time_base=1/25:pixel_aspect=1/1"
    let graph = try FilterGraph(description: "[in0]format=yuv444p[a];[in1]format=yuv444p[b];[a][b]ssim[out0]",
                                inputs: [.videoSource(args), .videoSource(args)], outputs: [.videoSink], threads: 1)
    try graph.push(try frame(a), input: 0)
    try graph.push(try frame(b), input: 1)
    try graph.push(nil, input: 0)
    try graph.push(nil, input: 1)
    let compared = try Frame()
    while try graph.pull(compared) == .produced {
      if let text = compared.metadata("lavfi.ssim.All"), let value = Double(text) { return value }
      compared.unref()
    }
    throw .failure("ssim", "", "libavfilter's ssim filter gave no lavfi.ssim.All figure")
  }

  /// `image` in an RGBA frame at PTS 0.
  static func frame(_ image: RGBAImage) throws(MediaIOError) -> Frame {
    let frame = try Frame()
    let f = frame.pointer
    f.pointee.width = Int32(image.width)
    f.pointee.height = Int32(image.height)
    f.pointee.format = AV_PIX_FMT_RGBA.rawValue
    f.pointee.pts = 0
    try check(av_frame_get_buffer(f, 0), "av_frame_get_buffer", "ssim")
    let stride = Int(f.pointee.linesize.0)
    guard let dst = f.pointee.data.0 else { throw .failure("av_frame_get_buffer", "ssim", "no buffer") }
    image.pixels.withUnsafeBufferPointer { src in
      for y in 0..<image.height {
        (dst + y * stride).update(from: src.baseAddress! + y * image.width * 4, count: image.width * 4)
      }
    }
    return frame
  }
}
