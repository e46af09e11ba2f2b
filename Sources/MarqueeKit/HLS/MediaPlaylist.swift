import Foundation

/// An HLS media playlist (RFC 8216 §4.3.2, §4.3.3), an I-frame playlist
/// included: what `PlaylistReader` reads (the text the `hls` muxer writes,
/// or a bundle's playlist that `verify` checks) and what
/// `MediaPlaylistWriter` writes.
public struct MediaPlaylist: Sendable, Equatable {
  /// `#EXT-X-PLAYLIST-TYPE` (§4.3.3.5).
  public enum PlaylistType: String, Sendable {
    case vod = "VOD"
    case event = "EVENT"
  }

  /// `#EXT-X-BYTERANGE:<length>[@<offset>]` (§4.3.2.2), in bytes.
  public struct ByteRange: Sendable, Equatable {
    public var length: Int
    /// Where the range starts in the resource; nil: right after the
    /// previous segment's range, which must be of the same resource.
    public var offset: Int?

    /// As written after `#EXT-X-BYTERANGE:`.
    var text: String { offset.map { "\(length)@\($0)" } ?? "\(length)" }
  }

  /// One media segment: its `#EXTINF`, `#EXT-X-BYTERANGE` and URI.
  public struct Segment: Sendable, Equatable {
    /// Seconds, from `#EXTINF`.
    public var duration: Double
    /// As written (relative to the playlist).
    public var uri: String
    public var byteRange: ByteRange? = nil
  }

  /// `#EXT-X-VERSION`.
  public var version: Int? = nil
  /// `#EXT-X-TARGETDURATION`, whole seconds.
  public var targetDuration: Int? = nil
  /// `#EXT-X-MEDIA-SEQUENCE`.
  public var mediaSequence: Int? = nil
  public var playlistType: PlaylistType? = nil
  /// `#EXT-X-I-FRAMES-ONLY`: each segment is one I-frame (§4.3.3.6).
  public var isIFramesOnly = false
  /// `#EXT-X-INDEPENDENT-SEGMENTS` (§4.3.5.1).
  public var hasIndependentSegments = false
  /// `#EXT-X-MAP` URI (the fMP4 initialization section, §4.3.2.5).
  public var mapURI: String? = nil
  public var segments: [Segment] = []
  /// `#EXT-X-ENDLIST`.
  public var hasEndList = false
  /// URIs with no readable `#EXTINF` before them, which every segment needs
  /// (§4.3.2.1); read, never written.
  public var urisWithoutDuration: [String] = []

  /// `#EXT-X-PLAYLIST-TYPE:VOD`.
  public var isVOD: Bool { playlistType == .vod }

  /// Total duration: the sum of the `#EXTINF` durations, which is what a
  /// player reports as the item's duration.
  public var duration: Double { segments.reduce(0) { $0 + $1.duration } }
}

extension MediaPlaylist {
  /// Reads playlist text (`PlaylistReader.mediaPlaylist()`).
  public init(text: String) {
    self = PlaylistReader(text: text).mediaPlaylist()
  }
}

extension MediaPlaylist.ByteRange {
  /// Reads `<n>[@<o>]`, both decimal-integers; nil when either is not.
  init?(text: String) {
    let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
    guard let length = DecimalInteger.parse(parts[0]) else { return nil }
    if parts.count > 1 {
      guard let offset = DecimalInteger.parse(parts[1]) else { return nil }
      self.init(length: length, offset: offset)
    } else {
      self.init(length: length, offset: nil)
    }
  }
}

/// Writes a media or I-frame playlist (RFC 8216 §4.3.2, §4.3.3) in the
/// layout FFmpeg's `hls` muxer uses, so Marquee's playlists read like the
/// muxer's: the header tags in a fixed order, then each segment's
/// `#EXTINF` (six decimals, no title), `#EXT-X-BYTERANGE` and URI, then
/// `#EXT-X-ENDLIST`. Tags whose value is nil or false are left out.
public struct MediaPlaylistWriter: Sendable {
  public init() {}

  /// The playlist text, one tag or URI a line, ending with a line break.
  public func render(_ playlist: MediaPlaylist) -> String {
    var lines = ["#EXTM3U"]
    if let v = playlist.version { lines.append("#EXT-X-VERSION:\(v)") }
    if let t = playlist.targetDuration { lines.append("#EXT-X-TARGETDURATION:\(t)") }
    if let n = playlist.mediaSequence { lines.append("#EXT-X-MEDIA-SEQUENCE:\(n)") }
    if let type = playlist.playlistType { lines.append("#EXT-X-PLAYLIST-TYPE:\(type.rawValue)") }
    if playlist.isIFramesOnly { lines.append("#EXT-X-I-FRAMES-ONLY") }
    if playlist.hasIndependentSegments { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
    if let map = playlist.mapURI { lines.append("#EXT-X-MAP:" + AttributeList([.quoted("URI", map)]).text) }
    for segment in playlist.segments {
      lines.append(String(format: "#EXTINF:%.6f,", segment.duration))
      if let range = segment.byteRange { lines.append("#EXT-X-BYTERANGE:\(range.text)") }
      lines.append(segment.uri)
    }
    if playlist.hasEndList { lines.append("#EXT-X-ENDLIST") }
    return lines.joined(separator: "\n") + "\n"
  }
}
