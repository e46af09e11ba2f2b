internal import CFFmpeg
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// SHA-256 (FIPS 180-4), incremental, on libavutil's `AVSHA` (`av_sha_init`
/// with 256 bits). The context is owned by this object and freed in `deinit`.
///
/// The content-addressed store keys items by the digest of their source bytes
/// and settings; `IncrementalTests` checks this type against the FIPS 180-4
/// test vectors and `sha256sum`.
///
/// ```swift
/// let hash = SHA256()
/// hash.update("abc")
/// hash.finalize().hex  // "ba7816bf…"
/// ```
///
/// Not thread-safe: one instance is fed by one thread at a time.
public final class SHA256 {
  /// A finished digest: 32 bytes.
  public struct Digest: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]
    /// Lower-case hex, 64 characters.
    public var hex: String {
      let digits = Array("0123456789abcdef".utf8)
      var out = [UInt8]()
      out.reserveCapacity(64)
      for b in bytes {
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 0x0F)])
      }
      return String(decoding: out, as: UTF8.self)
    }
    public var description: String { hex }
  }

  /// The `AVSHA` state, `av_sha_size` bytes in memory this object owns
  /// (libavutil documents the context as that many bytes the caller may
  /// allocate), so making one cannot fail short of Swift's own allocator.
  private let storage: UnsafeMutableRawPointer
  private var context: OpaquePointer { OpaquePointer(storage) }
  private var finished: Digest?

  /// A fresh SHA-256 state (`av_sha_init` with 256 bits).
  public init() {
    storage = UnsafeMutableRawPointer.allocate(byteCount: Int(av_sha_size), alignment: 64)
    av_sha_init(OpaquePointer(storage), 256)
  }

  deinit { storage.deallocate() }

  /// Feeds bytes. Feeding after `finalize()` is a programming error.
  public func update(_ bytes: UnsafeRawBufferPointer) {
    precondition(finished == nil, "SHA256.update after finalize")
    guard let base = bytes.baseAddress, bytes.count > 0 else { return }
    av_sha_update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
  }

  /// Feeds bytes.
  public func update(_ data: Data) {
    data.withUnsafeBytes { update($0) }
  }

  /// Feeds the UTF-8 bytes of `text`.
  public func update(_ text: String) {
    var text = text
    text.withUTF8 { update(UnsafeRawBufferPointer($0)) }
  }

  /// Pads, processes the last block and returns the digest (`av_sha_final`).
  /// Later calls return the same digest.
  public func finalize() -> Digest {
    if let finished { return finished }
    var out = [UInt8](repeating: 0, count: 32)
    out.withUnsafeMutableBufferPointer { av_sha_final(context, $0.baseAddress) }
    let digest = Digest(bytes: out)
    finished = digest
    return digest
  }

  /// The digest of `data`.
  public static func hash(_ data: Data) -> Digest {
    let h = SHA256()
    h.update(data)
    return h.finalize()
  }

  /// The digest of the UTF-8 bytes of `text`.
  public static func hash(_ text: String) -> Digest {
    let h = SHA256()
    h.update(text)
    return h.finalize()
  }

  /// The digest of an opened file's first `size` bytes (its size at
  /// open), read in 1 MiB chunks with `pread`.
  ///
  /// - Throws: `MediaIOError` with function `read` when a read fails or
  ///   the file shrank meanwhile.
  public static func hash(file: ReadableFile) throws(MediaIOError) -> Digest {
    let h = SHA256()
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var offset: Int64 = 0
    while offset < file.size {
      let n = buffer.withUnsafeMutableBytes { file.read(at: offset, into: $0) }
      if n < 0 { throw MediaIOError(kind: .input(errno: errno), function: "read", context: file.name, reason: String(cString: strerror(errno))) }
      if n == 0 { throw MediaIOError(kind: .input(errno: 0), function: "read", context: file.name, reason: "the file shrank while it was read") }
      buffer.withUnsafeBytes { h.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
      offset += Int64(n)
    }
    return h.finalize()
  }
}
