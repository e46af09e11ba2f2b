import Foundation

internal import CFileSystem

/// The content-addressed store inside an output root:
///
/// ```
/// <out>/.marquee/store/
///   objects/<fingerprint>/item.json     the record (written last)
///   objects/<fingerprint>/files/…       the item's outputs
///   tmp/<host>~<pid>~<random>/          items being built, named by their owner
///   sources/<key>                       cached source digests
///   claims/<fingerprint>.lock           who encodes an item (`ItemClaim`)
/// ```
///
/// An object appears by renaming a finished temporary folder into
/// `objects/`, so it is complete or absent, whatever kills a run. Objects
/// are shared by every job and shard writing into the same output root;
/// bundles hard-link their files, so an object whose files have one link
/// left is used by no published bundle.
struct AssetStore: Sendable {
  /// `<out>/.marquee/store`.
  let root: URL
  /// `<out>`: files of the store are reached from it without following
  /// links (`FileSystem.ownedIdentity`, `readOwnedFile`).
  let outputRoot: URL

  init(outputRoot: URL) {
    self.outputRoot = outputRoot
    root = outputRoot.appendingPathComponent(".marquee/store", isDirectory: true)
  }

  var objects: URL { root.appendingPathComponent("objects", isDirectory: true) }
  var temporary: URL { root.appendingPathComponent("tmp", isDirectory: true) }
  var sourceDigests: URL { root.appendingPathComponent("sources", isDirectory: true) }

  var claims: URL { root.appendingPathComponent("claims", isDirectory: true) }

  /// `claims` relative to the output root.
  static let claimsFolder = ".marquee/store/claims"
  /// The store's folders relative to the output root.
  static let folders = [".marquee/store/objects", ".marquee/store/tmp", ".marquee/store/sources", claimsFolder]

  /// Creates the store's folders, refusing a symbolic link or a file at
  /// any of them (`FileSystem.prepareOwnedFolders`).
  func prepare() throws(MarqueeError) {
    try FileSystem.prepareOwnedFolders(root: outputRoot, Self.folders)
  }

  func object(_ hash: String) -> URL { objects.appendingPathComponent(hash, isDirectory: true) }
  func files(_ hash: String) -> URL { object(hash).appendingPathComponent("files", isDirectory: true) }

  // MARK: - Lookup

  /// The record of a complete object, or `nil` when there is none (or it is
  /// unreadable, or of another record format).
  func record(_ hash: String) -> StoredItem? {
    guard hash.count == 64, hash.allSatisfy({ $0.isHexDigit }),
          let data = try? FileSystem.readOwnedFile(root: outputRoot, ".marquee/store/objects/\(hash)/\(StoredItem.recordName)", limit: 16 << 20),
          let record = try? JSONDecoder().decode(StoredItem.self, from: data),
          record.format == StoredItem.recordFormat, record.hash == hash
    else { return nil }
    return record
  }

  /// What the store holds for a fingerprint, as a build judges it before
  /// reusing it; reads only (a build then discards a damaged object and
  /// touches a reused one, a check leaves both as they are).
  enum Lookup: Sendable {
    /// No complete object of that fingerprint (or an unreadable record).
    case absent
    /// An object whose files changed since it was stored (`isIntact`).
    case damaged(StoredItem)
    /// An object with every file as it was stored.
    case intact(StoredItem)
  }

  /// The object of `hash` and whether its files are intact.
  func lookup(_ hash: String) -> Lookup {
    guard let record = record(hash) else { return .absent }
    return isIntact(record) ? .intact(record) : .damaged(record)
  }

  /// The fingerprints of the stored objects whose names start with
  /// `prefix` (an item folder's 16 hex digits), read without following a
  /// link; `[]` when there is no store.
  func hashes(withPrefix prefix: String) -> [String] {
    guard !prefix.isEmpty, prefix.allSatisfy({ $0.isHexDigit }) else { return [] }
    return (FileSystem.ownedEntries(root: outputRoot, ".marquee/store/objects") ?? [])
      .filter { $0.count == 64 && $0.hasPrefix(prefix) && $0.allSatisfy({ $0.isHexDigit }) }
  }

  /// Whether every file of the record is still there with its recorded size
  /// and modification time (bundles hard-link store files, so a bundle file
  /// edited in place would edit the store's too).
  /// Every file must be a regular file reached without a symbolic link
  /// (`FileSystem.ownedIdentity`): a planted link would be hard-linked
  /// into the bundle and published.
  func isIntact(_ record: StoredItem) -> Bool {
    record.files.allSatisfy { file in
      guard let id = FileSystem.ownedIdentity(root: outputRoot, ".marquee/store/objects/\(record.hash)/files/\(file.path)"),
            id.isRegularFile else { return false }
      return id.size == file.size && (file.modified == nil || file.modified == id.modified)
    }
  }

  /// Marks an object as used now (the age that pruning goes by).
  func touch(_ hash: String) {
    let url = object(hash).appendingPathComponent(StoredItem.recordName)
    try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: url.path)
  }

  /// Removes a damaged object so the next build makes it again.
  func discard(_ hash: String) {
    let doomed = temporary.appendingPathComponent("discard-\(UUID().uuidString)")
    if (try? FileSystem.rename(object(hash), to: doomed)) != nil { FileSystem.remove(doomed) }
  }

  // MARK: - Adding objects

  /// A fresh temporary folder for one item, named after this process
  /// (`<host>~<pid>~<random>`), so a later run can tell a dead run's
  /// leftovers from a live one's whatever moment the run was killed at.
  func makeScratch() throws(MarqueeError) -> URL {
    let owner = ProcessOwner.current
    let name = "\(owner.host)~\(owner.pid)~\(UUID().uuidString.lowercased())"
    let scratch = temporary.appendingPathComponent(name, isDirectory: true)
    try FileSystem.makeDirectory(scratch)
    return scratch
  }

  /// Moves `scratch/<produced>` to be the object's `files/`, writes the
  /// record and renames the object into place.
  ///
  /// - Parameter replacing: replace an object of the same fingerprint
  ///   (`--rebuild`); bundles linking its files keep their own links.
  /// - Returns: the stored record (another process's identical one when it
  ///   got there first).
  func commit(scratch: URL, produced: URL, record: StoredItem, replacing: Bool = false) throws(MarqueeError) -> StoredItem {
    let finalFiles = scratch.appendingPathComponent("files", isDirectory: true)
    try FileSystem.rename(produced, to: finalFiles)
    let data: Data
    do {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      data = try encoder.encode(record)
    } catch {
      throw MarqueeError.store("cannot encode the record of \(record.hash.prefix(16)): \(error)")
    }
    try FileSystem.writeAtomically(data, to: scratch.appendingPathComponent(StoredItem.recordName))
    for leftover in FileSystem.list(scratch) where leftover != "files" && leftover != StoredItem.recordName {
      FileSystem.remove(scratch.appendingPathComponent(leftover))
    }
    if try FileSystem.renameOrExists(scratch, to: object(record.hash)) { return record }
    if replacing {
      discard(record.hash)
      if try FileSystem.renameOrExists(scratch, to: object(record.hash)) { return record }
    }
    // Another run stored the same fingerprint first: same bytes, keep theirs.
    FileSystem.remove(scratch)
    return self.record(record.hash) ?? record
  }

  // MARK: - Source digests

  /// SHA-256 of a source file, from a cache keyed by its path and `fstat`
  /// identity (device, inode, size, modification and change times in ns),
  /// so an unchanged multi-gigabyte source is not read again. A file
  /// modified in the last two seconds is hashed but not cached, so an edit
  /// within the file system's timestamp granularity cannot hide.
  ///
  /// The source is opened once (`ReadableFile`: a regular file only, never
  /// blocking on a FIFO, a link followed) and its size checked against
  /// `maxFileSize` before a byte is hashed; the identity and the bytes come
  /// from that one descriptor.
  ///
  /// - Parameter updatingCache: `false` reads the cache but writes nothing
  ///   (no new entry, no touch): `build --check`, which writes nothing
  ///   under the output root.
  /// - Throws: `MarqueeError` (`.unreadableSource`, `.limitExceeded`; not
  ///   an I/O error of the output) whose text is the reason alone (`file not
  ///   found`, `not a regular file (a FIFO)`, the size limit) when the
  ///   source cannot be used, the `MediaIOError` its cause.
  func sourceDigest(_ url: URL, maxFileSize: Int64 = .max, updatingCache: Bool = true) throws(MarqueeError) -> String {
    let file: ReadableFile
    do {
      file = try ReadableFile.open(path: url.path)
      try InputLimits(maxFileSize: maxFileSize).check(file)
    } catch {
      throw MarqueeError.decoding(error, file: nil)
    }
    let id = file.identity
    let key = SHA256.hash("v1\0\(url.path)\0\(id.device)\0\(id.inode)\0\(id.size)\0\(id.modified)\0\(id.changed)").hex
    if let data = try? FileSystem.readOwnedFile(root: outputRoot, ".marquee/store/sources/\(key)", limit: 64),
       let cached = String(data: data, encoding: .utf8), cached.count == 64,
       cached.allSatisfy({ $0.isHexDigit }) {
      guard updatingCache else { return cached }
      try? FileManager.default.setAttributes([.modificationDate: Date()],
                                             ofItemAtPath: sourceDigests.appendingPathComponent(key).path)
      return cached
    }
    let digest: String
    do { digest = try SHA256.hash(file: file).hex } catch {
      throw MarqueeError(.unreadableSource, "cannot read: \(error.reason)", cause: error)
    }
    let age = Date().timeIntervalSince1970 - Double(id.modified) / 1e9
    if age > 2 && updatingCache { try? FileSystem.writeAtomically(Data(digest.utf8), to: sourceDigests.appendingPathComponent(key)) }
    return digest
  }

  // MARK: - Cleaning

  /// Removes temporary folders of runs that are gone: same host and a
  /// process id that no longer exists, or older than a day.
  ///
  /// - Returns: the names removed.
  @discardableResult
  func removeLeftovers(now: Date = Date()) -> [String] {
    var removed: [String] = []
    for name in FileSystem.list(temporary) {
      let folder = temporary.appendingPathComponent(name)
      let owner = ProcessOwner(folderName: name)
      let modified = FileSystem.identity(folder).map { Double($0.modified) / 1e9 } ?? 0
      let age = now.timeIntervalSince1970 - modified
      let dead = owner.map { $0.host == ProcessOwner.current.host && !$0.isAlive } ?? (age > 3600)
      if dead || age > 86_400 || name.hasPrefix("discard-") {
        FileSystem.remove(folder)
        removed.append(name)
      }
    }
    return removed
  }

  /// Removes objects that no published bundle links to (every file has one
  /// link) and that no run used for `maxAge` seconds.
  ///
  /// - Returns: how many objects were removed.
  @discardableResult
  func prune(maxAge: Double, now: Date = Date()) -> Int {
    var count = 0
    for name in FileSystem.list(objects) where name.count == 64 {
      guard let record = record(name) else { continue }
      let recordURL = object(name).appendingPathComponent(StoredItem.recordName)
      guard let recordID = FileSystem.identity(recordURL),
            now.timeIntervalSince1970 - Double(recordID.modified) / 1e9 > maxAge else { continue }
      let unused = record.files.allSatisfy {
        (FileSystem.ownedIdentity(root: outputRoot, ".marquee/store/objects/\(name)/files/\($0.path)")?.links ?? 1) <= 1
      }
      if unused {
        discard(name)
        count += 1
      }
    }
    // Claims of objects that are gone, not claimed for as long (a claim
    // is touched whenever it is taken).
    for name in FileSystem.list(claims) where name.hasSuffix(".lock") {
      let url = claims.appendingPathComponent(name)
      guard FileSystem.identity(object(String(name.dropLast(5)))) == nil,
            let id = FileSystem.identity(url), now.timeIntervalSince1970 - Double(id.modified) / 1e9 > maxAge else { continue }
      FileSystem.remove(url)
    }
    // Cached source digests of files not seen for as long.
    for name in FileSystem.list(sourceDigests) {
      let url = sourceDigests.appendingPathComponent(name)
      if let id = FileSystem.identity(url), now.timeIntervalSince1970 - Double(id.modified) / 1e9 > maxAge {
        FileSystem.remove(url)
      }
    }
    return count
  }
}

/// Which process owns a lock or a temporary folder.
struct ProcessOwner: Sendable, Equatable {
  var host: String
  var pid: Int32

  static let current = ProcessOwner(host: ProcessInfo.processInfo.hostName, pid: ProcessInfo.processInfo.processIdentifier)

  init(host: String, pid: Int32) {
    self.host = host
    self.pid = pid
  }

  /// Parses `<host>~<pid>~<anything>` (host names have no `~`).
  init?(folderName: String) {
    let parts = folderName.split(separator: "~", omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[0].isEmpty, let pid = Int32(parts[1]) else { return nil }
    host = String(parts[0])
    self.pid = pid
  }

  /// Whether the process still runs (only meaningful on this host): it
  /// exists (`kill(pid, 0)`) and is not a zombie, a process that has ended
  /// but that its parent has not reaped yet (state `Z`, or `X` while it
  /// goes, in `/proc/<pid>/stat`; where there is no `/proc`, existing is
  /// enough).
  var isAlive: Bool {
    guard marquee_process_exists(pid) != 0 else { return false }
    guard let state = Self.state(pid: pid) else { return true }
    return state != "Z" && state != "X"
  }

  /// The state letter of a process from `/proc/<pid>/stat` (`R`, `S`, `Z`,
  /// …), or `nil` when it cannot be read (no such process, no `/proc`).
  static func state(pid: Int32) -> Character? {
    guard pid > 0, let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/stat") else { return nil }
    defer { try? handle.close() }
    // A /proc file has no size: read until the end, not by its length.
    guard let data = try? handle.readToEnd() else { return nil }
    return state(procStat: String(decoding: data, as: UTF8.self))
  }

  /// The state letter in the text of a `/proc/<pid>/stat` file: the first
  /// field after the command name, which is in parentheses and may itself
  /// contain spaces and parentheses (so the last `)` ends it).
  static func state(procStat text: String) -> Character? {
    guard let close = text.lastIndex(of: ")") else { return nil }
    return text[text.index(after: close)...].first { $0 != " " }
  }
}
