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
    try MuxerFilesTests.muxPictures(into: dir, files: MuxerFiles { handed.names.append($0.name) }, pictures: count,
                                    finishing: false)
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
