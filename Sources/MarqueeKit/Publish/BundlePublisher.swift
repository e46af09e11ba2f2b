import Foundation

/// Where a bundle is staged and how it is switched into place.
///
/// Staging folders live in `<out>/.marquee/staging/<job>.<uuid>`, on the same
/// file system as the bundle, so publishing is a rename: an atomic swap with
/// the old bundle (`renameat2(2)` with `RENAME_EXCHANGE`), or a plain rename
/// when there is none. A reader sees the old bundle or the new one, never a
/// mix, and a run killed at any point leaves the previous bundle whole.
///
/// Only used while holding the bundle's `BundleLock`.
struct BundlePublisher: Sendable {
  let root: URL
  let bundle: URL
  let jobName: String

  var stagingFolder: URL { root.appendingPathComponent(".marquee/staging", isDirectory: true) }

  /// A fresh, not yet created staging folder for this bundle.
  func newStaging() -> URL {
    stagingFolder.appendingPathComponent("\(jobName).\(UUID().uuidString.lowercased())", isDirectory: true)
  }

  /// Why the bundle must not be replaced, or nil when it may be: nothing
  /// there, an empty folder, or a folder holding `banners.json`. A link, a
  /// file, or a user's folder that shares the job's name is never replaced.
  func replaceProblem() -> String? {
    let fm = FileManager.default
    if let id = FileSystem.identity(bundle), id.isSymbolicLink {
      return "\(bundle.path) is a symbolic link; not replacing it (a bundle is a real folder: remove the link, or choose another --out or job name)"
    }
    var isDirectory: ObjCBool = false
    guard fm.fileExists(atPath: bundle.path, isDirectory: &isDirectory) else { return nil }
    guard isDirectory.boolValue else {
      return "\(bundle.path) exists and is not a folder; not replacing it (choose another --out or job name)"
    }
    let entries = (try? fm.contentsOfDirectory(atPath: bundle.path)) ?? []
    if entries.isEmpty || entries.contains("banners.json") { return nil }
    return "\(bundle.path) exists and is not a Marquee bundle (no banners.json); not replacing it (move it away, or choose another --out or job name)"
  }

  /// Whether a published bundle is there (read under the lock).
  var hasBundle: Bool { FileManager.default.fileExists(atPath: bundle.appendingPathComponent("banners.json").path) }

  /// Puts the staged bundle in place. Where the kernel cannot swap, the old
  /// bundle is renamed aside and the new one renamed in (a moment with no
  /// bundle, never a mixed one).
  ///
  /// - Throws: `MarqueeError` when a rename fails or the bundle's path holds
  ///   something that is not a folder.
  func publish(staging: URL) throws(MarqueeError) {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: bundle.path, isDirectory: &isDirectory) else {
      try FileSystem.rename(staging, to: bundle)
      return
    }
    guard isDirectory.boolValue else {
      throw MarqueeError.store("\(bundle.path) exists and is not a folder; not replacing it")
    }
    if try FileSystem.exchange(staging, bundle) {
      CrashPoint.exchanged.hit()
      FileSystem.remove(staging)  // now the old bundle
      return
    }
    let old = staging.deletingLastPathComponent().appendingPathComponent(staging.lastPathComponent + ".old")
    try FileSystem.rename(bundle, to: old)
    try FileSystem.rename(staging, to: bundle)
    FileSystem.remove(old)
  }

  /// Removes this bundle's staging folders left by killed runs (none can
  /// belong to a live run while the lock is held) and returns their names.
  func removeStaleStaging() -> [String] {
    var removed: [String] = []
    for name in FileSystem.list(stagingFolder) where name.hasPrefix(jobName + ".") {
      FileSystem.remove(stagingFolder.appendingPathComponent(name))
      removed.append(name)
    }
    // Staging folders of Marquee versions that kept them beside the bundle.
    for name in FileSystem.list(root) where name.hasPrefix(".\(jobName).staging-") {
      FileSystem.remove(root.appendingPathComponent(name))
    }
    return removed
  }
}
