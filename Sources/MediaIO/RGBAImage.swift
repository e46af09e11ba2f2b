/// An 8-bit RGBA raster in memory, the pixel currency between the decoders,
/// the dark-variant generator and the still-image encoders.
///
/// Pixels are stored row by row, top to bottom, 4 bytes per pixel in the
/// order R, G, B, A, with no padding between rows (`stride == width * 4`).
/// Colour values are sRGB-encoded (not linear); alpha is straight (not
/// premultiplied), 255 = opaque.
public struct RGBAImage: Sendable, Equatable {
  /// Width in pixels, at least 1.
  public let width: Int
  /// Height in pixels, at least 1.
  public let height: Int
  /// `width * height * 4` bytes, RGBA.
  public var pixels: [UInt8]

  /// Wraps existing pixels.
  ///
  /// - Precondition: `pixels.count == width * height * 4` and both sides are
  ///   positive (an internal invariant: decoders never hand out other shapes).
  public init(width: Int, height: Int, pixels: [UInt8]) {
    precondition(width > 0 && height > 0 && pixels.count == width * height * 4,
                 "RGBAImage shape mismatch")
    self.width = width
    self.height = height
    self.pixels = pixels
  }

  /// A raster of one colour.
  public init(width: Int, height: Int, fill: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) {
    var p = [UInt8](repeating: 0, count: width * height * 4)
    var i = 0
    while i < p.count {
      p[i] = fill.r; p[i + 1] = fill.g; p[i + 2] = fill.b; p[i + 3] = fill.a
      i += 4
    }
    self.init(width: width, height: height, pixels: p)
  }

  /// Whether any pixel has alpha below 255.
  public var hasTransparency: Bool {
    var i = 3
    while i < pixels.count {
      if pixels[i] != 255 { return true }
      i += 4
    }
    return false
  }

  /// Byte offset of pixel (x, y).
  @inline(__always)
  public func offset(x: Int, y: Int) -> Int { (y * width + x) * 4 }
}
