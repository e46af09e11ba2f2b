/// How hard libx264 works on every rendition: the preset and the options
/// that gave the fewest bytes at equal SSIM within the encode-CPU budget
/// (BENCHMARKS.md, "Rate control and encoder effort": at most about 2.5×
/// the CPU per item of the `veryfast` encodes before capped CRF).
///
/// Fixed for every job (part of each item's fingerprint): libx264's bytes
/// depend on these, so the same job builds the same bundle. No `tune`:
/// `tune=ssim` and `tune=psnr` turn off the psycho-visual optimisations
/// people see, to please a metric. High profile, yuv420p, closed GOPs,
/// no scene-cut keyframes and forced IDRs are the encoder's fixed rules
/// (`Encoder.init(video:)`); the level stays libx264's choice for the size.
///
/// Every encode runs one libx264 thread, a correction of the top rendition
/// too (`VideoBannerBuilder.defaultEncoderThreads`): under a VBV, libx264's
/// frame threads read how far the other frames have got, and its slice
/// threads the other slices' estimated size, in their row-level rate
/// control, so both give bytes that depend on timing (BENCHMARKS.md,
/// "The second encode: which libx264 threads repeat").
public enum EncoderEffort {
  /// libx264 preset.
  public static let preset = "medium"
  /// Most consecutive B-frames: x264's default of 3, which the natural
  /// clips measured smaller with than 2 (low-motion camera footage most).
  public static let bFrames = 3
  /// x264 options beyond the preset, each `key=value`: `b-adapt=2` (the
  /// trellis B-frame decision) picks how many of the 3 B-frames to use;
  /// `rc-lookahead=60` lets macroblock-tree rate control see up to 60
  /// pictures ahead instead of 40 (libx264 clamps it to the GOP, 51–61
  /// pictures at 25–30 fps); `trellis=2` (rate-distortion optimal
  /// quantisation in every mode decision, not only the final one) takes
  /// 0.9–3.7 % off at equal SSIM on every rung of the natural clips
  /// measured, for about 9 % more libx264 instructions (BENCHMARKS.md,
  /// issue 10). It is not a metric tuning: psycho-visual rate-distortion
  /// stays on.
  public static let x264Options = ["b-adapt=2", "rc-lookahead=60", "trellis=2"]

  /// libx265 preset for the HEVC twins: on the corpus's mpeg2 fade at
  /// 1080p, CRF 25, `medium` took 24 % fewer bytes than `fast` at a higher
  /// SSIM, for 2.1x its CPU; one `medium` libx265 thread cost 1.5x one
  /// libx264 thread with the options above on the rot270 clip, and a whole
  /// item with its twins 2.3–2.5x the CPU of its H.264 ladder alone
  /// (BENCHMARKS.md, "HEVC ladder"), within the 3x the twins may cost.
  public static let hevcPreset = "medium"
  /// x265 options beyond the preset and the fixed ones
  /// (`Encoder.init(video:)`), each `key=value`: the same most consecutive
  /// B-frames as libx264's.
  public static var x265Options: [String] { ["bframes=\(bFrames)"] }

  /// The encoder settings of rendition `r` at `crf`: libx264 with the
  /// options above, or libx265 for an HEVC twin; the rendition's VBV;
  /// `gopLength` pictures at most between IDRs.
  static func settings(for r: RenditionPlan, frameRate: Rational, gopLength: Int, threads: Int,
                       crf: Double) -> VideoEncoderSettings {
    var s = VideoEncoderSettings(width: r.width, height: r.height, frameRate: frameRate,
                                 bitRate: r.bitRate, maxRate: r.maxRate, bufferSize: r.bufferSize,
                                 gopLength: gopLength, preset: r.codec == .hevc ? hevcPreset : preset, threads: threads,
                                 crf: crf, initialBufferOccupancy: r.initialBufferOccupancy,
                                 bFrames: bFrames, x264Options: x264Options)
    s.codec = r.codec
    if r.codec == .hevc { s.x265Options = x265Options }
    return s
  }

  /// One line for the item fingerprint: the options, the rule that
  /// lowers the CRF of small renditions (`RenditionPlanner.crfOffset`), the
  /// cap of a small source's top rendition, and the top rendition's SSIM
  /// correction (`QualityTarget`).
  public static var summary: String {
    (["preset=\(preset)", "bframes=\(bFrames)"] + x264Options).joined(separator: ":")
      + ";small_crf=\(RenditionPlanner.smallRenditionPixels)px:\(RenditionPlanner.smallRenditionCRFPerHalving)"
      + "/halving:max\(RenditionPlanner.smallRenditionMaxCRFOffset)"
      + ";small_source_cap=pixels^\(RenditionPlanner.smallSourcePixelExponent)"
      + ";top_ssim_check=\(QualityTarget.decibelsPerCRF)dB/crf+\(QualityTarget.margin):max\(QualityTarget.maxLowering)"
      + "x\(QualityTarget.maxCorrections):held\(QualityTarget.heldToCapShare)"
      + ";correction=fill\(QualityCorrection.heldFill):rate\(QualityCorrection.heldRate):share\(QualityCorrection.heldShare)"
      + ":gain\(QualityCorrection.minimumGain):one_thread"
      + ";hevc=preset=\(hevcPreset):" + x265Options.joined(separator: ":")
      + ":rate\(RenditionPlanner.hevcRateShare):crf+\(RenditionPlanner.hevcCRFOffset):min\(RenditionPlanner.hevcMinimumSide)"
  }
}
