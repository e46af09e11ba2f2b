import Foundation

/// Writes an I-frame playlist for a rendition (Apple HLS authoring spec
/// §6.1; RFC 8216 §4.3.3.6 `EXT-X-I-FRAMES-ONLY`): one entry per segment,
/// a byte range covering the segment's `moof` and its opening IDR frame
/// (`ISOBMFF.BoxReader.firstSampleEnd(ofTrack:)`).
public struct IFramePlaylistWriter: Sendable {
  public init() {}

  /// The playlist text and the bit rates its byte ranges measure.
  ///
  /// - Parameter rendition: the rendition's segments as its muxer wrote
  ///   them, with each IDR picture's end (`SegmentEvent.idrEnd`).
  public func render(rendition: RenditionSegments) -> (text: String, bandwidth: MeasuredBandwidth) {
    var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(rendition.targetDuration ?? 2)",
                 "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-I-FRAMES-ONLY",
                 "#EXT-X-MAP:URI=\"\(rendition.mapURI)\""]
    var peak = 0.0, bits = 0.0, seconds = 0.0
    for segment in rendition.segments {
      let end = segment.idrEnd
      lines.append(String(format: "#EXTINF:%.6f,", segment.duration))
      lines.append("#EXT-X-BYTERANGE:\(end)@0")
      lines.append(segment.uri)
      if segment.duration > 0 {
        peak = max(peak, Double(end * 8) / segment.duration)
        bits += Double(end * 8)
        seconds += segment.duration
      }
    }
    lines.append("#EXT-X-ENDLIST")
    let bw = MeasuredBandwidth(peak: Int(peak.rounded(.up)), average: seconds > 0 ? Int((bits / seconds).rounded(.up)) : 0)
    return (lines.joined(separator: "\n") + "\n", bw)
  }
}
