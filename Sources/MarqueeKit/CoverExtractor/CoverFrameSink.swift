/// The cover extractor's side of the transcode: measures the top
/// rendition's pictures as the transcoder makes them (`PictureSink`) and
/// lets `CoverSelector` choose among them, keeping at most three picture
/// references whatever the clip's length.
///
/// Made by the cover stage for a video whose cover is a frame (`auto`,
/// `first`, `at`); a poster needs none. `observe` runs on rendition 0's
/// worker thread, `choice()` on the item's thread after the transcoder has
/// joined that worker: the join's lock orders the two, which is what the
/// `@unchecked Sendable` stands for (one thread at a time, never two).
// Safe: one thread at a time: rendition 0's worker until it is joined, then the item's thread.
public final class CoverFrameSink: PictureSink, @unchecked Sendable {
  private var selector: CoverSelector<Frame>
  /// Runs of damaged pictures seen, for the warning when a pinned time
  /// falls in one.
  private var damaged = DamagedRuns()

  public init(policy: CoverPolicy) {
    selector = CoverSelector<Frame>(policy: policy)
  }

  public var isSatisfied: Bool { selector.isSatisfied }

  /// Measures the picture (`PictureStatistics` of its luma and chroma
  /// thumbnails) and offers it; a reference is taken only when it is kept.
  /// A damaged picture (`Frame.isCorrupt`: concealed by its decoder, or
  /// predicted from one that was, `SourceHealth`) is never offered.
  public func observe(_ picture: Frame, time: Double) throws {
    damaged.picture(at: time, damaged: picture.isCorrupt)
    if picture.isCorrupt { return }
    guard let thumbs = picture.yuvThumbnails() else { return }
    let stats = PictureStatistics(y: thumbs.y, u: thumbs.u, v: thumbs.v)
    try selector.offer(time: time, statistics: stats) { try picture.clone() }
  }

  /// The chosen frame as RGBA sRGB at the top rendition's size, or why none
  /// can be a cover (`MarqueeError.noCover`).
  public func choice() -> Result<CoverPicture, MarqueeError> {
    var chosen: CoverChoice<Frame>
    do throws(MarqueeError) { chosen = try selector.finish() } catch {
      return .failure(damaged.runs.isEmpty ? error : Self.withDamage(error))
    }
    if case .at(let target) = selector.policy, abs(chosen.time - target) > 1e-6,
       let run = damaged.run(showing: target) {
      let note = String(format: "the pinned cover time %.3f s falls in a damaged part of the source (%.2f–%.2f s); the clean frame at %.3f s was used",
                        target, run.start, run.end, chosen.time)
      chosen.warning = chosen.warning.map { $0 + "; " + note } ?? note
    }
    do {
      let image = try PixelConverter.rgba(from: chosen.payload)
      return .success(CoverPicture(image: image, time: chosen.time, warning: chosen.warning, basis: chosen.basis))
    } catch {
      return .failure(MarqueeError(.encodeFailed, "the cover frame cannot be converted to RGBA: \(error.reason)", cause: error))
    }
  }

  /// A no-cover error when damaged pictures were left out: says so.
  private static func withDamage(_ error: MarqueeError) -> MarqueeError {
    var e = error
    e.message += "; the damaged pictures of the source were not considered"
    return e
  }
}

/// The runs of damaged pictures among the pictures of a rendition, in the
/// order shown: a run is consecutive damaged pictures, so a run never
/// spans a clean picture (the rule `SourceHealth.damagedRanges` follows),
/// and a clean picture between two damaged ones (the one a pinned cover
/// may fall back to) splits them.
struct DamagedRuns {
  /// A run: its first and last damaged picture's times, and the time of
  /// the clean picture after it (nil while none has come), seconds.
  struct Run: Equatable {
    var start: Double
    var end: Double
    var cleanFrom: Double?
  }

  private(set) var runs: [Run] = []
  private var open = false

  /// The next picture, shown from `time` (seconds, increasing).
  mutating func picture(at time: Double, damaged: Bool) {
    if damaged {
      if open, let last = runs.indices.last { runs[last].end = time } else {
        runs.append(Run(start: time, end: time, cleanFrom: nil))
        open = true
      }
    } else if open, let last = runs.indices.last {
      runs[last].cleanFrom = time
      open = false
    }
  }

  /// The run whose pictures are on screen at `time`: from its first
  /// picture until the clean picture after it.
  func run(showing time: Double) -> Run? {
    runs.first { time >= $0.start - 1e-6 && time < ($0.cleanFrom ?? .infinity) - 1e-6 }
  }
}
