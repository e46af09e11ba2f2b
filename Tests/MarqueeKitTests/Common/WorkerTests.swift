import Foundation
import Testing

@testable import MarqueeKit

/// `Worker`: `run` returns its body's result from another thread; a thread
/// begun with `start` is joined once its body has returned, and lets go of
/// what its body captured.
// No time limit: an async test waits for a cooperative thread, and on a
// loaded 2-core machine the other suites hold them for minutes (a one-minute
// limit failed `runReturns` after 568 s of waiting, not of running).
@Suite("Worker threads")
struct WorkerTests {
  @Test("run returns what its body returns")
  func runReturns() async {
    let sum = await Worker.run { (1...100).reduce(0, +) }
    #expect(sum == 5050)
  }

  @Test("join waits for the body and returns at once after; the thread lets go of what its body captured")
  func startAndJoin() {
    // Safe: written by the thread before `join()` returns, read after.
    final class Box: @unchecked Sendable { var done = false }
    // Safe: only its identity is used, from one thread at a time.
    final class Owner: @unchecked Sendable {}
    let box = Box()
    weak var freed: Owner?
    let thread: WorkerThread
    do {
      let owner = Owner()
      freed = owner
      thread = Worker.start(name: "test.worker", stackSize: 1 << 20) {
        Thread.sleep(forTimeInterval: 0.05)
        withExtendedLifetime(owner) { box.done = true }
      }
    }
    thread.join()
    #expect(box.done, "join returned before the body did")
    thread.join()
    // The thread exits just after its body returns.
    let deadline = Date().addingTimeInterval(120)
    while freed != nil && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    #expect(freed == nil, "the thread kept its body's captures")
  }
}
