import Foundation

/// Threads of Marquee's own for blocking work (encoding, hashing, waiting
/// on a lock), so Swift's cooperative pool stays free for progress
/// reporting: `run` awaits one piece of work, `start` begins a long-lived
/// thread (a rendition worker's) that is joined later.
enum Worker {
  /// Runs `body` on a new thread (`marquee.item`, 16 MiB of stack) and
  /// returns what it returns, suspending the caller meanwhile.
  static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      let thread = Thread {
        continuation.resume(returning: body())
      }
      thread.stackSize = 16 << 20
      thread.name = "marquee.item"
      thread.start()
    }
  }

  /// Starts `body` on a new thread.
  ///
  /// The returned handle does not hold the thread, and the thread lets go
  /// of `body` (and what it captured) when `body` returns, so a `body` that
  /// captures its owner makes no cycle with a handle the owner keeps.
  ///
  /// - Parameters:
  ///   - name: the thread's name, as debuggers and `top -H` show it.
  ///   - stackSize: the thread's stack, bytes.
  /// - Returns: the handle `join()` waits on.
  static func start(name: String, stackSize: Int, _ body: @escaping @Sendable () -> Void) -> WorkerThread {
    let handle = WorkerThread()
    let thread = Thread {
      body()
      handle.markReturned()
    }
    thread.name = name
    thread.stackSize = stackSize
    thread.start()
    return handle
  }
}

/// A thread begun by `Worker.start`, to wait for. Everything its body did
/// happens before `join()` returns (the handle's lock orders the two).
// Safe: `returned` is read and written only with `condition` locked.
final class WorkerThread: @unchecked Sendable {
  private let condition = NSCondition()
  private var returned = false

  fileprivate init() {}

  fileprivate func markReturned() {
    condition.lock()
    returned = true
    condition.broadcast()
    condition.unlock()
  }

  /// Waits until the thread's body has returned; returns at once after
  /// that, however often it is called.
  func join() {
    condition.lock()
    while !returned { condition.wait() }
    condition.unlock()
  }
}
