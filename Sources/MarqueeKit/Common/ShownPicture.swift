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
    let width = image.width, height = image.height
    let w = (width + f - 1) / f
    let h = (height + f - 1) / f
    // Per working sample: the composited red, green and blue sums and the
    // alpha sum of its f×f block (fewer at the right and bottom edges).
    var sums = [Int32](repeating: 0, count: w * h * 4)
    let sr = Int32(surface.r), sg = Int32(surface.g), sb = Int32(surface.b)
    // The full-size mean luma and glare count, by the formulas of
    // `PictureLook.shownMeanLuma` and `PictureLook.glareShare`: opaque
    // pixels in integers (weights in 1/10000), translucent ones blended.
    let surfaceLuma = 0.2126 * Double(surface.r) + 0.7152 * Double(surface.g) + 0.0722 * Double(surface.b)
    let glareThreshold = Int32(PictureLook.glareLuma * 10000)
    let (opaqueLuma, blendedLuma, glaring) = image.pixels.withUnsafeBufferPointer { p in
      sums.withUnsafeMutableBufferPointer { s -> (Int64, Double, Int) in
        var opaqueLuma: Int64 = 0, blendedLuma = 0.0, glaring = 0
        guard let source = p.baseAddress, let samples = s.baseAddress else { return (0, 0, 0) }
        for y in 0..<height {
          var pixel = source + y * width * 4
          var sample = samples + (y / f) * w * 4
          var x0 = 0
          // One working sample's run of up to `f` pixels at a time: the sums
          // are stored once per run, not once per pixel.
          while x0 < width {
            let run = min(f, width - x0)
            var r: Int32 = 0, g: Int32 = 0, b: Int32 = 0, alpha: Int32 = 0
            // The run's opaque pixels' own sums: their luma sum is the
            // weighted sum of these, exactly.
            var ro: Int32 = 0, go: Int32 = 0, bo: Int32 = 0
            for _ in 0..<run {
              let a = Int32(pixel[3])
              let pr = Int32(pixel[0]), pg = Int32(pixel[1]), pb = Int32(pixel[2])
              if a == 255 {
                ro &+= pr; go &+= pg; bo &+= pb
                // Luma 225 needs green 190 or more (the other two at 255
                // give 208 at green 189).
                if pg >= 190, 2126 &* pr &+ 7152 &* pg &+ 722 &* pb >= glareThreshold { glaring &+= 1 }
              } else {
                let fa = Double(a) / 255
                let l = (0.2126 * Double(pr) + 0.7152 * Double(pg) + 0.0722 * Double(pb)) * fa + surfaceLuma * (1 - fa)
                blendedLuma += l
                if l >= PictureLook.glareLuma { glaring += 1 }
                let ia = 255 - a
                r &+= (pr &* a &+ sr &* ia &+ 127) / 255
                g &+= (pg &* a &+ sg &* ia &+ 127) / 255
                b &+= (pb &* a &+ sb &* ia &+ 127) / 255
              }
              alpha &+= a
              pixel += 4
            }
            opaqueLuma += 2126 * Int64(ro) + 7152 * Int64(go) + 722 * Int64(bo)
            sample[0] &+= r &+ ro; sample[1] &+= g &+ go; sample[2] &+= b &+ bo; sample[3] &+= alpha
            sample += 4
            x0 += run
          }
        }
        return (opaqueLuma, blendedLuma, glaring)
      }
    }
    var luma = [UInt8](repeating: 0, count: w * h)
    var luminance = [Float](repeating: 0, count: w * h)
    var opaque = [Bool](repeating: false, count: w * h)
    Self.linear.withUnsafeBufferPointer { lin in
      for oy in 0..<h {
        let rows = min(f, height - oy * f)
        for ox in 0..<w {
          let o = oy * w + ox
          let n = Int32(rows * min(f, width - ox * f))
          let r: Int, g: Int, b: Int
          if n == 1 {
            r = Int(sums[o * 4]); g = Int(sums[o * 4 + 1]); b = Int(sums[o * 4 + 2])
          } else {
            // (sum + n/2) / n, rounded to nearest, in floating point: exact,
            // since a correctly rounded quotient of integers under 2^24
            // cannot cross an integer (and is exact when it is one).
            let half = Double(n / 2), dn = Double(n)
            r = Int((Double(sums[o * 4]) + half) / dn)
            g = Int((Double(sums[o * 4 + 1]) + half) / dn)
            b = Int((Double(sums[o * 4 + 2]) + half) / dn)
          }
          luma[o] = UInt8(min(255, (54 * r + 183 * g + 19 * b + 128) >> 8))
          luminance[o] = 0.2126 * lin[r] + 0.7152 * lin[g] + 0.0722 * lin[b]
          opaque[o] = sums[o * 4 + 3] >= 128 * n
        }
      }
    }
    self.width = w
    self.height = h
    self.luma = luma
    self.luminance = luminance
    self.opaque = opaque
    let pixels = max(1, width * height)
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
