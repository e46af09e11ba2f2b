import Foundation

/// A picture as a viewer sees it on its surface, at a bounded working size:
/// what `PictureLook`'s dark-variant rules read.
///
/// Each pixel is composited over the surface by its alpha (sRGB-encoded
/// values, the way UIKit and browsers blend), then the picture is reduced by
/// an integer factor with a box average so that its longer side is at most
/// `maxSide` (800 px by default: a 1170 px banner keeps a 3 px stroke of
/// 48 px text at 2 px). Two pictures of the same size reduce to the same
/// grid, so a light variant and its dark variant compare pixel for pixel.
///
/// - `luma`: sRGB-encoded BT.709 luma, 0–255, rounded.
/// - `luminance`: WCAG 2 relative luminance, 0–1 (IEC 61966-2-1 decoding of
///   each channel, then BT.709 weights), the quantity contrast ratios use.
struct ShownPicture: Sendable {
  let width: Int
  let height: Int
  /// `width * height` encoded luma samples, row by row.
  let luma: [UInt8]
  /// `width * height` relative luminance samples, row by row.
  let luminance: [Float]
  /// `width * height` flags: the picture's own pixels there are mostly
  /// opaque (mean alpha 128 or more), not the surface showing through.
  let opaque: [Bool]
  /// The full-size picture's mean luma as shown, exactly
  /// `PictureLook.shownMeanLuma(image, on: surface)`, from the same pass.
  let meanLuma: Double
  /// The share of the full-size picture's pixels near white as shown,
  /// exactly `PictureLook.glareShare(image, on: surface)`, from the same
  /// pass.
  let glareShare: Double

  /// The default bound on the longer side, in pixels.
  static let defaultMaxSide = 800

  /// Relative luminance (0–1) of each sRGB-encoded channel value.
  static let linear: [Float] = (0..<256).map { v in
    let c = Double(v) / 255
    return Float(c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4))
  }

  /// The integer reduction factor that brings `width`×`height` within
  /// `maxSide`.
  static func factor(width: Int, height: Int, maxSide: Int) -> Int {
    max(1, (max(width, height) + maxSide - 1) / max(1, maxSide))
  }

  /// - Parameters:
  ///   - image: RGBA, sRGB-encoded, straight alpha.
  ///   - surface: what it is shown on.
  ///   - maxSide: the bound on the working size's longer side.
  init(_ image: RGBAImage, on surface: RGBColor, maxSide: Int = ShownPicture.defaultMaxSide) {
    let f = Self.factor(width: image.width, height: image.height, maxSide: maxSide)
    let w = (image.width + f - 1) / f
    let h = (image.height + f - 1) / f
    var sums = [Int32](repeating: 0, count: w * h * 3)
    var counts = [Int32](repeating: 0, count: w * h)
    var alphas = [Int32](repeating: 0, count: w * h)
    let sr = Int32(surface.r), sg = Int32(surface.g), sb = Int32(surface.b)
    // The full-size mean luma and glare count, by the formulas of
    // `PictureLook.shownMeanLuma` and `PictureLook.glareShare`: opaque
    // pixels in integers (weights in 1/10000), translucent ones blended.
    let surfaceLuma = 0.2126 * Double(surface.r) + 0.7152 * Double(surface.g) + 0.0722 * Double(surface.b)
    let glareThreshold = Int64(PictureLook.glareLuma * 10000)
    var opaqueLuma: Int64 = 0, blendedLuma = 0.0, glaring = 0
    image.pixels.withUnsafeBufferPointer { p in
      sums.withUnsafeMutableBufferPointer { s in
        counts.withUnsafeMutableBufferPointer { n in
         alphas.withUnsafeMutableBufferPointer { al in
          // One output sample's run of up to `f` input pixels at a time: the
          // sums are stored once per run, not once per pixel.
          for y in 0..<image.height {
            let row = (y / f) * w
            let base = y * image.width
            for ox in 0..<w {
              let x0 = ox * f, x1 = min(x0 + f, image.width)
              var r: Int32 = 0, g: Int32 = 0, b: Int32 = 0, alpha: Int32 = 0
              // The run's opaque pixels' own sums: their luma sum is the
              // weighted sum of these, exactly.
              var ro: Int32 = 0, go: Int32 = 0, bo: Int32 = 0
              var i = (base + x0) * 4
              for _ in x0..<x1 {
                let a = Int32(p[i + 3])
                if a == 255 {
                  ro += Int32(p[i]); go += Int32(p[i + 1]); bo += Int32(p[i + 2])
                  // Luma 225 needs green 190 or more (the other two at
                  // 255 give 208 at green 189).
                  if p[i + 1] >= 190,
                     2126 * Int64(p[i]) + 7152 * Int64(p[i + 1]) + 722 * Int64(p[i + 2]) >= glareThreshold {
                    glaring += 1
                  }
                } else {
                  let fa = Double(a) / 255
                  let l = (0.2126 * Double(p[i]) + 0.7152 * Double(p[i + 1]) + 0.0722 * Double(p[i + 2])) * fa
                    + surfaceLuma * (1 - fa)
                  blendedLuma += l
                  if l >= PictureLook.glareLuma { glaring += 1 }
                  let ia = 255 - a
                  r += (Int32(p[i]) * a + sr * ia + 127) / 255
                  g += (Int32(p[i + 1]) * a + sg * ia + 127) / 255
                  b += (Int32(p[i + 2]) * a + sb * ia + 127) / 255
                }
                alpha += a
                i += 4
              }
              opaqueLuma += 2126 * Int64(ro) + 7152 * Int64(go) + 722 * Int64(bo)
              r += ro; g += go; b += bo
              let o = row + ox
              s[o * 3] += r; s[o * 3 + 1] += g; s[o * 3 + 2] += b
              n[o] += Int32(x1 - x0)
              al[o] += alpha
            }
          }
         }
        }
      }
    }
    var luma = [UInt8](repeating: 0, count: w * h)
    var luminance = [Float](repeating: 0, count: w * h)
    let lin = Self.linear
    for o in 0..<(w * h) {
      let n = max(counts[o], 1)
      let r = Int((sums[o * 3] + n / 2) / n), g = Int((sums[o * 3 + 1] + n / 2) / n), b = Int((sums[o * 3 + 2] + n / 2) / n)
      luma[o] = UInt8(min(255, (54 * r + 183 * g + 19 * b + 128) >> 8))
      luminance[o] = 0.2126 * lin[r] + 0.7152 * lin[g] + 0.0722 * lin[b]
    }
    self.width = w
    self.height = h
    self.luma = luma
    self.luminance = luminance
    self.opaque = (0..<(w * h)).map { alphas[$0] >= 128 * max(counts[$0], 1) }
    let pixels = max(1, image.width * image.height)
    self.meanLuma = (Double(opaqueLuma) / 10000 + blendedLuma) / Double(pixels)
    self.glareShare = Double(glaring) / Double(pixels)
  }

  /// The WCAG 2 contrast ratio of two relative luminances, at least 1:
  /// `(L1 + 0.05) / (L2 + 0.05)` with `L1` the lighter.
  @inline(__always)
  static func contrast(_ a: Float, _ b: Float) -> Float {
    a > b ? (a + 0.05) / (b + 0.05) : (b + 0.05) / (a + 0.05)
  }

  /// The relative luminance of an encoded luma level, as if it were a grey.
  @inline(__always)
  static func luminance(ofLuma level: Int) -> Float { linear[min(max(level, 0), 255)] }
}
