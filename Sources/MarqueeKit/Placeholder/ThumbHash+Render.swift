import Foundation
import MediaIO

extension ThumbHash {
  /// The picture a hash stands for, drawn at `width`×`height`: what a
  /// carousel paints in a slot before the picture arrives (the
  /// specification's `thumbHashToRGBA`, at any size instead of 32 px on the
  /// longer side, so it fills the slot's own aspect ratio).
  ///
  /// Each channel is the sum of its DCT terms, the DC term plus every AC
  /// term times `cos(π/width·(x+½)·cx)·cos(π/height·(y+½)·cy)·2`; then
  /// `B = L − ⅔P`, `R = (3L − B + Q)/2`, `G = R − Q`, each clamped to 0–1.
  ///
  /// - Parameters:
  ///   - hash: the hash bytes (`encode(_:)`).
  ///   - width, height: pixels, 1 to ``maxSide`` each.
  /// - Returns: RGBA, straight alpha, sRGB-encoded; nil when the hash is
  ///   shorter than its headers and the AC terms they announce.
  public static func render(_ hash: [UInt8], width: Int, height: Int) -> RGBAImage? {
    guard (1...maxSide).contains(width), (1...maxSide).contains(height),
          let terms = Terms(hash) else { return nil }
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    // Cosines along each axis, once per coordinate and frequency.
    let fx = cosines(count: width, frequencies: max(terms.lx, terms.hasAlpha ? 5 : 3))
    let fy = cosines(count: height, frequencies: max(terms.ly, terms.hasAlpha ? 5 : 3))
    let columns = fx.count / width
    let rows = fy.count / height
    for y in 0..<height {
      for x in 0..<width {
        func sum(_ channel: Terms.Channel) -> Double {
          var v = channel.dc, k = 0
          for cy in 0..<channel.ny {
            let wy = fy[y * rows + cy] * 2
            var cx = cy == 0 ? 1 : 0
            while cx * channel.ny < channel.nx * (channel.ny - cy) {
              v += channel.ac[k] * fx[x * columns + cx] * wy
              k += 1
              cx += 1
            }
          }
          return v
        }
        let l = sum(terms.l), p = sum(terms.p), q = sum(terms.q)
        let a = terms.a.map(sum) ?? 1
        let b = l - 2.0 / 3 * p
        let r = (3 * l - b + q) / 2
        let i = (y * width + x) * 4
        pixels[i] = byte(r)
        pixels[i + 1] = byte(r - q)
        pixels[i + 2] = byte(b)
        pixels[i + 3] = byte(a)
      }
    }
    return RGBAImage(width: width, height: height, pixels: pixels)
  }

  /// `cos(π/count·(i+½)·f)` for every coordinate `i` and frequency `f`,
  /// row by row (`frequencies` to a coordinate).
  private static func cosines(count: Int, frequencies: Int) -> [Double] {
    var out = [Double](repeating: 0, count: count * frequencies)
    for i in 0..<count {
      for f in 0..<frequencies {
        out[i * frequencies + f] = cos(Double.pi / Double(count) * (Double(i) + 0.5) * Double(f))
      }
    }
    return out
  }

  private static func byte(_ v: Double) -> UInt8 { UInt8((min(1, max(0, v)) * 255).rounded()) }

  /// A hash's channels, read back: the DC term and the AC terms of each.
  private struct Terms {
    struct Channel {
      var dc: Double
      var nx: Int, ny: Int
      var ac: [Double]
    }
    var l: Channel, p: Channel, q: Channel
    var a: Channel?
    var lx: Int { l.nx }
    var ly: Int { l.ny }
    var hasAlpha: Bool { a != nil }

    init?(_ hash: [UInt8]) {
      guard hash.count >= 5 else { return nil }
      let header24 = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
      let header16 = Int(hash[3]) | Int(hash[4]) << 8
      let hasAlpha = header24 >> 23 & 1 == 1
      guard !hasAlpha || hash.count >= 6 else { return nil }
      let isLandscape = header16 >> 15 & 1 == 1
      let long = hasAlpha ? 5 : 7, short = header16 & 7
      let lx = max(3, isLandscape ? long : short), ly = max(3, isLandscape ? short : long)
      // AC nibbles, low nibble first, after the headers.
      var nibble = 0
      let first = hasAlpha ? 6 : 5
      func ac(_ nx: Int, _ ny: Int, scale: Double) -> [Double]? {
        var out: [Double] = []
        for cy in 0..<ny {
          var cx = cy == 0 ? 1 : 0
          while cx * ny < nx * (ny - cy) {
            let index = first + nibble / 2
            guard index < hash.count else { return nil }
            let v = Int(hash[index]) >> (nibble % 2 * 4) & 15
            out.append((Double(v) / 7.5 - 1) * scale)
            nibble += 1
            cx += 1
          }
        }
        return out
      }
      let lScale = Double(header24 >> 18 & 31) / 31
      let pScale = Double(header16 >> 3 & 63) / 63 * 1.25
      let qScale = Double(header16 >> 9 & 63) / 63 * 1.25
      guard let lAC = ac(lx, ly, scale: lScale), let pAC = ac(3, 3, scale: pScale),
            let qAC = ac(3, 3, scale: qScale) else { return nil }
      l = Channel(dc: Double(header24 & 63) / 63, nx: lx, ny: ly, ac: lAC)
      p = Channel(dc: Double(header24 >> 6 & 63) / 31.5 - 1, nx: 3, ny: 3, ac: pAC)
      q = Channel(dc: Double(header24 >> 12 & 63) / 31.5 - 1, nx: 3, ny: 3, ac: qAC)
      if hasAlpha {
        guard let aAC = ac(5, 5, scale: Double(hash[5] >> 4) / 15) else { return nil }
        a = Channel(dc: Double(hash[5] & 15) / 15, nx: 5, ny: 5, ac: aAC)
      } else {
        a = nil
      }
    }
  }
}
