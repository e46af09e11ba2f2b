import Foundation

/// What decoding a source found wrong with it: a video's damaged pictures
/// and a truncated end, or a still's concealed damage. Times are seconds on
/// the output timeline (the first picture at 0).
///
/// - A picture is *damaged* when its decoder concealed part of it or
///   flagged it corrupt (`AVFrame.decode_error_flags`,
///   `AV_FRAME_FLAG_CORRUPT`), when its packet was cut short
///   (`AV_PKT_FLAG_CORRUPT`) or was lost (refused whole by the decoder, with
///   pictures depending on it), and from then on until the source's next
///   clean keyframe, since those pictures are predicted from it
///   (`SourceHealthMonitor`: in presentation and in decode order). A slice
///   the decoder drops without concealing anything, and an H.264 packet it
///   refuses whole after which the next picture follows on with no
///   picture missing (a stray bad NAL unit), damage nothing: the second is
///   a note (`skippedVideoPackets`).
/// - Times are on the output timeline and within the pictures: a picture
///   lost after the last one decoded is named at the end of the pictures,
///   the end a truncation names.
/// - A source is *truncated* when the packets of its streams end more than
///   `SourceHealth.truncationSlack` s, or more than
///   `SourceHealth.truncationShare` of its declared duration (and more than
///   a frame), before the end its container declares, or when its last
///   packet is cut short: a file still being copied looks like this.
/// - Its sound is *damaged* when more than `audioErrorAllowance` audio
///   packets (before the last) could not be decoded; fewer are skipped
///   with a warning naming the gaps.
/// - A *still* is damaged when its decoder could not decode part of its
///   image data and concealed it (`damagedStill`, `DamagedStill`).
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
  /// Video packets the decoder refused whole with nothing depending on
  /// them (`SourceHealthMonitor`: H.264 stray units, such as a slice naming
  /// a parameter set that does not exist), seconds on the output timeline;
  /// nil when there are none. Skipped, a note: not damage.
  public var skippedVideoPackets: [Double]?
  /// A still (an image banner's source) whose decoder could not decode part
  /// of its image data and concealed it: what it said
  /// (`DecodedPicture.damage`); nil for a whole still and for videos.
  public var damagedStill: String?

  public init() {}

  /// Damaged pictures, a damaged still counting as one: what the run's
  /// summary and the JSON log count.
  public var damagedPictureCount: Int { damagedPictures + (damagedStill == nil ? 0 : 1) }

  /// The health of a still whose decoder concealed `damage`.
  public init(damagedStill damage: String) {
    damagedStill = damage
  }

  /// Audio packets that may fail to decode (each skipped, a gap in the
  /// sound, with a warning) before the sound counts as damaged.
  public static let audioErrorAllowance = 25

  /// Shortfall tolerated before a source counts as truncated, seconds...
  public static let truncationSlack = 0.5
  /// ...or as a share of its declared duration, whichever is less.
  public static let truncationShare = 0.05

  /// Whether the source is whole: no damaged picture, nothing cut off, no
  /// more than `audioErrorAllowance` audio packets lost.
  public var isSound: Bool { damagedPictures == 0 && truncation == nil && !soundIsDamaged && damagedStill == nil }

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
    if let damage = damagedStill {
      lines.append("the picture is damaged: " + damage + "; built anyway (allow_damaged_sources), with the decoder's concealment where the data is wrong")
    }
    if soundIsDamaged {
      lines.append(describeAudioDamage() + "; built anyway (allow_damaged_sources), the sound has gaps at " + audioGapList)
    } else if audioErrors > 0 {
      lines.append("\(audioErrors) audio packet(s) could not be decoded and were skipped; the sound has gaps at " + audioGapList)
    }
    if let skipped = skippedVideoPackets, !skipped.isEmpty {
      let times = skipped.map { String(format: "%.2f s", $0) }.joined(separator: ", ")
      lines.append(skipped.count == 1
        ? "1 video packet (at \(times)) could not be decoded and was skipped; the pictures after it decoded whole, so no picture depends on it"
        : "\(skipped.count) video packets (at \(times)) could not be decoded and were skipped; the pictures after them decoded whole, so no picture depends on them")
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
    if let damage = damagedStill { out.append("the picture is damaged: " + damage) }
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
    case damagedPictures, damagedRanges, truncation, lastAudioFrameIncomplete, audioErrors, audioGaps, skippedVideoPackets
    case damagedStill
  }

  /// Decodes a stored health; records written before `audioGaps`,
  /// `skippedVideoPackets` or `damagedStill` existed read as having no gap
  /// times, no skipped packets and no damaged still.
  public init(from decoder: any Swift.Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    damagedPictures = try c.decode(Int.self, forKey: .damagedPictures)
    damagedRanges = try c.decode([DamagedRange].self, forKey: .damagedRanges)
    truncation = try c.decodeIfPresent(Truncation.self, forKey: .truncation)
    lastAudioFrameIncomplete = try c.decode(Bool.self, forKey: .lastAudioFrameIncomplete)
    audioErrors = try c.decode(Int.self, forKey: .audioErrors)
    audioGaps = try c.decodeIfPresent([DamagedRange].self, forKey: .audioGaps) ?? []
    skippedVideoPackets = try c.decodeIfPresent([Double].self, forKey: .skippedVideoPackets)
    damagedStill = try c.decodeIfPresent(String.self, forKey: .damagedStill)
  }
}

/// Follows a source's health while `SourceReader` reads it: which decoded
/// pictures are damaged (and so must not be a cover), where the damage
/// lies, and where each stream's packets end. Works in source seconds; the
/// result (`health(origin:…)`) is on the output timeline.
///
/// A picture is damaged when its decoder flags it, and when it depends on
/// a damaged or lost picture, which two rules follow (`PictureDamage`):
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
///
/// A video packet the decoder refuses whole (no picture comes of it) is
/// judged by what the decoder does next:
/// - H.264 decoded on one thread (`judgesLostPackets`), after the fact. A
///   lost reference picture leaves a gap in `frame_num` that the next
///   picture's slice header shows; libavcodec's h264 decoder then makes a
///   picture in its place (H.264 8.2.5.2; FFmpeg's "Frame num gap": a copy
///   of the previous reference, never handed over), which takes a number
///   of its count of the pictures it started (`AVFrame.coded_picture_number`,
///   `Frame.codedPictureNumber`). It flags neither that picture nor those
///   predicted from it: in libavcodec 59 their `decode_error_flags` and
///   `AV_FRAME_FLAG_CORRUPT` stay clear, so concealment flags alone cannot
///   tell a lost reference from a stray unit. When the picture decoded
///   after the refused packet is numbered right after the one decoded
///   before it, the decoder made nothing in between and nothing the stream
///   depends on was lost: the packet was a stray unit (a slice naming a
///   parameter set that does not exist, say), skipped, a note
///   (`SourceHealth.skippedVideoPackets`), not damage. Otherwise it was a
///   lost picture, damaged, its damage carried on as above. A lost picture
///   nothing refers to (`nal_ref_idc` 0) leaves no gap and counts as
///   skipped too: no other picture depends on it. Decisions wait (at most
///   `2 × reorder depth + 8` pictures) until this is known.
/// - Any other codec, or H.264 on frame threads (whose errors come later,
///   from another packet): a lost picture, damaged at once, its damage
///   carried to the next clean keyframe. Their decoders give nothing to
///   judge by: MPEG-4 part 2 (libavcodec 59) hands over the pictures after
///   a lost VOP unflagged and numbered on, though they are predicted from a
///   picture it never had.
struct SourceHealthMonitor {
  /// Seconds per nominal frame of the output.
  let frameDuration: Double
  /// Whether a refused packet is judged after the fact (H.264 on one
  /// thread) rather than counted as a lost picture at once.
  let judgesLostPackets: Bool
  /// The damage decided so far.
  private var decided = PictureDamage()
  /// A run of refused packets not yet judged.
  private var pending: PendingLoss?
  /// The latest pictures' numbers and packet positions, newest last.
  private var recent: [(coded: Int?, position: Int64?)] = []
  /// Refused packets judged stray units, source seconds.
  private var skippedPackets: [Double] = []
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

  /// Refused packets judged after the fact: the first one's byte position,
  /// every one's time, and the damage and decisions as if they were lost
  /// pictures (`decided` goes on as if they were stray units).
  private struct PendingLoss {
    let position: Int64
    var times: [Double]
    /// Whether a packet has been sent whole since, and its position.
    var sentAfter = false
    var nextPosition: Int64?
    var ifLost: PictureDamage
    var asStray: [Bool] = []
    var asLost: [Bool] = []
    var picturesSince = 0
  }

  /// Pictures remembered for judging (their numbers and positions).
  static let recentPictures = 64

  init(frameDuration: Double, judgesLostPackets: Bool = false) {
    self.frameDuration = frameDuration
    self.judgesLostPackets = judgesLostPackets
  }

  /// Damaged pictures decided so far (a lost picture counts once judged).
  var damagedPictures: Int { decided.damagedPictures }

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

  /// A video packet shown at source time `time`, at byte `position`, that
  /// the demuxer flagged cut short (`AV_PKT_FLAG_CORRUPT`): whatever
  /// picture comes of it, and what is predicted from it, is damaged.
  mutating func videoPacketCut(at time: Double?, position: Int64?) {
    let t = time ?? decided.lastPicture ?? 0
    decided.damage(from: t, position: position)
    pending?.ifLost.damage(from: t, position: position)
  }

  /// The decoder refused a video packet shown at source time `time`, at
  /// byte `position` (nil when unknown, as for an error its receive
  /// reported): judged later when `judgesLostPackets` and the position is
  /// known, else a lost picture at once. Returns the decisions this
  /// settles (oldest first), as `picture` does.
  mutating func videoPacketRefused(at time: Double?, position: Int64?) -> [Bool] {
    let t = time ?? decided.lastPicture ?? 0
    guard judgesLostPackets, let position else {
      decided.lose(at: t, position: position)
      pending?.ifLost.lose(at: t, position: position)
      return []
    }
    var released: [Bool] = []
    if var p = pending {
      if !p.sentAfter {  // the same run of refused packets
        p.times.append(t)
        p.ifLost.lose(at: t, position: position)
        pending = p
        return []
      }
      // Another run before the last one was judged: that one is taken as lost.
      released = resolve(stray: false)
    }
    var ifLost = decided
    ifLost.lose(at: t, position: position)
    pending = PendingLoss(position: position, times: [t], ifLost: ifLost)
    return released
  }

  /// The decoder took a video packet at byte `position` whole.
  mutating func videoPacketSent(position: Int64?) {
    guard var p = pending, !p.sentAfter else { return }
    p.sentAfter = true
    p.nextPosition = position
    pending = p
  }

  /// A decoded picture at source time `time`, its packet at byte
  /// `position`, `codedNumber` the decoder's count of it
  /// (`Frame.codedPictureNumber`), `flagged` when its decoder says it is
  /// damaged. Returns whether each picture leaving the window (oldest
  /// first) is damaged; `window` is how many may wait (the decoder's
  /// reorder depth), more while a refused packet waits to be judged.
  mutating func picture(at time: Double, position: Int64?, codedNumber: Int? = nil, keyframe: Bool, flagged: Bool,
                        window depth: Int) -> [Bool] {
    recent.append((codedNumber, position))
    if recent.count > Self.recentPictures { recent.removeFirst(recent.count - Self.recentPictures) }
    let released = decided.picture(at: time, position: position, keyframe: keyframe, flagged: flagged, window: depth)
    guard var p = pending else { return released }
    p.asStray += released
    p.asLost += p.ifLost.picture(at: time, position: position, keyframe: keyframe, flagged: flagged, window: depth)
    p.picturesSince += 1
    pending = p
    return judge(depth: depth, final: false)
  }

  /// The decisions for every picture still waiting, oldest first; a
  /// refused packet still waiting is judged with what came.
  mutating func drain() -> [Bool] {
    judge(depth: 0, final: true) + decided.drain()
  }

  /// Judges the pending run once the picture decoded after it and the one
  /// decoded before it have both come out (or takes it as lost when they
  /// cannot: `final`, or after `2 × depth + 8` pictures).
  private mutating func judge(depth: Int, final: Bool) -> [Bool] {
    guard let p = pending else { return [] }
    if p.sentAfter, let next = p.nextPosition,
       let after = recent.last(where: { $0.position == next }), let number = after.coded, number > 0,
       let before = recent.last(where: { $0.coded == number - 1 }) {
      return resolve(stray: (before.position ?? .max) < p.position)
    }
    if final || p.picturesSince > 2 * max(0, depth) + 8 { return resolve(stray: false) }
    return []
  }

  /// Ends the pending run as stray units or as lost pictures; returns the
  /// decisions held for it.
  private mutating func resolve(stray: Bool) -> [Bool] {
    guard let p = pending else { return [] }
    pending = nil
    if stray {
      skippedPackets += p.times
      return p.asStray
    }
    decided = p.ifLost
    return p.asLost
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
  /// Damaged pictures, damaged ranges and skipped packets are placed at
  /// their source time less `origin`, within `0...picturesEnd`: a picture
  /// lost after the last one decoded (a cut last packet) is named at the
  /// end of the pictures, never after the end the truncation names.
  /// Ranges are merged only where no clean picture lies between.
  ///
  /// - Parameters:
  ///   - origin: the first picture's source time (the output's 0).
  ///   - picturesEnd: the end of the pictures on the output timeline.
  ///   - declaredEnd: where the container says the read streams end,
  ///     source seconds; nil when it does not say (or only guesses).
  ///   - declaredStart: where it says they start, source seconds.
  func health(origin: Double, picturesEnd: Double, declaredEnd: Double?, declaredStart: Double) -> SourceHealth {
    var h = SourceHealth()
    func place(_ t: Double) -> Double { min(max(0, t - origin), max(0, picturesEnd)) }
    h.damagedPictures = decided.damagedPictures
    h.damagedRanges = decided.ranges().map { .init(start: place($0.start), end: place($0.end)) }
    if !skippedPackets.isEmpty { h.skippedVideoPackets = skippedPackets.map(place) }
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

/// The picture rules of `SourceHealthMonitor` (presentation and decode
/// order, the reorder window) and the damage they found, source seconds.
/// A value: the monitor keeps a copy to follow a refused packet as lost
/// while it waits to be judged.
struct PictureDamage {
  /// Presentation-order damage not yet cleared: where it starts, seconds.
  private var damageFrom: Double?
  /// Decode-order damage not yet cleared: the damaged packet's position.
  private var damageFromPosition: Int64?
  /// Source time of the latest picture.
  private(set) var lastPicture: Double?
  /// Pictures whose decision may still change, oldest first.
  private var window: [(time: Double, position: Int64?, damaged: Bool)] = []
  /// Runs of damaged pictures (consecutive as released, or one lost
  /// picture), source seconds; the last may be open.
  private var runs: [(start: Double, end: Double)] = []
  private var runOpen = false
  /// The times of the clean pictures released, in release order.
  private var cleanTimes: [Double] = []
  private(set) var damagedPictures = 0

  /// Damage from source time `t` (packet at byte `position`) on, until
  /// the clean keyframes that clear it.
  mutating func damage(from t: Double, position: Int64?) {
    damageFrom = min(damageFrom ?? t, t)
    if let p = position { damageFromPosition = min(damageFromPosition ?? p, p) }
  }

  /// A picture shown at `t` was lost with its packet (at byte
  /// `position`): it counts as damaged, and so does what follows it.
  mutating func lose(at t: Double, position: Int64?) {
    damage(from: t, position: position)
    damagedPictures += 1
    runs.append((t, t))
    runOpen = false
  }

  /// See `SourceHealthMonitor.picture`.
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
      cleanTimes.append(time)
      runOpen = false
    }
    return damaged
  }

  /// The runs in time order, merged where they overlap or no clean
  /// picture lies between them (a lost picture and the damaged pictures
  /// after it), source seconds.
  func ranges() -> [(start: Double, end: Double)] {
    let clean = cleanTimes.sorted()
    /// Whether a clean picture lies strictly between `a` and `b`.
    func cleanBetween(_ a: Double, _ b: Double) -> Bool {
      var lo = 0, hi = clean.count
      while lo < hi {
        let mid = (lo + hi) / 2
        if clean[mid] <= a + 1e-9 { lo = mid + 1 } else { hi = mid }
      }
      return lo < clean.count && clean[lo] < b - 1e-9
    }
    var merged: [(start: Double, end: Double)] = []
    for r in runs.sorted(by: { $0.start < $1.start }) {
      if let last = merged.last, r.start <= last.end || !cleanBetween(last.end, r.start) {
        merged[merged.count - 1].end = max(last.end, r.end)
      } else {
        merged.append(r)
      }
    }
    return merged
  }
}
