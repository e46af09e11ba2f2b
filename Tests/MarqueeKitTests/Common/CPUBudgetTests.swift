import Foundation
import Testing

@testable import MarqueeKit

/// `CPUBudget`: never more holders than permits, and a holder that waits
/// for another thread hands its permit over instead of deadlocking.
@Suite struct CPUBudgetTests {
  /// Counts the threads inside a section and the most seen at once.
  // Safe: `inside` and `peak` are written only with `lock` held; `peak` is read after the threads end.
  final class Occupancy: @unchecked Sendable {
    private let lock = NSLock()
    private var inside = 0
    private(set) var peak = 0
    func enter() {
      lock.lock()
      inside += 1
      peak = max(peak, inside)
      lock.unlock()
    }
    func leave() {
      lock.lock()
      inside -= 1
      lock.unlock()
    }
  }

  @Test(arguments: [1, 2, 3])
  func neverMoreHoldersThanPermits(permits: Int) {
    let budget = CPUBudget(permits: permits)
    let occupancy = Occupancy()
    let group = DispatchGroup()
    for _ in 0..<8 {
      group.enter()
      Thread.detachNewThread {
        for _ in 0..<40 {
          budget.withPermit {
            occupancy.enter()
            usleep(200)
            occupancy.leave()
          }
        }
        group.leave()
      }
    }
    group.wait()
    #expect(occupancy.peak >= 1)
    #expect(occupancy.peak <= permits, "\(occupancy.peak) threads held \(permits) permit(s) at once")
  }

  @Test func waitingHandsThePermitToTheThreadWaitedFor() {
    // One permit, held here; the other thread needs it to signal us. With
    // the permit kept while waiting this would never return.
    let budget = CPUBudget(permits: 1)
    let signalled = DispatchSemaphore(value: 0)
    let ranWithPermit = Occupancy()
    budget.acquire()
    Thread.detachNewThread {
      budget.withPermit {
        ranWithPermit.enter()
        signalled.signal()
        ranWithPermit.leave()
      }
    }
    let result = budget.waiting { signalled.wait(timeout: .now() + 60) }
    #expect(result == .success)
    #expect(ranWithPermit.peak == 1)
    // The permit is back with this thread: no one else can take it.
    #expect(budget.permits == 1)
    let other = DispatchSemaphore(value: 0)
    let took = Occupancy()
    Thread.detachNewThread {
      budget.withPermit { took.enter() }
      other.signal()
    }
    #expect(other.wait(timeout: .now() + 0.2) == .timedOut, "a second thread got the permit this thread holds")
    budget.release()
    #expect(other.wait(timeout: .now() + 60) == .success)
    #expect(took.peak == 1)
  }

  @Test func unlimitedNeverBlocks() {
    let budget = CPUBudget.unlimited
    #expect(budget.permits == nil)
    #expect(budget.libraryThreads == 0)
    for _ in 0..<1000 { budget.acquire() }
    budget.withPermit { }
    #expect(CPUBudget(permits: 0).permits == 1)
    #expect(CPUBudget(permits: 3).libraryThreads == 3)
  }

  @Test func jobsGetOneSpareThreadFromTwoUp() {
    #expect(CPUBudget.forJobs(1).permits == 1)
    #expect(CPUBudget.forJobs(1).libraryThreads == 1)
    #expect(CPUBudget.forJobs(0).permits == 1)
    #expect(CPUBudget.forJobs(2).permits == 3)
    #expect(CPUBudget.forJobs(2).libraryThreads == 1)
    #expect(CPUBudget.forJobs(8).permits == 9)
  }
}
