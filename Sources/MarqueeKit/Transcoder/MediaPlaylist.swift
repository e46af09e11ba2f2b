import Foundation

/// A parsed HLS media playlist (RFC 8216 §4.3): the text the `hls` muxer
/// writes (taken in memory on its way to disk, `SegmentRecorder`), or a
/// bundle's playlist that `verify` checks.
public struct MediaPlaylist: Sendable, Equatable {
  /// One `#EXTINF` entry.
  public struct Segment: Sendable, Equatable {
    /// Duration in seconds from `#EXTINF`.
    public var duration: Double
    /// URI as written (relative to the playlist).
    public var uri: String
  }
  public var targetDuration: Int?
  public var segments: [Segment]
  /// `#EXT-X-MAP` URI (fMP4 initialization section).
  public var mapURI: String?
  public var hasEndList: Bool
  public var isVOD: Bool
  public var hasIndependentSegments: Bool

  /// Total duration: the sum of the `#EXTINF` durations, which is what a
  /// player reports as the item's duration.
  public var duration: Double { segments.reduce(0) { $0 + $1.duration } }

  /// Parses playlist text; unknown tags are ignored.
  public init(text: String) {
    var segments: [Segment] = []
    var pending: Double? = nil
    var target: Int? = nil
    var map: String? = nil
    var end = false, vod = false, independent = false
    for raw in text.split(whereSeparator: \.isNewline) {
      let line = raw.trimmingCharacters(in: .whitespaces)
      if line.hasPrefix("#EXTINF:") {
        let value = line.dropFirst("#EXTINF:".count).split(separator: ",", maxSplits: 1).first ?? ""
        pending = Double(value)
      } else if line.hasPrefix("#EXT-X-TARGETDURATION:") {
        target = Int(line.dropFirst("#EXT-X-TARGETDURATION:".count))
      } else if line.hasPrefix("#EXT-X-MAP:") {
        if let r = line.range(of: "URI=\"") {
          let rest = line[r.upperBound...]
          map = rest.split(separator: "\"", maxSplits: 1).first.map(String.init)
        }
      } else if line == "#EXT-X-ENDLIST" {
        end = true
      } else if line == "#EXT-X-PLAYLIST-TYPE:VOD" {
        vod = true
      } else if line == "#EXT-X-INDEPENDENT-SEGMENTS" {
        independent = true
      } else if !line.hasPrefix("#") && !line.isEmpty, let d = pending {
        segments.append(Segment(duration: d, uri: line))
        pending = nil
      }
    }
    self.segments = segments
    targetDuration = target
    mapURI = map
    hasEndList = end
    isVOD = vod
    hasIndependentSegments = independent
  }
}

/// Bit rates measured from a rendition's segments, as RFC 8216 §4.3.4.2
/// defines `BANDWIDTH` (the peak segment bit rate) and `AVERAGE-BANDWIDTH`.
public struct MeasuredBandwidth: Sendable, Equatable {
  /// The peak segment bit rate, bits per second: the highest bit rate of
  /// any run of consecutive segments lasting 0.5 to 1.5 times the target
  /// duration (RFC 8216 §4.3.4.2), so a short last segment (mostly its
  /// opening IDR frame) is measured together with the one before it.
  public var peak: Int
  /// Total bits / total duration, bits per second.
  public var average: Int

  public init(peak: Int, average: Int) {
    self.peak = peak
    self.average = average
  }

  /// Measures from segment sizes in bits and durations in seconds, in
  /// playlist order; `targetDuration` in seconds (`#EXT-X-TARGETDURATION`;
  /// nil: the longest segment, rounded up).
  public init(segments: [(bits: Double, seconds: Double)], targetDuration: Int?) {
    let bits = segments.reduce(0) { $0 + $1.bits }
    let seconds = segments.reduce(0) { $0 + $1.seconds }
    let target = Double(targetDuration ?? Int((segments.map(\.seconds).max() ?? 0).rounded(.up)))
    let shortest = 0.5 * target, longest = 1.5 * target
    // Rounding of #EXTINF: a run of exactly 0.5 or 1.5 target durations counts.
    let slack = 0.0005
    var peak = 0.0
    for i in segments.indices {
      var runBits = 0.0, runSeconds = 0.0
      for j in i..<segments.count {
        runBits += segments[j].bits
        runSeconds += segments[j].seconds
        if runSeconds > longest + slack { break }
        if runSeconds >= shortest - slack { peak = max(peak, runBits / runSeconds) }
      }
    }
    // A playlist shorter than half a target duration has no such run: its
    // one rate is the whole playlist's; a segment longer than 1.5 target
    // durations is measured on its own.
    if peak == 0 {
      peak = segments.map { $0.bits / $0.seconds }.max() ?? 0
      if seconds < shortest && seconds > 0 { peak = bits / seconds }
    }
    self.peak = Int(peak.rounded(.up))
    average = seconds > 0 ? Int((bits / seconds).rounded(.up)) : 0
  }
}

/// Writes the master (multivariant) playlist for one video.
///
/// FFmpeg 5.1's own master playlist omits `AVERAGE-BANDWIDTH` and
/// `FRAME-RATE` and takes `BANDWIDTH` from the encoder's nominal rate, so
/// Marquee writes it from measured segments: Apple HLS authoring spec §9.1,
/// 9.2 (BANDWIDTH/AVERAGE-BANDWIDTH), 9.11 (CODECS), 9.13–9.15 (RESOLUTION,
/// FRAME-RATE), and `EXT-X-INDEPENDENT-SEGMENTS`. The start variant (the
/// one a player starts with, `startVariant(_:)`) is listed first.
public struct MasterPlaylistWriter: Sendable {
  /// One `#EXT-X-STREAM-INF` entry.
  public struct Variant: Sendable, Equatable {
    public var uri: String
    public var bandwidth: MeasuredBandwidth
    public var codecs: String
    public var width: Int
    public var height: Int
    public var frameRate: Double
  }

  /// One `#EXT-X-I-FRAME-STREAM-INF` entry (spec §6.1, §9.4).
  public struct IFrameVariant: Sendable, Equatable {
    public var uri: String
    public var bandwidth: MeasuredBandwidth
    /// Video codec only, e.g. `avc1.64001F`.
    public var codecs: String
    public var width: Int
    public var height: Int
  }

  public init() {}

  /// The highest measured peak (`BANDWIDTH`) a start variant may have, bits
  /// per second: Apple HLS authoring spec 1.32 recommends starting at about
  /// 2 Mbit/s; 2.3 Mbit/s leaves room for the audio and the variation of
  /// a measured peak around a 2 Mbit/s rung.
  public static let startBandwidthLimit = 2_300_000

  /// Which variant to list first, the one AVPlayer starts with (Apple HLS
  /// authoring spec 1.32: about 2 Mbit/s to start, then adapt).
  ///
  /// Never the top variant (the largest picture) when there are others: of
  /// the rest, the one with the highest measured peak `BANDWIDTH` up to
  /// `startBandwidthLimit`, or, when all of them are above it, the lowest.
  ///
  /// - Parameter variants: the variants with their measured bandwidth.
  /// - Returns: an index into `variants` (0 when it is empty or has one).
  public static func startVariant(_ variants: [Variant]) -> Int {
    guard variants.count > 1 else { return 0 }
    func larger(_ a: Int, _ b: Int) -> Bool {
      let pa = variants[a].width * variants[a].height, pb = variants[b].width * variants[b].height
      return pa != pb ? pa > pb : variants[a].bandwidth.peak > variants[b].bandwidth.peak
    }
    let top = variants.indices.max { larger($1, $0) } ?? 0
    let others = variants.indices.filter { $0 != top }
    let fitting = others.filter { variants[$0].bandwidth.peak <= startBandwidthLimit }
    if let best = fitting.max(by: { variants[$0].bandwidth.peak < variants[$1].bandwidth.peak }) { return best }
    return others.min { variants[$0].bandwidth.peak < variants[$1].bandwidth.peak } ?? 0
  }

  /// The playlist text; `defaultIndex` is moved first, the rest follow by
  /// descending bandwidth; I-frame playlists come last.
  public func render(_ variants: [Variant], defaultIndex: Int, iFrames: [IFrameVariant] = []) -> String {
    var order = variants.indices.filter { $0 != defaultIndex }.sorted { variants[$0].bandwidth.peak > variants[$1].bandwidth.peak }
    if variants.indices.contains(defaultIndex) { order.insert(defaultIndex, at: 0) }
    var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
    for i in order {
      let v = variants[i]
      lines.append("#EXT-X-STREAM-INF:BANDWIDTH=\(v.bandwidth.peak),AVERAGE-BANDWIDTH=\(v.bandwidth.average),"
        + "CODECS=\"\(v.codecs)\",RESOLUTION=\(v.width)x\(v.height),FRAME-RATE=\(String(format: "%.3f", v.frameRate))")
      lines.append(v.uri)
    }
    for f in iFrames {
      lines.append("#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=\(f.bandwidth.peak),AVERAGE-BANDWIDTH=\(f.bandwidth.average),"
        + "CODECS=\"\(f.codecs)\",RESOLUTION=\(f.width)x\(f.height),URI=\"\(f.uri)\"")
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
