import Foundation
import MarqueeTestSupport
import Testing

@testable import MediaIO

/// `ReadableFile`: a regular file opened once, read through that one
/// descriptor; everything else refused with the reason in words.
@Suite("ReadableFile: what opens, what is refused, what is read")
struct ReadableFileTests {
  let dir: URL

  init() throws {
    dir = FileManager.default.temporaryDirectory.appendingPathComponent("readable-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  }

  private func write(_ name: String, _ bytes: [UInt8]) throws -> URL {
    let url = dir.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url
  }

  private func failure(_ body: () throws(MediaIOError) -> ReadableFile) -> MediaIOError? {
    do {
      _ = try body()
      return nil
    } catch { return error }
  }

  @Test("a regular file: its size, every byte by readAll and by offset, nothing past the end")
  func reads() throws {
    defer { try? FileManager.default.removeItem(at: dir) }
    var rng = SplitMix64(seed: 5)
    let bytes = (0..<100_003).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    let url = try write("clip.bin", bytes)
    let file = try ReadableFile.open(path: url.path)
    #expect(file.size == 100_003 && file.name == "clip.bin")
    #expect(SHA256.hash(try file.readAll()).hex == SHA256.hash(Data(bytes)).hex)
    var buffer = [UInt8](repeating: 0, count: 10)
    let n = buffer.withUnsafeMutableBytes { file.read(at: 99_998, into: $0) }
    #expect(n == 5 && Array(buffer[0..<5]) == Array(bytes[99_998...]))
    #expect(buffer.withUnsafeMutableBytes { file.read(at: 100_003, into: $0) } == 0)
    #expect(buffer.withUnsafeMutableBytes { file.read(at: -1, into: $0) } == 0)
  }

  @Test("readAll refuses a file over its limit as a limit, before reading")
  func limit() throws {
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = try ReadableFile.open(path: try write("big.bin", [UInt8](repeating: 1, count: 1001)).path)
    #expect(try file.readAll(limit: 1001).count == 1001)
    do {
      _ = try file.readAll(limit: 1000)
      Issue.record("a 1001-byte file read under a 1000-byte limit")
    } catch {
      #expect(error.kind == .limit && error.reason.contains("1001 bytes, over the limit of 1000"), "\(error)")
    }
  }

  @Test("missing, a folder, a FIFO: refused with the reason, as input errors")
  func refusals() throws {
    defer { try? FileManager.default.removeItem(at: dir) }
    let missing = failure { () throws(MediaIOError) in try ReadableFile.open(path: dir.appendingPathComponent("nope.mp4").path) }
    #expect(missing?.kind == .input(errno: ENOENT) && missing?.reason == "file not found", "\(String(describing: missing))")
    let folder = failure { () throws(MediaIOError) in try ReadableFile.open(path: dir.path) }
    #expect(folder?.kind == .input(errno: EISDIR) && folder?.reason == "is a folder, not a media file",
            "\(String(describing: folder))")
    let fifo = dir.appendingPathComponent("pipe.mp4")
    try #require(mkfifo(fifo.path, 0o600) == 0)
    // Opening a FIFO with no writer must not block.
    let pipe = failure { () throws(MediaIOError) in try ReadableFile.open(path: fifo.path) }
    #expect(pipe?.function == "stat" && pipe?.reason == "not a regular file (a FIFO)", "\(String(describing: pipe))")
  }

  @Test("a link is followed by default and refused with followLinks: false")
  func links() throws {
    defer { try? FileManager.default.removeItem(at: dir) }
    let target = try write("real.jpg", [1, 2, 3])
    let link = dir.appendingPathComponent("link.jpg")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    #expect(try ReadableFile.open(path: link.path).readAll() == Data([1, 2, 3]))
    let refused = failure { () throws(MediaIOError) in try ReadableFile.open(path: link.path, followLinks: false) }
    #expect(refused?.reason == "is a symbolic link or passes through one (not followed here)", "\(String(describing: refused))")
  }

  @Test("beneath a folder: no link on the way, no path that leaves it")
  func beneath() throws {
    defer { try? FileManager.default.removeItem(at: dir) }
    let inner = dir.appendingPathComponent("videos/item", isDirectory: true)
    try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
    try Data([7]).write(to: inner.appendingPathComponent("cover.webp"))
    #expect(try ReadableFile.open("videos/item/cover.webp", beneath: dir.path).readAll() == Data([7]))
    try FileManager.default.createSymbolicLink(at: dir.appendingPathComponent("linked"), withDestinationURL: inner)
    let throughLink = failure { () throws(MediaIOError) in try ReadableFile.open("linked/cover.webp", beneath: dir.path) }
    #expect(throughLink?.reason == "is a symbolic link or passes through one (not followed here)",
            "\(String(describing: throughLink))")
    for path in ["../x", "videos/../videos/item/cover.webp", "videos//item/cover.webp", "./videos/item/cover.webp", ""] {
      let leaves = failure { () throws(MediaIOError) in try ReadableFile.open(path, beneath: dir.path) }
      #expect(leaves?.kind == .input(errno: EINVAL), "\(path): \(String(describing: leaves))")
    }
  }

  @Test("a file written after it was opened says so, with its new size")
  func writtenSinceOpened() throws {
    defer { try? FileManager.default.removeItem(at: dir) }
    let url = try write("growing.ts", [UInt8](repeating: 0, count: 10))
    let file = try ReadableFile.open(path: url.path)
    #expect(try file.sizeIfWrittenSinceOpened() == nil)
    let handle = try FileHandle(forWritingTo: url)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data([1, 2]))
    try handle.close()
    #expect(try file.sizeIfWrittenSinceOpened() == 12)
    // Reads stay within the size it had when opened.
    #expect(try file.readAll().count == 10)
  }
}
