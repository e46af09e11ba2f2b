import Foundation

/// The SSIM the top rendition must reach (`video_target_ssim`), and how its
/// CRF is lowered when a picture's content needs more bits for it.
///
/// x264's CRF is a per-pixel quantiser target, not a picture quality: the
/// same CRF gives SSIM 0.997 on a slow animated fade and 0.981 on busy 60 fps
/// animation (BENCHMARKS.md, issue 10). So the transcoder measures the top
/// rendition's SSIM as it encodes it (`PictureQualityMeter`), and when it
/// falls short the top rendition alone is encoded again at a lower CRF,
/// chosen from the measured shortfall in decibels
/// (`-10·log10(1 − SSIM)`), in which x264's SSIM falls about linearly with
/// the CRF. The other renditions are the bandwidth-bound fallbacks and keep
/// the job's CRF.
///
/// Whether to encode again at all is `QualityCorrection`'s decision: not
/// when the VBV cap held the encode (a lower CRF cannot buy quality the
/// cap does not pay for), nor when the gain it predicts is too small.
public struct QualityTarget: Sendable, Equatable {
  /// SSIM (libavfilter's `ssim` "All" mean) to reach, 0–1.
  public var ssim: Double

  /// SSIM decibels gained per CRF point lowered, the slope the first
  /// correction assumes. Measured with Marquee's encoder on the natural
  /// clips that missed at CRF 23: 0.45 dB/CRF (60 fps animation, 960x540,
  /// CRF 20–23) and 0.39 dB/CRF (QCIF camera, 194x144, CRF 16–20); the
  /// lower one, so the first correction rather overshoots.
  public static let decibelsPerCRF = 0.4
  /// CRF points taken beyond the model's estimate, so one correction
  /// usually suffices.
  public static let margin = 0.25
  /// The most the top rendition's CRF is lowered below the job's.
  public static let maxLowering = 6.0
  /// Corrections at most (each is one more encode of the top rendition).
  public static let maxCorrections = 2
  /// A rendition whose average video bit rate is at least this share of
  /// its cap is held to the cap, when its pictures were not recorded
  /// (`QualityCorrection` otherwise counts the pictures the cap held).
  public static let heldToCapShare = 0.9
  /// The default `video_target_ssim`: Marquee's SSIM target for the top
  /// rendition (issue 10's "top rung at least 0.985").
  public static let defaultSSIM = 0.985

  public init(ssim: Double) { self.ssim = ssim }

  /// `-10·log10(1 − ssim)`, the decibel form ffmpeg's `ssim` filter prints.
  public static func decibels(_ ssim: Double) -> Double {
    ssim >= 1 ? 100 : -10 * log10(1 - ssim)
  }

  /// One encode of the top rendition: its CRF and what it measured.
  public struct Trial: Sendable, Equatable {
    public var crf: Double
    public var ssim: Double
    public init(crf: Double, ssim: Double) {
      self.crf = crf
      self.ssim = ssim
    }
  }

  /// The CRF of the next encode, or nil when there is none to make.
  ///
  /// - Parameters:
  ///   - trials: the encodes so far, in order (at least one).
  ///   - lowest: the lowest CRF allowed (the job's CRF less `maxLowering`,
  ///     at least `JobSettings.videoCRFRange`'s lower bound).
  /// - Returns: nil when the last trial reached the target,
  ///   `maxCorrections` corrections were made, or the CRF is already
  ///   at `lowest` or within a quarter point of it. Otherwise the CRF the slope says reaches the target,
  ///   plus `margin`: the slope between the last two trials when they
  ///   differ by at least 0.1 dB per CRF point, else `decibelsPerCRF`.
  ///   Always at least 0.25 below the last CRF, rounded down to a tenth,
  ///   and at least `lowest`.
  public func nextCRF(after trials: [Trial], lowest: Double) -> Double? {
    guard let last = trials.last, last.ssim < ssim, trials.count <= Self.maxCorrections,
          last.crf > lowest + 0.01 else { return nil }
    var slope = Self.decibelsPerCRF
    if trials.count >= 2 {
      let before = trials[trials.count - 2]
      let measured = (Self.decibels(last.ssim) - Self.decibels(before.ssim)) / (before.crf - last.crf)
      if before.crf > last.crf, measured >= 0.1 { slope = measured }
    }
    let shortfall = Self.decibels(ssim) - Self.decibels(last.ssim)
    let step = max(0.25, shortfall / slope + Self.margin)
    // Down to a tenth, the precision libx264 writes its `crf` with in the
    // stream's options SEI.
    let next = max(lowest, ((last.crf - step) * 10 + 1e-6).rounded(.down) / 10)
    // Held at the floor a step can shrink to a tenth: not worth an encode.
    return last.crf - next >= 0.25 - 1e-9 ? next : nil
  }
}
