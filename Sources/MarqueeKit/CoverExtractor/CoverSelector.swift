import Foundation

/// Thresholds that decide whether a picture can be a cover. All luma values
/// are full range 0–255 on the 160-px thumbnail of `PictureStatistics`.
public struct CoverCriteria: Sendable, Equatable {
  /// Below this mean luma a picture is *dim*. A dim picture that is lit
  /// and detailed (`PictureLook`: a night scene, a concert lit by phones)
  /// is a real cover, taken when no frame of the clip is well exposed; a
  /// well-exposed frame is preferred (a fade-in's dim early frames are not
  /// its cover). The near-black Pixel clip in the corpus averages about 4;
  /// a dim but real daylight scene is above 40.
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
  /// Below this luma standard deviation a lit picture is *low in content*
  /// (not flat: it has more than one tone, but little to look at: a fog, a
  /// blank wall, the washed-out middle of a fade)...
  public var minLumaSpread: Double = 12
  /// ...unless its sharpness reaches this: a low-contrast but detailed
  /// picture (the corpus AVI's bird against a blue sky: spread 9.6,
  /// sharpness 118; the night-time concert: spread 6-10, sharpness 340-1050)
  /// is not. `auto` and `first` take a low-content frame only as a last
  /// resort, with a warning.
  public var contentSharpness: Double = 60
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
  /// A shot (the pictures between two cuts or fades) shorter than this, in
  /// seconds, is not representative of the clip: `auto` takes its pictures
  /// only when no longer shot has one. The corpus's edit-list clip opens on
  /// 0.2 s of another scene before the 4 s it is about.
  public var minShotDuration: Double = 0.5
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
  /// What a viewer sees in it (`PictureLook`): never `.black`.
  public var verdict: PictureLook.Verdict
  /// Why this picture, in a few words for the summary (`well exposed`,
  /// `dim but lit: no frame is well exposed`, `pinned`, …).
  public var basis: String = ""
  /// A warning for the user when `qualified` is false, the picture is flat,
  /// or a pinned time was past the end.
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
  /// The best (`auto`) or first (`first`) dim but lit and detailed picture.
  private var dim: (Candidate, Double)?
  private var pending: Candidate?
  /// `auto`: the best well-exposed and dim candidates of the current shot,
  /// committed to `best`/`dim` when the shot ends (`endShot`).
  private var shotBest: (Candidate, Double)?
  private var shotDim: (Candidate, Double)?
  /// Start of the current shot, seconds.
  private var shotStart: Double?
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

  /// Whether `s` is a well-exposed picture: something to look at
  /// (`PictureLook.verdict` is `.picture`, so neither black nor flat), not
  /// dim, not low in content (`minLumaSpread`, `contentSharpness`) and not
  /// blown out.
  ///
  /// Dim: mean luma under `minMeanLuma`. Blown out: mean above
  /// `hardMaxMeanLuma`, or above `maxMeanLuma` or with more than
  /// `maxClippedHighlights` clipped, unless detailed (spread and sharpness
  /// at least `detailedSpread` and `detailedSharpness`).
  public func isExposedAndDetailed(_ s: PictureStatistics) -> Bool {
    isLitPicture(s) && s.meanLuma >= criteria.minMeanLuma
  }

  /// Whether `s` is a picture (`PictureLook`: lit and not flat), not low in
  /// content and not blown out, however dim.
  public func isLitPicture(_ s: PictureStatistics) -> Bool {
    let c = criteria
    guard PictureLook.verdict(s) == .picture, s.meanLuma <= c.hardMaxMeanLuma else { return false }
    guard s.lumaSpread >= c.minLumaSpread || s.sharpness >= c.contentSharpness else { return false }
    let detailed = s.lumaSpread >= c.detailedSpread && s.sharpness >= c.detailedSharpness
    return !((s.meanLuma > c.maxMeanLuma || s.clippedHighlights > c.maxClippedHighlights) && !detailed)
  }

  /// Whether the mean luma changes faster than `fadeRate` between two
  /// pictures `dt` seconds apart (a fade, or a cut).
  func isFading(from a: PictureStatistics, to b: PictureStatistics, dt: Double) -> Bool {
    abs(b.meanLuma - a.meanLuma) > criteria.fadeRate * max(dt, 1e-3)
  }

  /// The `auto` score: detailed, well exposed, colourful and early is
  /// better.
  ///
  /// Detail is the product of edges (log of `sharpness`) and tonal content
  /// (`lumaSpread` relative to `detailedSpread`, at most 1), so a textured
  /// but nearly one-tone picture (a blank wall, spread 13) scores well under
  /// half of a scene at the same sharpness, and a detailed frame a couple of
  /// seconds later beats it despite the earliness term.
  public func score(_ s: PictureStatistics, time: Double) -> Double {
    let exposure = max(0.1, 1 - abs(s.meanLuma - 118) / 118)
    let sharp = log(1 + s.sharpness)
    let content = min(1, max(0.05, s.lumaSpread / criteria.detailedSpread))
    let colour = 1 + s.colourfulness / 40
    let early = 1 / (1 + max(0, time) / 3)
    return sharp * content * exposure * colour * early
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
    // The last resort is never black; a picture beats a flat frame.
    let verdict = PictureLook.verdict(s)
    let fallbackScore = (verdict == .picture ? 1000 : 0) + s.meanLuma + 2 * s.lumaSpread - 200 * s.clippedHighlights
    let fallbackWanted = verdict != .black && (fallback == nil || fallbackScore > fallback!.1)
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
      } else if dim == nil && isLitPicture(s) && s.sharpness >= criteria.minSharpness {
        dim = (Candidate(payload: try payload(), time: time, stats: s, cutBefore: false), 0)
      } else if fallbackWanted {
        fallback = (Candidate(payload: try payload(), time: time, stats: s, cutBefore: false), fallbackScore)
      }
    case .image:
      done = true
    case .auto:
      if fallbackWanted {
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
        if cut { endShot(at: time, final: false) }
      }
      if shotStart == nil { shotStart = time }
      pending = Candidate(payload: try payload(), time: time, stats: s, cutBefore: cutBefore)
      // Past the window, settle as soon as the current shot counts.
      if time > criteria.autoWindow {
        if time - (shotStart ?? time) >= criteria.minShotDuration { endShot(at: time, final: false) }
        if best != nil { done = true; pending = nil }
      }
    }
  }

  private mutating func evaluate(_ c: Candidate, cutAfter: Bool) {
    guard isLitPicture(c.stats), c.stats.sharpness >= criteria.minSharpness,
          !c.cutBefore, !cutAfter else { return }
    let sc = score(c.stats, time: c.time)
    if policy != .auto {
      if c.stats.meanLuma >= criteria.minMeanLuma {
        if best == nil || sc > best!.1 { best = (c, sc) }
      } else if dim == nil || sc > dim!.1 {
        dim = (c, sc)
      }
      return
    }
    if c.stats.meanLuma >= criteria.minMeanLuma {
      if shotBest == nil || sc > shotBest!.1 { shotBest = (c, sc) }
    } else if shotDim == nil || sc > shotDim!.1 {
      shotDim = (c, sc)
    }
  }

  /// Ends the current shot at `time`: its candidates count when it lasted
  /// `minShotDuration`, or (`final`) when no other shot gave one.
  private mutating func endShot(at time: Double, final: Bool) {
    let long = time - (shotStart ?? time) >= criteria.minShotDuration
    if long || (final && best == nil && dim == nil) {
      if let c = shotBest, best == nil || c.1 > best!.1 { best = c }
      if let c = shotDim, dim == nil || c.1 > dim!.1 { dim = c }
    }
    shotBest = nil
    shotDim = nil
    shotStart = nil
  }

  /// Ends the stream and returns the choice.
  ///
  /// `auto` and `first` never return a black picture: a well-exposed one,
  /// else a dim but lit one, else (with a warning) the best flat, blown-out
  /// or blurred one. A pinned time returns the user's frame, flat or not
  /// (a flat one with a warning).
  ///
  /// - Throws: `MarqueeError.noCover` when every picture offered is black (or the
  ///   pinned one is), or none was offered; the reason names the fix.
  public mutating func finish() throws(MarqueeError) -> CoverChoice<Payload> {
    if let p = pending { evaluate(p, cutAfter: false); pending = nil }
    if policy == .auto && !done { endShot(at: lastTime + 1e-3, final: true) }
    done = true
    switch policy {
    case .image:
      throw MarqueeError.noCover("the cover is the job's poster, not a frame")
    case .at(let target):
      guard let c = pinned else { throw MarqueeError.noCover("no picture reached the cover extractor") }
      let verdict = PictureLook.verdict(c.stats)
      if verdict == .black {
        throw MarqueeError.noCover(String(format: "the frame at %.3f s (pinned with \"at\") is black: %@; pin a lit frame with another \"at\" time, or supply a poster with \"cover\": {\"image\": \"poster.jpg\"}",
                                c.time, PictureLook.describeBlack(c.stats)))
      }
      var warnings: [String] = []
      if target > lastTime + 0.5 {
        warnings.append(String(format: "cover time %.3f s is past the end of the video (%.3f s); the last frame was used", target, lastTime))
      }
      if verdict == .flat {
        warnings.append(String(format: "the pinned cover at %.3f s is %@; used as asked", c.time, PictureLook.describeFlat(c.stats)))
      }
      return CoverChoice(payload: c.payload, time: c.time, statistics: c.stats, qualified: true, verdict: verdict,
                         basis: verdict == .flat ? "pinned, flat" : "pinned",
                         warning: warnings.isEmpty ? nil : warnings.joined(separator: "; "))
    case .first, .auto:
      if let (c, _) = best ?? dim {
        let how = policy == .first ? "the first" : "the best-scoring"
        let basis = best != nil
          ? "\(how) well-exposed, detailed frame"
          : String(format: "\(how) dim but lit frame (mean luma %.0f): no frame is well exposed", c.stats.meanLuma)
        return CoverChoice(payload: c.payload, time: c.time, statistics: c.stats, qualified: true, verdict: .picture,
                           basis: basis, warning: nil)
      }
      guard let (c, _) = fallback else {
        if lastTime == -Double.infinity { throw MarqueeError.noCover("no picture reached the cover extractor") }
        throw MarqueeError.noCover("no frame is lit: every frame is black (the brightest 0.5 % of each stays under luma \(Int(PictureLook.litLuma)) of 255), so the video has nothing to show as a cover; " + MarqueeError.coverFix)
      }
      let verdict = PictureLook.verdict(c.stats)
      let what = verdict == .flat ? PictureLook.describeFlat(c.stats) : "blown out or blurred"
      let warning = String(format: "no frame qualified as a cover (every lit frame is flat, blown out, blurred or in a transition); used the best available at %.3f s, %@; a poster (\"cover\": {\"image\": …}) or a pinned time (\"cover\": {\"at\": seconds}) gives a better one", c.time, what)
      return CoverChoice(payload: c.payload, time: c.time, statistics: c.stats, qualified: false, verdict: verdict,
                         basis: "last resort: \(verdict == .flat ? "flat" : "blown out or blurred")", warning: warning)
    }
  }
}
