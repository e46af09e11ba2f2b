import Foundation

/// What decoding a video source found wrong with it: damaged pictures and
/// a truncated end. Times are seconds on the output timeline (the first
/// picture at 0).
///
/// - A picture is *damaged* when its decoder concealed part of it or
///   flagged it corrupt (`AVFrame.decode_error_flags`,
///   `AV_FRAME_FLAG_CORRUPT`), when its packet could not be decoded at all
///   or was cut short (`AV_PKT_FLAG_CORRUPT`), and from then on until the
///   source's next clean keyframe, since those pictures are predicted from
///   it (`SourceHealthMonitor`: in presentation and in decode order). A
///   slice the decoder drops without concealing anything (a stray bad NAL
///   unit) damages nothing.
/// - A source is *truncated* when the packets of its streams end more than
///   `SourceHealth.truncationSlack` s, or more than
///   `SourceHealth.truncationShare` of its declared duration (and more than
///   a frame), before the end its container declares, or when its last
///   packet is cut short: a file still being copied looks like this.
/// - Its sound is *damaged* when more than `audioErrorAllowance` audio
///   packets (before the last) could not be decoded; fewer are skipped
///   with a warning naming the gaps.
///
/// By default any of these fails the item (`MarqueeError.Code.damagedSource`,
/// `failureReason`); `settings.allow_damaged_sources` builds it with
/// `warnings`.
public struct SourceHealth: Sendable, Equatable, Codable {
  /// A run of damaged pictures, seconds on the output timeline (the first
  /// and last damaged picture's times; equal for a single picture).
  public struct DamagedRange: Sendable, Equatable, Codable {
    public var start: Double
    public var end: Double
    public init(start: Double, end: Double) {
      self.start = start
      self.end = end
    }
  }

  /// Where a truncated source's pictures end, against what its container
  /// declares.
  public struct Truncation: Sendable, Equatable, Codable {
    /// The end of the pictures read, seconds on the output timeline.
    public var picturesEnd: Double
    /// The duration the container declares from the same origin, seconds;
    /// nil when only the cut last packet gives the truncation away.
    public var declaredDuration: Double?
    /// Whether the last packet read (the video's) was cut short.
    public var lastPacketCut: Bool
  }

  /// Pictures that could not be decoded cleanly (damaged, predicted from
  /// damage, or lost with their packet).
  public var damagedPictures = 0
  /// Where they are, in order, merged where no clean picture lies between.
  public var damagedRanges: [DamagedRange] = []
  /// Set when the source ends early.
  public var truncation: Truncation?
  /// The last audio packet could not be decoded (its frame is incomplete):
  /// it is dropped. Neither damage nor truncation.
  public var lastAudioFrameIncomplete = false
  /// Audio packets before the last that could not be decoded (skipped).
  public var audioErrors = 0
  /// Where they are, seconds on the output timeline (each packet's
  /// presentation time), in order, merged where no decoded packet lies
  /// between: the gaps in the sound.
  public var audioGaps: [DamagedRange] = []

  public init() {}

  /// Audio packets that may fail to decode (each skipped, a gap in the
  /// sound, with a warning) before the sound counts as damaged.
  public static let audioErrorAllowance = 25

  /// Shortfall tolerated before a source counts as truncated, seconds...
  public static let truncationSlack = 0.5
  /// ...or as a share of its declared duration, whichever is less.
  public static let truncationShare = 0.05

  /// Whether the source is whole: no damaged picture, nothing cut off, no
  /// more than `audioErrorAllowance` audio packets lost.
  public var isSound: Bool { damagedPictures == 0 && truncation == nil && !soundIsDamaged }

  /// More audio packets could not be decoded than `audioErrorAllowance`.
  public var soundIsDamaged: Bool { audioErrors > Self.audioErrorAllowance }

  /// The reason an item fails on this source, or nil when it is sound:
  /// `the source is truncated or still being copied: its pictures end at
  /// 3.13 s of 9.00 s`, `the source is damaged: 41 pictures between
  /// 1.20 s and 7.95 s could not be decoded cleanly` and/or `the source is
  /// damaged: 31 audio packets between 2.01 s and 2.65 s could not be
  /// decoded`, then the fixes.
  public var failureReason: String? {
    guard !isSound else { return nil }
    return problems.joined(separator: "; ")
      + "; re-export or copy the file again, or set \"allow_damaged_sources\": true in \"settings\" to publish it as it is"
  }

  /// Warnings for an item built from this source anyway (or for the notes
  /// that never fail one: an incomplete last audio frame, skipped audio).
  public var warnings: [String] {
    var lines: [String] = []
    if let t = truncation {
      lines.append(Self.describe(t) + String(format: "; built from what is there (allow_damaged_sources): %.2f s", t.picturesEnd))
    }
    if damagedPictures > 0 {
      lines.append(describeDamage() + "; built anyway (allow_damaged_sources), at "
                   + rangeList + "; the cover is not taken from them")
    }
    if soundIsDamaged {
      lines.append(describeAudioDamage() + "; built anyway (allow_damaged_sources), the sound has gaps at " + audioGapList)
    } else if audioErrors > 0 {
      lines.append("\(audioErrors) audio packet(s) could not be decoded and were skipped; the sound has gaps at " + audioGapList)
    }
    if lastAudioFrameIncomplete {
      lines.append("the last audio frame is incomplete (cut short, or it could not be decoded); the sound ends there")
    }
    return lines
  }

  /// One phrase per problem, truncation first.
  var problems: [String] {
    var out: [String] = []
    if let t = truncation { out.append(Self.describe(t)) }
    if damagedPictures > 0 { out.append(describeDamage()) }
    if soundIsDamaged { out.append(describeAudioDamage()) }
    return out
  }

  /// `the source is damaged: 31 audio packets between 2.01 s and 2.65 s
  /// could not be decoded` (each packet's presentation time).
  func describeAudioDamage() -> String {
    let first = audioGaps.first?.start ?? 0, last = audioGaps.last?.end ?? 0
    let what = audioErrors == 1 ? "1 audio packet" : "\(audioErrors) audio packets"
    if audioErrors == 1 || first == last {
      return String(format: "the source is damaged: %@ at %.2f s could not be decoded", what, first)
    }
    return String(format: "the source is damaged: %@ between %.2f s and %.2f s could not be decoded", what, first, last)
  }

  /// The gaps in the sound, `2.01–2.26 s, 2.65 s`.
  public var audioGapList: String { Self.list(audioGaps) }

  /// `the source is damaged: 41 pictures between 1.20 s and 7.95 s could
  /// not be decoded cleanly` (`1 picture at 2.56 s` for one).
  func describeDamage() -> String {
    let first = damagedRanges.first?.start ?? 0, last = damagedRanges.last?.end ?? 0
    if damagedPictures == 1 || first == last {
      let what = damagedPictures == 1 ? "1 picture" : "\(damagedPictures) pictures"
      return String(format: "the source is damaged: %@ at %.2f s could not be decoded cleanly", what, first)
    }
    return String(format: "the source is damaged: %d pictures between %.2f s and %.2f s could not be decoded cleanly",
                  damagedPictures, first, last)
  }

  /// The damaged ranges, `2.56–3.00 s, 3.84–4.00 s`.
  public var rangeList: String { Self.list(damagedRanges) }

  static func list(_ ranges: [DamagedRange]) -> String {
    ranges.map { r in
      r.start == r.end ? String(format: "%.2f s", r.start) : String(format: "%.2f–%.2f s", r.start, r.end)
    }.joined(separator: ", ")
  }

  static func describe(_ t: Truncation) -> String {
    if let declared = t.declaredDuration {
      return String(format: "the source is truncated or still being copied: its pictures end at %.2f s of %.2f s",
                    t.picturesEnd, declared)
    }
    return String(format: "the source is truncated or still being copied: its last packet is cut short (its pictures end at %.2f s)",
                  t.picturesEnd)
  }

  /// Whether the output time `t` lies in a damaged range (within `margin` s).
  public func isDamaged(at t: Double, margin: Double = 1e-6) -> Bool {
    damagedRanges.contains { t >= $0.start - margin && t <= $0.end + margin }
  }
}

extension SourceHealth {
  private enum CodingKeys: String, CodingKey {
    case damagedPictures, damagedRanges, truncation, lastAudioFrameIncomplete, audioErrors, audioGaps
  }

  /// Decodes a stored health; records written before `audioGaps` existed
  /// read as having no gap times.
  public init(from decoder: any Swift.Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    damagedPictures = try c.decode(Int.self, forKey: .damagedPictures)
    damagedRanges = try c.decode([DamagedRange].self, forKey: .damagedRanges)
    truncation = try c.decodeIfPresent(Truncation.self, forKey: .truncation)
    lastAudioFrameIncomplete = try c.decode(Bool.self, forKey: .lastAudioFrameIncomplete)
    audioErrors = try c.decode(Int.self, forKey: .audioErrors)
    audioGaps = try c.decodeIfPresent([DamagedRange].self, forKey: .audioGaps) ?? []
  }
}

/// Follows a source's health while `SourceReader` reads it: which decoded
/// pictures are damaged (and so must not be a cover), where the damage
/// lies, and where each stream's packets end. Works in source seconds; the
/// result (`health(origin:…)`) is on the output timeline.
///
/// A picture is damaged when its decoder flags it, and when it depends on
/// a damaged or lost picture, which two rules follow:
/// - presentation order: from a damage at source time `t`, every picture
///   shown from `t` on, until a clean keyframe shown after `t` (this also
///   covers an open GOP's leading pictures, decoded after their keyframe
///   but predicted from the damaged pictures before it);
/// - decode order, by the byte position of each picture's own packet
///   (`Frame.packetPosition`): every picture decoded after the damaged one,
///   until a clean keyframe decoded after it. B-pictures decoded after a
///   damaged reference are shown before it; the decoder hands them over
///   first, so decisions wait in a window of its reorder depth
///   (`Decoder.reorderDelay`) until the damage has shown itself.
struct SourceHealthMonitor {
  /// Seconds per nominal frame of the output, for merging ranges.
  let frameDuration: Double
  /// Presentation-order damage not yet cleared: where it starts, seconds.
  private var damageFrom: Double?
  /// Decode-order damage not yet cleared: the damaged packet's position.
  private var damageFromPosition: Int64?
  /// Source time of the latest picture.
  private var lastPicture: Double?
  /// Pictures whose decision may still change, oldest first.
  private var window: [(time: Double, position: Int64?, damaged: Bool)] = []
  /// Runs of damaged pictures, source seconds; the last may be open.
  private var runs: [(start: Double, end: Double)] = []
  private var runOpen = false
  private(set) var damagedPictures = 0
  /// Each read stream's packet end, source seconds.
  private var packetEnds: [Int: Double] = [:]
  /// Whether the last packet read was the video's, cut short.
  private var lastPacketCut = false
  /// Whether the last packet read was an audio packet cut short.
  private var lastAudioPacketCut = false
  /// Audio packets that failed, before the last: each one's time and
  /// whether the packet before it failed too (same gap).
  private var audioFailures: [(time: Double, joinsPrevious: Bool)] = []
  /// The latest audio packet failed: its time (not counted until another
  /// packet follows; the last one is an incomplete last frame).
  private var pendingAudioFailure: Double?
  /// Whether the packet before the pending failure failed too.
  private var pendingJoinsPrevious = false
  private var lastAudioFailed = false
  private var lastAudioTime: Double?

  init(frameDuration: Double) {
    self.frameDuration = frameDuration
  }

  /// Whether any damage has been seen.
  var hasDamage: Bool { damagedPictures > 0 || damageFrom != nil || damageFromPosition != nil }

  /// A packet was read from stream `index` (the video when `isVideo`):
  /// `start` and `end` in source seconds (nil when it has no timestamp),
  /// `cut` its corrupt flag. Only a cut last packet of the video makes
  /// the source truncated; a cut last audio packet is an incomplete last
  /// audio frame, a note.
  mutating func packetRead(stream index: Int, isVideo: Bool, start: Double?, end: Double?, cut: Bool) {
    lastPacketCut = cut && isVideo
    lastAudioPacketCut = cut && !isVideo
    if let e = end ?? start { packetEnds[index] = max(packetEnds[index] ?? -.infinity, e) }
  }

  /// A video packet shown at source time `time`, at byte `position`, was
  /// lost or cut (the decoder refused it, or the demuxer flagged it):
  /// `lost` when no picture will come of it, so it counts as a damaged
  /// picture itself.
  mutating func videoPacketDamaged(at time: Double?, position: Int64?, lost: Bool) {
    let t = time ?? lastPicture ?? 0
    damageFrom = min(damageFrom ?? t, t)
    if let p = position { damageFromPosition = min(damageFromPosition ?? p, p) }
    if lost {
      damagedPictures += 1
      runs.append((t, t))
      runOpen = false
    }
  }

  /// A decoded picture at source time `time`, its packet at byte
  /// `position`, `flagged` when its decoder says it is damaged. Returns
  /// whether each picture leaving the window (oldest first) is damaged;
  /// `window` is how many may wait (the decoder's reorder depth).
  mutating func picture(at time: Double, position: Int64?, keyframe: Bool, flagged: Bool, window depth: Int) -> [Bool] {
    lastPicture = time
    let clean = keyframe && !flagged
    if let from = damageFrom, clean, time > from + 1e-9 { damageFrom = nil }
    if let from = damageFromPosition, clean, let p = position, p > from { damageFromPosition = nil }
    var damaged = flagged || (damageFrom.map { time >= $0 - 1e-9 } ?? false)
    if let from = damageFromPosition, let p = position, p > from { damaged = true }
    if flagged {
      damageFrom = min(damageFrom ?? time, time)
      if let p = position {
        damageFromPosition = min(damageFromPosition ?? p, p)
        // Pictures decoded after this one but shown before it.
        for i in window.indices where (window[i].position ?? .min) > p { window[i].damaged = true }
      }
    }
    window.append((time, position, damaged))
    var released: [Bool] = []
    while window.count > max(0, depth) { released.append(release()) }
    return released
  }

  /// The decisions for every picture still waiting, oldest first.
  mutating func drain() -> [Bool] {
    var released: [Bool] = []
    while !window.isEmpty { released.append(release()) }
    return released
  }

  private mutating func release() -> Bool {
    let (time, _, damaged) = window.removeFirst()
    if damaged {
      damagedPictures += 1
      if runOpen, let last = runs.indices.last {
        runs[last].end = max(runs[last].end, time)
      } else {
        runs.append((time, time))
        runOpen = true
      }
    } else {
      runOpen = false
    }
    return damaged
  }

  /// Audio packets before the last that failed so far.
  var audioErrors: Int { audioFailures.count }

  /// An audio packet shown at source time `time` (seconds; nil when it has
  /// no timestamp) decoded (`ok`) or failed. A failure counts once another
  /// packet follows it: a failed last packet is an incomplete last frame.
  mutating func audioPacket(at time: Double?, ok: Bool) {
    let t = time ?? lastAudioTime ?? 0
    lastAudioTime = t
    let previousFailed = lastAudioFailed
    if let pending = pendingAudioFailure {
      audioFailures.append((pending, pendingJoinsPrevious))
      pendingAudioFailure = nil
    }
    if !ok {
      pendingAudioFailure = t
      pendingJoinsPrevious = previousFailed
    }
    lastAudioFailed = !ok
  }

  /// The health on the output timeline.
  ///
  /// - Parameters:
  ///   - origin: the first picture's source time (the output's 0).
  ///   - picturesEnd: the end of the pictures on the output timeline.
  ///   - declaredEnd: where the container says the read streams end,
  ///     source seconds; nil when it does not say (or only guesses).
  ///   - declaredStart: where it says they start, source seconds.
  func health(origin: Double, picturesEnd: Double, declaredEnd: Double?, declaredStart: Double) -> SourceHealth {
    var h = SourceHealth()
    h.damagedPictures = damagedPictures
    // Merge runs that overlap or touch (no clean picture between).
    let gap = 1.5 * frameDuration
    var merged: [SourceHealth.DamagedRange] = []
    for r in runs.sorted(by: { $0.start < $1.start }) {
      let range = SourceHealth.DamagedRange(start: max(0, r.start - origin), end: max(0, r.end - origin))
      if let last = merged.last, range.start <= last.end + gap {
        merged[merged.count - 1].end = max(last.end, range.end)
      } else {
        merged.append(range)
      }
    }
    h.damagedRanges = merged
    h.audioErrors = audioErrors
    for f in audioFailures {
      let t = max(0, f.time - origin)
      if f.joinsPrevious, let last = h.audioGaps.indices.last {
        h.audioGaps[last].end = max(h.audioGaps[last].end, t)
      } else {
        h.audioGaps.append(.init(start: t, end: t))
      }
    }
    h.lastAudioFrameIncomplete = lastAudioFailed || lastAudioPacketCut
    let readEnd = packetEnds.values.max()
    var truncation: SourceHealth.Truncation? = nil
    if let declaredEnd, let readEnd {
      let declared = declaredEnd - declaredStart
      let short = declaredEnd - readEnd
      let allowed = max(min(SourceHealth.truncationSlack, SourceHealth.truncationShare * declared), frameDuration)
      if declared > 0, short > allowed {
        truncation = .init(picturesEnd: picturesEnd, declaredDuration: declaredEnd - origin, lastPacketCut: lastPacketCut)
      }
    }
    if truncation == nil && lastPacketCut {
      truncation = .init(picturesEnd: picturesEnd, declaredDuration: nil, lastPacketCut: true)
    }
    h.truncation = truncation
    return h
  }
}
