import Foundation

/// Writes an I-frame playlist for a rendition (Apple HLS authoring spec
/// §6.1; RFC 8216 §4.3.3.6 `EXT-X-I-FRAMES-ONLY`): one entry per segment,
/// a byte range from the segment's first byte through its opening I-frame
/// (its `moof` and the picture's data; `ISOBMFF.BoxReader.firstSampleEnd`),
/// lasting the segment's `#EXTINF`.
public struct IFramePlaylistWriter: Sendable {
  /// One I-frame: the segment it opens.
  public struct Frame: Sendable, Equatable {
    /// The segment's URI, relative to the playlist.
    public var uri: String
    /// Seconds: the segment's `#EXTINF`.
    public var duration: Double
    /// Bytes `0..<end` of the segment hold the I-frame.
    public var end: Int
  }

  public init() {}

  /// The playlist text (version 7, VOD, media sequence 0, ended) and the
  /// bit rates its byte ranges measure: the peak and the average of each
  /// I-frame's bits over its duration (frames lasting 0 s are left out of
  /// both).
  ///
  /// - Parameters:
  ///   - mapURI: the initialization section (`#EXT-X-MAP`), relative to
  ///     the playlist.
  ///   - targetDuration: the media playlist's `#EXT-X-TARGETDURATION`,
  ///     seconds; nil: 2.
  public func render(mapURI: String, targetDuration: Int?, frames: [Frame]) -> (text: String, bandwidth: MeasuredBandwidth) {
    let playlist = MediaPlaylist(
      version: 7, targetDuration: targetDuration ?? 2, mediaSequence: 0, playlistType: .vod, isIFramesOnly: true,
      mapURI: mapURI, segments: frames.map { .init(duration: $0.duration, uri: $0.uri, byteRange: .init(length: $0.end, offset: 0)) },
      hasEndList: true)
    var peak = 0.0, bits = 0.0, seconds = 0.0
    for frame in frames where frame.duration > 0 {
      peak = max(peak, Double(frame.end * 8) / frame.duration)
      bits += Double(frame.end * 8)
      seconds += frame.duration
    }
    let bandwidth = MeasuredBandwidth(peak: Int(peak.rounded(.up)), average: seconds > 0 ? Int((bits / seconds).rounded(.up)) : 0)
    return (MediaPlaylistWriter().render(playlist), bandwidth)
  }
}
