internal import CFFmpeg
import Foundation

/// Converts pictures between decoded frames and `RGBAImage` rasters and
/// resizes rasters, with libswscale (`SwsContext`, freed after each call).
///
/// YUV→RGB uses the matrix and range the frame is tagged with (BT.709 or
/// BT.601, limited or full range); untagged SD frames are read as BT.601 and
/// HD as BT.709, as players do. Resizing uses Lanczos.
public enum PixelConverter {
  /// The swscale coefficient table for a frame's colour matrix.
  static func coefficients(_ space: AVColorSpace, height: Int) -> UnsafePointer<Int32> {
    let cs: Int32
    switch space {
    case AVCOL_SPC_BT709: cs = SWS_CS_ITU709
    case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: cs = SWS_CS_BT2020
    case AVCOL_SPC_SMPTE170M, AVCOL_SPC_BT470BG, AVCOL_SPC_FCC: cs = SWS_CS_ITU601
    default: cs = height >= 720 ? SWS_CS_ITU709 : SWS_CS_ITU601
    }
    return sws_getCoefficients(cs)
  }

  /// Converts a decoded picture to RGBA at its own size, or at
  /// `width`×`height` when given.
  ///
  /// - Throws: `MediaIOError` if libswscale cannot convert the pixel format.
  public static func rgba(from frame: Frame, width: Int? = nil, height: Int? = nil) throws(MediaIOError) -> RGBAImage {
    let f = frame.pointer.pointee
    let srcW = Int(f.width), srcH = Int(f.height)
    let dstW = width ?? srcW, dstH = height ?? srcH
    guard srcW > 0, srcH > 0, dstW > 0, dstH > 0 else { throw .failure("sws_getContext", "", "empty picture") }
    var format = AVPixelFormat(f.format)
    var fullRange = f.color_range == AVCOL_RANGE_JPEG
    // Deprecated "J" formats are full-range YUV; swscale wants the plain one
    // plus a range flag.
    switch format {
    case AV_PIX_FMT_YUVJ420P: format = AV_PIX_FMT_YUV420P; fullRange = true
    case AV_PIX_FMT_YUVJ422P: format = AV_PIX_FMT_YUV422P; fullRange = true
    case AV_PIX_FMT_YUVJ444P: format = AV_PIX_FMT_YUV444P; fullRange = true
    case AV_PIX_FMT_YUVJ440P: format = AV_PIX_FMT_YUV440P; fullRange = true
    default: break
    }
    let flags = Int32(SWS_LANCZOS | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_FULL_CHR_H_INP)
    guard let sws = sws_getContext(Int32(srcW), Int32(srcH), format, Int32(dstW), Int32(dstH), AV_PIX_FMT_RGBA,
                                   flags, nil, nil, nil) else {
      throw .failure("sws_getContext", "", "cannot convert \(frame.pixelFormatName) to RGBA")
    }
    defer { sws_freeContext(sws) }
    let table = coefficients(f.colorspace, height: srcH)
    sws_setColorspaceDetails(sws, table, fullRange ? 1 : 0, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16)
    var pixels = [UInt8](repeating: 0, count: dstW * dstH * 4)
    try pixels.withUnsafeMutableBufferPointer { (buf) throws(MediaIOError) in
      var dst: [UnsafeMutablePointer<UInt8>?] = [buf.baseAddress, nil, nil, nil]
      var dstStride: [Int32] = [Int32(dstW * 4), 0, 0, 0]
      let src = withUnsafePointer(to: frame.pointer.pointee.data) {
        $0.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { p in (0..<8).map { p[$0] } }
      }
      let srcStride = withUnsafePointer(to: frame.pointer.pointee.linesize) {
        $0.withMemoryRebound(to: Int32.self, capacity: 8) { p in (0..<8).map { p[$0] } }
      }
      let rows = sws_scale(sws, src, srcStride, 0, Int32(srcH), &dst, &dstStride)
      if rows <= 0 { throw .failure("sws_scale", "", "conversion from \(frame.pixelFormatName) failed") }
    }
    return RGBAImage(width: dstW, height: dstH, pixels: pixels)
  }

  /// Resizes an RGBA raster with Lanczos filtering (libswscale). Alpha is
  /// filtered like the colour channels.
  public static func resize(_ image: RGBAImage, width: Int, height: Int) throws(MediaIOError) -> RGBAImage {
    if width == image.width && height == image.height { return image }
    // Planar GBRA in and out: libswscale filters each channel of packed
    // RGBA the same way (the same bytes, checked against the packed path),
    // but reads and writes planar RGB with its vector code, about 2.8x
    // faster for a 1170→780 px rung.
    let flags = Int32(SWS_LANCZOS | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_FULL_CHR_H_INP)
    guard let sws = sws_getContext(Int32(image.width), Int32(image.height), AV_PIX_FMT_GBRAP, Int32(width),
                                   Int32(height), AV_PIX_FMT_GBRAP, flags, nil, nil, nil) else {
      throw .failure("sws_getContext", "", "cannot resize to \(width)x\(height)")
    }
    defer { sws_freeContext(sws) }
    let source = PlanarGBRA(image)
    var target = PlanarGBRA(width: width, height: height)
    let rows = source.planes.withUnsafeBufferPointer { src in
      target.planes.withUnsafeMutableBufferPointer { dst in
        let n = image.width * image.height, m = width * height
        guard let s0 = src.baseAddress, let d0 = dst.baseAddress else { return Int32(0) }
        let s: [UnsafePointer<UInt8>?] = [s0, s0 + n, s0 + 2 * n, s0 + 3 * n]
        let ss = [Int32](repeating: Int32(image.width), count: 4)
        var d: [UnsafeMutablePointer<UInt8>?] = [d0, d0 + m, d0 + 2 * m, d0 + 3 * m]
        var ds = [Int32](repeating: Int32(width), count: 4)
        return sws_scale(sws, s, ss, 0, Int32(image.height), &d, &ds)
      }
    }
    if rows <= 0 { throw .failure("sws_scale", "", "resize to \(width)x\(height) failed") }
    return target.interleaved()
  }
}

/// An RGBA raster as four planes in libswscale's `AV_PIX_FMT_GBRAP` order
/// (green, blue, red, alpha), each `width * height` bytes, tightly packed.
struct PlanarGBRA {
  let width: Int
  let height: Int
  var planes: [UInt8]

  init(width: Int, height: Int) {
    self.width = width
    self.height = height
    planes = [UInt8](repeating: 0, count: width * height * 4)
  }

  /// The planes of `image`'s pixels.
  init(_ image: RGBAImage) {
    self.init(width: image.width, height: image.height)
    let n = width * height
    image.pixels.withUnsafeBytes { raw in
      planes.withUnsafeMutableBufferPointer { q in
        guard let base = q.baseAddress else { return }
        let g = base, b = base + n, r = base + 2 * n, a = base + 3 * n
        // One little-endian word per pixel: red in the low byte.
        let words = raw.bindMemory(to: UInt32.self)
        for i in 0..<n {
          let v = UInt32(littleEndian: words[i])
          r[i] = UInt8(truncatingIfNeeded: v)
          g[i] = UInt8(truncatingIfNeeded: v >> 8)
          b[i] = UInt8(truncatingIfNeeded: v >> 16)
          a[i] = UInt8(truncatingIfNeeded: v >> 24)
        }
      }
    }
  }

  /// The pixels, RGBA.
  func interleaved() -> RGBAImage {
    let n = width * height
    var pixels = [UInt8](repeating: 0, count: n * 4)
    planes.withUnsafeBufferPointer { q in
      pixels.withUnsafeMutableBytes { raw in
        guard let base = q.baseAddress else { return }
        let g = base, b = base + n, r = base + 2 * n, a = base + 3 * n
        let words = raw.bindMemory(to: UInt32.self)
        for i in 0..<n {
          let v = UInt32(r[i]) | UInt32(g[i]) << 8 | UInt32(b[i]) << 16 | UInt32(a[i]) << 24
          words[i] = v.littleEndian
        }
      }
    }
    return RGBAImage(width: width, height: height, pixels: pixels)
  }
}
