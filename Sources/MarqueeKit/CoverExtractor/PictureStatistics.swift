import Foundation

/// Statistics of one picture used to judge it as a cover, computed on small
/// thumbnails (at most 160 px wide) so the cost per frame is constant.
public struct PictureStatistics: Sendable, Equatable {
  /// Mean luma, full range 0–255.
  public var meanLuma: Double
  /// Standard deviation of luma, 0–255 scale: near 0 for a flat picture.
  public var lumaSpread: Double
  /// Fraction of luma samples above 250 (blown-out highlights).
  public var clippedHighlights: Double
  /// The bright tail: the luma the brightest `PictureLook.brightTailFraction`
  /// (0.5 %) of the samples reach, 0–255. `PictureLook` calls a picture
  /// black when it is under `PictureLook.litLuma`.
  public var brightTail: Double
  /// Tonal range: 98th minus 2nd percentile of luma, 0–255; near 0 for one
  /// flat tone.
  public var toneRange: Double
  /// Variance of the 4-neighbour Laplacian of the luma thumbnail: low for a
  /// blurred or featureless picture (a common focus measure).
  public var sharpness: Double
  /// Colourfulness from the chroma planes: spread of U and V plus their mean
  /// distance from neutral grey (after Hasler & Süsstrunk's metric, in YUV).
  public var colourfulness: Double
  /// The luma thumbnail, kept to measure the change to the next picture.
  public var luma: PlaneThumbnail

  public init(y: PlaneThumbnail, u: PlaneThumbnail, v: PlaneThumbnail) {
    luma = y
    let n = Double(max(1, y.samples.count))
    var sum = 0.0, sumSq = 0.0, clipped = 0.0
    var histogram = [Int](repeating: 0, count: 256)
    for s in y.samples {
      let d = Double(s)
      sum += d; sumSq += d * d
      if s > 250 { clipped += 1 }
      histogram[Int(s)] += 1
    }
    meanLuma = sum / n
    /// The lowest level at or below which more than `q` of the samples lie.
    func percentile(_ q: Double) -> Double {
      let target = Int(Double(y.samples.count) * q)
      var seen = 0
      for (level, count) in histogram.enumerated() {
        seen += count
        if seen > target { return Double(level) }
      }
      return 255
    }
    brightTail = y.samples.isEmpty ? 0 : percentile(1 - PictureLook.brightTailFraction)
    toneRange = y.samples.isEmpty ? 0 : percentile(0.98) - percentile(0.02)
    lumaSpread = max(0, sumSq / n - meanLuma * meanLuma).squareRoot()
    clippedHighlights = clipped / n
    var lapSum = 0.0, lapSq = 0.0, lapN = 0.0
    if y.width >= 3 && y.height >= 3 {
      for row in 1..<(y.height - 1) {
        for col in 1..<(y.width - 1) {
          let i = row * y.width + col
          let l = 4 * Double(y.samples[i]) - Double(y.samples[i - 1]) - Double(y.samples[i + 1])
            - Double(y.samples[i - y.width]) - Double(y.samples[i + y.width])
          lapSum += l; lapSq += l * l; lapN += 1
        }
      }
    }
    sharpness = lapN > 0 ? max(0, lapSq / lapN - (lapSum / lapN) * (lapSum / lapN)) : 0
    func spreadAndOffset(_ p: PlaneThumbnail) -> (Double, Double) {
      let m = Double(max(1, p.samples.count))
      var s = 0.0, sq = 0.0
      for v in p.samples { let d = Double(v) - 128; s += d; sq += d * d }
      let mean = s / m
      return (max(0, sq / m - mean * mean).squareRoot(), abs(mean))
    }
    let (su, mu) = spreadAndOffset(u), (sv, mv) = spreadAndOffset(v)
    colourfulness = (su * su + sv * sv).squareRoot() + 0.3 * (mu * mu + mv * mv).squareRoot()
  }

  /// Statistics of a decoded still (a cover or an image file), on the same
  /// kind of thumbnail a video frame gets (`Frame.yuvThumbnails`): box
  /// averages at most `maxWidth` wide of BT.709 Y′, Cb and Cr computed from
  /// the sRGB values, each pixel first composited over `surface` by its
  /// alpha (what a viewer sees where the picture is transparent).
  ///
  /// - Parameters:
  ///   - image: RGBA, straight alpha, sRGB-encoded.
  ///   - surface: what the picture is shown on; black when `nil`.
  ///   - maxWidth: the thumbnail's largest width in pixels.
  public init(image: RGBAImage, over surface: RGBColor? = nil, maxWidth: Int = 160) {
    let w = image.width, h = image.height
    let tw = min(maxWidth, w), th = max(1, h * tw / w)
    let cw = max(1, tw / 2), ch = max(1, th / 2)
    let sr = Double(surface?.r ?? 0), sg = Double(surface?.g ?? 0), sb = Double(surface?.b ?? 0)
    var ySum = [Double](repeating: 0, count: tw * th), yCount = [Double](repeating: 0, count: tw * th)
    var uSum = [Double](repeating: 0, count: cw * ch), vSum = uSum, cCount = uSum
    image.pixels.withUnsafeBufferPointer { p in
      // At most a 4×4 grid of samples in each box, as for video frames.
      let stepY = max(1, h / th / 4), stepX = max(1, w / tw / 4)
      var row = 0
      while row < h {
        let oy = min(th - 1, row * th / h), cy = min(ch - 1, row * ch / h)
        var col = 0
        while col < w {
          let o = (row * w + col) * 4
          let a = Double(p[o + 3]) / 255
          let r = Double(p[o]) * a + sr * (1 - a)
          let g = Double(p[o + 1]) * a + sg * (1 - a)
          let b = Double(p[o + 2]) * a + sb * (1 - a)
          let luma = 0.2126 * r + 0.7152 * g + 0.0722 * b
          let ox = min(tw - 1, col * tw / w), cx = min(cw - 1, col * cw / w)
          ySum[oy * tw + ox] += luma; yCount[oy * tw + ox] += 1
          // BT.709 Cb, Cr around 128 (full range: only their spread is used).
          uSum[cy * cw + cx] += (b - luma) / 1.8556 + 128
          vSum[cy * cw + cx] += (r - luma) / 1.5748 + 128
          cCount[cy * cw + cx] += 1
          col += stepX
        }
        row += stepY
      }
    }
    func plane(_ sums: [Double], _ counts: [Double], _ pw: Int, _ ph: Int) -> PlaneThumbnail {
      let samples = zip(sums, counts).map { s, n in UInt8(max(0, min(255, (s / max(1, n)).rounded()))) }
      return PlaneThumbnail(width: pw, height: ph, samples: samples)
    }
    self.init(y: plane(ySum, yCount, tw, th), u: plane(uSum, cCount, cw, ch), v: plane(vSum, cCount, cw, ch))
  }

  /// Mean absolute luma difference to another picture of the same
  /// thumbnail size (0–255); `.infinity` when sizes differ.
  public func change(from other: PictureStatistics) -> Double {
    guard other.luma.samples.count == luma.samples.count, !luma.samples.isEmpty else { return .infinity }
    var total = 0
    for i in luma.samples.indices { total += abs(Int(luma.samples[i]) - Int(other.luma.samples[i])) }
    return Double(total) / Double(luma.samples.count)
  }
}
