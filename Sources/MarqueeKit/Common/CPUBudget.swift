import Foundation

/// A fixed number of permits to do CPU work, shared by every thread of a
/// build: `--jobs N` means at most N of Marquee's threads compute at any
/// moment, however many items, renditions and stages are in flight. (The
/// idea is GNU make's jobserver: a token is held while working and handed
/// back while waiting.)
///
/// Who holds a permit, and when:
/// - an item's thread (hashing, decoding, filtering, the audio encoder,
///   covers, dark variants, images, verification) from start to end, except
///   while it waits for a rendition worker's queue to drain or for the
///   workers to finish (`waiting(_:)`);
/// - a rendition worker (`RenditionWorker`) while it encodes one picture or
///   muxes one packet, never while it waits for the next one.
///
/// So a thread never blocks on another thread while holding a permit, and
/// nothing can deadlock on the budget: whoever waits for work has given
/// its permit back to whoever can do it.
///
/// FFmpeg's own threads (frame-threaded decoding, slice-threaded filters)
/// are sized from `permits` too (`libraryThreads`), so `--jobs 1` runs on
/// one core. libx264 always runs single-threaded for repeatable output
/// (`VideoBannerBuilder.defaultEncoderThreads`).
public final class CPUBudget: @unchecked Sendable {
  /// Permits in all; nil for no limit (every acquire succeeds at once).
  public let permits: Int?
  private let semaphore: DispatchSemaphore?

  /// - Parameter permits: threads allowed to compute at once; values below
  ///   1 are taken as 1.
  public init(permits: Int) {
    let n = max(1, permits)
    self.permits = n
    semaphore = DispatchSemaphore(value: n)
  }

  private init() {
    permits = nil
    semaphore = nil
  }

  /// No limit: for callers outside a build (tests, the preview command).
  public static let unlimited = CPUBudget()

  /// Thread count for an FFmpeg decoder or filter graph under this budget:
  /// the permit count (0, FFmpeg's automatic choice, when unlimited).
  public var libraryThreads: Int { permits ?? 0 }

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
