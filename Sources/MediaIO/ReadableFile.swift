internal import CFileSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A local file opened for reading and checked on its open descriptor: the
/// one way Marquee reads a source, a job file or a bundle file.
///
/// The checks are made with `fstat(2)` on the descriptor that is then read,
/// never on the path before opening, so what was checked is what is read
/// even if the path is swapped meanwhile:
///
/// - the open never blocks: `O_NONBLOCK` makes opening a FIFO return at
///   once (without it `open(2)` waits for a writer for ever);
/// - only a regular file is accepted: a FIFO, a socket, a device
///   (`/dev/zero`, `/dev/urandom`) or a folder is refused before a byte is
///   read, so nothing reads an endless stream;
/// - `size` is the size `fstat` gave, and reads never go past it, so a file
///   that grows while it is read cannot exceed a size limit checked on it.
///
/// Immutable after opening; `pread(2)` keeps no shared offset, so one
/// instance may be read from several threads. The descriptor is closed in
/// `deinit`.
public final class ReadableFile: Sendable {
  /// The open descriptor (`O_RDONLY | O_CLOEXEC`).
  let descriptor: Int32
  /// The last path component, for messages.
  public let name: String
  /// What `fstat(2)` said when the file was opened.
  public let identity: Identity

  /// Size in bytes, from `fstat(2)` at open.
  public var size: Int64 { identity.size }

  /// What `fstat(2)` says about a file.
  public struct Identity: Sendable, Equatable {
    /// `st_dev`, `st_ino`.
    public var device: Int64
    public var inode: Int64
    /// `st_size`, bytes.
    public var size: Int64
    /// `st_mtim` and `st_ctim` in nanoseconds since 1970.
    public var modified: Int64
    public var changed: Int64
    /// `st_nlink`.
    public var links: Int64
    /// `st_uid`.
    public var owner: Int64
  }

  private init(descriptor: Int32, name: String, identity: Identity) {
    self.descriptor = descriptor
    self.name = name
    self.identity = identity
  }

  deinit { close(descriptor) }

  // MARK: - Opening

  /// Opens `path`, following a symbolic link to what it names (a source
  /// or job file may be a link: a content team's media folder, a
  /// Kubernetes ConfigMap mount).
  ///
  /// - Parameter followLinks: `false` refuses a link at the last component
  ///   (`O_NOFOLLOW`).
  /// - Throws: `MediaIOError` with function `open` (missing, no permission,
  ///   a link when `followLinks` is false) or `stat` ("not a regular file
  ///   (a FIFO)" and the like).
  public static func open(path: String, followLinks: Bool = true) throws(MediaIOError) -> ReadableFile {
    let name = (path as NSString).lastPathComponent
    let fd = marquee_open_for_reading(path, followLinks ? 0 : 1)
    guard fd >= 0 else { throw openFailure(errno, name: name) }
    return try checked(fd, name: name)
  }

  /// Opens `relative` inside the folder `root` without following any
  /// symbolic link inside `relative` (`marquee_open_beneath`: each folder
  /// on the way and the file itself opened with `O_NOFOLLOW`); empty, `.`
  /// and `..` components are refused, so the file is always inside `root`.
  /// For files Marquee wrote itself (a bundle, the store), where a link can
  /// only have been planted.
  ///
  /// - Throws: `MediaIOError` with function `open` ("is a symbolic link or
  ///   passes through one", "leaves the folder") or `stat`.
  public static func open(_ relative: String, beneath root: String) throws(MediaIOError) -> ReadableFile {
    let name = (relative as NSString).lastPathComponent
    let flags = O_RDONLY | marquee_flag_nonblock() | O_NOCTTY
    let fd = marquee_open_beneath(root, relative, flags, 0, 0)
    guard fd >= 0 else {
      let code = errno
      if code == EINVAL { throw .failure("open", relative, "the path leaves the folder (empty, '.' or '..' component)", kind: .input(errno: EINVAL)) }
      throw openFailure(code, name: relative)
    }
    return try checked(fd, name: name)
  }

  /// The reason for a failed `open(2)`, in the words the stages use.
  static func openFailure(_ code: Int32, name: String) -> MediaIOError {
    switch code {
    case ENOENT: return .failure("open", name, "file not found", kind: .input(errno: code))
    case EACCES, EPERM: return .failure("open", name, "file cannot be read (permissions)", kind: .input(errno: code))
    case ELOOP, ENOTDIR:
      return .failure("open", name, "is a symbolic link or passes through one (not followed here)", kind: .input(errno: code))
    case EISDIR: return .failure("open", name, "is a folder, not a media file", kind: .input(errno: code))
    default: return .failure("open", name, String(cString: strerror(code)), kind: .input(errno: code))
    }
  }

  private static func checked(_ fd: Int32, name: String) throws(MediaIOError) -> ReadableFile {
    var values = [CLongLong](repeating: 0, count: 8)
    guard marquee_fstat_identity(fd, &values) == 0 else {
      let code = errno
      close(fd)
      throw .failure("stat", name, String(cString: strerror(code)), kind: .input(errno: code))
    }
    let type = Int32(values[6])
    guard type == marquee_type_regular() else {
      close(fd)
      if type == marquee_type_directory() { throw .failure("stat", name, "is a folder, not a media file", kind: .input(errno: EISDIR)) }
      throw .failure("stat", name, "not a regular file (\(describeType(type)))", kind: .input(errno: 0))
    }
    // Reads of a regular file never block; clear the flag all the same.
    let flags = fcntl(fd, F_GETFL)
    if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~marquee_flag_nonblock()) }
    let identity = Identity(device: values[0], inode: values[1], size: values[2], modified: values[3],
                            changed: values[4], links: values[5], owner: values[7])
    return ReadableFile(descriptor: fd, name: name, identity: identity)
  }

  /// Whether the open file's bytes may have changed since it was opened:
  /// `fstat(2)` now gives another size or `st_mtim` than `identity`. A file
  /// renamed over its path is not a change of this one (that moves only its
  /// `st_ctim` and link count), since reads go through this descriptor.
  /// - Returns: the size now when it was written to, else nil.
  /// - Throws: `MediaIOError` (`stat`) when `fstat` fails.
  public func sizeIfWrittenSinceOpened() throws(MediaIOError) -> Int64? {
    let now = try currentIdentity()
    return now.size == identity.size && now.modified == identity.modified ? nil : now.size
  }

  /// What `fstat(2)` says about the open file now.
  /// - Throws: `MediaIOError` (`stat`) when `fstat` fails.
  func currentIdentity() throws(MediaIOError) -> Identity {
    var values = [CLongLong](repeating: 0, count: 8)
    guard marquee_fstat_identity(descriptor, &values) == 0 else {
      throw .failure("stat", name, String(cString: strerror(errno)), kind: .input(errno: errno))
    }
    return Identity(device: values[0], inode: values[1], size: values[2], modified: values[3],
                    changed: values[4], links: values[5], owner: values[7])
  }

  /// `a FIFO`, `a character device`, … from `st_mode & S_IFMT`.
  static func describeType(_ type: Int32) -> String {
    switch type {
    case 0o010000: return "a FIFO"
    case 0o020000: return "a character device"
    case 0o040000: return "a folder"
    case 0o060000: return "a block device"
    case 0o120000: return "a symbolic link"
    case 0o140000: return "a socket"
    default: return "file type \(String(type, radix: 8))"
    }
  }

  // MARK: - Reading

  /// Reads up to `buffer.count` bytes at `offset` (`pread(2)`, retrying
  /// EINTR), never past `size`.
  ///
  /// - Returns: bytes read (0 at the end), or -1 with errno set.
  public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    guard offset >= 0, offset < size, let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
    let wanted = Int(min(Int64(buffer.count), size - offset))
    while true {
      let n = pread(descriptor, base, wanted, off_t(offset))
      if n < 0 && errno == EINTR { continue }
      return n
    }
  }

  /// The whole file (its first `size` bytes) in memory.
  ///
  /// - Parameter limit: refuse a file larger than this many bytes.
  /// - Throws: `MediaIOError` with function `limit` when `size > limit`,
  ///   `read` when reading fails or the file shrank.
  public func readAll(limit: Int64 = .max) throws(MediaIOError) -> Data {
    guard size <= limit else {
      throw .limit(name, "file is \(size) bytes, over the limit of \(limit) bytes")
    }
    var data = Data(count: Int(size))
    var done = 0
    let failure: Int32? = data.withUnsafeMutableBytes { raw -> Int32? in
      while done < raw.count {
        let n = read(at: Int64(done), into: UnsafeMutableRawBufferPointer(rebasing: raw[done...]))
        if n < 0 { return errno }
        if n == 0 { return 0 }
        done += n
      }
      return nil
    }
    if let failure {
      throw .failure("read", name, failure == 0 ? "the file shrank while it was read" : String(cString: strerror(failure)), kind: .input(errno: failure))
    }
    return data
  }
}
