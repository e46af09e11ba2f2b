import Foundation

internal import CFileSystem

/// Options of one build run.
public struct BuildOptions: Sendable {
  /// The output root; the bundle is `outputRoot/<job name>`. Nothing is
  /// written outside it.
  public var outputRoot: URL
  /// Items built at once (default: the number of cores).
  public var jobs: Int
  /// Publish the good items when some fail (default: keep the old bundle).
  public var allowPartial: Bool

  public init(outputRoot: URL, jobs: Int = ProcessInfo.processInfo.activeProcessorCount, allowPartial: Bool = false) {
    self.outputRoot = outputRoot
    self.jobs = max(1, jobs)
    self.allowPartial = allowPartial
  }
}

/// A bundle-level failure (the output root cannot be written, the switch
/// into place failed). Item failures are never thrown: they are outcomes.
public struct BundleError: Error, CustomStringConvertible, Sendable {
  public var reason: String
  public var description: String { reason }
}

/// Builds a job into a bundle: every item into a staging folder beside the
/// bundle, banners.json last from what the stages produced, then a switch
/// into place, so a reader sees the old bundle or the new one, never a mix.
///
/// Layout inside the bundle:
/// - `banners.json`
/// - `videos/<id>/master.m3u8`, `videos/<id>/<rendition>/index.m3u8` with
///   `init.mp4` and `segment_NNNNN.m4s`, `videos/<id>/video.mp4`,
///   `videos/<id>/cover.webp|jpg` and `cover.dark.webp|jpg`
/// - `images/<id>/w<width>.webp|jpg` and `w<width>.dark.webp|jpg`
/// - `nginx-dark-theme.conf`: serves `<name>.dark.<ext>` for `?theme=dark`.
public struct BundleBuilder: Sendable {
  public init() {}

  /// Builds `job`.
  ///
  /// - Throws: `BundleError` when the output root cannot be prepared or the
  ///   finished bundle cannot be put in place. Items that fail are reported
  ///   in the `BuildReport`, and the other items are still built.
  public func build(job: Job, options: BuildOptions) async throws(BundleError) -> BuildReport {
    let fm = FileManager.default
    let root = options.outputRoot.standardizedFileURL
    do { try fm.createDirectory(at: root, withIntermediateDirectories: true) } catch {
      throw BundleError(reason: "cannot create the output root \(root.path): \(error.localizedDescription)")
    }
    let bundle = root.appendingPathComponent(job.name, isDirectory: true)
    let token = "\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
    let staging = root.appendingPathComponent(".\(job.name).staging-\(token)", isDirectory: true)
    do { try fm.createDirectory(at: staging, withIntermediateDirectories: true) } catch {
      throw BundleError(reason: "cannot create the staging folder in \(root.path): \(error.localizedDescription)")
    }
    removeStaleStaging(root: root, name: job.name, keep: staging)

    var warnings = job.warnings
    let items = await buildItems(job: job, staging: staging, jobs: options.jobs)
    let entries = items.compactMap { $0.entry }
    let failed = items.contains { $0.failure != nil }
    if entries.isEmpty || (failed && !options.allowPartial) {
      try? fm.removeItem(at: staging)
      if failed && !entries.isEmpty {
        warnings.append("bundle not published: \(items.filter { $0.failure != nil }.count) item(s) failed; the previous bundle is unchanged (use --allow-partial to publish the \(entries.count) good item(s))")
      } else {
        warnings.append("bundle not published: no item was built")
      }
      return BuildReport(bundle: bundle, items: items, published: false, warnings: warnings)
    }
    do {
      let manifest = try ManifestEmitter(baseURL: job.baseURL).render(entries)
      let problems = ManifestEmitter.validate(manifest)
      if !problems.isEmpty {
        throw BundleError(reason: "banners.json breaks the client contract: " + problems.joined(separator: "; "))
      }
      try manifest.write(to: staging.appendingPathComponent("banners.json"), options: .atomic)
      try Data(NginxDarkThemeRule.text.utf8).write(to: staging.appendingPathComponent(NginxDarkThemeRule.fileName), options: .atomic)
    } catch let e as BundleError {
      try? fm.removeItem(at: staging)
      throw e
    } catch {
      try? fm.removeItem(at: staging)
      throw BundleError(reason: "cannot write banners.json: \(error)")
    }
    try publish(staging: staging, bundle: bundle)
    return BuildReport(bundle: bundle, items: items, published: true, warnings: warnings)
  }

  /// Builds items concurrently, at most `jobs` at a time, keeping job order.
  private func buildItems(job: Job, staging: URL, jobs: Int) async -> [ItemOutcome] {
    let specs = job.banners
    let settings = job.settings
    var results = [ItemOutcome?](repeating: nil, count: specs.count)
    await withTaskGroup(of: (Int, ItemOutcome).self) { group in
      var next = 0
      func launch() {
        let i = next
        next += 1
        let spec = specs[i]
        group.addTask {
          (i, BannerItemBuilder(settings: settings, staging: staging).build(spec, parallelItems: min(jobs, specs.count)))
        }
      }
      while next < min(jobs, specs.count) { launch() }
      while let (i, outcome) = await group.next() {
        results[i] = outcome
        if next < specs.count { launch() }
      }
    }
    return results.compactMap { $0 }
  }

  /// Puts the staged bundle in place. On Linux the two folders are swapped
  /// atomically with `renameat2(RENAME_EXCHANGE)`; elsewhere, or when the
  /// kernel refuses, the old bundle is moved aside and the new one renamed
  /// in (two renames, a moment with no bundle).
  private func publish(staging: URL, bundle: URL) throws(BundleError) {
    let fm = FileManager.default
    var isDir: ObjCBool = false
    if fm.fileExists(atPath: bundle.path, isDirectory: &isDir) {
      guard isDir.boolValue else {
        try? fm.removeItem(at: staging)
        throw BundleError(reason: "\(bundle.path) exists and is not a folder; not replacing it")
      }
      if marquee_rename_exchange(staging.path, bundle.path) == 0 {
        try? fm.removeItem(at: staging)  // now holds the old bundle
        return
      }
      let old = staging.deletingLastPathComponent().appendingPathComponent(staging.lastPathComponent + ".old")
      do {
        try fm.moveItem(at: bundle, to: old)
        try fm.moveItem(at: staging, to: bundle)
        try? fm.removeItem(at: old)
      } catch {
        throw BundleError(reason: "cannot switch \(bundle.path) into place: \(error.localizedDescription)")
      }
    } else {
      do { try fm.moveItem(at: staging, to: bundle) } catch {
        throw BundleError(reason: "cannot move the new bundle into \(bundle.path): \(error.localizedDescription)")
      }
    }
  }

  /// Removes staging folders of this bundle left by killed runs (older than
  /// an hour, so a concurrent run's folder is left alone).
  private func removeStaleStaging(root: URL, name: String, keep: URL) {
    let fm = FileManager.default
    guard let entries = try? fm.contentsOfDirectory(atPath: root.path) else { return }
    for e in entries where e.hasPrefix(".\(name).staging-") && e != keep.lastPathComponent {
      let url = root.appendingPathComponent(e)
      let modified = (try? fm.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
      if let m = modified, Date().timeIntervalSince(m) > 3600 { try? fm.removeItem(at: url) }
    }
  }
}
