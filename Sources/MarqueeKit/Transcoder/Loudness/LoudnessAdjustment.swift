import Foundation

/// The loudness of a source's sound as it will be encoded (`LoudnessMeter`).
public struct LoudnessMeasurement: Sendable, Equatable {
  /// Integrated loudness in LUFS (EBU R128 / ITU-R BS.1770-4, gated, as
  /// libavfilter's `ebur128` gives it); −70 when nothing passes the
  /// absolute gate (silence, or under 0.4 s of sound).
  public var integrated: Double
  /// The highest true peak of any channel in dBTP (BS.1770 annex 2, 4×
  /// oversampled by `ebur128`); −∞ for digital silence.
  public var truePeak: Double

  public init(integrated: Double, truePeak: Double) {
    self.integrated = integrated
    self.truePeak = truePeak
  }
}

/// What is done to the sound's level: one linear gain that brings the
/// integrated loudness to `settings.audio_loudness`, unless the true peak
/// would pass `truePeakCeiling` (then the gain stops there) or the sound is
/// near-silent (then it is left alone).
///
/// Never dynamic compression: libavfilter's `loudnorm` falls back to its
/// dynamic mode without saying so, so Marquee measures first
/// (`LoudnessMeter`) and applies one gain (`volume`). The rule follows
/// Apple's guidance for streamed audio (about −16 LUFS integrated, true
/// peak at most −1 dBTP) and EBU R128's −1 dBTP ceiling for lossy codecs.
///
/// Both figures are judged on the sound as it is delivered, after the AAC
/// encoder (`decide`): the gain from the source's figures is tried, the
/// trial's encodes are measured, and the gain is moved by what they miss
/// (the encoder lowers the loudness a little and adds to sharp peaks;
/// within a dB both move with the gain).
public struct LoudnessAdjustment: Sendable, Equatable {
  /// What the meter read of the source before any gain.
  public var measured: LoudnessMeasurement
  /// The integrated loudness asked for, LUFS (`audio_loudness`).
  public var target: Double
  /// The gain applied, in dB (0: left alone); a multiple of 0.01 dB,
  /// rounded down so that a gain held by the peak never passes it.
  public var gain: Double
  public var reason: Reason
  /// What the delivered sound measures at `gain`: the loudness of the
  /// main AAC encode and the highest true peak of every encode (the
  /// weak-network rung's included), from the trial encode moved by the
  /// last correction; nil when no trial was made (near-silent, or only
  /// the source's figures were known).
  public var encoded: LoudnessMeasurement?
  /// The integrated loudness of each other encode at `gain` (the
  /// weak-network rung's 56 kbit/s), LUFS, found as `encoded`'s: one
  /// gain serves every variant, and an encoder that keeps less of a sound
  /// (a tone near 20 kHz, a DC offset) leaves its variant off the target.
  public var otherEncodes: [Double] = []

  /// Why the gain is what it is.
  public enum Reason: String, Sendable, Equatable {
    /// The gain brings the loudness to the target.
    case reachesTarget = "reaches the target"
    /// The target would put the true peak over `truePeakCeiling`: the gain
    /// stops where the peak reaches it, short of the target.
    case heldByTruePeak = "held by the true peak"
    /// Under `nearSilentBelow`: room tone, a silent track, or sound too
    /// short to measure; raising it would only raise noise.
    case nearSilent = "near-silent, left alone"
  }

  /// The highest true peak the delivered sound may have, dBTP.
  public static let truePeakCeiling = -1.0
  /// Room kept under the ceiling when the gain is corrected from a trial
  /// encode, dB: the encoder's overshoot moves a little with the level
  /// (measured by `LoudnessTests` on the HLS sound).
  public static let correctionMargin = 0.1
  /// How far another encode's loudness may be from the main one's before
  /// the summary names it, LU.
  public static let variantTolerance = 1.0
  /// Integrated loudness under which a sound is left alone, LUFS.
  public static let nearSilentBelow = -50.0

  /// The gain from the source's figures alone.
  public init(measured: LoudnessMeasurement, target: Double) {
    self.measured = measured
    self.target = target
    encoded = nil
    guard measured.integrated >= Self.nearSilentBelow else {
      gain = 0
      reason = .nearSilent
      return
    }
    let wanted = target - measured.integrated
    let allowed = Self.truePeakCeiling - measured.truePeak
    gain = Self.hundredths(min(wanted, allowed))
    reason = allowed < wanted ? .heldByTruePeak : .reachesTarget
  }

  /// This gain moved by what a trial encode at it measured.
  ///
  /// - Parameter trial: one reading per AAC encoder of the transcode at
  ///   `gain`, the main one (128 kbit/s) first (`LoudnessMeter.measureEncoded`).
  public func corrected(by trial: [LoudnessMeasurement]) -> LoudnessAdjustment {
    guard reason != .nearSilent, let main = trial.first else { return self }
    let peak = trial.map(\.truePeak).max() ?? main.truePeak
    let loudnessGap = target - main.integrated
    let peakRoom = Self.truePeakCeiling - Self.correctionMargin - peak
    var next = self
    next.gain = Self.hundredths(gain + min(loudnessGap, peakRoom))
    next.reason = peakRoom < loudnessGap ? .heldByTruePeak : .reachesTarget
    let moved = next.gain - gain
    next.encoded = LoudnessMeasurement(integrated: main.integrated + moved, truePeak: peak + moved)
    next.otherEncodes = trial.dropFirst().map { $0.integrated + moved }
    return next
  }

  /// Measures the source, tries the gain through `encoders`, corrects it.
  ///
  /// A gain whose delivered peak is under `settledPeakBand` below the
  /// ceiling is corrected once: the loudness moves with the gain exactly,
  /// and the peak has room. Near the ceiling the encoder's overshoot moves
  /// with the level, so the corrected gain is tried again, up to
  /// `maxTrials` encodes; the gain kept is then one whose trial measured
  /// a peak at most the ceiling (the highest such), unless none did.
  ///
  /// - Returns: nil when no audio decoded.
  /// - Throws: `MediaIOError` from the meter.
  static func decide(meter: LoudnessMeter, target: Double,
                     encoders: [AudioEncoderSettings]) throws -> LoudnessAdjustment? {
    guard let source = try meter.measureSource() else { return nil }
    var adjustment = LoudnessAdjustment(measured: source, target: target)
    guard adjustment.reason != .nearSilent, !encoders.isEmpty else { return adjustment }
    var confirmed: LoudnessAdjustment? = nil
    for _ in 0..<maxTrials {
      let trial = try meter.measureEncoded(gain: adjustment.gain, encoders: encoders)
      guard let main = trial.first else { return adjustment }
      var tried = adjustment
      tried.encoded = LoudnessMeasurement(integrated: main.integrated, truePeak: trial.map(\.truePeak).max() ?? main.truePeak)
      tried.otherEncodes = trial.dropFirst().map(\.integrated)
      if let e = tried.encoded, e.truePeak <= truePeakCeiling, tried.gain > (confirmed?.gain ?? -.infinity) {
        confirmed = tried
      }
      let next = adjustment.corrected(by: trial)
      if abs(next.gain - adjustment.gain) < 0.01 { return tried }
      if let e = next.encoded, e.truePeak < truePeakCeiling - settledPeakBand { return next }
      adjustment = next
    }
    return confirmed ?? adjustment
  }

  /// Most trial encodes of one sound (`decide`).
  static let maxTrials = 3
  /// How far under the ceiling a corrected peak must be to be taken
  /// without another trial, dB.
  static let settledPeakBand = 1.0

  /// libavfilter's `volume` for `gain` dB as a filter to append to a chain
  /// (",volume=…"), or "" for no gain. In float, so nothing is clipped
  /// or dithered on the way to the AAC encoder.
  static func volumeFilter(gain: Double) -> String {
    gain == 0 ? "" : String(format: ",volume=volume=%.2fdB:precision=float", gain)
  }

  /// For the item's summary: "loudness −29.1 LUFS, −7.0 dBTP → +13.10 dB:
  /// −16.0 LUFS, −3.2 dBTP as encoded", with the reason when the peak held
  /// the gain back, and the weak-network variant's loudness when it is
  /// more than `variantTolerance` off.
  public var summary: String {
    let before = "loudness \(Self.decibels(measured.integrated)) LUFS, \(Self.decibels(measured.truePeak)) dBTP"
    guard reason != .nearSilent else { return before + ": \(reason.rawValue)" }
    var text = before + " → \(String(format: "%+.2f", gain)) dB"
    if let e = encoded {
      text += ": \(Self.decibels(e.integrated)) LUFS, \(Self.decibels(e.truePeak)) dBTP as encoded"
    }
    // A variant more than 1 LU off the main one is named.
    if let e = encoded {
      for other in otherEncodes where abs(other - e.integrated) > Self.variantTolerance {
        text += "; the \(WeakNetworkRung.audioBitRate / 1000) kbit/s encode (the weak-network variant) measures \(Self.decibels(other)) LUFS"
      }
    }
    if reason == .heldByTruePeak {
      text += " (\(reason.rawValue) at \(Self.decibels(Self.truePeakCeiling)) dBTP, short of \(Self.decibels(target)) LUFS)"
    }
    return text
  }

  /// Rounded down to 0.01 dB (a nanodecibel up first, so that 13.05,
  /// stored as 13.04999…, stays 13.05).
  /// The figures as JSON log fields, decibels with one decimal (the gain
  /// with two): `loudness_lufs` and `true_peak_dbtp` (the source),
  /// `loudness_gain_db`, `loudness_rule` (`target`, `true peak`,
  /// `near-silent`), and `delivered_lufs`, `delivered_true_peak_dbtp`
  /// when a trial encode measured them.
  public var logFields: [String: String] {
    var fields = ["loudness_lufs": Self.decibels(measured.integrated), "true_peak_dbtp": Self.decibels(measured.truePeak),
                  "loudness_gain_db": String(format: "%.2f", gain),
                  "loudness_rule": reason == .reachesTarget ? "target" : reason == .heldByTruePeak ? "true peak" : "near-silent"]
    if let e = encoded {
      fields["delivered_lufs"] = Self.decibels(e.integrated)
      fields["delivered_true_peak_dbtp"] = Self.decibels(e.truePeak)
    }
    return fields
  }

  private static func hundredths(_ value: Double) -> Double { (value * 100 + 1e-7).rounded(.down) / 100 }

  private static func decibels(_ value: Double) -> String {
    value.isFinite ? String(format: "%.1f", value) : (value < 0 ? "-inf" : "inf")
  }
}
