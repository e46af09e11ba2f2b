internal import CFFmpeg
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One file a muxer wrote, whole: the path it opened and every byte.
public struct MuxedFile: Sendable {
  /// The path the muxer opened (for the `hls` muxer: the media playlist,
  /// the init section and each segment, as its options name them).
  public let path: String
  /// The file's contents. A `MuxerFiles` handler may change them before
  /// they are written (the length too).
  public var bytes: [UInt8]

  /// The last path component (`segment_00003.m4s`).
  public var name: String { (path as NSString).lastPathComponent }
}

/// The files a muxer opens itself (the `hls` muxer opens its playlist, init
/// section and segments one after the other), held in memory while the
/// muxer writes them and handed to `handler` whole when it closes them,
/// then written to their path. Set on an `OutputContainer` before its header
/// is written.
///
/// How: libavformat opens every file of a muxer with the format context's
/// `io_open` and closes it with `io_close2` (FFmpeg 5.1 `AVFormatContext`;
/// nested contexts share its `opaque`, which points here). The `io_open`
/// given here makes an in-memory `AVIOContext` (`avio_alloc_context` with
/// write and seek callbacks); `io_close2` hands the bytes to `handler`,
/// which can learn what the file holds (sizes, boxes, the playlist's
/// `#EXTINF`) and patch it, then writes the file with
/// `O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC` (mode 0644), so
/// a symbolic link planted at the path is refused, never followed. Nothing
/// is read back from disk.
///
/// Paths are local files only: a URL with a scheme (`http://`, anything
/// `scheme:` but `file:`) and opening for reading are refused (`EPERM`).
///
/// Threading: one muxer's files are opened, written and closed on the
/// thread that drives that muxer, and the handler runs there.
public final class MuxerFiles {
  /// Called as each file is closed, with its path and bytes. Throwing fails
  /// the muxer's call that closed the file; the error is what
  /// `OutputContainer` then throws.
  public typealias Handler = (inout MuxedFile) throws -> Void

  private let handler: Handler
  /// The in-memory files now open, by their `AVIOContext`.
  private var open: [UnsafeMutableRawPointer: MemoryFile] = [:]
  /// The first error of the handler or of a write, kept for the container
  /// to throw instead of FFmpeg's bare status.
  public private(set) var failure: Error? = nil

  public init(handler: @escaping Handler) {
    self.handler = handler
  }

  deinit {
    // A muxer that failed before closing a file leaves its context here.
    for (raw, _) in open {
      var context: UnsafeMutablePointer<AVIOContext>? = raw.assumingMemoryBound(to: AVIOContext.self)
      Self.freeContext(&context)
    }
  }

  /// Points `context`'s `io_open` / `io_close2` here; `self` must outlive it.
  func install(on context: UnsafeMutablePointer<AVFormatContext>) {
    context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
    context.pointee.io_open = { s, pb, url, flags, _ in
      guard let s, let pb, let url, let opaque = s.pointee.opaque else { return marquee_AVERROR(EINVAL) }
      return Unmanaged<MuxerFiles>.fromOpaque(opaque).takeUnretainedValue().open(pb, String(cString: url), flags)
    }
    context.pointee.io_close2 = { s, pb in
      guard let s, let pb, let opaque = s.pointee.opaque else { return marquee_AVERROR(EINVAL) }
      return Unmanaged<MuxerFiles>.fromOpaque(opaque).takeUnretainedValue().close(pb)
    }
  }

  /// The path for a muxer's URL, or nil when it is not a local file.
  static func localPath(_ url: String) -> String? {
    var path = url
    if path.hasPrefix("file:") { path.removeFirst("file:".count) }
    // Any other scheme (`http:`, `pipe:`, `crypto+file:`) is not a file.
    if let colon = path.firstIndex(of: ":"), !path[..<colon].contains("/") { return nil }
    return path.isEmpty ? nil : path
  }

  private func open(_ pb: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>, _ url: String,
                    _ flags: Int32) -> Int32 {
    guard flags & AVIO_FLAG_READ == 0, let path = Self.localPath(url) else { return marquee_AVERROR(EPERM) }
    let file = MemoryFile(path: path)
    let bufferSize: Int32 = 1 << 16
    guard let buffer = av_malloc(Int(bufferSize))?.assumingMemoryBound(to: UInt8.self) else {
      return marquee_AVERROR(ENOMEM)
    }
    let opaque = Unmanaged.passUnretained(file).toOpaque()
    guard let context = avio_alloc_context(
      buffer, bufferSize, 1, opaque, nil,
      { opaque, buffer, count in
        guard let opaque, let buffer, count >= 0 else { return marquee_AVERROR(EINVAL) }
        return Unmanaged<MemoryFile>.fromOpaque(opaque).takeUnretainedValue().write(buffer, count)
      },
      { opaque, offset, whence in
        guard let opaque else { return Int64(marquee_AVERROR(EINVAL)) }
        return Unmanaged<MemoryFile>.fromOpaque(opaque).takeUnretainedValue().seek(offset, whence)
      })
    else {
      av_free(buffer)
      return marquee_AVERROR(ENOMEM)
    }
    open[UnsafeMutableRawPointer(context)] = file
    pb.pointee = context
    return 0
  }

  private func close(_ pb: UnsafeMutablePointer<AVIOContext>) -> Int32 {
    guard let file = open.removeValue(forKey: UnsafeMutableRawPointer(pb)) else {
      // Not one of ours (a nested muxer's own context): close it as
      // libavformat's default `io_close2` does.
      return avio_close(pb)
    }
    avio_flush(pb)
    var context: UnsafeMutablePointer<AVIOContext>? = pb
    let writeError = pb.pointee.error
    Self.freeContext(&context)
    if writeError < 0 { return writeError }
    var muxed = MuxedFile(path: file.path, bytes: file.bytes)
    do {
      try handler(&muxed)
      try Self.write(muxed)
      return 0
    } catch {
      if failure == nil { failure = error }
      if let e = error as? MediaIOError, e.status < 0 { return e.status }
      return marquee_AVERROR(EIO)
    }
  }

  /// Writes `file` to its path, never through a symbolic link.
  static func write(_ file: MuxedFile) throws(MediaIOError) {
    let fd = Glibc.open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw MediaIOError(status: marquee_AVERROR(errno), function: "open", context: file.path, writing: true) }
    defer { Glibc.close(fd) }
    var offset = 0
    while offset < file.bytes.count {
      let n = file.bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
      if n < 0 {
        if errno == EINTR { continue }
        throw MediaIOError(status: marquee_AVERROR(errno), function: "write", context: file.path, writing: true)
      }
      offset += n
    }
  }

  private static func freeContext(_ context: inout UnsafeMutablePointer<AVIOContext>?) {
    guard let c = context else { return }
    av_freep(&c.pointee.buffer)
    avio_context_free(&context)
  }
}

/// The bytes of one file being muxed, with a write position (the mov
/// muxer seeks back to fill in box sizes).
private final class MemoryFile {
  let path: String
  private(set) var bytes: [UInt8] = []
  private var position = 0

  init(path: String) { self.path = path }

  /// `write_packet`: `count` bytes at the position, growing the file.
  func write(_ buffer: UnsafeMutablePointer<UInt8>, _ count: Int32) -> Int32 {
    let n = Int(count)
    let end = position + n
    if end > bytes.count { bytes.append(contentsOf: repeatElement(0, count: end - bytes.count)) }
    bytes.withUnsafeMutableBytes { raw in
      raw.baseAddress!.advanced(by: position).copyMemory(from: buffer, byteCount: n)
    }
    position = end
    return count
  }

  /// `seek`: `SEEK_SET`/`SEEK_CUR`/`SEEK_END`, or the size for `AVSEEK_SIZE`.
  func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
    if whence & AVSEEK_SIZE != 0 { return Int64(bytes.count) }
    let base: Int64
    switch whence & ~AVSEEK_FORCE {
    case SEEK_SET: base = 0
    case SEEK_CUR: base = Int64(position)
    case SEEK_END: base = Int64(bytes.count)
    default: return Int64(marquee_AVERROR(EINVAL))
    }
    let (target, overflow) = base.addingReportingOverflow(offset)
    guard !overflow, target >= 0, target <= Int64(Int32.max) * 16 else { return Int64(marquee_AVERROR(EINVAL)) }
    position = Int(target)
    return target
  }
}
