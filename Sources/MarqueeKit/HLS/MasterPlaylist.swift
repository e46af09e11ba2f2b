import Foundation

/// An HLS master (multivariant) playlist as read back (RFC 8216 §4.3.4,
/// `PlaylistReader.masterPlaylist()`): every attribute kept as written, for
/// `verify` to check.
public struct MasterPlaylist: Sendable, Equatable {
  /// One `#EXT-X-STREAM-INF` and the URI after it.
  public struct Variant: Sendable, Equatable {
    public var attributes: AttributeList
    /// The media playlist URI as written.
    public var uri: String

    /// `RESOLUTION=1280x720` as numbers.
    public var resolution: (width: Int, height: Int)? { attributes.resolution }
  }

  /// `#EXT-X-VERSION`.
  public var version: Int?
  /// `#EXT-X-INDEPENDENT-SEGMENTS` (§4.3.5.1).
  public var hasIndependentSegments = false
  public var variants: [Variant] = []
  /// `#EXT-X-I-FRAME-STREAM-INF` attributes (the playlist is their `URI`).
  public var iFrameVariants: [AttributeList] = []
  /// `#EXT-X-STREAM-INF` lines with no URI after them.
  public var danglingStreamInfs = 0

  public init() {}

  /// Reads playlist text (`PlaylistReader.masterPlaylist()`).
  public init(text: String) {
    self = PlaylistReader(text: text).masterPlaylist()
  }
}

/// Writes the master (multivariant) playlist for one video, whatever its
/// codec: each variant brings its `CODECS`, measured bandwidths,
/// resolution, frame rate and I-frame playlist.
///
/// FFmpeg 5.1's own master playlist omits `AVERAGE-BANDWIDTH` and
/// `FRAME-RATE` and takes `BANDWIDTH` from the encoder's nominal rate, so
/// Marquee writes it from measured segments: Apple HLS authoring spec §9.1,
/// 9.2 (BANDWIDTH/AVERAGE-BANDWIDTH), 9.11 (CODECS), 9.13–9.15 (RESOLUTION,
/// FRAME-RATE), and `EXT-X-INDEPENDENT-SEGMENTS`. The start variant (the
/// one a player starts with, `startVariant(_:)`) is listed first.
public struct MasterPlaylistWriter: Sendable {
  /// One `#EXT-X-STREAM-INF` entry, and its `#EXT-X-I-FRAME-STREAM-INF`.
  public struct Variant: Sendable, Equatable {
    /// The media playlist, relative to the master playlist.
    public var uri: String
    public var bandwidth: MeasuredBandwidth
    /// RFC 6381 codecs of every stream of the variant, video first:
    /// `avc1.64001F,mp4a.40.2`, `hvc1.1.6.L93.B0,mp4a.40.2`.
    public var codecs: String
    /// Pixels.
    public var width: Int
    public var height: Int
    /// Pictures per second (`FRAME-RATE`, three decimals).
    public var frameRate: Double
    /// The variant's I-frame playlist; nil when it has none.
    public var iFrames: IFrames? = nil
    /// Whether it is the ladder's variant for weak networks
    /// (`WeakNetworkRung`): listed last, never the start variant.
    public var isWeakNetwork = false

    /// The video codec: the first of `codecs`, the I-frame playlist's
    /// `CODECS` (its segments' I-frames carry no sound).
    public var videoCodec: String { codecs.split(separator: ",").first.map(String.init) ?? codecs }
    /// Whether its video is H.264 (`avc1`), which every player decodes.
    public var isH264: Bool { videoCodec.hasPrefix("avc1.") }
  }

  /// An I-frame playlist of a variant (Apple HLS authoring spec §6.1,
  /// §9.4; RFC 8216 §4.3.4.3, which takes every `EXT-X-STREAM-INF`
  /// attribute but `FRAME-RATE`, `AUDIO`, `SUBTITLES` and
  /// `CLOSED-CAPTIONS`): its `CODECS` is the variant's video codec and its
  /// `RESOLUTION` the variant's.
  public struct IFrames: Sendable, Equatable {
    /// Relative to the master playlist.
    public var uri: String
    /// Measured over its byte ranges (`IFramePlaylistWriter`).
    public var bandwidth: MeasuredBandwidth
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
  /// Always an H.264 variant when there is one: a player that takes the
  /// first variant listed without reading `CODECS` must get one it can
  /// decode (HEVC twins are chosen by players that know HEVC, by their
  /// `CODECS`; Apple HLS authoring spec 1.12). Of those, never the
  /// weak-network variant, which is there for links too poor
  /// for the others; never the top variant (the largest picture) when
  /// there are others: of the rest, the one with the highest measured peak
  /// `BANDWIDTH` up to `startBandwidthLimit`, or, when all of them are
  /// above it, the lowest. The top is the start variant when only the weak
  /// one is left besides it (a source of 216p or less, whose top is small).
  ///
  /// - Parameter variants: the variants with their measured bandwidth.
  /// - Returns: an index into `variants` (0 when it is empty or has one).
  public static func startVariant(_ variants: [Variant]) -> Int {
    let playable = variants.contains(where: \.isH264) ? variants.indices.filter { variants[$0].isH264 } : Array(variants.indices)
    let candidates = playable.filter { !variants[$0].isWeakNetwork }
    guard candidates.count > 1 else { return candidates.first ?? playable.first ?? 0 }
    func larger(_ a: Int, _ b: Int) -> Bool {
      let pa = variants[a].width * variants[a].height, pb = variants[b].width * variants[b].height
      return pa != pb ? pa > pb : variants[a].bandwidth.peak > variants[b].bandwidth.peak
    }
    let top = candidates.max { larger($1, $0) } ?? 0
    let others = candidates.filter { $0 != top }
    let fitting = others.filter { variants[$0].bandwidth.peak <= startBandwidthLimit }
    if let best = fitting.max(by: { variants[$0].bandwidth.peak < variants[$1].bandwidth.peak }) { return best }
    return others.min { variants[$0].bandwidth.peak < variants[$1].bandwidth.peak } ?? 0
  }

  /// The playlist text: `defaultIndex` first, the other variants by
  /// descending `BANDWIDTH`, the weak-network variants last (H.264 before
  /// HEVC at equal peaks), then the I-frame playlists in the order of
  /// `variants`.
  public func render(_ variants: [Variant], defaultIndex: Int) -> String {
    var order = variants.indices.filter { $0 != defaultIndex }.sorted {
      let (a, b) = (variants[$0], variants[$1])
      return a.isWeakNetwork != b.isWeakNetwork ? b.isWeakNetwork : a.bandwidth.peak > b.bandwidth.peak
    }
    if variants.indices.contains(defaultIndex) { order.insert(defaultIndex, at: 0) }
    var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
    for v in order.map({ variants[$0] }) {
      let attributes = AttributeList(Self.bandwidth(v.bandwidth) + [
        .quoted("CODECS", v.codecs), .resolution(width: v.width, height: v.height),
        .decimal("FRAME-RATE", v.frameRate, places: 3),
      ])
      lines.append("#EXT-X-STREAM-INF:" + attributes.text)
      lines.append(v.uri)
    }
    for v in variants {
      guard let iFrames = v.iFrames else { continue }
      let attributes = AttributeList(Self.bandwidth(iFrames.bandwidth) + [
        .quoted("CODECS", v.videoCodec), .resolution(width: v.width, height: v.height), .quoted("URI", iFrames.uri),
      ])
      lines.append("#EXT-X-I-FRAME-STREAM-INF:" + attributes.text)
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// `BANDWIDTH` (the peak) and `AVERAGE-BANDWIDTH`, bits per second.
  private static func bandwidth(_ b: MeasuredBandwidth) -> [AttributeList.Attribute] {
    [.integer("BANDWIDTH", b.peak), .integer("AVERAGE-BANDWIDTH", b.average)]
  }
}
