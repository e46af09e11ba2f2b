import Foundation
import Testing

@testable import MarqueeKit

/// `HandOffQueue`: one producer thread, one consumer thread; values come
/// out once each, in order; the producer waits at `capacity` and the
/// consumer when empty, each running its wait hook only then; closing
/// drops what the consumer no longer wants and refuses what follows,
/// except a forced last value.
///
/// The limit is a guard against a deadlock, not a timing: Swift Testing
/// counts the minutes a test waits for a thread of its pool too, and on 2
/// cores long synchronous tests (corpus builds) can hold both for many
/// minutes (a 1-minute limit failed every test here after 1000 s of
/// waiting, in a fresh-clone CI run on a machine at load 10–20).
@Suite("HandOffQueue: a bounded hand-off between two threads", .timeLimit(.minutes(20)))
struct HandOffQueueTests {
  /// A value that counts its instances, to see that dropped values are freed.
  final class Tracked {
    let number: Int
    private let counter: Counter
    init(_ number: Int, _ counter: Counter) {
      self.number = number
      self.counter = counter
      counter.add(1)
    }
    deinit { counter.add(-1) }
  }

  // Safe: `value` is read and written only with `lock` held.
  final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add(_ n: Int) {
      lock.lock()
      value += n
      lock.unlock()
    }
    var current: Int {
      lock.lock()
      defer { lock.unlock() }
      return value
    }
  }

  /// Waits up to `seconds` for `condition`, polling.
  static func eventually(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
      if Date() > deadline { return false }
      Thread.sleep(forTimeInterval: 0.002)
    }
    return true
  }

  @Test("every value comes out once, in order, across threads, whatever the capacity", arguments: [1, 3, 8])
  func orderAcrossThreads(capacity: Int) {
    let queue = HandOffQueue<Int>(capacity: capacity)
    let count = 5_000
    let refused = Counter()
    let producer = Worker.start(name: "test.producer", stackSize: 1 << 20) {
      for i in 0..<count where !queue.push(i) { refused.add(1) }
      if !queue.push(-1) { refused.add(1) }
    }
    var received: [Int] = []
    while true {
      let v = queue.pop()
      if v < 0 { break }
      received.append(v)
    }
    producer.join()
    #expect(refused.current == 0)
    #expect(received == Array(0..<count))
    #expect(queue.count == 0)
  }

  @Test("the producer waits at capacity, in its wait hook only, until the consumer takes one")
  func producerWaitsWhenFull() {
    let queue = HandOffQueue<Int>(capacity: 3)
    let pushed = Counter(), waits = Counter(), refused = Counter()
    let producer = Worker.start(name: "test.producer", stackSize: 1 << 20) {
      for i in 0..<4 {
        let open = queue.push(i, aroundWait: { wait in
          waits.add(1)
          wait()
        })
        if !open { refused.add(1) }
        pushed.add(1)
      }
    }
    #expect(Self.eventually { pushed.current == 3 && waits.current == 1 }, "three pushes, then a wait")
    Thread.sleep(forTimeInterval: 0.05)
    #expect(pushed.current == 3, "a fourth value went past the capacity")
    #expect(queue.count == 3)
    #expect(queue.pop() == 0)
    producer.join()
    #expect(pushed.current == 4)
    #expect(waits.current == 1, "the hook ran without a wait")
    #expect(refused.current == 0)
    let rest: [Int] = [queue.pop(), queue.pop(), queue.pop()]
    #expect(rest == [1, 2, 3])
  }

  @Test("the consumer runs its hook before waiting on an empty queue, and only then")
  func consumerHookOnlyWhenEmpty() {
    let queue = HandOffQueue<Int>(capacity: 2)
    var hooks = 0
    _ = queue.push(7)
    #expect(queue.pop { hooks += 1 } == 7)
    #expect(hooks == 0, "the hook ran although a value was there")
    let producer = Worker.start(name: "test.producer", stackSize: 1 << 20) {
      Thread.sleep(forTimeInterval: 0.05)
      _ = queue.push(8)
    }
    #expect(queue.pop { hooks += 1 } == 8)
    #expect(hooks == 1)
    producer.join()
  }

  @Test("closing drops (and frees) the values not kept, wakes a waiting producer, refuses later pushes except forced ones")
  func closing() {
    let live = Counter()
    let queue = HandOffQueue<Tracked>(capacity: 2)
    let first = queue.push(Tracked(1, live))
    let second = queue.push(Tracked(2, live))
    #expect(first && second)
    let refused = Counter()
    let producer = Worker.start(name: "test.producer", stackSize: 1 << 20) {
      // Waits for room, then finds the queue closed: dropped.
      if !queue.push(Tracked(3, live)) { refused.add(1) }
    }
    #expect(Self.eventually { live.current == 3 }, "the producer made its third value")
    Thread.sleep(forTimeInterval: 0.02)
    queue.close { $0.number == 2 }
    producer.join()
    #expect(queue.isClosed)
    #expect(refused.current == 1, "a push into a closed queue was taken")
    #expect(live.current == 1, "dropped values were not freed")
    let after = queue.push(Tracked(4, live))
    #expect(!after, "a push after closing was taken")
    #expect(live.current == 1)
    // A forced value arrives even so (after the kept one), beyond capacity.
    let forced = [queue.push(Tracked(5, live), force: true), queue.push(Tracked(6, live), force: true)]
    #expect(forced == [false, false], "a forced push says the queue is closed")
    #expect(queue.count == 3)
    let left: [Int] = [queue.pop().number, queue.pop().number, queue.pop().number]
    #expect(left == [2, 5, 6])
    #expect(live.current == 0)
  }

  @Test("a capacity below 1 is 1")
  func capacityAtLeastOne() {
    #expect(HandOffQueue<Int>(capacity: 0).capacity == 1)
  }

  @Test("with one CPU permit, a producer waiting on a full queue hands it to the consumer that empties it")
  func waitsHandThePermitOver() {
    let budget = CPUBudget(permits: 1)
    let queue = HandOffQueue<Int>(capacity: 1)
    let sum = Counter()
    budget.acquire()
    let consumer = Worker.start(name: "test.consumer", stackSize: 1 << 20) {
      var holding = false
      while true {
        let v = queue.pop {
          if holding { budget.release() }
          holding = false
        }
        if !holding {
          budget.acquire()
          holding = true
        }
        if v < 0 { break }
        sum.add(v)
      }
      if holding { budget.release() }
    }
    for i in 1...100 { _ = queue.push(i, aroundWait: { budget.waiting($0) }) }
    _ = queue.push(-1, aroundWait: { budget.waiting($0) })
    budget.waiting { consumer.join() }
    budget.release()
    #expect(sum.current == 5050)
  }
}
