import Foundation

/// One rung of the bit-rate ladder a job asks for.
///
/// `height` names the rendition the way ladders do (720 = "720p") and is
/// the length of the picture's *short* side, so a portrait clip's 720p
/// rendition is 720 pixels wide.
public struct RenditionRequest: Sendable, Equatable {
  /// Short side in pixels.
  public var height: Int
  /// Average video bit rate in kbit/s for a 16:9 picture of this height at
  /// up to 30 fps; scaled for other shapes and higher frame rates.
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

/// A rendition the transcoder will encode: exact size, rate and bit rates.
public struct RenditionPlan: Sendable, Equatable {
  /// Output picture size in pixels (both even, square pixels).
  public var width: Int
  public var height: Int
  /// Average target bit rate in bits per second.
  public var bitRate: Int
  /// VBV peak rate in bits per second (capped VBR, HLS authoring spec 1.26–1.27).
  public var maxRate: Int
  /// VBV buffer in bits.
  public var bufferSize: Int
  /// Short name used for folders and logs, e.g. `720p`.
  public var name: String
}

/// The shape of the output for one source: display size after rotation
/// and sample aspect ratio, the output frame rate, and the renditions.
public struct VideoPlan: Sendable, Equatable {
  /// Display size of the source in pixels (after SAR and rotation).
  public var displayWidth: Int
  public var displayHeight: Int
  /// Constant output frame rate in frames per second.
  public var frameRate: Rational
  /// Renditions, largest first.
  public var renditions: [RenditionPlan]
  /// Index into `renditions` of the one muxed to MP4 (nearest 720p).
  public var mp4Rendition: Int
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
  /// kept (to millihertz precision); below 12 fps or unknown (variable-rate
  /// screen recordings) the output is 30 fps, so motion stays smooth when
  /// frames arrive irregularly.
  public static func frameRate(average: Rational, base: Rational = Rational(0, 0)) -> Rational {
    func normalised(_ r: Rational) -> Double? {
      guard r.isValid else { return nil }
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
    if let fps = normalised(average), fps >= 12 {
      var num = Int32((fps * 1000).rounded()), den: Int32 = 1000
      // Lowest terms, so 15000/1000 reads as 15/1.
      var a = num, b = den
      while b != 0 { (a, b) = (b, a % b) }
      num /= a; den /= a
      return Rational(num, den)
    }
    return Rational(30, 1)
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

  /// Rounds to the nearest even number, at least 2.
  static func even(_ v: Double) -> Int { max(2, Int((v / 2).rounded()) * 2) }

  /// Plans the renditions.
  ///
  /// - Parameters:
  ///   - requests: the ladder, in any order.
  ///   - maxHeight: the job's cap on the short side.
  ///   - mp4Height: the short side wanted for the MP4 (default 720); the
  ///     nearest rendition is chosen.
  /// - Returns: the plan; never upscales: rungs above the source's short side
  ///   are dropped, and when none is left the source's own size (capped at
  ///   `maxHeight`) is the single rendition.
  public static func plan(stream: StreamInfo, requests: [RenditionRequest], maxHeight: Int,
                          mp4Height: Int? = nil) -> VideoPlan {
    let display = displaySize(codedWidth: stream.width, codedHeight: stream.height,
                              sampleAspectRatio: stream.sampleAspectRatio, transform: stream.orientation)
    let fps = frameRate(average: stream.frameRate, base: stream.baseFrameRate)
    let shortSide = min(display.width, display.height)
    let portrait = display.height > display.width
    let cap = min(maxHeight, shortSide)
    var rungs = requests.filter { $0.height <= cap }.sorted { $0.height > $1.height }
    // Distinct sizes only.
    var seen = Set<Int>()
    rungs = rungs.filter { seen.insert($0.height).inserted }
    if rungs.isEmpty {
      let base = requests.sorted { $0.height > $1.height }.first { $0.height <= maxHeight }
        ?? RenditionRequest(height: cap, bitrateKbps: 3000)
      rungs = [RenditionRequest(height: cap, bitrateKbps: base.bitrateKbps)]
    }
    let plans: [RenditionPlan] = rungs.map { rung in
      let short = Double(min(rung.height, cap))
      let long = short * Double(max(display.width, display.height)) / Double(shortSide)
      let w = portrait ? even(short) : even(long)
      let h = portrait ? even(long) : even(short)
      // Scale the nominal 16:9 bit rate by area (never above 1.5×) and by
      // frame rate above 30 fps (×1.5 at 60 fps).
      let nominalArea = short * short * 16 / 9
      let areaFactor = min(1.5, max(0.35, Double(w * h) / nominalArea))
      let rateFactor = fps.doubleValue > 31 ? 1.5 : 1.0
      let bitRate = Int(Double(rung.bitrateKbps * 1000) * areaFactor * rateFactor)
      return RenditionPlan(width: w, height: h, bitRate: bitRate, maxRate: bitRate * 3 / 2,
                           bufferSize: bitRate * 3, name: "\(min(w, h))p")
    }
    let wanted = mp4Height ?? 720
    let mp4 = plans.indices.min {
      abs(min(plans[$0].width, plans[$0].height) - wanted) < abs(min(plans[$1].width, plans[$1].height) - wanted)
    } ?? 0
    return VideoPlan(displayWidth: display.width, displayHeight: display.height, frameRate: fps,
                     renditions: plans, mp4Rendition: mp4)
  }
}
