import Foundation

/// One media segment of a rendition, as the `hls` muxer wrote it.
public struct SegmentEvent: Sendable, Equatable {
  /// 0 for the first segment.
  public var index: Int
  /// The file name, relative to the media playlist (`segment_00000.m4s`).
  public var uri: String
  /// Seconds from the start of the rendition: the sum of the `#EXTINF` of
  /// the segments before it.
  public var start: Double
  /// Seconds, the `#EXTINF` the muxer wrote for it.
  public var duration: Double
  /// The file's size in bytes.
  public var bytes: Int
  /// Bytes `0..<idrEnd` hold the segment's `styp`/`sidx`, its `moof` and
  /// its opening IDR picture: the I-frame playlist's byte range (every
  /// segment starts with an IDR, `KeyframePlanner`).
  public var idrEnd: Int
}

/// What one rendition's HLS muxer wrote: its init section and segments,
/// learnt as the files passed through memory (`MuxerFiles`), so the master
/// and I-frame playlists, the measured bit rates and the duration are
/// built from these facts without reading a file back.
public struct RenditionSegments: Sendable, Equatable {
  /// The init section's URI (`#EXT-X-MAP`), relative to the media playlist.
  public var mapURI: String
  /// The init section's size in bytes.
  public var initBytes: Int
  /// `#EXT-X-TARGETDURATION`, seconds.
  public var targetDuration: Int?
  public var segments: [SegmentEvent]

  /// The rendition's duration in seconds: the sum of its `#EXTINF`, what a
  /// player reports.
  public var duration: Double { segments.reduce(0) { $0 + $1.duration } }
}

extension MeasuredBandwidth {
  /// Measures a rendition from its segments: each segment's bytes include
  /// its share of the init section (spread evenly over the segments), so
  /// the figure covers every byte a player downloads.
  public init(rendition r: RenditionSegments) {
    self.init(segments: Self.segments(of: r), targetDuration: r.targetDuration)
  }

  /// Each segment's bits, with its share of the init section, and seconds.
  static func segments(of r: RenditionSegments) -> [(bits: Double, seconds: Double)] {
    let share = r.segments.isEmpty ? 0 : Double(r.initBytes) / Double(r.segments.count)
    return r.segments.filter { $0.duration > 0 }.map { (bits: (Double($0.bytes) + share) * 8, seconds: $0.duration) }
  }
}

extension IFramePlaylistWriter {
  /// The I-frame playlist of a rendition: one entry per segment, its
  /// opening IDR picture (`SegmentEvent.idrEnd`).
  func render(rendition r: RenditionSegments) -> (text: String, bandwidth: MeasuredBandwidth) {
    render(mapURI: r.mapURI, targetDuration: r.targetDuration,
           frames: r.segments.map { .init(uri: $0.uri, duration: $0.duration, end: $0.idrEnd) })
  }
}

/// Learns what one rendition's `hls` muxer writes, file by file, on the
/// rendition's worker thread (the `MuxerFiles` handler of its muxer):
/// - the media playlist: its `#EXTINF` durations and URIs (the muxer
///   rewrites it after every segment; the last one counts);
/// - the init section: its size; and the sound track's edit is moved one
///   sample later (`AudioDecodeDelay.delayEdits`);
/// - each segment: its size and where its IDR picture ends
///   (`ISOBMFF.BoxReader.firstSampleEnd(ofTrack:)`), after the sound's decode times are
///   moved with the edit (`AudioDecodeDelay.delayFragments`).
///
/// The patches keep every size, so what is learnt of a file is what is
/// written. Not thread-safe: one muxer's thread calls `take`, and the
/// item's thread reads `segments()` after that muxer has finished.
final class SegmentRecorder {
  private let playlistPath: String
  private let initName: String
  private var playlist: MediaPlaylist? = nil
  private var initBytes: Int? = nil
  /// The sound track whose decode times move, from the init section; nil
  /// when there is none (or nothing of it to move).
  private var soundTrack: UInt32? = nil
  private var files: [String: (bytes: Int, idrEnd: Int)] = [:]

  /// - Parameters:
  ///   - playlistPath: the media playlist's path as the muxer opens it.
  ///   - initName: the init section's file name (`hls_fmp4_init_filename`).
  init(playlistPath: String, initName: String) {
    self.playlistPath = playlistPath
    self.initName = initName
  }

  /// The `MuxerFiles` handler.
  /// - Throws: `MarqueeError` (`encodeFailed`) when a segment comes before
  ///   the init section or is not a parsable fMP4 fragment with a video
  ///   sample, or when a box is not what the muxer writes.
  func take(_ file: inout MuxedFile) throws {
    if file.name == (playlistPath as NSString).lastPathComponent {
      playlist = MediaPlaylist(text: String(decoding: file.bytes, as: UTF8.self))
    } else if file.name == initName {
      soundTrack = try AudioDecodeDelay.delayEdits(&file.bytes, name: file.name)
      initBytes = file.bytes.count
    } else {
      guard initBytes != nil else {
        throw MarqueeError(.encodeFailed, "\(file.name) was written before the init section \(initName)")
      }
      if let track = soundTrack { try AudioDecodeDelay.delayFragments(&file.bytes, trackID: track, name: file.name) }
      guard let end = ISOBMFF.BoxReader(file.bytes).firstSampleEnd(ofTrack: 1) else {
        throw MarqueeError(.encodeFailed, "cannot index the I-frame of \(file.name): it is not a parsable fMP4 fragment")
      }
      files[file.name] = (file.bytes.count, end)
    }
  }

  /// The rendition's segments, in playlist order, once its muxer has
  /// finished.
  /// - Throws: `MarqueeError` (`encodeFailed`) when the muxer wrote no
  ///   playlist or init section, or the playlist lists a file it did not write.
  func segments() throws -> RenditionSegments {
    let name = (playlistPath as NSString).lastPathComponent
    guard let playlist, let map = playlist.mapURI, let initBytes else {
      throw MarqueeError(.encodeFailed, "\(name): the muxer wrote no playlist with an init section")
    }
    var start = 0.0
    var events: [SegmentEvent] = []
    for (i, s) in playlist.segments.enumerated() {
      guard let file = files[s.uri] else {
        throw MarqueeError(.encodeFailed, "\(name) lists \(s.uri), which the muxer did not write")
      }
      events.append(SegmentEvent(index: i, uri: s.uri, start: start, duration: s.duration, bytes: file.bytes,
                                 idrEnd: file.idrEnd))
      start += s.duration
    }
    return RenditionSegments(mapURI: map, initBytes: initBytes, targetDuration: playlist.targetDuration, segments: events)
  }
}
