import Foundation

/// Options of one build run.
public struct BuildOptions: Sendable {
  /// What the run does with the items.
  public enum Mode: Sendable, Equatable {
    /// Build (or reuse) every item, verify, publish the bundle.
    case publish
    /// Build (or reuse) this shard's items into the store; publish nothing.
    case shard(ShardSpec)
    /// Encode nothing: take every item from the store (built by shards),
    /// verify, publish.
    case merge
  }

  /// The output root; the bundle is `outputRoot/<job name>`, Marquee's
  /// store, locks and staging folders are under `outputRoot/.marquee`.
  /// Nothing is written outside it.
  public var outputRoot: URL
  /// The CPU budget (default: the number of cores): items in flight, and
  /// the run's `CPUBudget.forJobs(jobs)`: one computing thread for 1, one
  /// more than `jobs` from 2 up.
  public var jobs: Int
  /// Publish the good items when some fail (default: keep the old bundle).
  public var allowPartial: Bool
  public var mode: Mode
  /// Wait for another run holding the bundle's lock instead of failing.
  public var waitForLock: Bool
  /// Encode every selected item again, replacing its stored outputs,
  /// instead of reusing them (ignored by `.merge`).
  public var forceRebuild = false
  /// Receives progress and log events (from any thread).
  public var onEvent: BuildEventHandler?
  /// Seconds between progress events of items being encoded; 0 for none.
  public var progressInterval: Double
  /// Store objects no bundle uses are removed after this many seconds
  /// unused (default 7 days).
  public var storeRetention: Double
  /// How the run describes itself in the lock file.
  public var commandDescription: String

  public init(outputRoot: URL, jobs: Int = ProcessInfo.processInfo.activeProcessorCount, allowPartial: Bool = false,
              mode: Mode = .publish, waitForLock: Bool = false, onEvent: BuildEventHandler? = nil,
              progressInterval: Double = 0) {
    self.outputRoot = outputRoot
    self.jobs = max(1, jobs)
    self.allowPartial = allowPartial
    self.mode = mode
    self.waitForLock = waitForLock
    self.onEvent = onEvent
    self.progressInterval = progressInterval
    storeRetention = 7 * 86_400
    commandDescription = "marquee"
  }
}

/// `--shard i/n`: item `k` (0-based, job order) belongs to shard `k mod n`.
///
/// Indices are 0-based like Kubernetes' `JOB_COMPLETION_INDEX`, so
/// `--shard $JOB_COMPLETION_INDEX/4` works as is. The split depends only on
/// the job file, so every machine computes the same one.
public struct ShardSpec: Sendable, Equatable, CustomStringConvertible {
  public var index: Int
  public var count: Int

  public init?(index: Int, count: Int) {
    guard count >= 1, index >= 0, index < count else { return nil }
    self.index = index
    self.count = count
  }

  /// Parses `i/n`.
  public init?(parsing text: String) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else { return nil }
    self.init(index: i, count: n)
  }

  public func contains(itemIndex: Int) -> Bool { itemIndex % count == index }
  public var description: String { "\(index)/\(count)" }
}
