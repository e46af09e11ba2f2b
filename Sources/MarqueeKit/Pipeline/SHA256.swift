import Foundation

/// SHA-256 (FIPS 180-4), incremental, in plain Swift.
///
/// Foundation on Linux has no CryptoKit, and the content-addressed store
/// only needs a digest of source bytes and settings, so this is a compact,
/// portable implementation checked against `sha256sum` and the FIPS test
/// vectors in `IncrementalHashTests`.
///
/// ```swift
/// var hash = SHA256()
/// hash.update("abc")
/// hash.finalize().hex  // "ba7816bf…"
/// ```
public struct SHA256: Sendable {
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

  private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
    0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
  )
  /// Bytes of an incomplete block.
  private var buffer: [UInt8] = []
  /// Total message length in bytes.
  private var length: UInt64 = 0

  public init() {
    buffer.reserveCapacity(64)
  }

  /// Feeds bytes.
  public mutating func update(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count > 0 else { return }
    length &+= UInt64(bytes.count)
    var offset = 0
    if !buffer.isEmpty {
      let take = min(64 - buffer.count, bytes.count)
      buffer.append(contentsOf: bytes[0..<take])
      offset = take
      if buffer.count == 64 {
        let block = buffer
        block.withUnsafeBytes { raw in
          if let start = raw.baseAddress { compress(start) }
        }
        buffer.removeAll(keepingCapacity: true)
      }
    }
    guard let base = bytes.baseAddress else { return }
    while bytes.count - offset >= 64 {
      compress(base + offset)
      offset += 64
    }
    if offset < bytes.count { buffer.append(contentsOf: bytes[offset...]) }
  }

  /// Feeds bytes.
  public mutating func update(_ data: Data) {
    data.withUnsafeBytes { update($0) }
  }

  /// Feeds the UTF-8 bytes of `text`.
  public mutating func update(_ text: String) {
    var text = text
    text.withUTF8 { update(UnsafeRawBufferPointer($0)) }
  }

  /// Pads, processes the last block and returns the digest.
  public func finalize() -> Digest {
    var copy = self
    let bitLength = length &* 8
    var tail: [UInt8] = [0x80]
    let used = (copy.buffer.count + 1) % 64
    let zeros = used <= 56 ? 56 - used : 120 - used
    tail.append(contentsOf: repeatElement(0, count: zeros))
    for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
    let savedLength = copy.length
    tail.withUnsafeBytes { copy.update($0) }
    copy.length = savedLength
    let s = copy.state
    var out: [UInt8] = []
    out.reserveCapacity(32)
    for word in [s.0, s.1, s.2, s.3, s.4, s.5, s.6, s.7] {
      out.append(UInt8(truncatingIfNeeded: word >> 24))
      out.append(UInt8(truncatingIfNeeded: word >> 16))
      out.append(UInt8(truncatingIfNeeded: word >> 8))
      out.append(UInt8(truncatingIfNeeded: word))
    }
    return Digest(bytes: out)
  }

  /// The digest of `data`.
  public static func hash(_ data: Data) -> Digest {
    var h = SHA256()
    h.update(data)
    return h.finalize()
  }

  /// The digest of the UTF-8 bytes of `text`.
  public static func hash(_ text: String) -> Digest {
    var h = SHA256()
    h.update(text)
    return h.finalize()
  }

  /// The digest of a file's bytes, read in 1 MiB chunks.
  ///
  /// - Throws: `CocoaError`/POSIX errors from opening or reading the file.
  public static func hash(fileAt url: URL) throws -> Digest {
    let handle = try FileHandle(forReadingFrom: url)
    defer { try? handle.close() }
    var h = SHA256()
    while true {
      guard let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty else { break }
      h.update(chunk)
    }
    return h.finalize()
  }

  /// The digest of an opened file's first `size` bytes (its size at
  /// open), read in 1 MiB chunks with `pread`.
  ///
  /// - Throws: `MediaIOError` with function `read` when a read fails or
  ///   the file shrank meanwhile.
  public static func hash(file: ReadableFile) throws(MediaIOError) -> Digest {
    var h = SHA256()
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var offset: Int64 = 0
    while offset < file.size {
      let n = buffer.withUnsafeMutableBytes { file.read(at: offset, into: $0) }
      if n < 0 { throw MediaIOError(code: 0, function: "read", context: file.name, reason: String(cString: strerror(errno))) }
      if n == 0 { throw MediaIOError(code: 0, function: "read", context: file.name, reason: "the file shrank while it was read") }
      buffer.withUnsafeBytes { h.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
      offset += Int64(n)
    }
    return h.finalize()
  }

  // MARK: - Compression function

  private static let k: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
  ]

  @inline(__always)
  private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 &- n)) }

  /// Processes one 64-byte block at `block`.
  private mutating func compress(_ block: UnsafeRawPointer) {
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
      for i in 0..<16 {
        let p = block + i * 4
        w[i] = UInt32(p.load(fromByteOffset: 0, as: UInt8.self)) << 24
          | UInt32(p.load(fromByteOffset: 1, as: UInt8.self)) << 16
          | UInt32(p.load(fromByteOffset: 2, as: UInt8.self)) << 8
          | UInt32(p.load(fromByteOffset: 3, as: UInt8.self))
      }
      for i in 16..<64 {
        let s0 = Self.rotr(w[i - 15], 7) ^ Self.rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
        let s1 = Self.rotr(w[i - 2], 17) ^ Self.rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
        w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
      }
      var (a, b, c, d, e, f, g, h) = state
      Self.k.withUnsafeBufferPointer { k in
        for i in 0..<64 {
          let s1 = Self.rotr(e, 6) ^ Self.rotr(e, 11) ^ Self.rotr(e, 25)
          let ch = (e & f) ^ (~e & g)
          let t1 = h &+ s1 &+ ch &+ k[i] &+ w[i]
          let s0 = Self.rotr(a, 2) ^ Self.rotr(a, 13) ^ Self.rotr(a, 22)
          let maj = (a & b) ^ (a & c) ^ (b & c)
          let t2 = s0 &+ maj
          h = g
          g = f
          f = e
          e = d &+ t1
          d = c
          c = b
          b = a
          a = t1 &+ t2
        }
      }
      state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
               state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
    }
  }
}
