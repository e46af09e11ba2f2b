import Foundation

// MARK: - Orientation

extension RGBAImage {
  /// The picture as a viewer shows it after `transform` (an EXIF
  /// orientation): pixels moved, sides swapped for the quarter turns.
  ///
  /// For each output pixel (x, y) of an output `W'×H'`, the source pixel is
  /// (W, H = stored size):
  /// identity (x, y); mirrorHorizontal (W−1−x, y); rotate180 (W−1−x, H−1−y);
  /// mirrorVertical (x, H−1−y); transpose (y, x); rotate90 (y, H−1−x);
  /// transverse (W−1−y, H−1−x); rotate270 (W−1−y, x).
  public func applying(_ transform: DisplayTransform) -> RGBAImage {
    if transform == .identity { return self }
    let w = width, h = height
    let outW = transform.swapsDimensions ? h : w
    let outH = transform.swapsDimensions ? w : h
    var out = [UInt8](repeating: 0, count: pixels.count)
    pixels.withUnsafeBytes { srcRaw in
      out.withUnsafeMutableBytes { dstRaw in
        let src = srcRaw.bindMemory(to: UInt32.self)
        let dst = dstRaw.bindMemory(to: UInt32.self)
        for y in 0..<outH {
          let row = y * outW
          for x in 0..<outW {
            let sx: Int, sy: Int
            switch transform {
            case .identity: (sx, sy) = (x, y)
            case .mirrorHorizontal: (sx, sy) = (w - 1 - x, y)
            case .rotate180: (sx, sy) = (w - 1 - x, h - 1 - y)
            case .mirrorVertical: (sx, sy) = (x, h - 1 - y)
            case .transpose: (sx, sy) = (y, x)
            case .rotate90: (sx, sy) = (y, h - 1 - x)
            case .transverse: (sx, sy) = (w - 1 - y, h - 1 - x)
            case .rotate270: (sx, sy) = (w - 1 - y, x)
            }
            dst[row + x] = src[sy * w + sx]
          }
        }
      }
    }
    return RGBAImage(width: outW, height: outH, pixels: out)
  }
}

// MARK: - Alpha

extension RGBAImage {
  /// Multiplies colour by alpha (rounded), in place.
  public mutating func premultiplyAlpha() {
    pixels.withUnsafeMutableBufferPointer { p in
      var i = 0
      while i < p.count {
        let a = Int(p[i + 3])
        if a != 255 {
          p[i] = UInt8((Int(p[i]) * a + 127) / 255)
          p[i + 1] = UInt8((Int(p[i + 1]) * a + 127) / 255)
          p[i + 2] = UInt8((Int(p[i + 2]) * a + 127) / 255)
        }
        i += 4
      }
    }
  }

  /// Divides colour by alpha (rounded, clamped), in place; fully transparent
  /// pixels become transparent black.
  public mutating func unpremultiplyAlpha() {
    pixels.withUnsafeMutableBufferPointer { p in
      var i = 0
      while i < p.count {
        let a = Int(p[i + 3])
        if a == 0 {
          p[i] = 0; p[i + 1] = 0; p[i + 2] = 0
        } else if a != 255 {
          p[i] = UInt8(min(255, (Int(p[i]) * 255 + a / 2) / a))
          p[i + 1] = UInt8(min(255, (Int(p[i + 1]) * 255 + a / 2) / a))
          p[i + 2] = UInt8(min(255, (Int(p[i + 2]) * 255 + a / 2) / a))
        }
        i += 4
      }
    }
  }
}

// MARK: - Resampling

/// Resizes RGBA rasters for output, with libswscale's Lanczos filter.
public enum ImageResampler {
  /// Resizes `image` to `width`×`height`.
  ///
  /// A picture with transparency is resized premultiplied (colour × alpha)
  /// and divided back afterwards, so the colour hidden under fully
  /// transparent pixels (often black) cannot bleed into the edges of a
  /// cut-out as a dark fringe.
  ///
  /// - Throws: `MediaIOError` if libswscale fails.
  public static func resize(_ image: RGBAImage, width: Int, height: Int) throws(MediaIOError) -> RGBAImage {
    if width == image.width && height == image.height { return image }
    guard image.hasTransparency else { return try PixelConverter.resize(image, width: width, height: height) }
    var premultiplied = image
    premultiplied.premultiplyAlpha()
    var out = try PixelConverter.resize(premultiplied, width: width, height: height)
    // Lanczos overshoot can leave colour above alpha; clamp before dividing.
    out.pixels.withUnsafeMutableBufferPointer { p in
      var i = 0
      while i < p.count {
        let a = p[i + 3]
        if p[i] > a { p[i] = a }
        if p[i + 1] > a { p[i + 1] = a }
        if p[i + 2] > a { p[i + 2] = a }
        i += 4
      }
    }
    out.unpremultiplyAlpha()
    return out
  }
}

// MARK: - Crop

extension RGBAImage {
  /// The `width × height` rectangle whose top-left pixel is (`x`, `y`).
  ///
  /// - Precondition: the rectangle lies inside the image and is not empty
  ///   (callers compute it from the image's own size).
  public func cropped(x: Int, y: Int, width cw: Int, height ch: Int) -> RGBAImage {
    precondition(x >= 0 && y >= 0 && cw > 0 && ch > 0 && x + cw <= width && y + ch <= height, "crop outside the image")
    if x == 0 && y == 0 && cw == width && ch == height { return self }
    var out = [UInt8]()
    out.reserveCapacity(cw * ch * 4)
    for row in y..<(y + ch) {
      let start = (row * width + x) * 4
      out.append(contentsOf: pixels[start..<(start + cw * 4)])
    }
    return RGBAImage(width: cw, height: ch, pixels: out)
  }
}
