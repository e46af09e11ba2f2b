import Foundation

/// A video banner as banners.json (or a store record) describes it: paths
/// relative to an `AssetFiles` root, and the values the client relies on.
struct VideoAssets: Sendable {
  var id: String
  /// What `url` points at.
  var urlPath: String?
  /// The HLS master playlist (`hls_url`, or `url` when it is `.m3u8`).
  var masterPath: String?
  /// The fast-start MP4 (`mp4_url`, or `url` when it is `.mp4`).
  var mp4Path: String?
  /// Covers by banners.json key; `cover_url` first. Dark ones are only
  /// decoded and measured, light ones must also not be black or blank.
  var covers: [(key: String, path: String, isDark: Bool)]
  var width: Int?
  var height: Int?
  /// `duration`, seconds.
  var duration: Double?
  /// Where the dark cover came from (`dark_policy`), which decides how it
  /// is judged (`DarkPolicyCheck`).
  var darkPolicy: DarkPolicyKind = .generated
  /// `thumbhash`, `dark_thumbhash`, `color`, `dark_color`; nil when the
  /// item has none of them.
  var placeholder: Placeholder? = nil
}

/// Checks one video banner's files: the HLS rules (Apple's authoring spec
/// for Apple devices, as the transcoder writes them), the MP4, the covers,
/// and that `duration` is what `url` plays.
struct VideoAssetVerifier {
  let assets: VideoAssets
  let files: AssetFiles
  let decode: Bool
  /// A folder for temporary probe files.
  let scratch: URL

  /// JSON durations are written rounded to milliseconds.
  static let durationTolerance = 0.0015

  private(set) var violations: [Violation] = []
  /// Things worth a look that are not violations (a designer's dark cover
  /// that glares), each naming the item and the file.
  private(set) var warnings: [String] = []
  private(set) var fileCount = 0
  /// The decoded covers by key, for the dark-variant rules.
  private var coverPictures: [String: RGBAImage] = [:]
  /// What covers are shown on (`PictureLook`'s dark-variant rules).
  var surfaces = PictureLook.Surfaces.standard

  /// With `decode`: decode every picture of every segment and of the MP4
  /// (`StreamProbe.decodeEverything`), not just the first.
  let everyPicture: Bool

  init(assets: VideoAssets, files: AssetFiles, decode: Bool, everyPicture: Bool = false, scratch: URL) {
    self.assets = assets
    self.files = files
    self.decode = decode
    self.everyPicture = everyPicture
    self.scratch = scratch
  }

  private mutating func fail(_ path: String, _ problem: String) {
    violations.append(Violation(item: assets.id, file: files.display(path), problem: problem))
  }

  /// The placeholder keys against the cover and the dark cover they stand
  /// for (`Placeholder.problems`).
  private mutating func checkPlaceholder() {
    guard let placeholder = assets.placeholder else {
      fail("banners.json", "no thumbhash, dark_thumbhash, color or dark_color: the slot has no placeholder to paint before its cover arrives")
      return
    }
    guard decode, let light = coverPictures["cover_url"], let dark = coverPictures["cover_dark_url"] else { return }
    for problem in placeholder.problems(light: light, dark: dark, surfaces: surfaces) { fail("banners.json", problem) }
  }

  /// Runs every check; returns the violations.
  mutating func run() -> [Violation] {
    var videoSize: (width: Int, height: Int)? = nil
    if let w = assets.width, let h = assets.height { videoSize = (w, h) }
    if let master = assets.masterPath {
      if let top = checkHLS(master: master), videoSize == nil { videoSize = top }
    }
    if let mp4 = assets.mp4Path {
      if let size = checkMP4(mp4), videoSize == nil { videoSize = size }
    }
    if assets.masterPath == nil && assets.mp4Path == nil {
      fail(assets.urlPath ?? "banners.json", "the video has neither an HLS playlist nor an MP4")
    }
    for cover in assets.covers {
      checkCover(cover.path, key: cover.key, isDark: cover.isDark, videoSize: videoSize)
    }
    if !assets.covers.contains(where: \.isDark) {
      fail("banners.json", "no cover_dark_url: dark mode needs an explicit dark cover URL")
    }
    switch assets.darkPolicy {
    case .generated:
      for (lightKey, darkKey) in [("cover_url", "cover_dark_url"), ("cover_jpeg_url", "cover_dark_jpeg_url")] where decode {
        guard let light = coverPictures[lightKey], let dark = coverPictures[darkKey] else { continue }
        for problem in DarkVariantCheck(surfaces: surfaces).problems(light: light, dark: dark) {
          fail(assets.covers.first { $0.key == darkKey }?.path ?? "banners.json", "\(darkKey): \(problem)")
        }
      }
    case .same:
      let named = assets.covers.map { (key: $0.key, path: $0.path, isDark: $0.isDark) }
      let explicit = ["cover_url": "cover_dark_url", "cover_jpeg_url": "cover_dark_jpeg_url"]
      for pair in DarkPolicyCheck.samePairs(named, explicit: explicit) {
        if let problem = DarkPolicyCheck.sameBytesProblem(light: pair.light, dark: pair.dark, key: pair.key, files: files) {
          fail(pair.dark, problem)
        }
      }
    case .designer:
      break  // glare, as a warning, where cover_dark_url is decoded
    }
    checkPlaceholder()
    return violations
  }

  // MARK: - HLS

  /// Reads a playlist of the bundle (`kind` names it in messages), counts
  /// it, and checks that `#EXTM3U` is its first line; nil when it is
  /// missing or unreadable.
  private mutating func readPlaylist(_ path: String, kind: String) -> PlaylistReader? {
    guard let text = files.text(path) else {
      fail(path, "\(kind) is missing or unreadable")
      return nil
    }
    fileCount += 1
    let reader = PlaylistReader(text: text)
    if !reader.startsWithHeader { fail(path, "\(kind) does not start with #EXTM3U") }
    return reader
  }

  /// Checks the master playlist and every media playlist and segment.
  /// Returns the largest variant's resolution.
  private mutating func checkHLS(master: String) -> (Int, Int)? {
    guard let playlist = readPlaylist(master, kind: "master playlist")?.masterPlaylist() else { return nil }
    if !playlist.hasIndependentSegments { fail(master, "master playlist lacks #EXT-X-INDEPENDENT-SEGMENTS") }
    if playlist.danglingStreamInfs > 0 { fail(master, "#EXT-X-STREAM-INF without a playlist URI after it") }
    guard !playlist.variants.isEmpty else {
      fail(master, "master playlist lists no variant")
      return nil
    }
    var largest: (Int, Int)? = nil
    var aspect: (Int, Int)? = nil
    var boundaries: [(uri: String, starts: [Double])] = []
    // Each variant's IDR presentation times, from its segments' boxes.
    var idrTimes: [(uri: String, times: [Double], frameRate: Double?)] = []
    var defaultDuration: Double? = nil
    // Each variant's peak as the weak-network budget measures it.
    var budgetPeaks: [Int: Int] = [:]
    for (index, variant) in playlist.variants.enumerated() {
      for key in ["BANDWIDTH", "AVERAGE-BANDWIDTH", "CODECS", "RESOLUTION", "FRAME-RATE"] where variant.attributes[key] == nil {
        fail(master, "variant \(variant.uri) lacks \(key)")
      }
      for key in ["BANDWIDTH", "AVERAGE-BANDWIDTH"] {
        if let v = variant.attributes[key], (Int(v) ?? 0) <= 0 { fail(master, "variant \(variant.uri) has \(key)=\(v)") }
      }
      let codec = variant.attributes["CODECS"].flatMap(Self.videoCodec(ofCodecs:))
      if let codecs = variant.attributes["CODECS"], codec == nil {
        fail(master, "variant \(variant.uri) CODECS=\"\(codecs)\" is not H.264 (avc1) or HEVC (hvc1)"
          + (codecs.hasPrefix("hev1.") ? ": Apple's players need HEVC as hvc1, its parameter sets in the sample entry" : ""))
      }
      let resolution = variant.resolution
      if variant.attributes["RESOLUTION"] != nil && resolution == nil {
        fail(master, "variant \(variant.uri) has an unreadable RESOLUTION")
      }
      if let r = resolution {
        if r.width * r.height > (largest.map { $0.0 * $0.1 } ?? 0) { largest = (r.width, r.height) }
        if let a = aspect {
          // Even-pixel rounding moves each side by up to a pixel.
          if !RenditionPlanner.sameAspect((r.width, r.height), (a.0, a.1)) {
            fail(master, "variant \(variant.uri) is \(r.width)x\(r.height), not the aspect ratio of \(a.0)x\(a.1)")
          }
        } else {
          aspect = (r.width, r.height)
        }
      }
      guard let path = RelativePath.resolve(variant.uri, against: master) else {
        fail(master, "variant URI \(variant.uri) does not stay inside the bundle")
        continue
      }
      if let media = checkMediaPlaylist(path, resolution: resolution, codec: codec, codecs: variant.attributes["CODECS"]) {
        boundaries.append((variant.uri, media.starts))
        if let idrs = media.idrs {
          idrTimes.append((variant.uri, idrs, variant.attributes["FRAME-RATE"].flatMap(Double.init)))
        }
        if index == 0 { defaultDuration = media.total }
        if let measured = media.measured {
          checkDeclaredBandwidth(variant, measured: MeasuredBandwidth(segments: measured.segments,
                                                                      targetDuration: measured.target), master: master)
          budgetPeaks[index] = WeakNetworkRung.budgetPeak(segments: measured.segments, targetDuration: measured.target)
        }
      }
    }
    let codecs = playlist.variants.map { $0.attributes["CODECS"].flatMap(Self.videoCodec(ofCodecs:)) }
    if codecs.first == .hevc, codecs.contains(.h264) {
      fail(master, "the first variant, \(playlist.variants[0].uri), is HEVC: a player that starts with the first one listed must get H.264")
    }
    // The weak-network rung ends each codec's ladder: H.264's always (it
    // has one whenever it has two variants); HEVC's when it has two
    // variants (a rendition under 64 pixels has no HEVC twin).
    var families: [VideoCodec?: [Int]] = [:]
    for (i, codec) in codecs.enumerated() { families[codec, default: []].append(i) }
    for (codec, members) in families.sorted(by: { ($0.key?.rawValue ?? "") < ($1.key?.rawValue ?? "") }) {
      guard let lastIndex = members.last else { continue }
      let last = playlist.variants[lastIndex]
      // Its segments' measure; the declared peak when they cannot be read
      // (reported above).
      let peak = budgetPeaks[lastIndex] ?? last.attributes.integer("BANDWIDTH") ?? Int.max
      if members.count < 2 {
        if codec != .hevc {
          fail(master, "master playlist lists one \(codec.map { $0.displayName + " " } ?? "")variant: no variant for weak networks besides it")
        }
      } else if peak > WeakNetworkRung.peakLimit {
        // A warning, not a failure: a real source is never refused for it
        // (at 1 fps a segment can carry 2 s of sound muxed late).
        warnings.append("\(assets.id): \(files.display(master)): " + WeakNetworkRung.overBudget(uri: last.uri, peak: peak))
      }
    }
    for attributes in playlist.iFrameVariants {
      checkIFramePlaylist(attributes, master: master)
    }
    if let first = boundaries.first {
      for other in boundaries.dropFirst() where !Self.sameBoundaries(first.starts, other.starts) {
        fail(master, "segments of \(other.uri) start at other times than those of \(first.uri): an IDR must start every segment at the same time in every rendition")
      }
    }
    // The IDRs themselves, as the segments place them: within half a
    // picture of the first variant's (a player switching renditions at a
    // segment boundary must not skip or repeat pictures).
    if let first = idrTimes.first {
      let tolerance = 0.5 / (first.frameRate ?? 60)
      for other in idrTimes.dropFirst() where other.times.count == first.times.count {
        if let k = first.times.indices.first(where: { abs(first.times[$0] - other.times[$0]) > tolerance }) {
          fail(master, String(format: "segment %d of %@ starts with its IDR at %.3f s, that of %@ at %.3f s: an IDR must start every segment at the same time in every rendition",
                              k + 1, other.uri, other.times[k], first.uri, first.times[k]))
        }
      }
    }
    if let total = defaultDuration, let json = assets.duration, assets.urlPath == assets.masterPath {
      if abs(total - json) > Self.durationTolerance {
        fail(master, String(format: "duration in banners.json is %.3f s but the playlist plays %.3f s (sum of #EXTINF)", json, total))
      }
    }
    if let l = largest, let w = assets.width, let h = assets.height, l.0 != w || l.1 != h {
      fail(master, "largest variant is \(l.0)x\(l.1) but banners.json says \(w)x\(h)")
    }
    return largest
  }

  /// An I-frame playlist (Apple HLS authoring spec §6.15): declared with
  /// its bandwidth, codecs and resolution; VOD, I-frames only, ended; every
  /// byte range inside its segment file (a range without an offset starts
  /// where the previous one of the same file ended, RFC 8216 §4.3.2.2).
  private mutating func checkIFramePlaylist(_ attributes: AttributeList, master: String) {
    let name = attributes["URI"] ?? "(no URI)"
    for key in ["BANDWIDTH", "CODECS", "RESOLUTION", "URI"] where attributes[key] == nil {
      fail(master, "I-frame variant \(name) lacks \(key)")
    }
    guard let uri = attributes["URI"] else { return }
    guard let path = RelativePath.resolve(uri, against: master) else {
      fail(master, "I-frame playlist URI \(uri) does not stay inside the bundle")
      return
    }
    guard let playlist = readPlaylist(path, kind: "I-frame playlist")?.mediaPlaylist() else { return }
    if !playlist.isIFramesOnly { fail(path, "I-frame playlist lacks #EXT-X-I-FRAMES-ONLY") }
    if !playlist.isVOD || !playlist.hasEndList { fail(path, "I-frame playlist is not VOD with #EXT-X-ENDLIST") }
    if playlist.segments.isEmpty { fail(path, "I-frame playlist lists no frame") }
    for uri in playlist.urisWithoutDuration { fail(path, "I-frame \(uri) has no #EXTINF before it") }
    var previous: (uri: String, end: Int)? = nil
    for frame in playlist.segments {
      let follows = previous?.uri == frame.uri ? previous?.end : nil
      previous = nil
      guard let segment = RelativePath.resolve(frame.uri, against: path), let size = files.size(segment) else {
        fail(path, "I-frame \(frame.uri) names no file")
        continue
      }
      guard let range = frame.byteRange else { continue }
      guard let offset = range.offset ?? follows else {
        fail(path, "byte range \(range.length) of \(frame.uri) has no offset and follows no range of the same file")
        continue
      }
      // Compared without adding, so hostile numbers cannot overflow.
      if range.length <= 0 || Int64(offset) > size || Int64(range.length) > size - Int64(offset) {
        fail(path, "byte range \(range.length)@\(offset) of \(frame.uri) lies outside its \(size) bytes")
      } else {
        previous = (frame.uri, offset + range.length)
      }
    }
  }

  /// The video codec a `CODECS` value names first: `avc1.…` is H.264,
  /// `hvc1.…` HEVC; nil for anything else (`hev1`, which Apple's players
  /// refuse, included).
  static func videoCodec(ofCodecs codecs: String) -> VideoCodec? {
    let video = codecs.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
    return VideoCodec.allCases.first { video.hasPrefix($0.sampleEntry + ".") }
  }

  private static func sameBoundaries(_ a: [Double], _ b: [Double]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) < 0.0015 }
  }

  /// How far a variant's declared `BANDWIDTH` and `AVERAGE-BANDWIDTH` may
  /// lie from what its segments measure, as a share: `#EXTINF` rounds each
  /// duration to a microsecond, the writer measured exact ones.
  static let bandwidthTolerance = 0.01

  /// Checks that a variant declares the bit rates its segments measure
  /// (`MeasuredBandwidth`, as the pipeline measures them: each segment
  /// with its share of the init section): a `BANDWIDTH` under the
  /// measured peak makes a player pick a variant its link cannot carry.
  private mutating func checkDeclaredBandwidth(_ variant: MasterPlaylist.Variant, measured: MeasuredBandwidth,
                                               master: String) {
    for (key, value) in [("BANDWIDTH", measured.peak), ("AVERAGE-BANDWIDTH", measured.average)] {
      guard let declared = variant.attributes.integer(key), declared > 0 else { continue }
      if Double(abs(declared - value)) > Self.bandwidthTolerance * Double(value) + 1 {
        fail(master, "variant \(variant.uri) declares \(key)=\(declared) but its segments measure \(value) bit/s")
      }
    }
  }

  /// Checks one media playlist; returns its segment start times and total,
  /// and what its segments measure: each one's bits, with its share of
  /// the init section, and seconds, and the target duration (nil when a
  /// segment or the init section is missing).
  private mutating func checkMediaPlaylist(
    _ path: String, resolution: (width: Int, height: Int)?, codec: VideoCodec?, codecs: String?
  ) -> (starts: [Double], total: Double, measured: (segments: [(bits: Double, seconds: Double)], target: Int)?,
        idrs: [Double]?)? {
    guard let playlist = readPlaylist(path, kind: "media playlist")?.mediaPlaylist() else { return nil }
    for uri in playlist.urisWithoutDuration { fail(path, "segment \(uri) has no #EXTINF before it") }
    if !playlist.isVOD { fail(path, "not a VOD playlist (#EXT-X-PLAYLIST-TYPE:VOD missing)") }
    if !playlist.hasEndList { fail(path, "no #EXT-X-ENDLIST: players would treat it as live") }
    guard let target = playlist.targetDuration else {
      fail(path, "no #EXT-X-TARGETDURATION")
      return nil
    }
    if playlist.segments.isEmpty {
      fail(path, "lists no segment")
      return nil
    }
    var initPath: String? = nil
    var track: ISOBMFF.VideoTrack? = nil
    if let map = playlist.mapURI {
      initPath = RelativePath.resolve(map, against: path)
      if let p = initPath {
        if (files.size(p) ?? 0) == 0 { fail(p, "initialization section (#EXT-X-MAP) is missing or empty") ; initPath = nil }
        else if let codec { track = checkInitSection(p, codec: codec, codecs: codecs) }
      } else {
        fail(path, "#EXT-X-MAP URI \(map) does not stay inside the bundle")
      }
    } else {
      fail(path, "no #EXT-X-MAP: fMP4 segments need their initialization section")
    }
    var starts: [Double] = []
    var t = 0.0
    var sizes: [(bytes: Int64, seconds: Double)] = []
    var segmentPaths: [String] = []
    for segment in playlist.segments {
      starts.append(t)
      t += segment.duration
      if !(segment.duration > 0) { fail(path, "segment \(segment.uri) has #EXTINF \(segment.duration)") }
      if Int(segment.duration.rounded()) > target {
        fail(path, String(format: "segment %@ lasts %.3f s, longer than #EXT-X-TARGETDURATION:%d", segment.uri, segment.duration, target))
      }
      guard let segmentPath = RelativePath.resolve(segment.uri, against: path) else {
        fail(path, "segment URI \(segment.uri) does not stay inside the bundle")
        continue
      }
      guard let size = files.size(segmentPath), size > 0 else {
        fail(segmentPath, "segment is missing or empty")
        continue
      }
      sizes.append((size, segment.duration))
      segmentPaths.append(segmentPath)
      fileCount += 1
      if decode, let initPath {
        checkSegment(segmentPath, initPath: initPath, resolution: resolution, codec: codec ?? .h264,
                     start: starts.last ?? 0, duration: segment.duration)
      }
    }
    var measured: (segments: [(bits: Double, seconds: Double)], target: Int)? = nil
    if let initPath, let initBytes = files.size(initPath), sizes.count == playlist.segments.count {
      let share = Double(initBytes) / Double(sizes.count)
      measured = (sizes.filter { $0.seconds > 0 }.map { ((Double($0.bytes) + share) * 8, $0.seconds) }, target)
    }
    let idrs = track.flatMap { segmentPaths.count == playlist.segments.count ? idrTimes(segmentPaths, track: $0) : nil }
    return (starts, t, measured, idrs)
  }

  /// How far a segment's first picture may sit from where the playlist
  /// puts it (sum of the earlier `#EXTINF`s), in seconds: the B-frame delay
  /// of an edit list is 2–3 pictures; a segment from elsewhere is off by a
  /// whole segment duration (at least 1 s).
  static let segmentStartTolerance = 0.25

  /// Whether a segment's first picture, as FFmpeg's mov demuxer reads it
  /// (`first`, seconds), is where the playlist puts the segment
  /// (`expected`): within `segmentStartTolerance`, or later by at most the
  /// B-frame reorder delay, `EncoderEffort.bFrames` pictures of
  /// `pictureInterval` seconds (and half a picture). FFmpeg 5.1 reads a
  /// fragmented track with negative composition offsets one reorder step
  /// late (`OutputContainer.startAtZeroOptions`): 2 pictures, which at a
  /// source's own 5 fps is 0.4 s. A segment from elsewhere is off by a
  /// whole segment (at least 1 s, 5 pictures at 5 fps).
  static func startsWhereExpected(first: Double, expected: Double, pictureInterval: Double?) -> Bool {
    let offset = first - expected
    if abs(offset) <= segmentStartTolerance { return true }
    guard let interval = pictureInterval, interval > 0 else { return false }
    return offset > 0 && offset <= (Double(EncoderEffort.bFrames) + 0.5) * interval
  }

  /// Decodes one segment the way a player joining there would: its start
  /// (a keyframe, the declared size) and, with `everyPicture`, every
  /// picture, which must cover the segment's place on the timeline: its
  /// first picture at `start` and pictures for its whole `#EXTINF`
  /// `duration` (seconds), so a truncated or misplaced segment is found.
  private mutating func checkSegment(_ path: String, initPath: String, resolution: (width: Int, height: Int)?,
                                     codec: VideoCodec, start expectedStart: Double, duration: Double) {
    let start: VideoStart
    do {
      start = try StreamProbe.segmentStart(initSection: files.url(initPath), segment: files.url(path), scratch: scratch,
                                           everyPicture: everyPicture)
    } catch {
      // Name the segment, not the temporary file the probe joined it into.
      let text = "\(error)".replacingOccurrences(of: #"segment-[0-9A-F-]+\.mp4"#, with: (path as NSString).lastPathComponent,
                                                 options: .regularExpression)
      fail(path, "segment does not decode on its own (with \(initPath.split(separator: "/").last ?? "")): \(text)")
      return
    }
    if let decoded = start.decoded, let first = decoded.firstPictureTime {
      if !Self.startsWhereExpected(first: first, expected: expectedStart, pictureInterval: decoded.pictureInterval) {
        fail(path, String(format: "first picture at %.3f s but the playlist places the segment at %.3f s", first, expectedStart))
      }
      if let covered = decoded.coveredDuration, let interval = decoded.pictureInterval,
         abs(covered - duration) > max(1.5 * interval, 0.002) {
        fail(path, String(format: "pictures cover %.3f s (%d pictures) but #EXTINF says %.3f s: the segment is cut short or not this one",
                          covered, decoded.pictures, duration))
      }
    }
    if start.codec != codec.codecName {
      fail(path, "video codec is \(start.codec), not \(codec.displayName) as the master playlist's CODECS says")
    }
    if start.pixelFormat != "yuv420p" { fail(path, "pixel format is \(start.pixelFormat), not yuv420p") }
    if !start.firstPacketIsKeyframe || !start.firstFrameIsKeyframe || start.pictureType != "I" {
      fail(path, "does not start with a keyframe (first picture: \(start.pictureType)\(start.firstFrameIsKeyframe ? ", key" : ""))")
    }
    if let r = resolution, r.width != start.width || r.height != start.height {
      fail(path, "pictures are \(start.width)x\(start.height) but the master playlist says \(r.width)x\(r.height)")
    }
    if let audio = start.audioCodec, audio != "aac" { fail(path, "audio codec is \(audio), not AAC") }
  }

  /// The init section's video sample entry is the one `CODECS` names
  /// (`avc1`, `hvc1`): an HEVC track written as `hev1` does not play on
  /// Apple's players (HLS authoring spec 1.10); and `CODECS`'s video value
  /// is the one its decoder configuration (`avcC`, `hvcC`) gives, so a
  /// player that chooses by profile and level gets what it decodes.
  ///
  /// - Returns: the video track (ID, timescale), for the IDR times.
  private mutating func checkInitSection(_ initPath: String, codec: VideoCodec, codecs: String?) -> ISOBMFF.VideoTrack? {
    guard let data = try? files.open(initPath).readAll(limit: 1 << 20) else {
      fail(initPath, "initialization section is unreadable or over 1 MiB")
      return nil
    }
    let bytes = [UInt8](data)
    let entries = ISOBMFF.sampleEntries(initSection: bytes).map(\.description)
    let video = ["avc1", "avc3", "hvc1", "hev1"]
    guard let found = entries.first(where: video.contains) else {
      fail(initPath, "initialization section has no H.264 or HEVC sample entry (found: \(entries.joined(separator: ", ")))")
      return nil
    }
    if found != codec.sampleEntry {
      fail(initPath, "video sample entry is \(found), not \(codec.sampleEntry) as the master playlist's CODECS says")
    }
    let track = ISOBMFF.videoTrack(initSection: bytes)
    if let declared = codecs?.split(separator: ",").first.map({ $0.trimmingCharacters(in: .whitespaces) }),
       let written = track?.codecs, declared.lowercased() != written.lowercased() {
      fail(initPath, "CODECS says \(declared) but the stream's decoder configuration says \(written)")
    }
    return track
  }

  /// When each segment's first picture (its IDR) is presented, seconds:
  /// the first fragment's `tfdt` and composition offset
  /// (`firstSamplePresentationTime`), read from the first 256 KiB of each
  /// segment; nil when a segment cannot be read that way.
  private func idrTimes(_ segmentPaths: [String], track: ISOBMFF.VideoTrack) -> [Double]? {
    guard track.timescale > 0 else { return nil }
    var times: [Double] = []
    for path in segmentPaths {
      guard let file = try? files.open(path) else { return nil }
      var head = [UInt8](repeating: 0, count: Int(min(file.size, 256 << 10)))
      let count = head.withUnsafeMutableBytes { file.read(at: 0, into: $0) }
      guard count > 0 else { return nil }
      guard let ticks = ISOBMFF.BoxReader(Array(head[0..<count])).firstSamplePresentationTime(ofTrack: track.trackID) else { return nil }
      times.append(Double(ticks) / Double(track.timescale))
    }
    return times
  }

  // MARK: - MP4
  // MARK: - MP4

  /// Checks the fast-start MP4; returns its picture size when decoded.
  private mutating func checkMP4(_ path: String) -> (Int, Int)? {
    guard (files.size(path) ?? 0) > 0 else {
      fail(path, "MP4 is missing or empty")
      return nil
    }
    fileCount += 1
    do {
      let boxes = try ISOBMFF.topLevelBoxes(of: files.open(path)).map(\.type)
      guard let moov = boxes.firstIndex(of: "moov") else {
        fail(path, "no moov box")
        return nil
      }
      guard let mdat = boxes.firstIndex(of: "mdat") else {
        fail(path, "no mdat box")
        return nil
      }
      if moov > mdat { fail(path, "moov comes after mdat: not fast start (boxes: \(boxes.map(\.description).joined(separator: ", ")))") }
    } catch {
      fail(path, "MP4 structure is broken: \(error)")
      return nil
    }
    guard decode else { return nil }
    let start: VideoStart
    do { start = try StreamProbe.videoStart(files.url(path), everyPicture: everyPicture) } catch {
      fail(path, "MP4 does not decode: \(error)")
      return nil
    }
    if start.codec != "h264" { fail(path, "video codec is \(start.codec), not H.264") }
    if start.pixelFormat != "yuv420p" { fail(path, "pixel format is \(start.pixelFormat), not yuv420p") }
    if start.width % 2 != 0 || start.height % 2 != 0 { fail(path, "picture size \(start.width)x\(start.height) is not even") }
    if start.sampleAspectRatio.isValid && start.sampleAspectRatio.num != start.sampleAspectRatio.den {
      fail(path, "pixels are not square (SAR \(start.sampleAspectRatio))")
    }
    if !start.orientationIsIdentity { fail(path, "carries a rotation: the pixels must already be upright") }
    if start.isInterlaced { fail(path, "is interlaced; the client needs progressive video") }
    if start.colorSpace != "bt709" && start.colorSpace != "unknown" {
      fail(path, "colour matrix is \(start.colorSpace), not BT.709")
    }
    if ["smpte2084", "arib-std-b67"].contains(start.colorTransfer) {
      fail(path, "is HDR (\(start.colorTransfer)): devices without HDR show it black or washed out")
    }
    if !start.firstFrameIsKeyframe { fail(path, "does not start with a keyframe") }
    if let audio = start.audioCodec, audio != "aac" { fail(path, "audio codec is \(audio), not AAC") }
    if let rate = start.audioSampleRate, start.audioCodec != nil, rate != 48_000 { fail(path, "audio is \(rate) Hz, not 48 kHz") }
    if assets.urlPath == path, let json = assets.duration, let d = start.duration, abs(d - json) > Self.durationTolerance {
      fail(path, String(format: "duration in banners.json is %.3f s but the MP4 plays %.3f s", json, d))
    }
    return (start.width, start.height)
  }

  // MARK: - Covers

  private mutating func checkCover(_ path: String, key: String, isDark: Bool, videoSize: (width: Int, height: Int)?) {
    if let problem = ImageKeyFormat.problem(key: key, path: path) { fail(path, problem) }
    if AVIFFileCheck.isAVIF(path) {
      checkAVIFCover(path, key: key, isDark: isDark, videoSize: videoSize)
      return
    }
    guard (files.size(path) ?? 0) > 0 else {
      fail(path, "\(key): cover is missing or empty")
      return
    }
    fileCount += 1
    let source: ImageSource
    do { source = try files.image(path, limits: ImageAssetVerifier.openLimits) } catch {
      fail(path, "\(key): cover is not a readable image: \(error.reason)")
      return
    }
    if let v = videoSize, source.header.width != v.width || source.header.height != v.height {
      fail(path, "\(key): cover is \(source.header.width)x\(source.header.height) but the video is \(v.width)x\(v.height): the picture would jump when playback replaces it")
    }
    if !isDark, let problem = ImageAssetVerifier.darkSiblingProblem(
      of: path, key: key, files: files, size: (source.header.width, source.header.height)) {
      fail(problem.path, problem.text)
    }
    guard decode else { return }
    do {
      let picture = try source.decodeStill()
      coverPictures[key] = picture.image
      if key == "cover_dark_url", assets.darkPolicy == .designer,
         let glare = DesignerDarkPicture.glareWarning(picture.image, on: surfaces.dark) {
        warnings.append("\(assets.id): \(files.display(path)): cover_dark_url: the designer's dark picture \(glare)")
      }
      // Black is the one look a cover may not have; a flat one (a pinned
      // title card, a flash as the last resort) is the user's to judge.
      let statistics = PictureStatistics(image: picture.image, over: surfaces.surface(dark: isDark))
      if PictureLook.isBlack(statistics) {
        fail(path, "\(key): cover is black: \(PictureLook.describeBlack(statistics)); " + MarqueeError.coverFix)
      }
    } catch {
      fail(path, "\(key): cover does not decode: \(error.reason)")
    }
  }

  /// A cover's AVIF twin (`cover_avif_url`, `cover_dark_avif_url`): the
  /// video's size, decoded (when decoding) and not black, with its dark
  /// sibling beside the light one.
  private mutating func checkAVIFCover(_ path: String, key: String, isDark: Bool, videoSize: (width: Int, height: Int)?) {
    switch AVIFFileCheck.read(path, files: files, size: videoSize, decode: decode) {
    case .failure(let problem):
      fail(path, "\(key): \(problem.text)")
    case .success(let read):
      fileCount += 1
      if !isDark, let problem = ImageAssetVerifier.darkSiblingProblem(
        of: path, key: key, files: files, size: (read.width, read.height)) {
        fail(problem.path, problem.text)
      }
      if let picture = read.picture {
        let statistics = PictureStatistics(image: picture, over: surfaces.surface(dark: isDark))
        if PictureLook.isBlack(statistics) {
          fail(path, "\(key): cover is black: \(PictureLook.describeBlack(statistics)); " + MarqueeError.coverFix)
        }
      }
    }
  }

}

// MARK: - Paths

/// `/`-separated bundle-relative paths.
enum RelativePath {
  /// `uri` (relative to the file at `base`) as a root-relative path; `nil`
  /// for absolute URLs or paths that leave the root.
  static func resolve(_ uri: String, against base: String) -> String? {
    guard !uri.contains("://"), !uri.hasPrefix("/") else { return nil }
    let decoded = uri.removingPercentEncoding ?? uri
    var parts = base.split(separator: "/").map(String.init)
    if !parts.isEmpty { parts.removeLast() }
    for component in decoded.split(separator: "/", omittingEmptySubsequences: true) {
      switch component {
      case ".": continue
      case "..":
        guard !parts.isEmpty else { return nil }
        parts.removeLast()
      default: parts.append(String(component))
      }
    }
    return parts.isEmpty ? nil : parts.joined(separator: "/")
  }

  /// `a/cover.webp` → `a/cover.dark.webp` (`nil` when it is already dark).
  static func darkSibling(of path: String) -> String? {
    let ns = path as NSString
    let ext = ns.pathExtension
    let stem = ns.deletingPathExtension
    guard !ext.isEmpty, !stem.hasSuffix(".dark") else { return nil }
    return stem + ".dark." + ext
  }
}
