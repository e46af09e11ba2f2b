import Foundation

extension BundleBuilder {
  /// `marquee build <job> --check`: whether a build of `job` would change
  /// nothing, and if it would, what and why; it writes nothing at all.
  ///
  /// The check plans the items as the build does (`ItemPlanner`: the same
  /// source digests, fingerprints, store lookup and integrity check, the
  /// same `allow_damaged_sources` rule), renders banners.json as the build
  /// does (`BundleAssembler.manifest`) and weighs the bundle with the
  /// build's `SizeBudget`; then it compares with the published bundle.
  /// A build would change nothing when:
  /// - every item's fingerprint is in the store, intact, and may be reused;
  /// - the bundle publishes exactly those items: a folder per item named
  ///   by its fingerprint holding the stored files (the same inodes, or
  ///   the same bytes), and nothing else;
  /// - its banners.json is byte-identical (by SHA-256) to the one a build
  ///   would write, and `nginx-dark-theme.conf` too;
  /// - the bundle is within its size budget, and nothing under the output
  ///   root would stop a build (a link planted in `.marquee/`, a folder
  ///   that is not a bundle).
  ///
  /// Nothing is created, written, touched or locked: no lock file (a run
  /// holding the lock is only reported, from the lock file's text), no
  /// store entry or source-digest cache entry (the cache is read, as the
  /// build reads it), no staging, no `.marquee` folder; files are opened
  /// read-only, without following links under the output root. Nothing is
  /// decoded or encoded: the cost is hashing sources the cache does not
  /// know. A bundle published meanwhile (the build swaps it in at once) may
  /// make the answer stale, as any read would.
  ///
  /// `options.outputRoot` and `options.jobs` (sources hashed at once) are
  /// used; the mode, `forceRebuild`, `allowPartial` and `waitForLock` are
  /// not (the command line refuses them with `--check`).
  public func check(job: Job, options: BuildOptions) async -> CheckReport {
    await BundleCheck(job: job, options: options).execute()
  }
}

/// One run of `BundleBuilder.check`.
struct BundleCheck: Sendable {
  let job: Job
  let root: URL
  let bundle: URL
  let store: AssetStore
  let planner: ItemPlanner

  init(job: Job, options: BuildOptions) {
    self.job = job
    root = options.outputRoot.standardizedFileURL
    bundle = root.appendingPathComponent(job.name, isDirectory: true)
    store = AssetStore(outputRoot: root)
    planner = ItemPlanner(job: job, store: store, jobs: options.jobs, budget: CPUBudget.forJobs(options.jobs),
                          forceRebuild: false, updatesDigestCache: false)
  }

  var publisher: BundlePublisher { BundlePublisher(root: root, bundle: bundle, jobName: job.name) }

  func execute() async -> CheckReport {
    let started = Date()
    var report = CheckReport(bundle: bundle)
    report.warnings = job.warnings
    if let holder = lockHolder() {
      report.warnings.append("a run holds the bundle's lock (\(holder)): it may change the bundle after this check")
    }
    report.problems = rootProblems()
    let plans = await planner.plan(Array(job.banners.indices))
    // A bundle a build would refuse to replace is compared with nothing.
    let published = publisher.replaceProblem() == nil ? PublishedBundle.read(bundle) : nil
    report.hasBundle = published != nil
    let context = Context(plans: plans, published: published ?? PublishedBundle(), store: store)
    for plan in plans { report.items.append(context.judge(plan)) }
    if let published {
      report.items += context.removedItems()
      report.bundleChanges += context.strayEntries()
      report.bundleChanges += fixedFileChanges(published)
    }
    let stored = plans.compactMap { plan -> BundleAssembler.Item? in
      guard case .reuse(let record) = plan.decision, let folder = plan.folder else { return nil }
      return BundleAssembler.Item(spec: plan.spec, record: record, folder: folder)
    }
    if stored.count == plans.count {
      compareManifest(stored, published: published, &report)
    } else {
      // An item to build in a folder the bundle does not have yet changes
      // its URLs (one built again in its own folder may not; a failing
      // item stops the build from publishing at all).
      let building = plans.filter { plan in
        guard let folder = plan.folder, published?.tree[folder]?.isDirectory != true else { return false }
        switch plan.decision {
        case .build, .damaged: return true
        case .reuse, .refuse, .unreadable: return false
        }
      }
      if published != nil && !building.isEmpty && !plans.contains(where: \.fails) {
        report.bundleChanges.append("banners.json would change: new URLs for " + building.map { "`\($0.spec.id)`" }.joined(separator: ", "))
      }
      if SizeBudget(settings: job.settings).isSet {
        report.budgetNote = "the size budget is weighed once every item is stored (\(plans.count - stored.count) item(s) are not)"
      }
    }
    report.seconds = Date().timeIntervalSince(started)
    return report
  }

  // MARK: - What would stop a build

  /// What `BuildRun.execute` would refuse before building anything: an
  /// output root that is not a folder, a link or file planted among
  /// Marquee's folders, a bundle folder that must not be replaced.
  private func rootProblems() -> [String] {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory) && !isDirectory.boolValue {
      return ["cannot prepare the output root: \(root.path) is not a folder"]
    }
    var problems: [String] = []
    if let problem = FileSystem.ownedFolderProblem(root: root, BuildRun.ownedFolders) {
      problems.append("cannot prepare the output root: \(problem)")
    }
    if let problem = publisher.replaceProblem() { problems.append(problem) }
    return problems
  }

  /// The holder a run wrote into the bundle's lock file, when that run may
  /// still hold it (a process alive on this host, or any on another host);
  /// read only, never locked.
  private func lockHolder() -> String? {
    guard let data = try? FileSystem.readOwnedFile(root: root, BundleLock.relativePath(bundleName: job.name), limit: 4096)
    else { return nil }
    let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    guard !text.isEmpty else { return nil }
    // `pid <pid> on host <host>, since …` (`BundleLock.writeHolder`).
    let words = text.split(separator: " ")
    if words.count > 4, words[0] == "pid", let pid = Int32(words[1]), words[2] == "on", words[3] == "host" {
      let host = String(words[4].trimmingCharacters(in: CharacterSet(charactersIn: ",")))
      if host == ProcessOwner.current.host && !ProcessOwner(host: host, pid: pid).isAlive { return nil }
    }
    return text
  }

  // MARK: - banners.json and the other files

  /// Compares the published banners.json with the one a build would write
  /// from `items` (every item stored), and weighs that bundle against the
  /// size budget.
  private func compareManifest(_ items: [BundleAssembler.Item], published: PublishedBundle?, _ report: inout CheckReport) {
    let assembler = BundleAssembler(store: store, baseURL: job.baseURL, surfaces: job.settings.surfaces)
    let expected: Data
    do { expected = try assembler.manifest(items) } catch {
      report.problems.append(error.message)
      return
    }
    weigh(items, manifestBytes: Int64(expected.count), &report)
    guard let published else { return }
    guard let current = published.read("banners.json") else {
      report.bundleChanges.append("banners.json would change: the published one is missing or unreadable")
      return
    }
    guard SHA256.hash(current).hex != SHA256.hash(expected).hex else { return }
    let differences = ManifestDifference.between(published: current, expected: expected)
    let shown = differences.prefix(3).joined(separator: "; ")
    let more = differences.count > 3 ? "; and \(differences.count - 3) more" : ""
    report.bundleChanges.append("banners.json would change: " + shown + more)
  }

  /// The size budget, weighed as the build weighs the staged bundle.
  private func weigh(_ items: [BundleAssembler.Item], manifestBytes: Int64, _ report: inout CheckReport) {
    let budget = SizeBudget(settings: job.settings)
    guard budget.isSet else { return }
    let weight = SizeBudget.weight(manifestBytes: manifestBytes, items: items.map { ($0.spec.id, $0.record.totalBytes) })
    report.budgetFields = budget.fields(weight)
    if let over = budget.overage(weight) { report.overBudget = over } else { report.budgetNote = budget.headroom(weight) }
  }

  /// The bundle's other files a build writes (`nginx-dark-theme.conf`),
  /// compared byte for byte.
  private func fixedFileChanges(_ published: PublishedBundle) -> [String] {
    BundleAssembler.fixedFiles.keys.sorted().compactMap { name in
      published.read(name) == BundleAssembler.fixedFiles[name] ? nil : "\(name) would change"
    }
  }
}

// MARK: - The published bundle

/// A published bundle as found, read without following a link in it.
struct PublishedBundle: Sendable {
  /// The bundle folder (nil: no bundle).
  var folder: URL?
  /// Every entry under it, by path relative to it (`FileSystem.ownedTree`).
  var tree: [String: FileSystem.Identity] = [:]

  /// The bundle at `folder`, or nil when there is none (or it is not a
  /// real folder).
  static func read(_ folder: URL) -> PublishedBundle? {
    guard let id = FileSystem.identity(folder), id.isDirectory,
          let tree = FileSystem.ownedTree(root: folder, "") else { return nil }
    return PublishedBundle(folder: folder, tree: tree)
  }

  /// The item folders (`videos/<name>`, `images/<name>`) that are folders.
  var itemFolders: [String] {
    tree.filter { path, id in
      let parts = path.split(separator: "/")
      return parts.count == 2 && (parts[0] == "videos" || parts[0] == "images") && id.isDirectory
    }.keys.sorted()
  }

  /// The published item folders of banner `id`, with their 16 hex digits.
  func folders(of id: String) -> [(folder: String, hash16: String)] {
    itemFolders.compactMap { folder in
      guard let parsed = ItemPlanner.parseFolderName(String(folder.split(separator: "/")[1])), parsed.id == id else { return nil }
      return (folder, parsed.hash16)
    }
  }

  /// The bytes of a regular file of the bundle (at most 16 MiB), or nil.
  func read(_ path: String) -> Data? {
    guard let folder, let id = tree[path], id.isRegularFile else { return nil }
    return try? FileSystem.readOwnedFile(root: folder, path, limit: 16 << 20)
  }
}

extension BundleCheck {
  /// The plans and the published bundle, compared item by item.
  struct Context {
    let plans: [ItemPlan]
    let published: PublishedBundle
    let store: AssetStore
    /// The folders a build would publish.
    let expected: Set<String>

    init(plans: [ItemPlan], published: PublishedBundle, store: AssetStore) {
      self.plans = plans
      self.published = published
      self.store = store
      expected = Set(plans.compactMap(\.folder))
    }

    /// What a build would do with `plan`'s item, and why.
    func judge(_ plan: ItemPlan) -> CheckReport.Item {
      var item = CheckReport.Item(id: plan.spec.id, kind: plan.spec.kind, verdict: .ok, folder: plan.folder)
      guard let fp = plan.fingerprint, let folder = plan.folder else {
        if case .unreadable(let failure) = plan.decision {
          item.verdict = .failed
          item.failure = failure
        }
        return item
      }
      let publishedHere = published.tree[folder]?.isDirectory == true
      switch plan.decision {
      case .unreadable(let failure), .refuse(let failure):
        item.verdict = .failed
        item.failure = failure
      case .damaged:
        item.verdict = .wouldBuild
        item.reasons = [.init(code: .storedCopyDamaged, text: "stored copy damaged")]
      case .build:
        item.verdict = .wouldBuild
        if publishedHere {
          item.reasons = [.init(code: .missing, text: "missing: not in the store")]
        } else {
          (item.reasons, item.changes) = why(plan.spec, fp, stored: false)
        }
      case .reuse(let record):
        if publishedHere {
          if let difference = difference(record, folder: folder) {
            item.verdict = .wouldPublish
            item.reasons = [.init(code: .publishedCopyDiffers, text: "published copy differs: \(difference)")]
          }
        } else {
          item.verdict = .wouldPublish
          (item.reasons, item.changes) = why(plan.spec, fp, stored: true)
        }
      }
      return item
    }

    /// Why an item not published under its fingerprint would be built or
    /// published: what changed since the version the bundle publishes
    /// (from the inputs its stored record keeps), or that there is none.
    func why(_ spec: BannerSpec, _ fp: ItemFingerprint, stored: Bool) -> ([CheckReport.Reason], [FingerprintChange]) {
      let previous = published.folders(of: spec.id)
      guard !previous.isEmpty else {
        let place = stored ? "not in the bundle (stored, nothing to encode)" : "not in the bundle or the store"
        return ([.init(code: .missing, text: "missing: \(place)")], [])
      }
      let inputs = previous.lazy.flatMap { self.store.hashes(withPrefix: $0.hash16) }
        .compactMap { self.store.record($0)?.inputs }.first
      guard let inputs else {
        return ([.init(code: .fingerprintChanged,
                       text: "source or setting changed (the store does not record which for \(previous[0].folder))")], [])
      }
      let changes = fp.changes(since: inputs)
      var reasons: [CheckReport.Reason] = []
      let sources = changes.filter { $0.kind == .source }
      if !sources.isEmpty {
        let which = sources.map(\.key) == ["source"] ? "" : ": " + sources.map(\.key).joined(separator: ", ")
        reasons.append(.init(code: .sourceChanged, text: "source changed" + which))
      }
      let settings = changes.filter { $0.kind == .setting }
      if !settings.isEmpty {
        reasons.append(.init(code: .settingChanged, text: "setting changed: " + settings.map(\.description).joined(separator: ", ")))
      }
      let marquee = changes.filter { $0.kind == .marquee }
      if !marquee.isEmpty {
        reasons.append(.init(code: .marqueeChanged, text: "Marquee changed: " + marquee.map(\.description).joined(separator: ", ")))
      }
      if reasons.isEmpty {
        reasons.append(.init(code: .fingerprintChanged, text: "source or setting changed"))
      }
      return (reasons, changes)
    }

    /// The first way the published `folder` is not the stored `record`'s
    /// files: a file missing, of another size or other bytes (a file that
    /// is not the stored file's hard link is compared by SHA-256), or an
    /// entry the item does not have; nil when it is the same.
    func difference(_ record: StoredItem, folder: String) -> String? {
      guard let bundle = published.folder else { return "no bundle" }
      var wanted: Set<String> = []
      for file in record.files {
        let path = folder + "/" + file.path
        wanted.insert(path)
        var parent = (path as NSString).deletingLastPathComponent
        while parent.count > folder.count {
          wanted.insert(parent)
          parent = (parent as NSString).deletingLastPathComponent
        }
        guard let id = published.tree[path], id.isRegularFile else { return "\(path) is missing" }
        guard id.size == file.size else { return "\(path) is \(id.size) bytes, the stored copy \(file.size)" }
        let storedPath = ".marquee/store/objects/\(record.hash)/files/\(file.path)"
        if let original = FileSystem.ownedIdentity(root: store.outputRoot, storedPath),
           original.device == id.device && original.inode == id.inode { continue }
        let a = try? SHA256.hash(file: ReadableFile.open(path, beneath: bundle.path)).hex
        let b = try? SHA256.hash(file: ReadableFile.open(storedPath, beneath: store.outputRoot.path)).hex
        if a == nil || a != b { return "\(path) is not the stored file" }
      }
      let extra = published.tree.keys.filter { $0.hasPrefix(folder + "/") && !wanted.contains($0) }.sorted()
      return extra.first.map { "\($0) is not part of the item" }
    }

    /// The bundle's items that the job no longer lists, one each.
    func removedItems() -> [CheckReport.Item] {
      let ids = Set(plans.map(\.spec.id))
      return published.itemFolders.compactMap { folder -> CheckReport.Item? in
        let parts = folder.split(separator: "/")
        guard !expected.contains(folder), let parsed = ItemPlanner.parseFolderName(String(parts[1])),
              !ids.contains(parsed.id) else { return nil }
        return CheckReport.Item(id: parsed.id, kind: parts[0] == "videos" ? .video : .image, verdict: .wouldRemove,
                                folder: folder)
      }
    }

    /// Entries of the bundle a build would not publish again, besides the
    /// items it would remove or replace: files beside banners.json, a
    /// second folder of a banner the bundle already publishes, anything
    /// in `videos/` or `images/` that is not an item's folder.
    func strayEntries() -> [String] {
      // `videos/` and `images/` go with their items (`removedItems`).
      let top: Set<String> = Set(["banners.json", "videos", "images"] + BundleAssembler.fixedFiles.keys)
      let ids = Set(plans.map(\.spec.id))
      // Banners whose own folder is published: another folder of theirs goes.
      let settled = Set(plans.filter { plan in plan.folder.map { published.tree[$0]?.isDirectory == true } ?? false }.map(\.spec.id))
      var stray: [String] = []
      for path in published.tree.keys.sorted() {
        let parts = path.split(separator: "/")
        if parts.count == 1 {
          if !top.contains(path) { stray.append(path) }
        } else if parts.count == 2 && (parts[0] == "videos" || parts[0] == "images") && !expected.contains(path) {
          guard published.tree[path]?.isDirectory == true, let parsed = ItemPlanner.parseFolderName(String(parts[1])) else {
            stray.append(path)
            continue
          }
          if ids.contains(parsed.id) && settled.contains(parsed.id) { stray.append(path) }
        }
      }
      return stray.map { "would remove \($0) (a build does not publish it)" }
    }
  }
}
