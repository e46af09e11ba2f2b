import Foundation

/// One rung of the bit-rate ladder a job asks for.
///
/// `height` names the rendition the way ladders do (720 = "720p") and is
/// the length of the picture's *short* side, so a portrait clip's 720p
/// rendition is 720 pixels wide.
public struct RenditionRequest: Sendable, Equatable {
  /// Short side in pixels.
  public var height: Int
  /// Video bit rate in kbit/s for a 16:9 picture of this height at 30 fps:
  /// the rendition's VBV cap under capped CRF (content that needs fewer
  /// bits for the job's `video_crf` takes fewer). Scaled for other sizes and
  /// frame rates by `RenditionPlanner.bitRate(width:height:fps:reference:)`.
  public var bitrateKbps: Int
  public init(height: Int, bitrateKbps: Int) {
    self.height = height
    self.bitrateKbps = bitrateKbps
  }

  /// The default ladder, after Apple's HLS authoring specification for Apple
  /// devices (§1.25, the 16:9 example ladder), trimmed to the sizes a
  /// carousel banner needs: 1080p 6 Mbit/s, 720p 3 Mbit/s, 540p 2 Mbit/s,
  /// 360p 730 kbit/s. Rungs above `max_height` or above the source are
  /// dropped by the planner.
  public static let defaultLadder: [RenditionRequest] = [
    .init(height: 1080, bitrateKbps: 6000), .init(height: 720, bitrateKbps: 3000),
    .init(height: 540, bitrateKbps: 2000), .init(height: 360, bitrateKbps: 730),
  ]
}

/// A rendition the transcoder will encode: exact size and rate control.
///
/// Rate control is capped CRF: x264's constant rate factor (the job's
/// `video_crf`) decides how many bits each picture takes, so easy content
/// takes only what the quality target needs, and the VBV (`maxRate`,
/// `bufferSize`) holds hard content to the rung's bit rate (the rates of
/// Apple's HLS authoring spec §1.25 ladder as caps; the master playlist
/// declares the peaks and averages the segments then measure, §9.1–9.2).
public struct RenditionPlan: Sendable, Equatable {
  /// Output picture size in pixels (both even, square pixels).
  public var width: Int
  public var height: Int
  /// The rung's bit rate scaled to this picture size and frame rate, bits
  /// per second: the VBV cap (`maxRate` equals it).
  public var bitRate: Int
  /// VBV peak rate in bits per second.
  public var maxRate: Int
  /// VBV buffer in bits: one second at `maxRate`.
  public var bufferSize: Int
  /// VBV buffer fullness at the start, bits (half the buffer), so the
  /// first second holds at most 1.5 s at `maxRate`.
  public var initialBufferOccupancy: Int
  /// Short name used for folders and logs, e.g. `720p`.
  public var name: String
  /// Added to the job's `video_crf` for this rendition (0 or negative):
  /// `RenditionPlanner.crfOffset(width:height:)`, lower for pictures
  /// smaller than 640x360.
  public var crfOffset: Double
  /// Whether this is the ladder's rung for weak networks (`WeakNetworkRung`):
  /// listed last, with its own lower-rate AAC-LC.
  public var isWeakNetwork = false
  /// Which encoder makes it: libx264, or libx265 for the HEVC twin of an
  /// H.264 rendition (`RenditionPlanner.hevcTwin(of:)`).
  public var codec: VideoCodec = .h264

  public init(width: Int, height: Int, bitRate: Int, name: String) {
    self.width = width
    self.height = height
    self.bitRate = bitRate
    maxRate = bitRate
    bufferSize = bitRate
    initialBufferOccupancy = bitRate / 2
    self.name = name
    crfOffset = RenditionPlanner.crfOffset(width: width, height: height)
  }

  /// The x264 CRF this rendition is encoded at for the job's `video_crf`:
  /// `jobCRF + crfOffset`, at least the lowest `video_crf` a job may set.
  public func crf(jobCRF: Double) -> Double {
    max(JobSettings.videoCRFRange.lowerBound, jobCRF + crfOffset)
  }
}

/// The shape of the output for one source: display size after rotation
/// and sample aspect ratio, the output frame rate, and the renditions.
public struct VideoPlan: Sendable, Equatable {
  /// Display size of the source in pixels (after SAR and rotation).
  public var displayWidth: Int
  public var displayHeight: Int
  /// Constant output frame rate in frames per second.
  public var frameRate: Rational
  /// Renditions: the H.264 ones largest first, the last of them the
  /// weak-network rung (`WeakNetworkRung`); then, when the job asks for
  /// HEVC, the HEVC twins of those at least `hevcMinimumSide` on each
  /// side, in the same order.
  public var renditions: [RenditionPlan]
  /// Index into `renditions` of the one muxed to MP4 (nearest 720p, H.264).
  public var mp4Rendition: Int

  /// The indices of the renditions whose SSIM the top-rendition check
  /// measures: the first rendition of each codec (the largest picture).
  public var measuredRenditions: [Int] {
    var seen: Set<VideoCodec> = []
    return renditions.indices.filter { seen.insert(renditions[$0].codec).inserted }
  }
}

/// Pure planning of sizes, frame rate and ladder from stream facts.
public enum RenditionPlanner {
  /// The standard rates output snaps to when the source is within 1 %.
  static let standardRates: [Rational] = [
    Rational(24000, 1001), Rational(24, 1), Rational(25, 1), Rational(30000, 1001),
    Rational(30, 1), Rational(48, 1), Rational(50, 1), Rational(60000, 1001), Rational(60, 1),
  ]

  /// Chooses the constant output rate from the source's nominal rates, at
  /// most 60 fps (HLS authoring spec 1.18–1.19).
  ///
  /// The average rate (`avg_frame_rate`) is tried first, then the base rate
  /// (`r_frame_rate`); the first that lies within 1 % of a standard rate
  /// (23.976 … 60) wins, so a clip with one dropped frame (average 27.5 fps,
  /// base 30) still comes out at 30. Rates above 60 are halved until they
  /// fit. When neither is standard, an average between 12 and 60 fps is
  /// kept (to millihertz precision). Below 12 fps a source with constant
  /// timing keeps its own rate (a 10 fps camera clip stays 10 fps, not
  /// every picture three times): its average and base rates agree within
  /// 1 % (`constantTimingTolerance`); a rate under 1 fps is multiplied by
  /// the smallest whole number that brings it to 1 fps or more, so each
  /// picture is repeated exactly. Irregular timing (a variable-rate screen
  /// recording: average 7.2, base 57 600) or an unknown rate gives 30 fps,
  /// so motion stays smooth when frames arrive irregularly.
  public static func frameRate(average: Rational, base: Rational = Rational(0, 0)) -> Rational {
    func normalised(_ r: Rational) -> Double? {
      guard r.isValid, r.doubleValue > 0 else { return nil }
      var fps = r.doubleValue
      while fps > 60.5 { fps /= 2 }
      return fps
    }
    for candidate in [average, base] {
      guard let fps = normalised(candidate), fps >= 12 else { continue }
      if let nearest = standardRates.min(by: { abs($0.doubleValue - fps) < abs($1.doubleValue - fps) }),
         abs(nearest.doubleValue - fps) / nearest.doubleValue < 0.01 {
        return nearest
      }
    }
    if let fps = normalised(average), fps >= 12 { return millihertz(fps) }
    if let a = normalised(average), let b = normalised(base), abs(a - b) / b < constantTimingTolerance {
      let repeats = b < 1 ? (1 / b).rounded(.up) : 1
      return millihertz(b * repeats)
    }
    return Rational(30, 1)
  }

  /// How far a source's average and base rates may differ (a share of the
  /// base) for its timing to count as constant.
  static let constantTimingTolerance = 0.01

  /// `fps` to millihertz precision, in lowest terms (15000/1000 reads 15/1).
  static func millihertz(_ fps: Double) -> Rational {
    var num = Int32((fps * 1000).rounded()), den: Int32 = 1000
    var a = num, b = den
    while b != 0 { (a, b) = (b, a % b) }
    num /= a; den /= a
    return Rational(num, den)
  }

  /// The display size of a coded picture: the width stretched by the sample
  /// aspect ratio (square-pixel output keeps the height), then swapped when
  /// the display matrix turns the picture by a quarter.
  public static func displaySize(codedWidth: Int, codedHeight: Int, sampleAspectRatio sar: Rational,
                                 transform: DisplayTransform) -> (width: Int, height: Int) {
    var w = Double(codedWidth)
    if sar.isValid && sar.num != sar.den { w = w * Double(sar.num) / Double(sar.den) }
    let dw = max(2, Int(w.rounded())), dh = max(2, codedHeight)
    return transform.swapsDimensions ? (dh, dw) : (dw, dh)
  }

  /// Whether two picture sizes show the same aspect ratio, up to what
  /// rounding each side to an even number of pixels can explain: each side
  /// of each size is within a pixel of the exact scaled size, so the cross
  /// products `w1·h2` and `h1·w2` differ by at most `w1 + h1 + w2 + h2 + 1`
  /// (or 1.2 % of them, the older tolerance, when that is more). Shared by
  /// the planner's ladder and the verifier's check of it: at 32x18 and
  /// 18x10 one pixel is 3–10 % of a side.
  public static func sameAspect(_ a: (width: Int, height: Int), _ b: (width: Int, height: Int)) -> Bool {
    let cross = abs(a.width * b.height - a.height * b.width)
    let rounding = a.width + a.height + b.width + b.height + 1
    return Double(cross) <= max(Double(rounding), 0.012 * Double(a.height * b.height))
  }

  /// Rounds to the nearest even number, at least 2.
  static func even(_ v: Double) -> Int { max(2, Int((v / 2).rounded()) * 2) }

  /// Exponent of the pixel count in a rung's bit rate: Apple's ladder
  /// (HLS authoring spec §1.25) grows by 1.5× from 540p to 720p (1.78× the
  /// pixels) and by 2× from 720p to 1080p (2.25×), about pixels^0.75.
  public static let pixelExponent = 0.75
  /// Exponent of the pixel count for the top rendition of a source smaller
  /// than every rung (a QCIF or 640x272 clip), scaled from the smallest
  /// rung. That rendition is the best picture anyone gets and is shown
  /// enlarged, and small pictures need more bits per pixel than large ones
  /// (less of each is smooth area), so its cap shrinks with the square root
  /// of the pixels rather than pixels^0.75: 254 kbit/s instead of 150 for
  /// a 194x144 picture at 30 fps. Measured on the QCIF carphone clip: at
  /// the 150 kbit/s cap no CRF reaches SSIM 0.985 (0.9835 at CRF 16); it
  /// needs about 190 kbit/s (BENCHMARKS.md, issue 10). The lower rung added
  /// below it keeps pixels^0.75.
  public static let smallSourcePixelExponent = 0.5
  /// Exponent of the frame rate: Apple's 720p ladder takes 4.5 Mbit/s at
  /// 60 fps for 3 Mbit/s at 30 fps, (60/30)^0.585 = 1.5.
  static let frameRateExponent = 0.585
  /// A rung added below a lone rung has this fraction of its short side.
  static let lowerRungScale = 2.0 / 3.0
  /// The smallest short side of an added lower rung, pixels.
  static let smallestRung = 8

  /// Pictures with fewer pixels than this (640x360, the smallest rung of
  /// the default ladder) are encoded at a lower CRF than the job's.
  static let smallRenditionPixels = 640 * 360
  /// CRF points taken off per halving of the pixels below
  /// `smallRenditionPixels`.
  static let smallRenditionCRFPerHalving = 1.0
  /// The most a small rendition's CRF is lowered.
  static let smallRenditionMaxCRFOffset = 4.0

  /// How much lower than the job's `video_crf` a `width`×`height`
  /// rendition is encoded (0 or negative): `-1 × log2(640·360 / pixels)`
  /// below 640x360, at most 4 lower; 0 from 640x360 up.
  ///
  /// A small rendition is shown upscaled: a 194x144 picture fills a banner
  /// a phone draws about 1,000 pixels wide, so each coded pixel covers
  /// about 25 of the screen's and its coding errors are magnified with it,
  /// while its bytes are few (measured at CRF 23: 113 kbit/s for a QCIF
  /// clip's 194x144 rendition, 0.9–2.1 Mbit/s for the 720p renditions). x264's CRF is a per-pixel quality: the
  /// same CRF looks worse the more the picture is enlarged, so small
  /// pictures get a lower one, a CRF point per halving of the pixels
  /// (BENCHMARKS.md, issue 10: the top rendition of a QCIF source then
  /// reaches the SSIM target). The rung's VBV cap still holds: content
  /// that needs more than the cap at the lower CRF is held to it.
  public static func crfOffset(width: Int, height: Int) -> Double {
    let pixels = Double(max(1, width * height))
    let small = Double(smallRenditionPixels)
    guard pixels < small else { return 0 }
    return -min(smallRenditionMaxCRFOffset, smallRenditionCRFPerHalving * log2(small / pixels))
  }

  /// The size of the rung added below a lone rendition `top`: its short side
  /// about two thirds of `top`'s, the even size (within 8 pixels of that)
  /// whose aspect ratio is nearest `top`'s, since small pictures round to
  /// even sides coarsely; nil when `top` is too small for one.
  static func lowerRungSize(below top: RenditionPlan) -> (width: Int, height: Int)? {
    let topShort = min(top.width, top.height), topLong = max(top.width, top.height)
    let target = even(Double(topShort) * lowerRungScale)
    var best: (short: Int, long: Int, error: Int)? = nil
    for short in stride(from: max(smallestRung, target - 8), through: min(topShort - 2, target + 8), by: 2) {
      let long = even(Double(short) * Double(topLong) / Double(topShort))
      // Cross-multiplied aspect difference, per pixel of the short side.
      let error = abs(long * topShort - short * topLong) * 1000 / short
      let closer = best.map { error < $0.error || (error == $0.error && abs(short - target) < abs($0.short - target)) } ?? true
      if closer { best = (short, long, error) }
    }
    guard let b = best else { return nil }
    return top.height > top.width ? (b.short, b.long) : (b.long, b.short)
  }

  /// The bit rate of a `width`×`height` picture at `fps` on the rung
  /// `reference` (whose rate is for a 16:9 picture of its height at up to
  /// 30 fps): scaled by pixels^`exponent` (0.75 unless said) and
  /// (fps / 30)^0.585, bits per second.
  public static func bitRate(width: Int, height: Int, fps: Double, reference: RenditionRequest,
                             exponent: Double = pixelExponent) -> Int {
    let short = Double(reference.height)
    let nominalPixels = short * short * 16 / 9
    let pixels = pow(Double(width * height) / nominalPixels, exponent)
    let rate = pow(max(1, fps) / 30, frameRateExponent)
    return Int((Double(reference.bitrateKbps * 1000) * pixels * rate).rounded())
  }

  /// A rung below the top rendition is dropped when it has at least this
  /// share of the top's pixels (within 15 %): too close to be worth a
  /// variant of its own.
  static let nearTopShare = 0.85

  /// Plans the renditions.
  ///
  /// - Parameters:
  ///   - requests: the ladder, in any order.
  ///   - maxHeight: the job's cap on the short side.
  ///   - mp4Height: the short side wanted for the MP4 (default 720); the
  ///     nearest rendition is chosen.
  /// - Returns: the plan, renditions largest first. The top rendition's
  ///   short side is the source's, capped at `maxHeight`: never upscaled.
  ///   When that is a rung of the ladder, the top is that rung. When it
  ///   lies between rungs (a 640x480, 720x528 or 1280x536 source, or a
  ///   `max_height` that is no rung), the top is that size itself (the
  ///   short side rounded down to even, the long side to the even number
  ///   nearest the aspect ratio), at the rate of the next rung above
  ///   scaled by its pixels^0.75 (the largest rung's when none is above);
  ///   when it lies below every rung, at the smallest rung's rate scaled by
  ///   the square root of its pixels (`smallSourcePixelExponent`;
  ///   pixels^0.75 if that is more). The rungs below the top follow, each
  ///   at its own rate, except a rung with at least 85 % of the top's
  ///   pixels (`nearTopShare`). At least two renditions always (Apple HLS
  ///   authoring spec 9.9: several bit rates): a lone one gets another
  ///   below it at two thirds of its short side. The ladder ends with the
  ///   rung for weak networks (`WeakNetworkRung.added(to:portrait:)`):
  ///   the lowest rung when it is 144p or smaller, else a 144p one added.
  ///   The MP4 is never made from that rung.
  ///   Then, with `.hevc` in `codecs`, the HEVC twin of every rendition
  ///   whose sides are both at least `hevcMinimumSide` (`hevcTwin(of:)`).
  public static func plan(stream: StreamInfo, requests: [RenditionRequest], maxHeight: Int,
                          mp4Height: Int? = nil, codecs: [VideoCodec] = [.h264]) -> VideoPlan {
    let display = displaySize(codedWidth: stream.width, codedHeight: stream.height,
                              sampleAspectRatio: stream.sampleAspectRatio, transform: stream.orientation)
    let fps = frameRate(average: stream.frameRate, base: stream.baseFrameRate)
    let shortSide = min(display.width, display.height)
    let longSide = max(display.width, display.height)
    let portrait = display.height > display.width
    let cap = min(maxHeight, shortSide)
    var ladder: [RenditionRequest] = []
    for r in requests.sorted(by: { $0.height > $1.height }) where !ladder.contains(where: { $0.height == r.height }) {
      ladder.append(r)
    }
    func plan(short: Int, long: Int, rate: Int) -> RenditionPlan {
      let (w, h) = portrait ? (short, long) : (long, short)
      return RenditionPlan(width: w, height: h, bitRate: rate, name: "\(short)p")
    }
    // A standard rung of short side `height`: both sides rounded to even.
    func rung(_ r: RenditionRequest) -> RenditionPlan {
      let short = Double(r.height)
      let s = even(short), l = even(short * Double(longSide) / Double(shortSide))
      let (w, h) = portrait ? (s, l) : (l, s)
      return plan(short: s, long: l, rate: bitRate(width: w, height: h, fps: fps.doubleValue, reference: r))
    }

    var plans: [RenditionPlan] = []
    // The rung whose rate a lower rung added below a lone top scales from.
    var lowerReference: RenditionRequest
    if let exact = ladder.first(where: { $0.height == cap }) {
      plans.append(rung(exact))
      lowerReference = exact
    } else {
      // The source's own size (capped at max_height): the short side
      // rounded down to even (never above the source's), the long side to
      // the even number nearest the source's aspect ratio.
      let short = max(2, cap / 2 * 2)
      let long = even(Double(short) * Double(longSide) / Double(shortSide))
      let (w, h) = portrait ? (short, long) : (long, short)
      let above = ladder.last { $0.height > cap }
      let reference = above ?? ladder.first ?? RenditionRequest(height: 360, bitrateKbps: 730)
      var rate = bitRate(width: w, height: h, fps: fps.doubleValue, reference: reference)
      if !ladder.contains(where: { $0.height < cap }) {
        // Below every rung: the square root of its pixels, if that is more.
        rate = max(rate, bitRate(width: w, height: h, fps: fps.doubleValue, reference: reference,
                                 exponent: smallSourcePixelExponent))
      }
      plans.append(plan(short: short, long: long, rate: rate))
      lowerReference = reference
    }
    let topPixels = Double(plans[0].width * plans[0].height)
    for r in ladder where r.height < cap {
      let p = rung(r)
      guard Double(p.width * p.height) < nearTopShare * topPixels else { continue }
      plans.append(p)
    }
    // A top left alone because the rungs below it were too close: the
    // rung added below it scales from the nearest of them.
    if plans.count == 1, let below = ladder.first(where: { $0.height < cap }) { lowerReference = below }
    if plans.count == 1, let size = lowerRungSize(below: plans[0]) {
      let rate = bitRate(width: size.width, height: size.height, fps: fps.doubleValue, reference: lowerReference)
      plans.append(RenditionPlan(width: size.width, height: size.height, bitRate: rate,
                                 name: "\(min(size.width, size.height))p"))
    }
    plans = WeakNetworkRung.added(to: plans, portrait: portrait)
    let wanted = mp4Height ?? 720
    let mp4 = plans.indices.filter { !plans[$0].isWeakNetwork }.min {
      abs(min(plans[$0].width, plans[$0].height) - wanted) < abs(min(plans[$1].width, plans[$1].height) - wanted)
    } ?? 0
    if codecs.contains(.hevc) {
      plans += plans.filter { min($0.width, $0.height) >= hevcMinimumSide }.map(hevcTwin(of:))
    }
    return VideoPlan(displayWidth: display.width, displayHeight: display.height, frameRate: fps,
                     renditions: plans, mp4Rendition: mp4)
  }

  /// The smallest side of a picture that gets an HEVC twin, pixels: one
  /// 64×64 coding tree unit. libx265 3.5 refuses pictures under 16 pixels
  /// a side, and corrupts its heap and aborts on some sizes under 64 (41
  /// of 180 tried, 34 to 48 pixels wide and 16 to 40 high: 36x20, 40x22,
  /// 48x26; BENCHMARKS.md, "HEVC ladder"); every size tried from 64x64 to
  /// 144x144 encoded. Such a rendition has no HEVC twin.
  public static let hevcMinimumSide = 64
  /// An HEVC twin's VBV cap as a share of its H.264 rendition's: Apple's
  /// HLS authoring specification puts HEVC 25 % below H.264 at equal
  /// quality (1080p 4.5 against 6 Mbit/s), and published BD-rates put
  /// x265 about 39 % below x264; 0.7 between the two.
  public static let hevcRateShare = 0.7
  /// Added to an H.264 rendition's CRF for its HEVC twin: libx265's CRF
  /// scale sits about a point below libx264's in SSIM on the natural
  /// clips (BENCHMARKS.md, "HEVC ladder": at CRF 23 + 1 the twin measures
  /// within 0.002 of the H.264 rendition's SSIM).
  public static let hevcCRFOffset = 1.0
  /// The folder-name suffix of an HEVC twin (`720p-hevc`).
  public static let hevcNameSuffix = "-hevc"

  /// The HEVC twin of the H.264 rendition `h264`: the same picture size,
  /// frame rate and IDRs (the same `KeyframePlanner`), and the same sound;
  /// its VBV cap and buffer `hevcRateShare` of the rendition's (the same
  /// seconds of buffer, half full at the start), its CRF `hevcCRFOffset`
  /// higher, named `<name>-hevc`.
  public static func hevcTwin(of h264: RenditionPlan) -> RenditionPlan {
    var twin = h264
    twin.codec = .hevc
    twin.name = h264.name + hevcNameSuffix
    twin.bitRate = Int((Double(h264.bitRate) * hevcRateShare).rounded())
    twin.maxRate = Int((Double(h264.maxRate) * hevcRateShare).rounded())
    twin.bufferSize = Int((Double(h264.bufferSize) * hevcRateShare).rounded())
    twin.initialBufferOccupancy = twin.bufferSize / 2
    twin.crfOffset = h264.crfOffset + hevcCRFOffset
    return twin
  }
}
