internal import CFFmpeg

/// A small 8-bit plane: `width * height` samples, row-major, no padding.
public struct PlaneThumbnail: Sendable, Equatable {
  public var width: Int
  public var height: Int
  public var samples: [UInt8]
  public init(width: Int, height: Int, samples: [UInt8]) {
    self.width = width
    self.height = height
    self.samples = samples
  }
}

extension Frame {
  /// Box-averaged thumbnails of the Y, U and V planes of an 8-bit YUV 4:2:0
  /// picture (`yuv420p`/`yuvj420p`), for cheap picture statistics.
  ///
  /// Luma is expanded to full range (0–255) when the frame is limited range
  /// (16–235), so thresholds read the same for every source. The luma
  /// thumbnail is at most `maxWidth` wide, keeping the aspect ratio; the
  /// chroma thumbnails are half that.
  ///
  /// - Returns: nil for other pixel formats.
  public func yuvThumbnails(maxWidth: Int = 160) -> (y: PlaneThumbnail, u: PlaneThumbnail, v: PlaneThumbnail)? {
    let f = pointer.pointee
    let fmt = AVPixelFormat(f.format)
    guard fmt == AV_PIX_FMT_YUV420P || fmt == AV_PIX_FMT_YUVJ420P, f.width >= 2, f.height >= 2 else { return nil }
    let full = fmt == AV_PIX_FMT_YUVJ420P || f.color_range == AVCOL_RANGE_JPEG
    let w = Int(f.width), h = Int(f.height)
    let tw = min(maxWidth, w), th = max(1, h * tw / w)
    func plane(_ i: Int, _ pw: Int, _ ph: Int, _ ow: Int, _ oh: Int, luma: Bool) -> PlaneThumbnail {
      let base: UnsafeMutablePointer<UInt8>? = withUnsafePointer(to: f.data) {
        $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { $0[i] }
      }
      let stride: Int = withUnsafePointer(to: f.linesize) {
        $0.withMemoryRebound(to: Int32.self, capacity: 8) { Int($0[i]) }
      }
      var out = [UInt8](repeating: 0, count: ow * oh)
      guard let data = base else { return PlaneThumbnail(width: ow, height: oh, samples: out) }
      for oy in 0..<oh {
        let y0 = oy * ph / oh, y1 = max(y0 + 1, (oy + 1) * ph / oh)
        for ox in 0..<ow {
          let x0 = ox * pw / ow, x1 = max(x0 + 1, (ox + 1) * pw / ow)
          var sum = 0
          // Sample at most a 4×4 grid in each box: enough for statistics.
          let sy = max(1, (y1 - y0) / 4), sx = max(1, (x1 - x0) / 4)
          var n = 0
          var yy = y0
          while yy < y1 {
            let row = data + yy * stride
            var xx = x0
            while xx < x1 { sum += Int(row[xx]); n += 1; xx += sx }
            yy += sy
          }
          var v = sum / max(1, n)
          if luma && !full { v = min(255, max(0, (v - 16) * 255 / 219)) }
          out[oy * ow + ox] = UInt8(v)
        }
      }
      return PlaneThumbnail(width: ow, height: oh, samples: out)
    }
    let y = plane(0, w, h, tw, th, luma: true)
    let cw = max(1, tw / 2), ch = max(1, th / 2)
    let u = plane(1, (w + 1) / 2, (h + 1) / 2, cw, ch, luma: false)
    let v = plane(2, (w + 1) / 2, (h + 1) / 2, cw, ch, luma: false)
    return (y, u, v)
  }
}
