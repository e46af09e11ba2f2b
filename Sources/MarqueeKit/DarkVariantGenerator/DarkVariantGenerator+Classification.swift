// MARK: - Thresholds

extension DarkVariantGenerator {
  /// The classifier's thresholds, in one place; the reasons are in
  /// ``DarkVariantGenerator/classify(_:)``.
  enum ClassifierThresholds {
    /// Ring width as a fraction of each side (at least one pixel). Wide enough
    /// to get thousands of samples on a cover, narrow enough to stay clear of
    /// a centred subject.
    static let ringFraction = 0.03
    /// A pixel with alpha below this counts as transparent.
    static let opaqueAlpha: UInt8 = 128
    /// More than this fraction of transparent ring pixels → `.transparent`.
    static let transparentRingFraction = 0.5
    /// The background must be lighter than this luma (0...255).
    static let lightBackgroundLuma = 200
    /// Per-channel distance within which a pixel "is" the background colour:
    /// covers JPEG ringing and the faint vignetting of a studio sweep.
    static let backgroundTolerance = 12
    /// Fraction of opaque ring pixels that must be background.
    static let minRingAgreement = 0.7
    /// Largest mean luma step between neighbouring background pixels in the
    /// ring.
    static let maxRingRoughness = 2.5
    /// Fraction of the whole image that must be background.
    static let minBackgroundCoverage = 0.25
  }

  /// An sRGB-encoded colour without alpha.
  struct RGB8: Sendable, Equatable {
    var r: UInt8
    var g: UInt8
    var b: UInt8

    /// Integer luma, 0...255.
    var luma: Int { Luma.integer(r, g, b) }
  }

  /// What the classifier measured, kept for the treatment that follows and
  /// for tests.
  struct Analysis: Sendable, Equatable {
    /// The decision.
    var kind: ImageContentKind
    /// Fraction of ring pixels with alpha < 128.
    var ringTransparency: Double
    /// Per-channel median of the opaque ring pixels (black if there are none).
    var background: RGB8
    /// Fraction of opaque ring pixels within tolerance of `background`.
    var ringAgreement: Double
    /// Mean luma step between horizontally neighbouring background pixels in
    /// the ring.
    var ringRoughness: Double
    /// 90th percentile of the per-channel distance (largest of the three)
    /// between background pixels of the ring and `background`: 0 for a
    /// clipped white backdrop, a few levels for JPEG noise or a sweep.
    var backgroundSpread: Int
    /// Fraction of all pixels within tolerance of `background`; only measured
    /// when the ring is light and uniform, 0 otherwise.
    var backgroundCoverage: Double
  }
}

extension DarkVariantGenerator {
  /// Measures the border ring and decides the content kind; see
  /// ``classify(_:)`` for the rules.
  func analyze(_ image: RGBAImage) -> Analysis {
    typealias T = ClassifierThresholds
    let w = image.width
    let h = image.height
    let ringX = max(1, Int((Double(w) * T.ringFraction).rounded()))
    let ringY = max(1, Int((Double(h) * T.ringFraction).rounded()))

    return image.pixels.withUnsafeBufferPointer { p in
      // Pass 1: transparency and per-channel histograms of the ring.
      var histR = [Int](repeating: 0, count: 256)
      var histG = [Int](repeating: 0, count: 256)
      var histB = [Int](repeating: 0, count: 256)
      var ringCount = 0
      var transparent = 0
      forEachRingRun(w: w, h: h, ringX: ringX, ringY: ringY) { start, end in
        var i = start * 4
        let stop = end * 4
        while i < stop {
          ringCount += 1
          if p[i + 3] < T.opaqueAlpha {
            transparent += 1
          } else {
            histR[Int(p[i])] += 1
            histG[Int(p[i + 1])] += 1
            histB[Int(p[i + 2])] += 1
          }
          i += 4
        }
      }
      let opaque = ringCount - transparent
      let ringTransparency = Double(transparent) / Double(max(ringCount, 1))
      if ringTransparency > T.transparentRingFraction || opaque == 0 {
        return Analysis(
          kind: .transparent, ringTransparency: ringTransparency,
          background: RGB8(r: 0, g: 0, b: 0), ringAgreement: 0,
          ringRoughness: 0, backgroundSpread: 0, backgroundCoverage: 0)
      }
      let bg = RGB8(
        r: median(histR, count: opaque), g: median(histG, count: opaque),
        b: median(histB, count: opaque))
      let (br, bgG, bb) = (Int(bg.r), Int(bg.g), Int(bg.b))
      let tol = T.backgroundTolerance
      @inline(__always) func isBackground(_ i: Int) -> Bool {
        p[i + 3] >= T.opaqueAlpha && abs(Int(p[i]) - br) <= tol
          && abs(Int(p[i + 1]) - bgG) <= tol && abs(Int(p[i + 2]) - bb) <= tol
      }

      // Pass 2: agreement with the background and its local roughness.
      var agreeing = 0
      var spreadHistogram = [Int](repeating: 0, count: tol + 1)
      var stepSum = 0
      var steps = 0
      forEachRingRun(w: w, h: h, ringX: ringX, ringY: ringY) { start, end in
        var i = start * 4
        let stop = end * 4
        var previousLuma = -1  // luma of the previous pixel if background
        while i < stop {
          if isBackground(i) {
            agreeing += 1
            let distance = max(
              abs(Int(p[i]) - br), abs(Int(p[i + 1]) - bgG),
              abs(Int(p[i + 2]) - bb))
            spreadHistogram[distance] += 1
            let y = Luma.integer(p[i], p[i + 1], p[i + 2])
            if previousLuma >= 0 {
              stepSum += abs(y - previousLuma)
              steps += 1
            }
            previousLuma = y
          } else {
            previousLuma = -1
          }
          i += 4
        }
      }
      let agreement = Double(agreeing) / Double(opaque)
      let roughness = steps > 0 ? Double(stepSum) / Double(steps) : 0
      var spread = 0
      var below = 0
      while spread < tol {
        below += spreadHistogram[spread]
        if below * 10 >= agreeing * 9 { break }
        spread += 1
      }
      var analysis = Analysis(
        kind: .photograph, ringTransparency: ringTransparency,
        background: bg, ringAgreement: agreement, ringRoughness: roughness,
        backgroundSpread: spread, backgroundCoverage: 0)
      guard bg.luma > T.lightBackgroundLuma,
        agreement >= T.minRingAgreement,
        roughness <= T.maxRingRoughness
      else { return analysis }

      // Pass 3: how much of the image is backdrop.
      var covered = 0
      var i = 0
      let end = p.count
      while i < end {
        if isBackground(i) { covered += 1 }
        i += 4
      }
      analysis.backgroundCoverage = Double(covered) / Double(w * h)
      if analysis.backgroundCoverage >= T.minBackgroundCoverage {
        analysis.kind = .lightBackground
      }
      return analysis
    }
  }
}

// MARK: - Helpers

/// Calls `body` with each horizontal run of ring pixels as a half-open range
/// of pixel indices `start..<end`, row by row, each pixel exactly once.
///
/// The ring is the top and bottom `ringY` rows and the left and right
/// `ringX` columns; when the ring covers a whole row the row is one run.
@inline(__always)
private func forEachRingRun(
  w: Int, h: Int, ringX: Int, ringY: Int, _ body: (Int, Int) -> Void
) {
  for y in 0..<h {
    let row = y * w
    if y < ringY || y >= h - ringY || 2 * ringX >= w {
      body(row, row + w)
    } else {
      body(row, row + ringX)
      body(row + w - ringX, row + w)
    }
  }
}

/// The lower median of values counted in a 256-bin histogram.
private func median(_ histogram: [Int], count: Int) -> UInt8 {
  let half = (count + 1) / 2
  var seen = 0
  for (value, n) in histogram.enumerated() {
    seen += n
    if seen >= half { return UInt8(value) }
  }
  return 255
}
