import Foundation

internal import CFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file-system calls the store and the publisher make, each turning
/// errno into a `MarqueeError` that says whether the output side failed (disk
/// full, file too large, read-only, no permission).
enum FileSystem {

  static func errnoText(_ code: Int32) -> String { String(cString: strerror(code)) }

  static func failure(_ what: String, _ path: String, _ code: Int32 = errno) -> MarqueeError {
    MarqueeError.store("\(what) \(path): \(errnoText(code))",
               isIO: MediaIOError.outputErrnos.contains(code))
  }

  /// `mkdir -p`.
  static func makeDirectory(_ url: URL) throws(MarqueeError) {
    do { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) } catch {
      throw MarqueeError.store("cannot create \(url.path): \(describe(error))", isIO: true)
    }
  }

  /// `rename(2)`: atomic within one file system.
  static func rename(_ from: URL, to: URL) throws(MarqueeError) {
    if Glibc.rename(from.path, to.path) != 0 { throw failure("cannot rename \(from.path) to", to.path) }
  }

  /// Whether `rename(2)` failed because the target is a non-empty folder.
  static func renameOrExists(_ from: URL, to: URL) throws(MarqueeError) -> Bool {
    if Glibc.rename(from.path, to.path) == 0 { return true }
    let code = errno
    if code == ENOTEMPTY || code == EEXIST { return false }
    throw failure("cannot rename \(from.path) to", to.path, code)
  }

  /// Atomically swaps two folders (`renameat2(RENAME_EXCHANGE)`), `false`
  /// where the kernel or file system does not support it.
  static func exchange(_ a: URL, _ b: URL) throws(MarqueeError) -> Bool {
    if marquee_rename_exchange(a.path, b.path) == 0 { return true }
    let code = errno
    if code == EINVAL || code == ENOSYS || code == ENOTSUP { return false }
    throw failure("cannot swap \(a.path) with", b.path, code)
  }

  /// Hard-links `from` to `to` (same file system), copying where links are
  /// not possible.
  static func linkOrCopy(_ from: URL, to: URL) throws(MarqueeError) {
    if Glibc.link(from.path, to.path) == 0 { return }
    let code = errno
    guard code == EXDEV || code == EPERM || code == EMLINK || code == ENOTSUP || code == EOPNOTSUPP else {
      throw failure("cannot link \(from.path) to", to.path, code)
    }
    do { try FileManager.default.copyItem(at: from, to: to) } catch {
      throw MarqueeError.store("cannot copy \(from.path) to \(to.path): \(describe(error))", isIO: true)
    }
  }

  /// Writes `data` to a temporary name beside `url` and renames it in.
  static func writeAtomically(_ data: Data, to url: URL) throws(MarqueeError) {
    do { try data.write(to: url, options: .atomic) } catch {
      throw MarqueeError.store("cannot write \(url.path): \(describe(error))", isIO: true)
    }
  }

  /// Writes `data` as the new file `url`, which appears whole or not at all
  /// and never replaces anything: the bytes go to a temporary file beside
  /// it (`O_CREAT | O_EXCL`, mode 0644 less the umask, flushed with
  /// `fsync`), which is hard-linked to `url` (`link(2)` fails when any
  /// entry, a dangling symbolic link included, has that name) and removed.
  /// Where the file system has no hard links, `url` itself is created with
  /// `O_CREAT | O_EXCL` and written (still never replacing a file).
  ///
  /// - Returns: `false` when `url` already exists (nothing is written).
  /// - Throws: `MarqueeError` with code `.writeFailed` (an output I/O
  ///   error) when the file cannot be written; nothing is left behind.
  static func createNewFile(_ data: Data, at url: URL) throws(MarqueeError) -> Bool {
    let folder = url.deletingLastPathComponent()
    let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).\(UUID().uuidString.prefix(8)).tmp")
    try writeExclusively(data, to: temporary, shownAs: url.relativePath)
    defer { _ = unlink(temporary.path) }
    if Glibc.link(temporary.path, url.path) == 0 { return true }
    let code = errno
    if code == EEXIST { return false }
    guard code == EPERM || code == ENOTSUP || code == EOPNOTSUPP || code == EMLINK || code == EXDEV else {
      throw writeFailure("cannot create", url.relativePath, code)
    }
    do { try writeExclusively(data, to: url, shownAs: url.relativePath) } catch {
      if identity(url) != nil { return false }
      throw error
    }
    return true
  }

  /// Creates `url` (`O_EXCL`: never an existing entry) and writes `data`
  /// to it, flushed; removes it again when a write fails. Errors name the
  /// file as `shownAs` (the final name, not a temporary one).
  private static func writeExclusively(_ data: Data, to url: URL, shownAs: String) throws(MarqueeError) {
    let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
    guard fd >= 0 else { throw writeFailure("cannot create", shownAs, errno) }
    var failed: Int32 = 0
    data.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count, let base = raw.baseAddress {
        let n = write(fd, base + offset, raw.count - offset)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { failed = n < 0 ? errno : EIO; return }
        offset += n
      }
    }
    if failed == 0 && fsync(fd) != 0 { failed = errno }
    if close(fd) != 0 && failed == 0 { failed = errno }
    if failed != 0 {
      _ = unlink(url.path)
      throw writeFailure("cannot write", shownAs, failed)
    }
  }

  /// A write that failed, whatever the errno: the output side's fault
  /// (`.writeFailed`), naming the path and the reason.
  private static func writeFailure(_ what: String, _ path: String, _ code: Int32) -> MarqueeError {
    MarqueeError.store("\(what) \(path): \(errnoText(code))", isIO: true)
  }

  /// Removes a file or folder tree; missing is fine.
  static func remove(_ url: URL) {
    try? FileManager.default.removeItem(at: url)
  }

  /// Entry names in a folder, or `[]`.
  static func list(_ url: URL) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
  }

  /// What `lstat(2)` says about a path.
  struct Identity: Sendable, Equatable {
    var device: Int64
    var inode: Int64
    var size: Int64
    var modified: Int64
    var changed: Int64
    var links: Int64
    /// `st_mode & S_IFMT`.
    var type: Int32 = 0

    var isRegularFile: Bool { type == marquee_type_regular() }
    var isDirectory: Bool { type == marquee_type_directory() }
    var isSymbolicLink: Bool { type == marquee_type_link() }
  }

  private static func identity(_ values: [CLongLong]) -> Identity {
    Identity(device: values[0], inode: values[1], size: values[2], modified: values[3], changed: values[4],
             links: values[5], type: Int32(values[6]))
  }

  /// `lstat(2)` of a path Marquee owns: a symbolic link at the end is
  /// described as a link, never followed.
  static func identity(_ url: URL) -> Identity? {
    var values = [CLongLong](repeating: 0, count: 8)
    guard marquee_lstat_identity(url.path, &values) == 0 else { return nil }
    return identity(values)
  }

  // MARK: - Marquee's own state: no links followed

  /// `lstat` of `relative` under `root` with no symbolic link followed on
  /// the way (`marquee_lstat_beneath`); `nil` when it is missing, leaves
  /// `root`, or a folder on the way is a link.
  static func ownedIdentity(root: URL, _ relative: String) -> Identity? {
    var values = [CLongLong](repeating: 0, count: 8)
    guard marquee_lstat_beneath(root.path, relative, &values) == 0 else { return nil }
    return identity(values)
  }

  /// The entry names of the folder `relative` under `root` (`""`: `root`
  /// itself), sorted, reached with no symbolic link followed on the way or
  /// at the folder itself (`marquee_open_beneath`); `nil` when it is
  /// missing, a link, passes through one, or is not a folder. Reads only.
  static func ownedEntries(root: URL, _ relative: String) -> [String]? {
    let fd = relative.isEmpty
      ? marquee_open_directory(root.path)
      : marquee_open_beneath(root.path, relative, O_RDONLY | O_DIRECTORY, 0, 0)
    guard fd >= 0 else { return nil }
    guard let folder = fdopendir(fd) else {
      close(fd)
      return nil
    }
    defer { closedir(folder) }
    var names: [String] = []
    while let entry = readdir(folder) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
  }

  /// Every entry under the folder `relative` of `root` (`""`: `root`
  /// itself), by path relative to that folder, with what `lstat` says of
  /// it: folders are entered only when they are real folders, so no
  /// symbolic link is followed; `nil` when the folder itself cannot be
  /// listed (`ownedEntries`). Reads only.
  static func ownedTree(root: URL, _ relative: String) -> [String: Identity]? {
    guard let top = ownedEntries(root: root, relative) else { return nil }
    var result: [String: Identity] = [:]
    var pending = top.map { (path: $0, depth: 1) }
    while let next = pending.popLast() {
      let full = relative.isEmpty ? next.path : relative + "/" + next.path
      guard let id = ownedIdentity(root: root, full) else { continue }
      result[next.path] = id
      // Bundles are a few folders deep; a deeper tree is not Marquee's.
      if id.isDirectory && next.depth < 16 {
        for name in ownedEntries(root: root, full) ?? [] { pending.append((next.path + "/" + name, next.depth + 1)) }
      }
    }
    return result
  }

  /// The bytes of a regular file `relative` under `root`, reached without
  /// following a symbolic link (`ReadableFile.open(_:beneath:)`), at most
  /// `limit` bytes.
  ///
  /// - Throws: `MediaIOError` when it is missing, a link, not a regular
  ///   file, larger than `limit` or unreadable.
  static func readOwnedFile(root: URL, _ relative: String, limit: Int64) throws(MediaIOError) -> Data {
    try ReadableFile.open(relative, beneath: root.path).readAll(limit: limit)
  }

  /// Creates (where missing) and checks the folders Marquee keeps its state
  /// in, each given relative to `root` (`.marquee/store/objects`, …): every
  /// component is created with `mkdirat` and opened with `O_DIRECTORY |
  /// O_NOFOLLOW` under the one before, so a symbolic link or a file planted
  /// at any of them is refused instead of being written through. `root`
  /// itself (the output root the user chose) may be a link.
  ///
  /// - Throws: `MarqueeError` (an output I/O error) naming the path.
  static func prepareOwnedFolders(root: URL, _ relatives: [String]) throws(MarqueeError) {
    try makeDirectory(root)
    for relative in relatives {
      var path = ""
      var parent = marquee_open_directory(root.path)
      guard parent >= 0 else { throw failure("cannot open the output root", root.path) }
      defer { close(parent) }
      for component in relative.split(separator: "/").map(String.init) {
        path = path.isEmpty ? component : path + "/" + component
        let fd = marquee_open_directory_at(parent, component, 1)
        guard fd >= 0 else {
          let code = errno
          let full = root.appendingPathComponent(path).path
          if code == ELOOP || code == ENOTDIR {
            throw MarqueeError.store(notAnOwnedFolder(full), isIO: true)
          }
          throw failure("cannot create", full, code)
        }
        close(parent)
        parent = fd
      }
    }
  }

  /// Why a path Marquee keeps its state in cannot be used.
  private static func notAnOwnedFolder(_ path: String) -> String {
    "\(path) is a symbolic link or not a folder: Marquee keeps its state in real folders and follows no link there (remove it)"
  }

  /// What `prepareOwnedFolders` would refuse among `relatives` under
  /// `root`, found without creating or opening anything for writing: the
  /// first component that exists and is a symbolic link or not a folder
  /// (a missing one is fine: a build creates it), in the words of
  /// `prepareOwnedFolders`; `nil` when there is none.
  static func ownedFolderProblem(root: URL, _ relatives: [String]) -> String? {
    for relative in relatives {
      var path = ""
      for component in relative.split(separator: "/").map(String.init) {
        path = path.isEmpty ? component : path + "/" + component
        guard let id = ownedIdentity(root: root, path) else { break }
        if !id.isDirectory {
          return notAnOwnedFolder(root.appendingPathComponent(path).path)
        }
      }
    }
    return nil
  }

  /// Opens (creating it if missing) the regular file `relative` under
  /// `root` for reading and writing, following no symbolic link on the way
  /// or at the end, and refuses anything but a regular file with a single
  /// link: a FIFO would block, and a hard link to another file would make
  /// a write here change that file.
  ///
  /// - Returns: the descriptor (`O_RDWR | O_CLOEXEC`).
  /// - Throws: `MarqueeError` (an output I/O error) naming the path.
  static func openOwnedFileForWriting(root: URL, _ relative: String) throws(MarqueeError) -> Int32 {
    let full = root.appendingPathComponent(relative).path
    let fd = marquee_open_beneath(root.path, relative, O_RDWR | O_CREAT | marquee_flag_nonblock(), 0o644, 1)
    guard fd >= 0 else {
      let code = errno
      if code == ELOOP || code == ENOTDIR {
        throw MarqueeError.store("\(full) is a symbolic link or passes through one: Marquee follows no link in its own state (remove it)",
                         isIO: true)
      }
      throw failure("cannot open", full, code)
    }
    var values = [CLongLong](repeating: 0, count: 8)
    guard marquee_fstat_identity(fd, &values) == 0 else {
      let code = errno
      close(fd)
      throw failure("cannot stat", full, code)
    }
    let id = identity(values)
    guard id.isRegularFile, id.links == 1 else {
      close(fd)
      let what = id.isRegularFile ? "has \(id.links) hard links" : "is not a regular file"
      throw MarqueeError.store("\(full) \(what): Marquee writes only its own files (remove it)", isIO: true)
    }
    let flags = fcntl(fd, F_GETFL)
    if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~marquee_flag_nonblock()) }
    return fd
  }

  /// Every regular file under `folder`, as sorted relative paths with sizes.
  static func files(under folder: URL) throws(MarqueeError) -> [StoredItem.File] {
    guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey]) else {
      throw MarqueeError.store("cannot list \(folder.path)", isIO: true)
    }
    let base = folder.standardizedFileURL.path
    var result: [StoredItem.File] = []
    for case let url as URL in walker {
      let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey])
      guard values?.isRegularFile == true else { continue }
      let full = url.standardizedFileURL.path
      guard full.hasPrefix(base + "/") else { continue }
      let id = identity(url)
      result.append(StoredItem.File(path: String(full.dropFirst(base.count + 1)), size: id?.size ?? Int64(values?.fileSize ?? 0),
                                    modified: id?.modified))
    }
    return result.sorted { $0.path < $1.path }
  }

  /// The most specific text for a Foundation file error (the POSIX cause).
  static func describe(_ error: Error) -> String {
    let ns = error as NSError
    if let code = posixCode(error) { return errnoText(code) }
    return ns.localizedDescription
  }

  /// The POSIX errno behind a Foundation error, if it carries one.
  static func posixCode(_ error: Error) -> Int32? {
    let ns = error as NSError
    if ns.domain == NSPOSIXErrorDomain { return Int32(ns.code) }
    if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError { return posixCode(underlying) }
    if ns.domain == NSCocoaErrorDomain {
      switch ns.code {
      case CocoaError.fileWriteOutOfSpace.rawValue: return ENOSPC
      case CocoaError.fileWriteVolumeReadOnly.rawValue: return EROFS
      case CocoaError.fileWriteNoPermission.rawValue: return EACCES
      default: return nil
      }
    }
    return nil
  }
}
