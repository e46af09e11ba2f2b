import Foundation
import MarqueeTestSupport
import Testing

@testable import MediaIO

/// `MuxerFiles`: the files an `hls` muxer opens pass through memory, reach
/// the handler whole, and are written to their path, never through a
/// symbolic link, never to a URL with a scheme.
@Suite("MuxerFiles: in-memory muxer files", .serialized)
struct MuxerFilesTests {
  @Test("local paths pass; a URL with a scheme other than file: is refused", arguments: [
    ("/out/360p/index.m3u8", "/out/360p/index.m3u8"),
    ("file:/out/segment_00000.m4s", "/out/segment_00000.m4s"),
    ("out/with:colon/init.mp4", "out/with:colon/init.mp4"),
    ("http://example.com/index.m3u8", nil),
    ("https://example.com/x", nil),
    ("concat:/a.m4s|/b.m4s", nil),
    ("pipe:1", nil),
    ("crypto+file:/out/x", nil),
    ("file:", nil),
    ("", nil),
  ] as [(String, String?)])
  func localPaths(_ url: String, _ path: String?) {
    #expect(MuxerFiles.localPath(url) == path, "\(url)")
  }

  @Test("writing never follows a symbolic link planted at the path; the link's target is untouched")
  func symbolicLinkRefused() throws {
    let dir = try Self.folder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let target = dir.appendingPathComponent("elsewhere.txt")
    try Data("keep".utf8).write(to: target)
    let link = dir.appendingPathComponent("segment_00000.m4s")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    #expect(throws: MediaIOError.self) { try MuxerFiles.write(MuxedFile(path: link.path, bytes: [1, 2, 3])) }
    do { try MuxerFiles.write(MuxedFile(path: link.path, bytes: [1, 2, 3])) } catch {
      #expect(error.kind == .output(errno: ELOOP) && error.function == "open", "\(error)")
    }
    #expect(try Data(contentsOf: target) == Data("keep".utf8))
    // A plain path is written whole, replacing what was there.
    let plain = dir.appendingPathComponent("plain.m4s")
    try Data(repeating: 9, count: 100).write(to: plain)
    try MuxerFiles.write(MuxedFile(path: plain.path, bytes: [1, 2, 3]))
    #expect(try Data(contentsOf: plain) == Data([1, 2, 3]))
  }

  @Test("an hls muxer's playlist, init section and segments reach the handler whole and land on disk as handed back")
  func filesAndSizes() throws {
    let dir = try Self.folder()
    defer { try? FileManager.default.removeItem(at: dir) }
    // Name → (size, SHA-256) as the handler saw each file after its patch.
    var seen: [String: (Int, String)] = [:]
    let files = MuxerFiles { file in
      if file.name == "index.m3u8" { file.bytes += Array("# patched\n".utf8) }
      seen[file.name] = (file.bytes.count, SHA256.hash(Data(file.bytes)).hex)
    }
    try Self.mux(into: dir, files: files)
    #expect(files.failure == nil)
    let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    #expect(names == ["index.m3u8", "init.mp4", "segment_00000.m4s", "segment_00001.m4s"], "\(names)")
    #expect(Set(seen.keys) == Set(names))
    for name in names {
      let data = try Data(contentsOf: dir.appendingPathComponent(name))
      #expect(seen[name]?.0 == data.count && seen[name]?.1 == SHA256.hash(data).hex, "\(name) differs from what the handler saw")
    }
    let playlist = try String(contentsOf: dir.appendingPathComponent("index.m3u8"), encoding: .utf8)
    #expect(playlist.hasPrefix("#EXTM3U") && playlist.hasSuffix("#EXT-X-ENDLIST\n# patched\n"), "\(playlist)")
    // The segments are what ffprobe reads as two seconds of video.
    let segments = try ["segment_00000.m4s", "segment_00001.m4s"].map {
      try HLSCheck.standaloneSegment(map: dir.appendingPathComponent("init.mp4"), segment: dir.appendingPathComponent($0))
    }
    defer { for s in segments { try? FileManager.default.removeItem(at: s) } }
    #expect(try segments.map { try FFprobe.videoFrames($0).count } == [25, 25])
  }

  @Test("a handler's error fails the muxer's call and is the one thrown; a link planted at a segment is refused")
  func failures() throws {
    struct Refused: Error {}
    let dir = try Self.folder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let refusing = MuxerFiles { file in if file.name.hasPrefix("segment_") { throw Refused() } }
    #expect(throws: MediaIOError.self) { try Self.mux(into: dir, files: refusing) }
    #expect(refusing.failure is Refused, "\(String(describing: refusing.failure))")

    let linked = try Self.folder()
    defer { try? FileManager.default.removeItem(at: linked) }
    let target = linked.appendingPathComponent("target")
    try Data("keep".utf8).write(to: target)
    try FileManager.default.createSymbolicLink(at: linked.appendingPathComponent("segment_00000.m4s"), withDestinationURL: target)
    let files = MuxerFiles { _ in }
    do {
      try Self.mux(into: linked, files: files)
      Issue.record("a segment was written through a symbolic link")
    } catch {
      #expect(error.kind == .output(errno: ELOOP), "\(error)")
    }
    #expect(try Data(contentsOf: target) == Data("keep".utf8))
  }

  // MARK: - Fixtures

  static func folder() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("muxer-files-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }

  /// Two seconds of testsrc2 (25 fps, an IDR each second) through an `hls`
  /// muxer writing fMP4 segments of one second into `dir`.
  static func mux(into dir: URL, files: MuxerFiles) throws(MediaIOError) {
    _ = try muxPictures(into: dir, files: files, pictures: 50, finishing: true)
  }

  /// `pictures` testsrc2 pictures through an `hls` muxer writing fMP4
  /// segments of one second into `dir`; with `finishing`, the encoder is
  /// drained and the muxer finished, else it is handed back open (the
  /// caller must finish or abandon it). An error abandons it.
  static func muxPictures(into dir: URL, files: MuxerFiles, pictures: Int,
                          finishing: Bool) throws(MediaIOError) -> OutputContainer {
    let (encoder, graph) = try CodecStepTests.encoderAndSource(pictures: pictures)
    let mux = try OutputContainer(path: dir.appendingPathComponent("index.m3u8").path, format: "hls", files: files)
    do {
      _ = try mux.addStream(from: encoder)
      try mux.writeHeader(options: [
        ("hls_time", "1"), ("hls_playlist_type", "vod"), ("hls_list_size", "0"), ("hls_segment_type", "fmp4"),
        ("hls_fmp4_init_filename", "init.mp4"),
        ("hls_segment_filename", dir.appendingPathComponent("segment_%05d.m4s").path),
      ])
      let frame = try Frame(), packet = try Packet()
      func drain() throws(MediaIOError) {
        while try encoder.receive(packet) == .produced { try mux.write(packet, stream: 0) }
      }
      func encode(_ frame: Frame?) throws(MediaIOError) {
        while try encoder.send(frame) == .tryAgain { try drain() }
        try drain()
      }
      while try graph.pull(frame) == .produced {
        if let pts = frame.pts { frame.pts = Rational.rescale(pts, from: graph.timeBase(), to: encoder.timeBase) }
        frame.forcesKeyframe = false
        try encode(frame)
      }
      if finishing {
        try encode(nil)
        try mux.finish()
      }
    } catch {
      mux.abandon()
      throw error
    }
    return mux
  }
}
