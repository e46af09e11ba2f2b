import Foundation

/// How the source's colours must be converted to BT.709 SDR.
public enum DynamicRange: Sendable, Equatable {
  /// Already SDR: only the matrix and range are converted, by `scale`.
  case sdr
  /// SMPTE ST 2084 (PQ), HDR10 and HDR10+.
  case pq
  /// ARIB STD-B67 (HLG).
  case hlg

  /// Classifies a transfer characteristic name as libavutil spells it
  /// (`av_color_transfer_name`). Decoders set it from the bitstream's VUI as
  /// well as the container's `colr` box, so a stream signalled only in the
  /// bitstream is still caught.
  public init(transfer: String) {
    switch transfer {
    case "smpte2084": self = .pq
    case "arib-std-b67": self = .hlg
    default: self = .sdr
    }
  }
}

/// Builds the libavfilter graphs that turn decoded source pictures into
/// every rendition: one chain up to a `split`, then one `scale` per
/// rendition. The transcoder runs `headText` (the shared chain) on the
/// item's thread and one `tailText(rendition:)` per rendition on that
/// rendition's thread.
///
/// Order, cheapest first: deinterlace (`bwdif`, only frames flagged
/// interlaced), constant frame rate (`fps`, from timestamps, so VFR sources
/// come out evenly timed), tone mapping for HDR (`zscale` to linear light,
/// `tonemap=hable`, `zscale` back to BT.709), `split`; then per rendition
/// `scale` (Lanczos) to the size before rotation (square pixels), `zscale`
/// to BT.709 limited range for BT.601 or full-range sources, the rotation
/// (`transpose`/`hflip`/`vflip`), `setsar=1`, `format=yuv420p`. Scaling
/// before rotating keeps the transpose cheap.
public struct VideoFilterDescription: Sendable {
  public var plan: VideoPlan
  public var transform: DisplayTransform
  public var dynamicRange: DynamicRange
  /// The source's matrix and primaries names (`av_color_space_name`,
  /// `av_color_primaries_name`), for `zscale`'s input tags and to decide
  /// whether `scale` must convert the matrix.
  public var sourceMatrix: String
  public var sourcePrimaries: String
  /// Whether the source is full range (JPEG range, `yuvj*` formats).
  public var sourceIsFullRange: Bool
  /// Source picture height, to guess an untagged matrix (SD → BT.601).
  public var sourceHeight: Int

  public init(plan: VideoPlan, transform: DisplayTransform, dynamicRange: DynamicRange,
              sourceMatrix: String = "bt2020nc", sourcePrimaries: String = "bt2020",
              sourceIsFullRange: Bool = false, sourceHeight: Int = 1080) {
    self.plan = plan
    self.transform = transform
    self.dynamicRange = dynamicRange
    self.sourceMatrix = sourceMatrix
    self.sourcePrimaries = sourcePrimaries
    self.sourceIsFullRange = sourceIsFullRange
    self.sourceHeight = sourceHeight
  }

  /// The filter that converts an SDR source to BT.709 limited range after
  /// scaling, or nil when it already is.
  ///
  /// `zscale` (the zimg library) does the matrix and range conversion:
  /// libswscale's `in/out_color_matrix` options do not convert between YUV
  /// matrices and, when given, both darken full-range pictures by a few
  /// levels and leave its fast path (measured here: 1.8× the CPU of the whole
  /// 3-rung encode). The conversion runs only when the source is full range
  /// or uses another matrix (BT.601 `smpte170m`/`bt470bg`, or an untagged
  /// picture under 720 lines, which players read as BT.601), and after the
  /// downscale, on the smaller picture. The input range comes from the
  /// frames (`rangein=input`).
  var matrixConversion: String? {
    guard dynamicRange == .sdr else { return nil }
    let zimgMatrix: String
    switch sourceMatrix {
    case "bt709": zimgMatrix = "709"
    case "bt470bg": zimgMatrix = "470bg"
    case "smpte170m": zimgMatrix = "170m"
    case "fcc": zimgMatrix = "fcc"
    case "bt2020nc": zimgMatrix = "2020_ncl"
    case "bt2020c": zimgMatrix = "2020_cl"
    default: zimgMatrix = sourceHeight < 720 ? "170m" : "709"
    }
    guard zimgMatrix != "709" || sourceIsFullRange else { return nil }
    return "zscale=matrixin=\(zimgMatrix):matrix=709:range=limited"
  }

  /// The graph the item's thread runs: input `in0`, output `out0`, the
  /// chain every rendition shares (deinterlace, constant rate, tone
  /// mapping); each rendition's worker turns its pictures into that
  /// rendition with `tailText(rendition:)`.
  public var headText: String {
    "[in0]" + headFilters.joined(separator: ",") + "[out0]"
  }

  /// The graph of rendition `i` fed with `headText`'s pictures: input
  /// `in0`, output `out0`.
  public func tailText(rendition i: Int) -> String {
    "[in0]" + tailFilters(i).joined(separator: ",") + "[out0]"
  }

  /// Deinterlace, constant rate and tone mapping: what every rendition shares.
  var headFilters: [String] {
    var head = ["bwdif=mode=send_frame:parity=auto:deint=interlaced",
                "fps=fps=\(plan.frameRate.num)/\(plan.frameRate.den):round=near"]
    switch dynamicRange {
    case .sdr: break
    case .pq, .hlg:
      let tin = dynamicRange == .pq ? "smpte2084" : "arib-std-b67"
      let min = ["bt2020nc", "bt2020c", "bt709", "smpte170m"].contains(sourceMatrix) ? sourceMatrix : "bt2020nc"
      let pin = ["bt2020", "bt709"].contains(sourcePrimaries) ? sourcePrimaries : "bt2020"
      head += [
        "zscale=tin=\(tin):min=\(min):pin=\(pin):t=linear:npl=100",
        "format=gbrpf32le",
        "zscale=p=bt709",
        "tonemap=tonemap=hable:desat=0",
        "zscale=t=bt709:m=bt709:r=tv",
        "format=yuv420p",
      ]
    }
    return head
  }

  /// Scale, matrix conversion, rotation and format of rendition `i`.
  func tailFilters(_ i: Int) -> [String] {
    let r = plan.renditions[i]
    // Size before rotation: a quarter turn swaps the sides.
    let (w, h) = transform.swapsDimensions ? (r.height, r.width) : (r.width, r.height)
    var chain = ["scale=w=\(w):h=\(h):flags=lanczos"]
    if let convert = matrixConversion { chain.append(convert) }
    chain += transform.filterChain
    chain += ["setsar=1", "format=yuv420p"]
    return chain
  }
}

/// The audio chain: resample to 48 kHz with timestamp-driven sync
/// (`aresample=async=1:first_pts=0` pads or trims so audio starts at 0 and
/// stays locked to its timestamps), then planar float in the output channel
/// layout (`audioFormatFilter`), then the loudness gain when there is one
/// (`LoudnessAdjustment.volumeFilter`: one linear gain, libavfilter's
/// `volume` in float).
///
/// - Parameter gain: decibels; 0 adds no filter, so the chain is the one
///   Marquee used before loudness was adjusted.
public func audioFilterDescription(channels: Int, gain: Double = 0) -> String {
  "[in0]aresample=async=1:min_hard_comp=0.1:first_pts=0:osr=48000,"
    + audioFormatFilter(channels: channels) + LoudnessAdjustment.volumeFilter(gain: gain) + "[out0]"
}

/// The samples every AAC encoder takes and the loudness meter measures:
/// planar float at 48 kHz, mono kept mono and more channels down-mixed to
/// stereo by libswresample's default matrix.
func audioFormatFilter(channels: Int) -> String {
  "aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=\(channels == 1 ? "mono" : "stereo")"
}
