import Foundation

/// Reads HLS playlist text (RFC 8216 §4.1): the one reader of media,
/// I-frame and master playlists, for the text the `hls` muxer writes
/// (`SegmentRecorder`) and for a bundle's playlists, which `verify` and the
/// fuzz target feed it from files they do not trust.
///
/// Lines end at any line break; spaces around them are dropped, and blank
/// lines and comments (`#` not followed by `EXT`) are skipped. A line that
/// starts with `#EXT` is a tag, named up to its first `:`; any other line
/// is a URI. Unknown tags are kept as lines and ignored by the playlists.
/// Nothing is rejected: a playlist reads as what could be understood of it,
/// and the checks are `verify`'s.
public struct PlaylistReader: Sendable {
  /// One line that means something.
  public enum Line: Sendable, Equatable {
    /// `#EXT-X-TARGETDURATION:2`: name `#EXT-X-TARGETDURATION`, value `2`;
    /// `#EXT-X-ENDLIST`: no value.
    case tag(name: String, value: String?)
    /// A media segment's or media playlist's URI, as written.
    case uri(String)
  }

  public let lines: [Line]
  /// Whether the very first line is `#EXTM3U` (RFC 8216 §4.3.1.1: it MUST
  /// be the first line of every playlist).
  public let startsWithHeader: Bool

  public init(text: String) {
    let raw = text.split(whereSeparator: \.isNewline)
    startsWithHeader = text.first?.isNewline == false && raw.first?.trimmingCharacters(in: .whitespaces) == "#EXTM3U"
    var lines: [Line] = []
    for piece in raw {
      let line = piece.trimmingCharacters(in: .whitespaces)
      if line.hasPrefix("#EXT") {
        let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        lines.append(.tag(name: String(parts[0]), value: parts.count > 1 ? String(parts[1]) : nil))
      } else if !line.isEmpty && !line.hasPrefix("#") {
        lines.append(.uri(line))
      }
    }
    self.lines = lines
  }

  // MARK: - Media and I-frame playlists

  /// The lines as a media playlist (RFC 8216 §4.3.2, §4.3.3), I-frame
  /// playlists included (`#EXT-X-I-FRAMES-ONLY`, §4.3.3.6).
  ///
  /// A segment is a URI after an `#EXTINF` whose duration reads as a
  /// number; a URI without one is kept in `urisWithoutDuration`. An
  /// `#EXT-X-BYTERANGE` applies to the next URI.
  public func mediaPlaylist() -> MediaPlaylist {
    var playlist = MediaPlaylist()
    var duration: Double? = nil
    var byteRange: MediaPlaylist.ByteRange? = nil
    for line in lines {
      switch line {
      case .tag("#EXTINF", let value?):
        duration = value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first.flatMap { Double($0) }
      case .tag("#EXT-X-BYTERANGE", let value?):
        byteRange = MediaPlaylist.ByteRange(text: value)
      case .tag("#EXT-X-VERSION", let value?):
        playlist.version = DecimalInteger.parse(value)
      case .tag("#EXT-X-TARGETDURATION", let value?):
        playlist.targetDuration = DecimalInteger.parse(value)
      case .tag("#EXT-X-MEDIA-SEQUENCE", let value?):
        playlist.mediaSequence = DecimalInteger.parse(value)
      case .tag("#EXT-X-PLAYLIST-TYPE", let value?):
        playlist.playlistType = MediaPlaylist.PlaylistType(rawValue: value)
      case .tag("#EXT-X-MAP", let value?):
        playlist.mapURI = AttributeList(parsing: Substring(value))["URI"]
      case .tag("#EXT-X-I-FRAMES-ONLY", nil):
        playlist.isIFramesOnly = true
      case .tag("#EXT-X-INDEPENDENT-SEGMENTS", nil):
        playlist.hasIndependentSegments = true
      case .tag("#EXT-X-ENDLIST", nil):
        playlist.hasEndList = true
      case .tag:
        continue
      case .uri(let uri):
        if let seconds = duration {
          playlist.segments.append(MediaPlaylist.Segment(duration: seconds, uri: uri, byteRange: byteRange))
        } else {
          playlist.urisWithoutDuration.append(uri)
        }
        duration = nil
        byteRange = nil
      }
    }
    return playlist
  }

  // MARK: - Master playlists

  /// The lines as a master (multivariant) playlist (RFC 8216 §4.3.4):
  /// each `#EXT-X-STREAM-INF` with the URI on the line after it, and each
  /// `#EXT-X-I-FRAME-STREAM-INF` (its playlist is its `URI` attribute).
  public func masterPlaylist() -> MasterPlaylist {
    var playlist = MasterPlaylist()
    var pending: AttributeList? = nil
    for line in lines {
      switch line {
      case .tag("#EXT-X-VERSION", let value?):
        playlist.version = DecimalInteger.parse(value)
      case .tag("#EXT-X-INDEPENDENT-SEGMENTS", nil):
        playlist.hasIndependentSegments = true
      case .tag("#EXT-X-I-FRAME-STREAM-INF", let value?):
        playlist.iFrameVariants.append(AttributeList(parsing: Substring(value)))
      case .tag("#EXT-X-STREAM-INF", let value):
        if pending != nil { playlist.danglingStreamInfs += 1 }
        pending = AttributeList(parsing: Substring(value ?? ""))
      case .tag:
        continue
      case .uri(let uri):
        if let attributes = pending { playlist.variants.append(MasterPlaylist.Variant(attributes: attributes, uri: uri)) }
        pending = nil
      }
    }
    if pending != nil { playlist.danglingStreamInfs += 1 }
    return playlist
  }
}
