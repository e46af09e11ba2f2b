import Foundation

/// Thresholds that decide whether a picture can be a cover. All luma values
/// are full range 0–255 on the 160-px thumbnail of `PictureStatistics`.
public struct CoverCriteria: Sendable, Equatable {
  /// Below this mean luma a picture reads as black: the fade-in leaders and
  /// black frames common in marketing clips (the near-black Pixel clip in
  /// the corpus averages about 4; a dim but real scene is above 40).
  public var minMeanLuma: Double = 40
  /// Above this mean luma a picture is a white flash or blown out, unless
  /// it is detailed (see `detailedSpread`).
  public var maxMeanLuma: Double = 228
  /// Above this mean luma a picture is a white flash, however detailed.
  /// The corpus's fade-from-black HEVC clip ends on a title card, a blue
  /// logo on white, at 234.6 (clipped 81 %, luma spread 41, sharpness
  /// 1120): a perfectly good cover that the two rules above alone reject.
  public var hardMaxMeanLuma: Double = 248
  /// A picture brighter than `maxMeanLuma`, or with more clipped
  /// highlights than `maxClippedHighlights`, still counts as exposed when
  /// its luma spread is at least this and its sharpness at least
  /// `detailedSharpness`: a logo or a product on a white card. A white
  /// flash or a blown-out sky is flat (spread under 10).
  public var detailedSpread: Double = 30
  /// See `detailedSpread`.
  public var detailedSharpness: Double = 200
  /// Below this luma standard deviation a picture is flat (a solid card):
  /// a textured scene has 30 or more, a plain colour under 5...
  public var minLumaSpread: Double = 12
  /// ...unless its sharpness reaches this: a low-contrast but detailed
  /// picture (the corpus AVI's bird against a blue sky: spread 9.6,
  /// sharpness 118) is not flat. A solid card, black leader or fade frame
  /// with only noise stays under 35.
  public var flatSharpness: Double = 60
  /// More than this fraction of clipped (> 250) samples is blown out.
  public var maxClippedHighlights: Double = 0.30
  /// A mean luma change faster than this (levels per second, either side
  /// of a picture) marks a fade: `auto` does not take pictures from the
  /// middle of a fade, whose washed-out mean luma the exposure score would
  /// otherwise favour. The corpus fades run at 170-1500 levels/s; a
  /// camera move or a person walking through changes the mean by well
  /// under 50.
  public var fadeRate: Double = 100
  /// Below this Laplacian variance the picture is blurred (motion blur, a
  /// focus pull, the soft middle of a cross-fade); measured on the fixed
  /// 160-px thumbnail so it does not depend on the video's size.
  public var minSharpness: Double = 25
  /// A mean absolute luma change above this between consecutive frames is a
  /// hard cut; the frames on either side are rejected in `auto` (encoders
  /// and cross-fades make them unrepresentative).
  public var sceneCutChange: Double = 40
  /// How many seconds from the start `auto` scores before settling; the
  /// hand-over from cover to video is seamless when the cover is early.
  public var autoWindow: Double = 5
  public init() {}
}

/// The chosen cover picture and why.
public struct CoverChoice<Payload> {
  public var payload: Payload
  /// Presentation time of the picture in seconds from the start of the output.
  public var time: Double
  public var statistics: PictureStatistics
  /// False when no picture met the criteria and the best available was taken.
  public var qualified: Bool
  /// A warning for the user when `qualified` is false or a pinned time was
  /// past the end.
  public var warning: String?
}

/// Chooses the cover while frames stream past, keeping at most three
/// pictures (the best so far, one pending, one fallback) whatever the clip's
/// length. Pure decision logic: the caller decodes and hands in statistics
/// and a payload (a frame reference) that is only materialised when kept.
public struct CoverSelector<Payload> {
  public let policy: CoverPolicy
  public let criteria: CoverCriteria

  private struct Candidate {
    var payload: Payload
    var time: Double
    var stats: PictureStatistics
    var cutBefore: Bool
  }
  private var best: (Candidate, Double)?
  private var pending: Candidate?
  private var fallback: (Candidate, Double)?
  private var pinned: Candidate?
  private var done = false
  private var lastTime = -Double.infinity

  public init(policy: CoverPolicy, criteria: CoverCriteria = CoverCriteria()) {
    self.policy = policy
    self.criteria = criteria
  }

  /// Whether later frames can no longer change the choice; the caller may
  /// stop computing statistics.
  public var isSatisfied: Bool { done }

  /// Whether `s` is neither black, blown out nor flat.
  ///
  /// Black: mean luma under `minMeanLuma`. Blown out: mean above
  /// `hardMaxMeanLuma`, or above `maxMeanLuma` or with more than
  /// `maxClippedHighlights` clipped, unless detailed (spread and sharpness
  /// at least `detailedSpread` and `detailedSharpness`). Flat: spread under
  /// `minLumaSpread` and sharpness under `flatSharpness`.
  public func isExposedAndDetailed(_ s: PictureStatistics) -> Bool {
    let c = criteria
    guard s.meanLuma >= c.minMeanLuma, s.meanLuma <= c.hardMaxMeanLuma else { return false }
    let detailed = s.lumaSpread >= c.detailedSpread && s.sharpness >= c.detailedSharpness
    if (s.meanLuma > c.maxMeanLuma || s.clippedHighlights > c.maxClippedHighlights) && !detailed {
      return false
    }
    return s.lumaSpread >= c.minLumaSpread || s.sharpness >= c.flatSharpness
  }

  /// Whether the mean luma changes faster than `fadeRate` between two
  /// pictures `dt` seconds apart (a fade, or a cut).
  func isFading(from a: PictureStatistics, to b: PictureStatistics, dt: Double) -> Bool {
    abs(b.meanLuma - a.meanLuma) > criteria.fadeRate * max(dt, 1e-3)
  }

  /// The `auto` score: sharper, well exposed, colourful and early is better.
  public func score(_ s: PictureStatistics, time: Double) -> Double {
    let exposure = max(0.1, 1 - abs(s.meanLuma - 118) / 118)
    let sharp = log(1 + s.sharpness)
    let colour = 1 + s.colourfulness / 40
    let early = 1 / (1 + max(0, time) / 3)
    return sharp * exposure * colour * early
  }

  /// Offers the next picture, in presentation order.
  ///
  /// - Parameters:
  ///   - time: presentation time in seconds.
  ///   - payload: called only if the picture is kept.
  public mutating func offer(time: Double, statistics s: PictureStatistics,
                             payload: () throws -> Payload) rethrows {
    guard !done else { return }
    lastTime = time
    let fallbackScore = s.meanLuma + 2 * s.lumaSpread - 200 * s.clippedHighlights
    switch policy {
    case .at(let target):
      if time <= target + 1e-6 || pinned == nil {
        pinned = Candidate(payload: try payload(), time: time, stats: s, cutBefore: false)
      }
      if time > target { done = true }
    case .first:
      if isExposedAndDetailed(s) {
        best = (Candidate(payload: try payload(), time: time, stats: s, cutBefore: false), 0)
        done = true
      } else if fallback == nil || fallbackScore > fallback!.1 {
        fallback = (Candidate(payload: try payload(), time: time, stats: s, cutBefore: false), fallbackScore)
      }
    case .auto:
      if fallback == nil || fallbackScore > fallback!.1 {
        fallback = (Candidate(payload: try payload(), time: time, stats: s, cutBefore: false), fallbackScore)
      }
      var cutBefore = false
      if let p = pending {
        // A hard cut, or a fade (either way the pictures on both sides are
        // in a transition).
        let cut = s.change(from: p.stats) > criteria.sceneCutChange
          || isFading(from: p.stats, to: s, dt: time - p.time)
        evaluate(p, cutAfter: cut)
        cutBefore = cut
      }
      pending = Candidate(payload: try payload(), time: time, stats: s, cutBefore: cutBefore)
      if time > criteria.autoWindow && best != nil { done = true; pending = nil }
    }
  }

  private mutating func evaluate(_ c: Candidate, cutAfter: Bool) {
    guard isExposedAndDetailed(c.stats), c.stats.sharpness >= criteria.minSharpness,
          !c.cutBefore, !cutAfter else { return }
    let sc = score(c.stats, time: c.time)
    if best == nil || sc > best!.1 { best = (c, sc) }
  }

  /// Ends the stream and returns the choice; nil only when no picture was
  /// offered at all.
  public mutating func finish() -> CoverChoice<Payload>? {
    if let p = pending { evaluate(p, cutAfter: false); pending = nil }
    done = true
    switch policy {
    case .at(let target):
      guard let c = pinned else { return nil }
      let warning = target > lastTime + 0.5
        ? String(format: "cover time %.3f s is past the end of the video (%.3f s); the last frame was used", target, lastTime)
        : nil
      return CoverChoice(payload: c.payload, time: c.time, statistics: c.stats, qualified: true, warning: warning)
    case .first, .auto:
      if let (c, _) = best {
        return CoverChoice(payload: c.payload, time: c.time, statistics: c.stats, qualified: true, warning: nil)
      }
      guard let (c, _) = fallback else { return nil }
      let warning = String(format: "no frame qualified as a cover (every frame is black, blown out, flat or blurred); used the best available at %.3f s (mean luma %.0f of 255)", c.time, c.stats.meanLuma)
      return CoverChoice(payload: c.payload, time: c.time, statistics: c.stats, qualified: false, warning: warning)
    }
  }
}
