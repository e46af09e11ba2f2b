internal import CFFmpeg
import Foundation

/// The bytes a demuxer reads, handed to libavformat as a custom
/// `AVIOContext` (`avio_alloc_context` with read and seek callbacks), so
/// libavformat never opens a path itself: it reads exactly the file that
/// was opened and checked (`ReadableFile`), or bytes already in memory.
///
/// Together with `InputContainer`'s refusing `io_open`, no demuxer can
/// reach a second file: not an image2 pattern (`img%d.bmp` → `img0.bmp`),
/// not a playlist entry, not an MP4 data reference.
final class ByteReader {
  enum Backing {
    case file(ReadableFile)
    case memory(Data)
  }

  let backing: Backing
  let size: Int64
  private var position: Int64 = 0

  init(_ backing: Backing) {
    self.backing = backing
    switch backing {
    case .file(let f): size = f.size
    case .memory(let d): size = Int64(d.count)
    }
  }

  /// `read_packet`: up to `count` bytes into `buffer`, `AVERROR_EOF` at the
  /// end.
  func read(_ buffer: UnsafeMutablePointer<UInt8>, _ count: Int32) -> Int32 {
    guard position < size else { return Status.eof }
    let wanted = Int(min(Int64(count), size - position))
    let target = UnsafeMutableRawBufferPointer(start: buffer, count: wanted)
    let n: Int
    switch backing {
    case .file(let f):
      n = f.read(at: position, into: target)
      if n < 0 { return marquee_AVERROR(errno) }
    case .memory(let d):
      let start = d.startIndex + Int(position)
      n = d.copyBytes(to: target, from: start..<(start + wanted))
    }
    if n == 0 { return Status.eof }
    position += Int64(n)
    return Int32(n)
  }

  /// `seek`: `SEEK_SET`/`SEEK_CUR`/`SEEK_END`, or the size for `AVSEEK_SIZE`.
  func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
    if whence & AVSEEK_SIZE != 0 { return size }
    let base: Int64
    switch whence & ~AVSEEK_FORCE {
    case SEEK_SET: base = 0
    case SEEK_CUR: base = position
    case SEEK_END: base = size
    default: return Int64(marquee_AVERROR(EINVAL))
    }
    let (target, overflow) = base.addingReportingOverflow(offset)
    guard !overflow, target >= 0 else { return Int64(marquee_AVERROR(EINVAL)) }
    position = target
    return target
  }

  /// Whether the bytes start like an Annex B elementary stream (H.264,
  /// HEVC): a `00 00 01` or `00 00 00 01` start code and a NAL unit header
  /// whose forbidden bit is 0. Read at offset 0, whatever the position.
  var looksLikeAnnexB: Bool {
    var head = [UInt8](repeating: 0xFF, count: 5)
    let n: Int = head.withUnsafeMutableBytes { raw in
      switch backing {
      case .file(let f): return max(0, f.read(at: 0, into: raw))
      case .memory(let d): return d.prefix(5).copyBytes(to: raw)
      }
    }
    guard n == 5 else { return false }
    if head[0] == 0, head[1] == 0, head[2] == 1 { return head[3] & 0x80 == 0 }
    return head[0] == 0 && head[1] == 0 && head[2] == 0 && head[3] == 1 && head[4] & 0x80 == 0
  }

  /// A custom `AVIOContext` reading from `reader`, which must outlive it.
  /// Free it with `freeContext`.
  static func makeContext(_ reader: ByteReader) -> UnsafeMutablePointer<AVIOContext>? {
    let bufferSize: Int32 = 1 << 16
    guard let buffer = av_malloc(Int(bufferSize))?.assumingMemoryBound(to: UInt8.self) else { return nil }
    let opaque = Unmanaged.passUnretained(reader).toOpaque()
    let context = avio_alloc_context(
      buffer, bufferSize, 0, opaque,
      { opaque, buffer, count in
        guard let opaque, let buffer else { return marquee_AVERROR(EINVAL) }
        return Unmanaged<ByteReader>.fromOpaque(opaque).takeUnretainedValue().read(buffer, count)
      },
      nil,
      { opaque, offset, whence in
        guard let opaque else { return Int64(marquee_AVERROR(EINVAL)) }
        return Unmanaged<ByteReader>.fromOpaque(opaque).takeUnretainedValue().seek(offset, whence)
      })
    if context == nil { av_free(buffer) }
    return context
  }

  /// Frees a context from `makeContext` and its (possibly reallocated)
  /// buffer.
  static func freeContext(_ context: inout UnsafeMutablePointer<AVIOContext>?) {
    guard let c = context else { return }
    av_freep(&c.pointee.buffer)
    avio_context_free(&context)
  }
}
