import Foundation

internal import CFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lists the entries of a media folder for `marquee init`: its own regular
/// files, in a fixed order, and every other entry with the reason it is
/// left out.
///
/// Each entry is described by `lstat(2)`, so a symbolic link is seen as a
/// link and never followed: a job lists only files that are in the folder.
/// Left out: hidden entries (a name starting with `.`: `.DS_Store`, editor
/// swap files), symbolic links, subfolders, anything that is not a regular
/// file (a FIFO, a socket, a device) and the files in `ignoring`.
public struct MediaFolderScanner: Sendable {
  /// A file's identity on its file system (`st_dev`, `st_ino`).
  public struct FileID: Hashable, Sendable {
    /// The device the file is on (`st_dev`).
    public var device: Int64
    /// The file's inode number on that device (`st_ino`).
    public var inode: Int64

    /// Creates an identity.
    public init(device: Int64, inode: Int64) {
      self.device = device
      self.inode = inode
    }

    /// The regular file standard output is redirected to
    /// (`marquee init media > media/job.json` creates it before init runs),
    /// or nil when standard output is not a regular file.
    public static var standardOutput: FileID? {
      var values = [CLongLong](repeating: 0, count: 8)
      guard marquee_fstat_identity(1, &values) == 0, Int32(values[6]) == marquee_type_regular() else { return nil }
      return FileID(device: values[0], inode: values[1])
    }
  }

  /// One entry of the folder.
  public enum Entry: Sendable, Equatable {
    /// A regular file to classify, by name.
    case file(name: String)
    /// An entry left out, by name, and why (a fragment starting lower-case,
    /// such as `is a symbolic link (not followed)`).
    case skipped(name: String, reason: String)

    /// The entry's name in the folder.
    public var name: String {
      switch self {
      case .file(let name), .skipped(let name, _): name
      }
    }
  }

  /// Files to leave out whatever they hold, with the reason to give.
  public var ignoring: [FileID: String]

  /// Creates a scanner that leaves out the files in `ignoring`.
  public init(ignoring: [FileID: String] = [:]) {
    self.ignoring = ignoring
  }

  /// The folder's entries, sorted by the bytes of their UTF-8 names (the
  /// same order on every machine and locale, as `LC_ALL=C ls` sorts).
  ///
  /// - Parameter folder: the media folder; a symbolic link to a folder is
  ///   followed (the user named it), the entries inside it are not.
  /// - Throws: `MarqueeError` with code `.usage` when the folder does not
  ///   exist, is not a folder or cannot be listed.
  public func entries(of folder: URL) throws(MarqueeError) -> [Entry] {
    let shown = folder.relativePath
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) else {
      throw MarqueeError(.usage, "\(shown): no such folder")
    }
    guard isDirectory.boolValue else { throw MarqueeError(.usage, "\(shown): not a folder (give the folder that holds the media)") }
    let names: [String]
    do { names = try FileManager.default.contentsOfDirectory(atPath: folder.path) } catch {
      throw MarqueeError(.usage, "\(shown): the folder cannot be listed: \(FileSystem.describe(error))")
    }
    return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { entry(named: $0, in: folder) }
  }

  /// What `lstat` says of one entry.
  private func entry(named name: String, in folder: URL) -> Entry {
    if name.hasPrefix(".") { return .skipped(name: name, reason: "is hidden (its name starts with '.')") }
    var values = [CLongLong](repeating: 0, count: 8)
    guard marquee_lstat_identity(folder.appendingPathComponent(name).path, &values) == 0 else {
      let code = errno
      // Foundation lists a name that is not UTF-8 with U+FFFD in place of
      // its bad bytes: a name no path built from it reaches (nor JSON holds).
      if name.unicodeScalars.contains("\u{FFFD}") {
        return .skipped(name: name, reason: "its name is not valid UTF-8, which a job file cannot hold (rename it)")
      }
      return .skipped(name: name, reason: "cannot be examined: \(FileSystem.errnoText(code))")
    }
    let type = Int32(values[6])
    if type == marquee_type_link() { return .skipped(name: name, reason: "is a symbolic link (not followed)") }
    if type == marquee_type_directory() { return .skipped(name: name, reason: "is a folder (subfolders are not listed)") }
    guard type == marquee_type_regular() else {
      return .skipped(name: name, reason: "not a regular file (\(Self.describeType(type)))")
    }
    if let reason = ignoring[FileID(device: values[0], inode: values[1])] { return .skipped(name: name, reason: reason) }
    return .file(name: name)
  }

  /// `a FIFO`, `a socket`, `a device`.
  private static func describeType(_ type: Int32) -> String {
    switch mode_t(type) {
    case S_IFIFO: "a FIFO"
    case S_IFSOCK: "a socket"
    case S_IFCHR, S_IFBLK: "a device"
    default: "type \(type)"
    }
  }
}
