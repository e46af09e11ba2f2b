/// The rendition every ladder ends with for weak networks: a variant whose
/// measured peak, video and sound together, stays at or under
/// `peakLimit`, so a player on a poor cellular link (a 2G/EDGE-class link,
/// or a 3G one shared and fading) starts within seconds instead of
/// stalling. Apple's HLS authoring specification for Apple devices (§1.25)
/// starts its example ladder at 145 kbit/s for the same reason.
///
/// One definition, shared by the planner that adds the rung
/// (`RenditionPlanner.plan`), the encoders and muxers that make it
/// (`TranscodeOutputs`: its own AAC-LC encoder at `audioBitRate`), the
/// master playlist that lists it last (`MasterPlaylistWriter`), and
/// `verify`, which measures its peak from its segments.
///
/// Its budget: the most any second of it can take is the VBV buffer plus
/// a second at the cap (40 + 80 kbit), the sound (56 kbit/s AAC-LC, whose
/// bit reservoir lets a second run about 5 % over) and the container
/// (moof boxes and the init section's share, 5–8 kbit/s): 187 kbit/s.
/// A full one-second buffer at a 90 kbit/s cap with 64 kbit/s sound, the
/// first choice, peaked at 198 kbit/s on the corpus's fade-in AVI, whose
/// dark opening fills the buffer for its last segment to spend
/// (BENCHMARKS.md, issue 23).
public enum WeakNetworkRung {
  /// The most its measured `BANDWIDTH` (the peak, RFC 8216 §4.3.4.2) may
  /// be, bits per second, video, sound and container together.
  public static let peakLimit = 192_000
  /// Its short side, pixels: 256x144 for a 16:9 source. A ladder whose
  /// lowest rung below the top is this small already makes that rung the
  /// weak one (a small source's ladder).
  public static let shortSide = 144
  /// Its VBV cap (`RenditionPlan.bitRate`), bits per second, whatever the
  /// frame rate: the peak budget is fixed.
  public static let videoBitRate = 80_000
  /// Its VBV buffer, seconds at the cap (the other rungs: 1 s), so that a
  /// buffer filled by easy pictures cannot double a second's bits; it
  /// starts half full, as theirs do.
  public static let bufferSeconds = 0.5
  /// Its AAC-LC bit rate, bits per second (the other variants: 128 000).
  public static let audioBitRate = 56_000
  /// The shortest stretch its budget is measured over, seconds: the first
  /// segment's length (`TranscodeRequest.startupSegmentDuration`).
  public static let shortestRun = 1.0

  /// What `verify` and the build say when the last variant peaks over
  /// `peakLimit` (`peak`, bits per second, from `budgetPeak`): a warning,
  /// since the source is not at fault.
  public static func overBudget(uri: String, peak: Int) -> String {
    "the variant for weak networks, \(uri), peaks at \(peak) bit/s over runs of at least \(Int(shortestRun)) s, "
      + "over \(peakLimit): a player on a link that slow may stall"
  }

  /// Its peak as the budget measures it, bits per second: RFC 8216's peak
  /// (runs of consecutive segments lasting 0.5 to 1.5 target durations,
  /// `MeasuredBandwidth`), except that no run shorter than `shortestRun`
  /// counts (runs then reach up to twice it), and a variant shorter than
  /// that is measured as all its bits
  /// over `shortestRun`: a player on a link of that rate has the whole of
  /// it within a second. Without that floor a clip of 0.3 s, whose init
  /// section and one IDR picture are most of its 11 kB, would measure
  /// 300 kbit/s, and a 0.5 s last segment, an IDR and half a second, 250.
  ///
  /// - Parameters:
  ///   - segments: bits (with each segment's share of the init section)
  ///     and seconds, in playlist order.
  ///   - targetDuration: `#EXT-X-TARGETDURATION`, seconds (nil: the
  ///     longest segment, rounded up).
  public static func budgetPeak(segments: [(bits: Double, seconds: Double)], targetDuration: Int?) -> Int {
    let target = Double(targetDuration ?? Int((segments.map(\.seconds).max() ?? 0).rounded(.up)))
    // Runs up to twice the shortest, so a short last segment still counts
    // with the one before it.
    let shortest = max(0.5 * target, shortestRun), longest = max(1.5 * target, 2 * shortestRun)
    let peak = MeasuredBandwidth.peak(segments, shortest: shortest, longest: longest)
      ?? segments.reduce(0) { $0 + $1.bits } / shortestRun
    return Int(peak.rounded(.up))
  }

  /// Makes `plans` (largest first, at least two) end with the weak rung.
  ///
  /// When the lowest rendition below the top has a short side of at most
  /// `shortSide`, it becomes the weak one: its cap is lowered to
  /// `videoBitRate` when higher. Otherwise a `shortSide` rendition of the
  /// same aspect ratio (long side rounded to even) is added after it. Its
  /// buffer is `bufferSeconds` at its cap.
  /// - Parameter portrait: whether the pictures are taller than wide.
  static func added(to plans: [RenditionPlan], portrait: Bool) -> [RenditionPlan] {
    guard plans.count > 1, let lowest = plans.last, let top = plans.first else { return plans }
    var result = plans
    if min(lowest.width, lowest.height) <= shortSide {
      result[result.count - 1] = weak(RenditionPlan(width: lowest.width, height: lowest.height,
                                                    bitRate: min(lowest.bitRate, videoBitRate), name: lowest.name))
      return result
    }
    let topShort = Double(min(top.width, top.height)), topLong = Double(max(top.width, top.height))
    let long = RenditionPlanner.even(Double(shortSide) * topLong / topShort)
    let (w, h) = portrait ? (shortSide, long) : (long, shortSide)
    result.append(weak(RenditionPlan(width: w, height: h, bitRate: videoBitRate, name: "\(shortSide)p")))
    return result
  }

  /// `plan` made the weak rung: marked, its buffer `bufferSeconds` at its cap.
  private static func weak(_ plan: RenditionPlan) -> RenditionPlan {
    var weak = plan
    weak.isWeakNetwork = true
    weak.bufferSize = Int((Double(plan.bitRate) * bufferSeconds).rounded())
    weak.initialBufferOccupancy = weak.bufferSize / 2
    return weak
  }
}
