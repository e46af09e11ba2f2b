import Foundation
import Testing

@testable import MediaIO

/// `OutputContainer` ends one way, once: `finish()` or `abandon()` (debug
/// builds assert in `deinit` that one ran, so every test here ends its
/// containers). Whichever comes second does nothing.
@Suite("OutputContainer: finished or abandoned", .serialized)
struct OutputContainerTests {
  /// Counts the files an `hls` muxer hands over, by name.
  final class Handed {
    var names: [String] = []
  }

  /// An `hls` muxer in `dir` with `count` testsrc2 pictures written to it,
  /// not finished; its files are counted in `handed`.
  static func unfinishedMuxer(in dir: URL, pictures count: Int, handed: Handed) throws -> OutputContainer {
    let (encoder, graph) = try CodecStepTests.encoderAndSource(pictures: count)
    let files = MuxerFiles { handed.names.append($0.name) }
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
      while try graph.pull(frame) == .produced {
        if let pts = frame.pts { frame.pts = Rational.rescale(pts, from: graph.timeBase(), to: encoder.timeBase) }
        frame.forcesKeyframe = false
        while try encoder.send(frame) == .tryAgain { try drain() }
        try drain()
      }
    } catch {
      mux.abandon()
      throw error
    }
    return mux
  }

  @Test("abandoned before its header, a container writes nothing; finish() afterwards does nothing")
  func abandonBeforeHeader() throws {
    let dir = try MuxerFilesTests.folder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let (encoder, _) = try CodecStepTests.encoderAndSource(pictures: 1)
    let path = dir.appendingPathComponent("video.mp4").path
    let mux = try OutputContainer(path: path, format: "mp4")
    _ = try mux.addStream(from: encoder)
    mux.abandon()
    try mux.finish()
    #expect(!FileManager.default.fileExists(atPath: path))
  }

  @Test("abandoned mid-stream, a muxer hands over its last files once and nothing after; finish() then does nothing")
  func abandonMidStream() throws {
    let dir = try MuxerFilesTests.folder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let handed = Handed()
    let mux = try Self.unfinishedMuxer(in: dir, pictures: 50, handed: handed)
    mux.abandon()
    let afterAbandon = handed.names
    #expect(afterAbandon.contains("init.mp4"))
    try mux.finish()
    mux.abandon()
    #expect(handed.names == afterAbandon, "files handed over after abandon(): \(handed.names.dropFirst(afterAbandon.count))")
  }

  @Test("finished, a muxer stays finished: abandon() afterwards changes nothing")
  func abandonAfterFinish() throws {
    let dir = try MuxerFilesTests.folder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let handed = Handed()
    let mux = try Self.unfinishedMuxer(in: dir, pictures: 50, handed: handed)
    try mux.finish()
    let afterFinish = handed.names
    #expect(afterFinish.last == "index.m3u8")
    mux.abandon()
    try mux.finish()
    #expect(handed.names == afterFinish)
    let playlist = try String(contentsOf: dir.appendingPathComponent("index.m3u8"), encoding: .utf8)
    #expect(playlist.contains("#EXT-X-ENDLIST"))
  }
}
