import Foundation

/// Builds a job into a bundle, incrementally and atomically.
///
/// 1. **Lock** the bundle (`BundleLock`): a second run fails at once with
///    the holder's name, or waits with `waitForLock`. Then remove what
///    killed runs left (staging folders, store temporaries).
/// 2. **Fingerprint** every item (`ItemFingerprint`): SHA-256 of the source
///    and of every setting that affects its outputs.
/// 3. **Build or reuse**: an item whose fingerprint is in the store
///    (`AssetStore`) is reused; the others are built, at most `jobs` at a
///    time, each on its own thread with a fixed encoder thread count,
///    decoded and checked (`VideoAssetVerifier`/`ImageAssetVerifier`), and
///    renamed into the store complete.
/// 4. **Assemble** a staging bundle in `<out>/.marquee/staging/`: each
///    item's files hard-linked from the store under
///    `videos|images/<id>-<fingerprint16>/`, so a URL names its content and
///    unchanged items keep their URLs; banners.json last.
/// 5. **Verify** the staged bundle (`BundleVerifier`), weigh it against the
///    job's size budget when it has one (`SizeBudget`: over it, nothing is
///    published), then **publish** by
///    swapping it with the old bundle (`renameat2(RENAME_EXCHANGE)`): a
///    reader sees the old bundle or the new one, never a mix, and a run
///    killed at any point leaves the previous bundle whole.
///
/// Layout inside the bundle:
/// - `banners.json`, `nginx-dark-theme.conf`
/// - `videos/<id>-<hash>/master.m3u8`, `<rendition>/index.m3u8` with
///   `init.mp4` and `segment_NNNNN.m4s`, `video.mp4`, `cover.webp|jpg`,
///   `cover.dark.webp|jpg`
/// - `images/<id>-<hash>/w<width>.webp|jpg` and `w<width>.dark.webp|jpg`
///
/// By default a failed item keeps the old bundle in place (the good items
/// stay in the store for the rerun); `allowPartial` publishes the rest.
/// `.shard` builds a subset into the store only; `.merge` encodes nothing
/// and publishes what the shards stored.
public struct BundleBuilder: Sendable {
  public init() {}

  /// Runs the job.
  ///
  /// - Throws: `MarqueeError` when the bundle is locked by another run
  ///   (`.locked`), or the output root cannot be prepared or the bundle put
  ///   in place (`.writeFailed`), or the bundle cannot be assembled
  ///   (`.verification`). Items that fail are reported in the `BuildReport`;
  ///   an output I/O error during an item sets `BuildReport.ioError`.
  public func build(job: Job, options: BuildOptions) async throws(MarqueeError) -> BuildReport {
    try await BuildRun(job: job, options: options).execute()
  }
}

/// One run of `BundleBuilder`.
struct BuildRun: Sendable {
  let job: Job
  let options: BuildOptions
  let root: URL
  let bundle: URL
  let store: AssetStore
  let monitor = ProgressMonitor()
  /// CPU permits shared by every thread of the run (`CPUBudget.forJobs`).
  let budget: CPUBudget

  init(job: Job, options: BuildOptions) {
    self.job = job
    self.options = options
    budget = CPUBudget.forJobs(options.jobs)
    root = options.outputRoot.standardizedFileURL
    bundle = root.appendingPathComponent(job.name, isDirectory: true)
    store = AssetStore(outputRoot: root)
  }

  /// The folders of Marquee's state a run creates and checks under the
  /// output root (`FileSystem.prepareOwnedFolders`).
  static let ownedFolders = AssetStore.folders + [".marquee/staging", ".marquee/locks"]

  var publisher: BundlePublisher { BundlePublisher(root: root, bundle: bundle, jobName: job.name) }

  func emit(_ event: BuildEvent) { options.onEvent?(event) }

  func emit(_ level: BuildEvent.Level, item: String? = nil, _ stage: BuildEvent.Stage, _ name: BuildEvent.Name,
            duration: Double? = nil, error: String? = nil, message: String? = nil, fields: [String: String] = [:]) {
    emit(BuildEvent(level: level, item: item, stage: stage, event: name, duration: duration, error: error,
                    message: message, fields: fields))
  }

  func emit(item: String? = nil, _ stage: BuildEvent.Stage, _ name: BuildEvent.Name,
            duration: Double? = nil, error: String? = nil, message: String? = nil, fields: [String: String] = [:]) {
    emit(.info, item: item, stage, name, duration: duration, error: error, message: message, fields: fields)
  }

  /// The one event of a failed item: `error` is `<source>: <reason>`, and
  /// the fields name the `source` and the error's `code`
  /// (`MarqueeError.Code.description`, such as `encode failed`).
  func emitFailure(_ failure: ItemFailure, duration: Double? = nil) {
    emit(.error, item: failure.id, failure.stage, .failed, duration: duration, error: failure.sourceAndReason,
         fields: ["source": failure.source, "code": failure.error.code.description])
  }

  // MARK: - Run

  /// The run, phase by phase: prepare and lock, build or reuse every item,
  /// then (unless this is a shard) assemble, verify and publish.
  func execute() async throws(MarqueeError) -> BuildReport {
    let started = Date()
    do {
      try FileSystem.prepareOwnedFolders(root: root, Self.ownedFolders)
    } catch {
      throw MarqueeError(.writeFailed, "cannot prepare the output root: \(error)")
    }
    let shard: ShardSpec? = if case .shard(let s) = options.mode { s } else { nil }
    announce()
    // Shards write only to the store, which needs no lock.
    let lock = shard == nil ? try await lockBundle() : nil
    defer { withExtendedLifetime(lock) {} }
    for name in store.removeLeftovers() {
      emit(.cleanup, .removed, message: "temporary folder of a run that is gone: \(name)")
    }
    // Checked before any encoding.
    if let problem = publisher.replaceProblem() { throw MarqueeError(.writeFailed, problem) }

    var run = RunRecord(started: started, bundle: bundle, warnings: job.warnings)
    // Whether there is a bundle a failed run leaves in place (read under
    // the lock, so no other run publishes meanwhile).
    run.report.hadBundle = publisher.hasBundle
    run.outcomes = await produceItems(shard: shard)
    if let io = run.outcomes.first(where: { $0.outcome.failure?.isOutputIOError == true })?.outcome.failure {
      run.report.ioError = io.description
    }
    if shard != nil { return finish(&run, published: false) }
    return try await assembleVerifyPublish(&run)
  }

  /// The outcomes and the report as the run goes.
  struct RunRecord {
    var started: Date
    var outcomes: [ItemState] = []
    var report: BuildReport

    init(started: Date, bundle: URL, warnings: [String]) {
      self.started = started
      report = BuildReport(bundle: bundle, items: [], published: false, warnings: warnings)
    }

    var unchanged: String {
      report.hadBundle ? "the previous bundle is unchanged" : "no bundle at \(report.bundle.path) yet"
    }
  }

  private func announce() {
    let modeName: String =
      switch options.mode {
      case .publish: "build"
      case .shard(let s): "shard \(s)"
      case .merge: "merge"
      }
    emit(.run, .started, message: "\(modeName) of '\(job.name)': \(job.banners.count) item(s) into \(bundle.path)",
         fields: ["mode": modeName, "jobs": String(options.jobs), "items": String(job.banners.count)])
  }

  /// Takes the bundle lock and clears what killed runs left in staging.
  private func lockBundle() async throws(MarqueeError) -> BundleLock {
    let lock: BundleLock
    do {
      lock = try await BundleLock.acquire(outputRoot: root, bundleName: job.name, wait: options.waitForLock,
                                          command: options.commandDescription) { holder in
        emit(.lock, .waiting, message: "bundle is locked by \(holder); waiting")
      }
    } catch let busy as MarqueeError where busy.code == .locked {
      throw MarqueeError(.locked, "\(bundle.path) is being built by another run: \(busy.message)")
    } catch {
      throw MarqueeError(.writeFailed, "cannot lock \(bundle.path): \(error)")
    }
    emit(.lock, .acquired, message: BundleLock.url(outputRoot: root, bundleName: job.name).path)
    await TestHooks.holdLockIfAsked()
    for name in publisher.removeStaleStaging() {
      emit(.cleanup, .removed, message: "staging folder of a killed run: \(name)")
    }
    return lock
  }

  /// Closes the report and emits the run's summary.
  private func finish(_ run: inout RunRecord, published: Bool) -> BuildReport {
    run.report.items = run.outcomes.map(\.outcome)
    run.report.published = published
    run.report.seconds = Date().timeIntervalSince(run.started)
    let report = run.report
    emit(report.failedCount > 0 || report.ioError != nil ? .warning : .info, .run, .summary,
         duration: report.seconds, message: report.countsSummary + (published ? "; published \(bundle.path)" : ""),
         fields: ["built": String(report.builtCount), "reused": String(report.reusedCount),
                  "failed": String(report.failedCount), "published": String(published),
                  "damaged_items": String(report.damagedItems.count),
                  "damaged_pictures": String(report.damagedPictureCount),
                  "damaged_audio_packets": String(report.damagedAudioPacketCount)])
    return report
  }

  /// Steps 4–5: assemble, verify, publish. With `allowPartial`, items that
  /// fail verification are dropped and the rest tried once more.
  private func assembleVerifyPublish(_ run: inout RunRecord) async throws(MarqueeError) -> BuildReport {
    for attempt in 0..<2 {
      let failed = run.outcomes.filter { $0.outcome.status == .failed }
      let good = run.outcomes.filter { $0.record != nil && $0.outcome.status != .failed }
      if let why = publishRefusal(run, failed: failed.count, good: good) {
        notPublished(why, &run.report)
        return finish(&run, published: false)
      }
      let staging = publisher.newStaging()
      do {
        try assemble(good, into: staging)
      } catch {
        FileSystem.remove(staging)
        guard error.isOutputIOError else { throw MarqueeError(.verification, "cannot assemble the bundle: \(error)") }
        run.report.ioError = error.description
        notPublished("the output cannot be written (\(error)); \(run.unchanged)", &run.report)
        return finish(&run, published: false)
      }
      CrashPoint.staged.hit()
      guard verifyStaged(staging, good: good, &run) else {
        FileSystem.remove(staging)
        let unattributed = run.report.violations.contains { $0.item == nil }
        if unattributed || !options.allowPartial || attempt == 1 {
          notPublished("the staged bundle fails verification (\(run.report.violations.count) problem(s)); \(run.unchanged)", &run.report)
          return finish(&run, published: false)
        }
        continue
      }
      CrashPoint.verified.hit()
      if let over = budgetOverage(staging, good: good, &run) {
        FileSystem.remove(staging)
        // The error event just logged and the run's last line say by how
        // much (`report.overBudget`); this one only says what it means.
        notPublished((run.report.overBudget != nil ? "over the size budget" : over) + "; \(run.unchanged)", &run.report)
        return finish(&run, published: false)
      }
      try publishStaged(staging, good: good, failed: failed, &run.report)
      return finish(&run, published: true)
    }
    return finish(&run, published: false)
  }

  /// Why the staged bundle is over `settings.max_bundle_mb` or
  /// `max_item_mb` (`SizeBudget`), or nil when it fits or there is no
  /// budget. A bundle that cannot be weighed is an I/O error.
  private func budgetOverage(_ staging: URL, good: [ItemState], _ run: inout RunRecord) -> String? {
    let budget = SizeBudget(settings: job.settings)
    guard budget.isSet else { return nil }
    let items = good.compactMap { state in state.outcome.folder.map { (id: state.outcome.id, folder: $0) } }
    do {
      let weight = try SizeBudget.weigh(staging, items: items)
      run.report.bundleBytes = weight.bundleBytes
      guard let over = budget.overage(weight) else {
        emit(.publish, .finished, message: budget.headroom(weight), fields: budget.fields(weight))
        return nil
      }
      run.report.overBudget = over
      emit(.error, .publish, .failed, error: over,
           fields: budget.fields(weight).merging(["code": MarqueeError.Code.overBudget.description]) { a, _ in a })
      return over
    } catch {
      run.report.ioError = error.description
      return "the staged bundle cannot be weighed (\(error))"
    }
  }

  /// Why nothing is published, or nil when the good items may be.
  private func publishRefusal(_ run: RunRecord, failed: Int, good: [ItemState]) -> String? {
    if let io = run.report.ioError { return "the output cannot be written (\(io)); \(run.unchanged)" }
    if good.isEmpty { return "no item was built; \(run.unchanged)" }
    if failed > 0 && !options.allowPartial {
      // The size budget is weighed on the staged bundle; the good items'
      // stored files already tell whether they alone are over it, so the
      // hint does not promise what --allow-partial would then refuse.
      let budget = SizeBudget(settings: job.settings)
      let items = good.compactMap { state in
        state.record.map { (id: state.outcome.id, bytes: $0.files.reduce(Int64(0)) { $0 + $1.size }) }
      }
      let weight = SizeBudget.Weight(bundleBytes: items.reduce(0) { $0 + $1.bytes }, items: items)
      let partial = budget.isSet ? budget.overage(weight).map { "--allow-partial would not publish them either, their files alone being \($0)" } : nil
      return "\(failed) item(s) failed; \(run.unchanged) (the \(good.count) good item(s) are kept in the store for the rerun; "
        + (partial ?? "--allow-partial publishes them") + ")"
    }
    return nil
  }

  private func assemble(_ good: [ItemState], into staging: URL) throws(MarqueeError) {
    let start = Date()
    let items = good.compactMap { state in
      state.record.flatMap { record in
        state.outcome.folder.map { BundleAssembler.Item(spec: state.spec, record: record, folder: $0) }
      }
    }
    let summary = try BundleAssembler(store: store, baseURL: job.baseURL, surfaces: job.settings.surfaces)
      .assemble(items, into: staging)
    emit(.assemble, .finished, duration: Date().timeIntervalSince(start),
         message: "\(summary.items) item(s), \(summary.files) file(s) linked from the store")
  }

  /// Verifies the staged bundle with `BundleVerifier`. On violations, fails
  /// the items they name (a stored output that fails is discarded, so the
  /// next run builds it again), records them and returns false.
  private func verifyStaged(_ staging: URL, good: [ItemState], _ run: inout RunRecord) -> Bool {
    let verifyStart = Date()
    let trusted = Set(good.compactMap(\.outcome.folder))
    let verification = BundleVerifier(options: VerifyOptions(decodeMedia: true, trustedFolders: trusted)).verify(bundle: staging)
    for v in verification.violations {
      emit(.error, item: v.item, .verify, .violation, error: "\(v.file): \(v.problem)")
    }
    for w in verification.warnings { emit(.warning, .verify, .warning, message: w) }
    guard verification.isValid else {
      run.report.violations = verification.violations
      let named = Set(verification.violations.compactMap(\.item))
      for i in run.outcomes.indices where named.contains(run.outcomes[i].outcome.id) {
        let mine = verification.violations.filter { $0.item == run.outcomes[i].outcome.id }
        let problems = mine.map { "\($0.file): \($0.problem)" }.joined(separator: "; ")
        if let hash = run.outcomes[i].outcome.fingerprint, let folder = run.outcomes[i].outcome.folder,
           mine.contains(where: { $0.file.hasPrefix(folder + "/") }) {
          store.discard(hash)
        }
        run.outcomes[i].fail(ItemFailure(id: run.outcomes[i].outcome.id, source: run.outcomes[i].spec.sourceText,
                                         error: MarqueeError(.verification, "the bundle fails verification: \(problems)"),
                                         stage: .verify))
      }
      return false
    }
    emit(.verify, .finished, duration: Date().timeIntervalSince(verifyStart),
         message: "\(verification.itemCount) item(s), \(verification.fileCount) file(s) checked")
    return true
  }

  /// Switches the verified staging bundle into place, warns about the items
  /// left out and prunes the store.
  private func publishStaged(_ staging: URL, good: [ItemState], failed: [ItemState],
                             _ report: inout BuildReport) throws(MarqueeError) {
    let publishStart = Date()
    do { try publisher.publish(staging: staging) } catch {
      FileSystem.remove(staging)
      throw MarqueeError(.writeFailed, "cannot switch \(bundle.path) into place: \(error)")
    }
    for f in failed {
      let text = "published without \(f.outcome.id) (--allow-partial): \(f.outcome.failure?.sourceAndReason ?? "failed")"
      report.warnings.append(text)
      emit(.warning, item: f.outcome.id, .publish, .warning, message: text)
    }
    emit(.publish, .published, duration: Date().timeIntervalSince(publishStart), message: bundle.path,
         fields: ["items": String(good.count)])
    let pruned = store.prune(maxAge: options.storeRetention)
    if pruned > 0 { emit(.cleanup, .removed, message: "\(pruned) store object(s) no bundle has used for \(Int(options.storeRetention / 86_400)) days") }
  }

  private func notPublished(_ why: String, _ report: inout BuildReport) {
    report.warnings.append("bundle not published: " + why)
    emit(.warning, .publish, .notPublished, message: why)
  }

  // MARK: - Items

  /// One item's state through the run.
  struct ItemState: Sendable {
    var index: Int
    var spec: BannerSpec
    var outcome: ItemOutcome
    var record: StoredItem?

    mutating func fail(_ failure: ItemFailure) {
      outcome.status = .failed
      outcome.failure = failure
      outcome.entry = nil
      record = nil
    }
  }

  /// The planner of this run (`ItemPlanner`, shared with `check`).
  var planner: ItemPlanner {
    ItemPlanner(job: job, store: store, jobs: options.jobs, budget: budget,
                forceRebuild: options.forceRebuild && options.mode != .merge)
  }

  /// Fingerprints the selected items and builds those not in the store.
  private func produceItems(shard: ShardSpec?) async -> [ItemState] {
    let specs = job.banners
    var states = specs.enumerated().map { i, spec in
      ItemState(index: i, spec: spec, outcome: ItemOutcome(id: spec.id, kind: spec.kind, status: .skipped), record: nil)
    }
    let selected = specs.indices.filter { shard?.contains(itemIndex: $0) ?? true }
    let hashStart = Date()
    let plans = await planner.plan(selected)
    emit(.debug, .hash, .finished, duration: Date().timeIntervalSince(hashStart), message: "\(selected.count) item(s) fingerprinted")
    let plan = reuseOrPlan(plans, states: &states)
    await build(plan, states: &states)
    for i in selected { describeRecord(of: &states[i]) }
    return states
  }

  /// The fingerprints to build, each once, in job order, with the items
  /// that share it.
  struct BuildPlan {
    var order: [String] = []
    var items: [String: [Int]] = [:]
    var fingerprints: [String: ItemFingerprint] = [:]
  }

  /// Acts on each item's plan: reuses what the store has intact (touched,
  /// so pruning keeps it; the state says `.reused`), fails what cannot be
  /// fingerprinted or was stored from a damaged source the job does not
  /// allow (or, in `merge`, is not stored), discards a damaged object, and
  /// plans the rest, grouped by fingerprint.
  private func reuseOrPlan(_ plans: [ItemPlan], states: inout [ItemState]) -> BuildPlan {
    var plan = BuildPlan()
    var discarded: Set<String> = []
    for item in plans {
      let i = item.index, spec = item.spec
      guard let fp = item.fingerprint else {
        if case .unreadable(let failure) = item.decision {
          states[i].fail(failure)
          emitFailure(failure)
        }
        continue
      }
      states[i].outcome.fingerprint = fp.hash
      states[i].outcome.folder = item.folder
      switch item.decision {
      case .unreadable(let failure), .refuse(let failure):
        states[i].fail(failure)
        emitFailure(failure)
        continue
      case .reuse(let record):
        store.touch(fp.hash)
        states[i].record = record
        states[i].outcome.status = .reused
        emit(item: spec.id, .encode, .reused, duration: 0,
             message: "unchanged (\(fp.shortHash)); nothing encoded", fields: ["folder": item.folder ?? ""])
        continue
      case .damaged:
        // Items sharing the fingerprint share the object: discarded once.
        if discarded.insert(fp.hash).inserted {
          emit(.warning, item: spec.id, .store, .warning, message: "store object \(fp.shortHash) is damaged; building it again")
          store.discard(fp.hash)
        }
      case .build:
        break
      }
      if options.mode == .merge {
        let failure = ItemFailure(
          id: spec.id, source: spec.sourceText,
          error: MarqueeError(.notStored, "not in the store (\(fp.shortHash)): no shard has built it; run every `marquee build --shard i/n` first"),
          stage: .store)
        states[i].fail(failure)
        emitFailure(failure)
        continue
      }
      if plan.items[fp.hash] == nil {
        plan.order.append(fp.hash)
        plan.fingerprints[fp.hash] = fp
      }
      plan.items[fp.hash, default: []].append(i)
    }
    return plan
  }

  /// Builds each planned fingerprint once, on worker threads, and gives
  /// every item that shares it the result.
  private func build(_ plan: BuildPlan, states: inout [ItemState]) async {
    let specs = job.banners
    let work = plan.order.compactMap { hash in
      plan.items[hash]?.first.flatMap { i in plan.fingerprints[hash].map { (hash, i, $0) } }
    }
    let monitorTask = startProgressReporting()
    // A task waiting for another run's claim holds no CPU permit.
    let results = await ItemPlanner.boundedMap(work, limit: options.jobs, budget: budget, permits: false) { (_, i, fp) in
      self.claimAndBuild(spec: specs[i], fingerprint: fp)
    }
    monitorTask?.cancel()
    for (k, (hash, builtFor, _)) in work.enumerated() {
      for i in plan.items[hash] ?? [] {
        states[i].outcome.seconds = results[k].seconds
        if let record = results[k].record {
          states[i].record = record
          states[i].outcome.status = results[k].builtByAnotherRun ? .reused : .built
        } else if let failure = results[k].failure {
          // Each item names its own source; a failure that names another
          // file (a poster, a designer's dark picture) keeps it.
          let source = failure.source == specs[builtFor].sourceText ? specs[i].sourceText : failure.source
          states[i].fail(ItemFailure(id: specs[i].id, source: source, error: failure.error, stage: failure.stage))
        }
      }
    }
  }

  /// Fills the outcome from the item's stored record: summary, warnings,
  /// sizes and its banners.json entry.
  private func describeRecord(of state: inout ItemState) {
    guard let record = state.record else { return }
    state.outcome.summary = record.summary
    state.outcome.warnings = record.warnings
    state.outcome.fileCount = record.files.count
    state.outcome.byteCount = record.totalBytes
    state.outcome.health = record.health
    guard let folder = state.outcome.folder else { return }
    do { state.outcome.entry = try record.entry(for: state.spec, folder: folder) } catch {
      state.fail(ItemFailure(id: state.spec.id, source: state.spec.sourceText, error: error.withFileInMessage(), stage: .store))
    }
  }

  /// The JSON log fields of a source built damaged or truncated
  /// (`allow_damaged_sources`): `damaged_pictures` (a count),
  /// `damaged_ranges` (`2.56-3.00,3.84-4.00`, output seconds) and
  /// `truncated_at` / `declared_duration` (seconds) when it ends early,
  /// `damaged_audio_packets` and `audio_gaps` (`2.01-2.26`, output seconds)
  /// when audio packets could not be decoded.
  static func healthFields(_ h: SourceHealth) -> [String: String] {
    func ranges(_ list: [SourceHealth.DamagedRange]) -> String {
      list.map { String(format: "%.2f-%.2f", $0.start, $0.end) }.joined(separator: ",")
    }
    var fields = ["damaged_pictures": String(h.damagedPictureCount)]
    if !h.damagedRanges.isEmpty { fields["damaged_ranges"] = ranges(h.damagedRanges) }
    if h.audioErrors > 0 {
      fields["damaged_audio_packets"] = String(h.audioErrors)
      fields["audio_gaps"] = ranges(h.audioGaps)
    }
    if let t = h.truncation {
      fields["truncated_at"] = String(format: "%.3f", t.picturesEnd)
      if let d = t.declaredDuration { fields["declared_duration"] = String(format: "%.3f", d) }
    }
    return fields
  }

  /// Builds one item into a store temporary folder, checks its outputs and
  /// commits it. Runs on a worker thread.
  struct BuiltObject: Sendable {
    var record: StoredItem?
    var failure: ItemFailure?
    var seconds: Double
    /// The object was stored by another run while this one waited for its
    /// claim (`ItemClaim`): reused, nothing encoded here.
    var builtByAnotherRun = false
  }

  /// Claims the item's fingerprint in the store (`ItemClaim`), waiting
  /// while another run encodes it, then reuses what that run stored, or
  /// builds it under a CPU permit. Runs on a worker thread.
  ///
  /// With `--rebuild` the claim only keeps two runs from encoding at once;
  /// each encodes. A claim that cannot be taken (a read-only store is
  /// found later anyway) leaves the item to be built unclaimed.
  private func claimAndBuild(spec: BannerSpec, fingerprint: ItemFingerprint) -> BuiltObject {
    let hash = fingerprint.hash
    let start = Date()
    let claim: ItemClaim?
    do {
      claim = try ItemClaim.acquire(hash, in: store) {
        emit(item: spec.id, .encode, .waiting,
             message: "another run is encoding it (\(hash.prefix(16))); waiting to reuse what it stores")
      }
    } catch {
      emit(.warning, item: spec.id, .store, .warning, message: "cannot claim it in the store (\(error)); building it unclaimed")
      claim = nil
    }
    defer { claim?.release() }
    if claim != nil { TestHooks.holdClaimIfAsked(hash) }
    // The store again, by the plan's own rule: another run may have stored
    // the item while this one waited.
    switch planner.decide(spec, fingerprint) {
    case .reuse(let record):
      store.touch(hash)
      let waited = Date().timeIntervalSince(start)
      emit(item: spec.id, .encode, .reused, duration: waited,
           message: "reused, built by another run (\(hash.prefix(16))); nothing encoded",
           fields: ["folder": ItemPlanner.bundleFolder(spec, hash), "built_by": "another run"])
      return BuiltObject(record: record, failure: nil, seconds: waited, builtByAnotherRun: true)
    case .refuse(let failure), .unreadable(let failure):
      emitFailure(failure)
      return BuiltObject(record: nil, failure: failure, seconds: Date().timeIntervalSince(start))
    case .damaged:
      store.discard(hash)
    case .build:
      break
    }
    return budget.withPermit { buildObject(spec: spec, fingerprint: fingerprint) }
  }

  private func buildObject(spec: BannerSpec, fingerprint: ItemFingerprint) -> BuiltObject {
    let hash = fingerprint.hash
    let start = Date()
    emit(item: spec.id, .encode, .started, message: "\(spec.kind.rawValue) \(spec.sourceText)")
    var scratch: URL? = nil
    do throws(MarqueeError) {
      let folder = try store.makeScratch()
      scratch = folder
      let stageRoot = folder.appendingPathComponent("stage", isDirectory: true)
      try FileSystem.makeDirectory(stageRoot)
      let itemFolder = BannerItemBuilder.folder(for: spec)
      if spec.kind == .video && options.progressInterval > 0 { monitor.begin(id: spec.id) }
      defer { monitor.end(id: spec.id) }
      let monitor = self.monitor
      let id = spec.id
      let product = try BannerItemBuilder(settings: job.settings, staging: stageRoot, budget: budget,
                                          progress: { monitor.advance(id: id, to: $0) }).make(spec)
      let encoded = Date().timeIntervalSince(start)
      let health = product.health.flatMap { $0.isSound ? nil : $0 }
      emit(item: spec.id, .encode, .finished, duration: encoded, message: product.summary,
           fields: (health.map(Self.healthFields) ?? [:]).merging(product.loudness.map(\.logFields) ?? [:]) { a, _ in a })
      for w in product.warnings { emit(.warning, item: spec.id, .encode, .warning, message: w) }

      let produced = stageRoot.appendingPathComponent(itemFolder, isDirectory: true)
      var record = try StoredItem(entry: product.entry, hash: hash, warnings: product.warnings,
                                  summary: product.summary, files: try FileSystem.files(under: produced),
                                  buildSeconds: encoded)
      record.health = health
      record.inputs = fingerprint.inputs
      let verifyStart = Date()
      let violations = verifyObject(record, spec: spec, filesRoot: produced, scratch: folder,
                                    judged: product.darkJudgements, decoded: product.decodedFiles)
      guard violations.isEmpty else {
        throw MarqueeError(.verification, "outputs fail verification: " + violations.map { "\($0.file): \($0.problem)" }.joined(separator: "; "))
      }
      record.verified = true
      emit(.debug, item: spec.id, .verify, .finished, duration: Date().timeIntervalSince(verifyStart),
           message: "\(record.files.count) output file(s) decoded and checked")
      record = try store.commit(scratch: folder, produced: produced, record: record, replacing: options.forceRebuild)
      emit(.debug, item: spec.id, .store, .finished, message: String(hash.prefix(16)))
      CrashPoint.itemStored.hit()
      return BuiltObject(record: record, failure: nil, seconds: Date().timeIntervalSince(start))
    } catch {
      var failure = ItemFailure.classify(error, spec: spec)
      if let scratch {
        // Name outputs by their place in the item, not the temporary folder.
        failure.error.message = failure.reason.replacingOccurrences(of: scratch.appendingPathComponent("stage").path + "/", with: "")
        FileSystem.remove(scratch)
      }
      let seconds = Date().timeIntervalSince(start)
      emitFailure(failure, duration: seconds)
      return BuiltObject(record: nil, failure: failure, seconds: seconds)
    }
  }

  /// Decodes and checks a freshly built item before it enters the store;
  /// a dark pair whose bytes the stages already judged takes that
  /// judgement (`judged`, ``DarkJudgements``), and a file whose bytes they
  /// already decoded that picture (`decoded`, ``DecodedFiles``).
  private func verifyObject(_ record: StoredItem, spec: BannerSpec, filesRoot: URL, scratch: URL,
                            judged: DarkJudgements, decoded: DecodedFiles) -> [Violation] {
    let files = AssetFiles(root: filesRoot, displayPrefix: ItemPlanner.bundleFolder(spec, record.hash))
    let assets = record.verification(id: spec.id, autoplay: spec.autoplay, muted: spec.muted)
    if let video = assets.video {
      var verifier = VideoAssetVerifier(assets: video, files: files, decode: true, scratch: scratch)
      verifier.surfaces = job.settings.surfaces
      return verifier.run()
    }
    if let image = assets.image {
      var verifier = ImageAssetVerifier(assets: image, files: files, decode: true)
      verifier.surfaces = job.settings.surfaces
      verifier.judged = judged
      verifier.decoded = decoded
      return verifier.run()
    }
    return [Violation(item: spec.id, file: files.display(""), problem: "the record describes no outputs")]
  }

  /// Emits progress events for the items being encoded, every
  /// `progressInterval` seconds, until cancelled.
  private func startProgressReporting() -> Task<Void, Never>? {
    guard options.progressInterval > 0, options.onEvent != nil else { return nil }
    let interval = UInt64(options.progressInterval * 1e9)
    let monitor = self.monitor
    let run = self
    return Task.detached {
      while !Task.isCancelled {
        try? await Task.sleep(nanoseconds: interval)
        for (id, fraction, elapsed) in monitor.snapshot() {
          var event = BuildEvent(level: .debug, item: id, stage: .encode, event: .progress, duration: elapsed)
          event.progress = fraction
          run.emit(event)
        }
      }
    }
  }
}
