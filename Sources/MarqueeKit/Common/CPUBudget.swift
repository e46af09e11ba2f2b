import Foundation

/// A fixed number of permits to do CPU work, shared by every thread of a
/// build, so that at most that many of Marquee's threads compute at any
/// moment, however many items, renditions and stages are in flight. (The
/// idea is GNU make's jobserver: a token is held while working and handed
/// back while waiting.) `--jobs N` gets `forJobs(N)`: 1 permit for N = 1,
/// N + 1 from 2 up.
///
/// Who holds a permit, and when:
/// - an item's thread (hashing, decoding, filtering, the audio encoder,
///   covers, dark variants, images, verification) from start to end, except
///   while it waits for a rendition worker's queue to drain or for the
///   workers to finish (`waiting(_:)`);
/// - a rendition worker (`RenditionWorker`) while its queue has pictures to
///   encode or packets to mux, never while it waits for more.
///
/// So a thread never blocks on another thread while holding a permit, and
/// nothing can deadlock on the budget: whoever waits for work has given
/// its permit back to whoever can do it.
///
/// FFmpeg's decoders and filter graphs run single-threaded under a build's
/// budget (`libraryThreads` is 1): their threads would compute outside the
/// permits (a tester counted 6 runnable threads for `--jobs 2`), and the
/// parallelism comes from renditions and items instead. libx264 runs
/// single-threaded for repeatable output, a correction of the top
/// rendition too (`VideoBannerBuilder.defaultEncoderThreads`).
public final class CPUBudget: Sendable {
  /// Permits in all; nil for no limit (every acquire succeeds at once).
  public let permits: Int?
  private let semaphore: DispatchSemaphore?

  /// - Parameters:
  ///   - permits: threads allowed to compute at once; values below 1 are
  ///     taken as 1.
  ///   - libraryThreads: threads for an FFmpeg decoder or filter graph;
  ///     nil for `permits`.
  public init(permits: Int, libraryThreads: Int? = nil) {
    let n = max(1, permits)
    self.permits = n
    self.libraryThreads = max(1, libraryThreads ?? n)
    semaphore = DispatchSemaphore(value: n)
  }

  private init() {
    permits = nil
    libraryThreads = 0
    semaphore = nil
  }

  /// The budget for `--jobs N`: one permit for `--jobs 1` (one core), and
  /// N + 1 permits for N ≥ 2: one thread more than cores, so that a core
  /// never waits for the thread just handed a permit.
  ///
  /// Why the spare: with exactly N permits on N cores, `perf sched` showed
  /// our threads waiting 1.2 ms on average from wake-up to running (1,512
  /// waits over 1 ms in a 17 s build) while a core sat idle 10 % of the
  /// time: Linux queues the woken permit holder behind the busy core's
  /// thread instead of on the idle core. One spare runnable thread fills
  /// those gaps (the 8-item benchmark: 16.9 s with N permits, 14.4 s with
  /// N + 1, BENCHMARKS.md) and oversubscribes by one thread, not by
  /// items × renditions.
  public static func forJobs(_ jobs: Int) -> CPUBudget {
    CPUBudget(permits: jobs <= 1 ? 1 : jobs + 1, libraryThreads: 1)
  }

  /// No limit: for callers outside a build (tests, the preview command).
  public static let unlimited = CPUBudget()

  /// Thread count for an FFmpeg decoder under this budget (1 for
  /// `forJobs`; 0, FFmpeg's automatic choice, when unlimited). The
  /// transcoder's filter graph always runs on one thread.
  public let libraryThreads: Int

  /// Waits for a permit.
  public func acquire() { semaphore?.wait() }

  /// Gives a permit back.
  public func release() { semaphore?.signal() }

  /// Runs `body` holding a permit.
  public func withPermit<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
    acquire()
    defer { release() }
    return try body()
  }

  /// Runs `wait`, a call that blocks on another thread, with the caller's
  /// permit handed back for its duration; the permit is taken again before
  /// returning or throwing. The caller must hold a permit.
  public func waiting<T, E: Error>(_ wait: () throws(E) -> T) throws(E) -> T {
    release()
    defer { acquire() }
    return try wait()
  }
}
