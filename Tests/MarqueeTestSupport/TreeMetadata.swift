import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Every entry under a folder as `lstat(2)` describes it (no link
/// followed): type, size, link count, inode and modification and change
/// times in nanoseconds. Two snapshots are equal when nothing was created,
/// removed, written, touched, renamed or linked in between: what a command
/// that writes nothing must leave.
public enum TreeMetadata {
  public struct Entry: Sendable, Equatable, CustomStringConvertible {
    public var type: UInt32
    public var size: Int64
    public var links: UInt64
    public var inode: UInt64
    public var modified: Int64
    public var changed: Int64

    public var description: String {
      "type \(String(type, radix: 8)) size \(size) links \(links) inode \(inode) mtime \(modified) ctime \(changed)"
    }
  }

  /// The folder itself (`.`) and everything under it, by relative path;
  /// empty when the folder does not exist.
  public static func of(_ folder: URL) -> [String: Entry] {
    var result: [String: Entry] = [:]
    func visit(_ path: String, _ relative: String) {
      var st = stat()
      guard lstat(path, &st) == 0 else { return }
      result[relative] = Entry(
        type: UInt32(st.st_mode) & UInt32(S_IFMT), size: Int64(st.st_size), links: UInt64(st.st_nlink),
        inode: UInt64(st.st_ino), modified: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
        changed: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec))
      guard UInt32(st.st_mode) & UInt32(S_IFMT) == UInt32(S_IFDIR) else { return }
      for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
        visit(path + "/" + name, relative == "." ? name : relative + "/" + name)
      }
    }
    visit(folder.path, ".")
    return result
  }

  /// What differs between two snapshots, one line per path.
  public static func differences(_ a: [String: Entry], _ b: [String: Entry]) -> [String] {
    Set(a.keys).union(b.keys).sorted().compactMap { path in
      switch (a[path], b[path]) {
      case (nil, _?): return "\(path): created"
      case (_?, nil): return "\(path): removed"
      case (let x?, let y?) where x != y: return "\(path): \(x) → \(y)"
      default: return nil
      }
    }
  }
}
