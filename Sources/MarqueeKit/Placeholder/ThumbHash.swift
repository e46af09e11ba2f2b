import Foundation
import MediaIO

/// ThumbHash: a picture's placeholder in about 25 bytes, from the published
/// ThumbHash specification (Evan Wallace, 2023).
///
/// The picture, at most 100x100 pixels, is composited over its own average
/// colour (weighted by alpha) and split into four channels: luminance
/// `L = (R + G + B) / 3`, `P = (R + G) / 2 − B` (yellow–blue),
/// `Q = R − G` (red–green), and alpha. Each channel is written as the
/// low-frequency coefficients of its 2-D DCT-II over a triangle of
/// `cx·ny < nx·(ny − cy)` (the DC term and the AC terms, each AC term scaled
/// into 0–1 by the channel's largest magnitude):
/// - `L`: `nx × ny` terms, `lx × ly` with at least 3 each, where the longer
///   side takes 7 (5 with alpha) and the shorter its share, rounded;
/// - `P`, `Q`: 3×3; alpha: 5×5, only when some pixel is not opaque.
///
/// Bytes: a 24-bit header (`L` DC 6 bits, `P` and `Q` DC 6 bits each,
/// `L` scale 5 bits, the alpha flag), a 16-bit header (`lx` or `ly` of the
/// shorter side 3 bits, `P` and `Q` scales 6 bits each, the landscape
/// flag), with alpha one byte (alpha DC and scale, 4 bits each), then every
/// AC term in 4 bits, two to a byte, low nibble first, in the order `L`,
/// `P`, `Q`, alpha. All values little-endian.
public enum ThumbHash {
  /// The largest side ThumbHash encodes, in pixels.
  public static let maxSide = 100

  /// The ThumbHash of `image`.
  ///
  /// - Parameter image: RGBA, straight alpha, sRGB-encoded; at most
  ///   ``maxSide`` pixels on each side (`thumbnailSize(width:height:)`).
  /// - Returns: the hash bytes (5 header bytes, a sixth with alpha, then
  ///   the AC nibbles).
  /// - Precondition: both sides at most ``maxSide``.
  public static func encode(_ image: RGBAImage) -> [UInt8] {
    let w = image.width, h = image.height
    precondition(w <= maxSide && h <= maxSide, "ThumbHash encodes pictures of at most 100x100")
    let p = image.pixels
    // The average colour, weighted by alpha.
    var avgR = 0.0, avgG = 0.0, avgB = 0.0, avgA = 0.0
    for i in stride(from: 0, to: p.count, by: 4) {
      let alpha = Double(p[i + 3]) / 255
      avgR += alpha / 255 * Double(p[i])
      avgG += alpha / 255 * Double(p[i + 1])
      avgB += alpha / 255 * Double(p[i + 2])
      avgA += alpha
    }
    if avgA > 0 {
      avgR /= avgA
      avgG /= avgA
      avgB /= avgA
    }
    let count = w * h
    let hasAlpha = avgA < Double(count)
    let (lx, ly) = lSize(width: w, height: h, hasAlpha: hasAlpha)

    // The picture over its average colour, as L, P, Q and alpha.
    var l = [Double](repeating: 0, count: count), pc = l, qc = l, ac = l
    for n in 0..<count {
      let i = n * 4
      let alpha = Double(p[i + 3]) / 255
      let r = avgR * (1 - alpha) + alpha / 255 * Double(p[i])
      let g = avgG * (1 - alpha) + alpha / 255 * Double(p[i + 1])
      let b = avgB * (1 - alpha) + alpha / 255 * Double(p[i + 2])
      l[n] = (r + g + b) / 3
      pc[n] = (r + g) / 2 - b
      qc[n] = r - g
      ac[n] = alpha
    }
    let lChannel = Channel(l, width: w, height: h, nx: max(3, lx), ny: max(3, ly))
    let pChannel = Channel(pc, width: w, height: h, nx: 3, ny: 3)
    let qChannel = Channel(qc, width: w, height: h, nx: 3, ny: 3)
    let aChannel = hasAlpha ? Channel(ac, width: w, height: h, nx: 5, ny: 5) : nil

    let isLandscape = w > h
    func q(_ v: Double) -> Int { Int(v.rounded()) }
    let header24 = q(63 * lChannel.dc) | q(31.5 + 31.5 * pChannel.dc) << 6 | q(31.5 + 31.5 * qChannel.dc) << 12
      | q(31 * lChannel.scale) << 18 | (hasAlpha ? 1 << 23 : 0)
    let header16 = (isLandscape ? ly : lx) | q(63 * pChannel.scale) << 3 | q(63 * qChannel.scale) << 9
      | (isLandscape ? 1 << 15 : 0)
    var hash: [UInt8] = [UInt8(header24 & 255), UInt8(header24 >> 8 & 255), UInt8(header24 >> 16),
                         UInt8(header16 & 255), UInt8(header16 >> 8)]
    if let a = aChannel { hash.append(UInt8(q(15 * a.dc) | q(15 * a.scale) << 4)) }
    let start = hash.count
    var index = 0
    for channel in [lChannel, pChannel, qChannel] + (aChannel.map { [$0] } ?? []) {
      for f in channel.ac {
        let byte = start + index >> 1
        if byte >= hash.count { hash.append(0) }
        hash[byte] |= UInt8(q(15 * f)) << ((index & 1) * 4)
        index += 1
      }
    }
    return hash
  }

  /// One channel's DCT terms.
  private struct Channel {
    var dc = 0.0
    /// The AC terms, scaled into 0–1 (0.5 is zero).
    var ac: [Double] = []
    /// The largest AC magnitude before scaling.
    var scale = 0.0

    init(_ values: [Double], width w: Int, height h: Int, nx: Int, ny: Int) {
      var fx = [Double](repeating: 0, count: w)
      for cy in 0..<ny {
        var cx = 0
        while cx * ny < nx * (ny - cy) {
          for x in 0..<w { fx[x] = cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5)) }
          var f = 0.0
          for y in 0..<h {
            let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
            for x in 0..<w { f += values[x + y * w] * fx[x] * fy }
          }
          f /= Double(w * h)
          if cx > 0 || cy > 0 {
            ac.append(f)
            scale = max(scale, abs(f))
          } else {
            dc = f
          }
          cx += 1
        }
      }
      if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
    }
  }

  /// The size of the thumbnail a `width`×`height` picture is hashed at:
  /// its longer side ``maxSide`` (or its own when shorter), the other in
  /// proportion, rounded, at least 1.
  public static func thumbnailSize(width: Int, height: Int) -> (width: Int, height: Int) {
    let longest = max(width, height)
    guard longest > maxSide else { return (width, height) }
    return (max(1, Int((Double(width) * Double(maxSide) / Double(longest)).rounded())),
            max(1, Int((Double(height) * Double(maxSide) / Double(longest)).rounded())))
  }

  /// The `L` channel's terms across and down for a `width`×`height`
  /// picture: the longer side 7 (5 with alpha), the shorter its share,
  /// rounded, at least 1. The 16-bit header keeps the shorter one.
  public static func lSize(width: Int, height: Int, hasAlpha: Bool) -> (lx: Int, ly: Int) {
    let limit = hasAlpha ? 5.0 : 7.0
    let longest = Double(max(width, height))
    return (max(1, Int((limit * Double(width) / longest).rounded())),
            max(1, Int((limit * Double(height) / longest).rounded())))
  }

  /// What a hash's headers say (the specification's average colour and
  /// approximate aspect ratio): enough to check a hash against its picture
  /// without rendering it.
  public struct Header: Sendable, Equatable {
    /// The average colour, sRGB-encoded 0–1, and alpha 0–1.
    public var red: Double, green: Double, blue: Double, alpha: Double
    /// `L` terms across and down (the longer side 7, or 5 with alpha).
    public var lx: Int, ly: Int
    public var hasAlpha: Bool

    /// `lx / ly`: the picture's aspect ratio as the hash keeps it (only to
    /// the nearest of a few ratios: a 3:1 picture reads 7:2).
    public var approximateAspectRatio: Double { Double(lx) / Double(ly) }

    /// Reads the headers of `hash`; nil when it is shorter than its headers.
    public init?(_ hash: [UInt8]) {
      guard hash.count >= 5 else { return nil }
      let header24 = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
      let header16 = Int(hash[3]) | Int(hash[4]) << 8
      hasAlpha = header24 >> 23 != 0
      guard !hasAlpha || hash.count >= 6 else { return nil }
      let l = Double(header24 & 63) / 63
      let p = Double(header24 >> 6 & 63) / 31.5 - 1
      let q = Double(header24 >> 12 & 63) / 31.5 - 1
      let b = l - 2.0 / 3 * p
      let r = (3 * l - b + q) / 2
      let g = r - q
      red = min(1, max(0, r))
      green = min(1, max(0, g))
      blue = min(1, max(0, b))
      alpha = hasAlpha ? Double(hash[5] & 15) / 15 : 1
      let isLandscape = header16 >> 15 != 0
      let long = hasAlpha ? 5 : 7
      lx = isLandscape ? long : header16 & 7
      ly = isLandscape ? header16 & 7 : long
    }
  }
}
