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
    for s in y.samples {
      let d = Double(s)
      sum += d; sumSq += d * d
      if s > 250 { clipped += 1 }
    }
    meanLuma = sum / n
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

  /// Mean absolute luma difference to another picture of the same
  /// thumbnail size (0–255); `.infinity` when sizes differ.
  public func change(from other: PictureStatistics) -> Double {
    guard other.luma.samples.count == luma.samples.count, !luma.samples.isEmpty else { return .infinity }
    var total = 0
    for i in luma.samples.indices { total += abs(Int(luma.samples[i]) - Int(other.luma.samples[i])) }
    return Double(total) / Double(luma.samples.count)
  }
}
