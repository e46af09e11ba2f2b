import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// The segments each rendition's muxer reports as its files pass through
/// memory (`RenditionSegments`, `MuxerFiles`), checked against the files on
/// disk read by independent readers: file sizes, the playlist through
/// `HLSCheck`, and the IDR picture's bytes through ffprobe's packet list.
@Suite("Segment events from the muxers", .serialized)
struct SegmentEventTests {
  static func clip(in dir: URL, seconds: Double = 3) throws -> URL {
    let src = dir.appendingPathComponent("clip.mp4")
    try SyntheticMedia.writeClip(.init(video: "testsrc2=size=640x360:rate=30", frameRate: Rational(30, 1),
                                       duration: seconds, toneHz: 440), to: src.path)
    return src
  }

  @Test("every event equals the file on disk: size, #EXTINF, start, and the IDR range ffprobe finds")
  func eventsMatchTheFiles() throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let built = try TranscoderTests.build(try Self.clip(in: dir), in: dir)
    let item = dir.appendingPathComponent("videos/item")
    let (_, variants) = try HLSCheck.variants(master: TranscoderTests.master(dir))
    #expect(built.result.renditions.count >= 2)
    for r in built.result.renditions {
      let events = r.segments
      let variant = try #require(variants.first { $0.uri == r.playlistPath }, "\(r.playlistPath) not in the master")
      let folder = item.appendingPathComponent(r.plan.name)
      #expect(events.mapURI == variant.mapURL?.lastPathComponent)
      #expect(events.targetDuration == variant.targetDuration)
      #expect(events.initBytes == (try Self.size(folder.appendingPathComponent(events.mapURI))))
      #expect(events.segments.map(\.uri) == variant.segments.map { $0.url.lastPathComponent })
      #expect(events.segments.count == variant.segments.count && events.segments.count >= 2)
      var start = 0.0
      for (event, listed) in zip(events.segments, variant.segments) {
        #expect(event.duration == listed.duration, "\(event.uri): \(event.duration) vs #EXTINF \(listed.duration)")
        #expect(abs(event.start - start) < 1e-9)
        start += listed.duration
        #expect(event.bytes == (try Self.size(listed.url)), "\(r.plan.name)/\(event.uri)")
        let idr = try Self.firstVideoPacketEnd(initSection: folder.appendingPathComponent(events.mapURI), segment: listed.url)
        #expect(event.idrEnd == idr, "\(r.plan.name)/\(event.uri): IDR ends at \(event.idrEnd), ffprobe says \(idr)")
      }
      #expect(abs(events.duration - start) < 1e-9)
    }
    // banners.json's duration is the start variant's, from the same events.
    let startVariant = try #require(built.result.renditions.first { variants.first?.uri == $0.playlistPath })
    #expect(built.entry.duration == startVariant.segments.duration)
    #expect(abs(built.result.pictureDuration - 3.0) < 1e-9)
  }

  @Test("a symbolic link planted where the muxer writes a segment is refused, never followed")
  func plantedSegmentLink() throws {
    let dir = try TranscoderTests.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = try Self.clip(in: dir, seconds: 2)
    let victim = dir.appendingPathComponent("victim.txt")
    try Data("keep me".utf8).write(to: victim)
    MediaLog.set(.quiet)
    func request(into folder: URL) -> TranscodeRequest {
      TranscodeRequest(source: src, outputDirectory: folder, segmentDuration: 2, maxHeight: 360,
                       limits: JobSettings.default.inputLimits, encoderThreads: 1)
    }
    // The renditions' folders, from a clean run.
    let names = try Transcoder().run(request(into: dir.appendingPathComponent("clean"))).renditions.map(\.plan.name)
    let out = dir.appendingPathComponent("out")
    for name in names {
      let folder = out.appendingPathComponent(name)
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("segment_00001.m4s"),
                                                 withDestinationURL: victim)
    }
    let error = #expect(throws: MarqueeError.self) { _ = try Transcoder().run(request(into: out)) }
    #expect(error?.code == .writeFailed, "\(String(describing: error))")
    #expect(String(describing: error).contains("segment_00001.m4s"), "\(String(describing: error))")
    #expect(try Data(contentsOf: victim) == Data("keep me".utf8), "the link's target was written")
  }

  static func size(_ url: URL) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? -1
  }

  /// Where the first video packet of `segment` ends, in the segment's own
  /// bytes, as ffprobe reads the init section and the segment joined.
  static func firstVideoPacketEnd(initSection: URL, segment: URL) throws -> Int {
    let initBytes = try Data(contentsOf: initSection)
    let joined = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-seg-\(UUID().uuidString).mp4")
    defer { try? FileManager.default.removeItem(at: joined) }
    try (initBytes + (try Data(contentsOf: segment))).write(to: joined)
    let r = try Run.process("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pos,size",
                                        "-read_intervals", "%+#1", "-of", "csv=p=0", joined.path])
    let fields = String(decoding: r.stdout, as: UTF8.self).split(whereSeparator: \.isNewline).first?
      .split(separator: ",").compactMap { Int($0) } ?? []
    guard r.status == 0, fields.count == 2 else { throw FFprobe.Failure.failed("ffprobe packets of \(segment.lastPathComponent): \(r.stderr)") }
    // csv order follows -show_entries' field order in the packet section: size, pos.
    let (size, pos) = (fields[0], fields[1])
    return pos + size - initBytes.count
  }
}
