import Foundation

/// What a run would do with one item of the job, decided from the job, the
/// sources and the store alone, before anything is written: the one plan
/// `BundleBuilder`'s build and its check (`build --check`) both act on.
struct ItemPlan: Sendable {
  /// What happens to the item.
  enum Decision: Sendable {
    /// The source, the poster or the designer's dark picture cannot be
    /// hashed: the item fails (stage `hash`).
    case unreadable(ItemFailure)
    /// Its fingerprint is stored, intact, and may be published: reused,
    /// nothing encoded.
    case reuse(StoredItem)
    /// Its fingerprint is stored, but was built from a damaged source
    /// that the job does not allow (`allow_damaged_sources`): the item
    /// fails as its build would (stage `decode`), and the object stays
    /// for a job that allows it.
    case refuse(ItemFailure)
    /// Its fingerprint is stored but its files changed since: the object
    /// is discarded and the item built again.
    case damaged(StoredItem)
    /// Not stored (or `--rebuild`): built.
    case build
  }

  /// The item's index in the job's banners.
  var index: Int
  var spec: BannerSpec
  /// `nil` when the item is `.unreadable`.
  var fingerprint: ItemFingerprint?
  var decision: Decision

  /// Whether the item fails before anything is built (`.unreadable`,
  /// `.refuse`).
  var fails: Bool {
    switch decision {
    case .unreadable, .refuse: true
    case .reuse, .damaged, .build: false
    }
  }

  /// The item's folder in the bundle (`videos/<id>-<hash16>`), named by
  /// its fingerprint.
  var folder: String? { fingerprint.map { ItemPlanner.bundleFolder(spec, $0.hash) } }
}

/// Fingerprints items and decides, from the store, whether each is reused,
/// built or fails: the one definition the build and `build --check` share.
/// It writes nothing but the source digest cache (`updatesDigestCache`,
/// off for the check); acting on a decision (discarding a damaged object,
/// touching a reused one) is the caller's.
struct ItemPlanner: Sendable {
  let job: Job
  let store: AssetStore
  /// Items hashed at once.
  let jobs: Int
  /// CPU permits the hashing threads hold.
  let budget: CPUBudget
  /// `--rebuild`: every item is built, whatever the store holds.
  var forceRebuild = false
  /// Whether `AssetStore.sourceDigest` may write its cache.
  var updatesDigestCache = true

  /// The plan of items `selected` (indices into the job's banners), in
  /// that order; the sources are hashed on worker threads, at most `jobs`
  /// at a time.
  func plan(_ selected: [Int]) async -> [ItemPlan] {
    let specs = job.banners
    let planner = self
    return await Self.boundedMap(selected, limit: jobs, budget: budget) { i -> ItemPlan in
      switch planner.fingerprint(specs[i]) {
      case .failed(let failure): ItemPlan(index: i, spec: specs[i], fingerprint: nil, decision: .unreadable(failure))
      case .done(let fp): ItemPlan(index: i, spec: specs[i], fingerprint: fp, decision: planner.decide(specs[i], fp))
      }
    }
  }

  /// The item's fingerprint: the SHA-256 of its source (and of its poster
  /// and designer's dark picture), within `max_file_size_mb`, and its
  /// settings; or the failure of the file that cannot be hashed.
  func fingerprint(_ spec: BannerSpec) -> Fingerprinting {
    let maxFileSize = job.settings.maxFileSize
    let digest: String
    do throws(MarqueeError) {
      digest = try store.sourceDigest(spec.source, maxFileSize: maxFileSize, updatingCache: updatesDigestCache)
    } catch {
      return .failed(ItemFailure(id: spec.id, source: spec.sourceText, error: error.withFileInMessage(), stage: .hash))
    }
    var posterDigest: String?
    if case .image(let poster, let posterText) = spec.cover {
      do throws(MarqueeError) {
        posterDigest = try store.sourceDigest(poster, maxFileSize: maxFileSize, updatingCache: updatesDigestCache)
      } catch {
        return .failed(ItemFailure(id: spec.id, source: posterText,
                                   error: error.withFileInMessage(after: "the poster (cover.image): "), stage: .hash))
      }
    }
    var darkDigest: String?
    if case .image(let picture, let pictureText) = spec.dark {
      do throws(MarqueeError) {
        darkDigest = try store.sourceDigest(picture, maxFileSize: maxFileSize, updatingCache: updatesDigestCache)
      } catch {
        return .failed(ItemFailure(id: spec.id, source: pictureText,
                                   error: error.withFileInMessage(after: "the designer's dark picture (dark.image): "),
                                   stage: .hash))
      }
    }
    return .done(ItemFingerprint(spec: spec, settings: job.settings, sourceDigest: digest, posterDigest: posterDigest,
                                    darkDigest: darkDigest))
  }

  /// An item's fingerprint, or why its source (or poster, or dark
  /// picture) cannot be hashed.
  enum Fingerprinting: Sendable {
    case done(ItemFingerprint)
    case failed(ItemFailure)
  }

  /// Whether the stored object of `fp` is reused, and if not why.
  ///
  /// An object built from a damaged source under `allow_damaged_sources`
  /// records the source's health, and the setting is not in the
  /// fingerprint: without the setting the item fails here as its build
  /// would (`decode failed: … the source is damaged: …`), from that record.
  func decide(_ spec: BannerSpec, _ fp: ItemFingerprint) -> ItemPlan.Decision {
    guard !forceRebuild else { return .build }
    switch store.lookup(fp.hash) {
    case .absent: return .build
    case .damaged(let record): return .damaged(record)
    case .intact(let record):
      if !job.settings.allowDamagedSources, let reason = record.health?.failureReason {
        return .refuse(ItemFailure(id: spec.id, source: spec.sourceText, error: MarqueeError(.damagedSource, reason),
                                   stage: .decode))
      }
      return .reuse(record)
    }
  }

  /// The bundle folder of an item's outputs: readable, and naming its
  /// content, so its URLs are immutable.
  static func bundleFolder(_ spec: BannerSpec, _ hash: String) -> String {
    "\(spec.kind == .video ? "videos" : "images")/\(spec.id)-\(hash.prefix(16))"
  }

  /// The banner id and the 16 hex digits of an item folder's name
  /// (`<id>-<hash16>`), or `nil` when the name is not one.
  static func parseFolderName(_ name: String) -> (id: String, hash16: String)? {
    guard let dash = name.lastIndex(of: "-") else { return nil }
    let id = String(name[..<dash]), hash = String(name[name.index(after: dash)...])
    guard !id.isEmpty, hash.count == 16, hash.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
    return (id, hash)
  }

  /// Maps `items` on worker threads, at most `limit` at a time, keeping
  /// order; each call of `body` holds one of `budget`'s permits, unless
  /// `permits` is false (then `body` takes one itself when it computes).
  static func boundedMap<T: Sendable, R: Sendable>(
    _ items: [T], limit: Int, budget: CPUBudget, permits: Bool = true, _ body: @escaping @Sendable (T) -> R
  ) async -> [R] {
    var results = [R?](repeating: nil, count: items.count)
    await withTaskGroup(of: (Int, R).self) { group in
      var next = 0
      func launch() {
        let i = next
        next += 1
        let item = items[i]
        group.addTask { (i, await Worker.run { permits ? budget.withPermit { body(item) } : body(item) }) }
      }
      while next < min(limit, items.count) { launch() }
      while let (i, r) = await group.next() {
        results[i] = r
        if next < items.count { launch() }
      }
    }
    return results.compactMap { $0 }
  }
}
