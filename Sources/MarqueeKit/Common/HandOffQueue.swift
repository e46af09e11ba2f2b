import Foundation

/// A bounded first-in, first-out hand-off of values from one producer
/// thread to one consumer thread: `push` waits while `capacity` values are
/// queued, `pop` waits while none is.
///
/// Values move, they are not shared: `push` takes a `sending` value, which
/// the compiler then forbids the producer to touch, and `pop` gives it to
/// the consumer as `sending`. A `Frame` or `Packet` (not `Sendable`)
/// crosses threads this way (`RenditionWorker`).
///
/// Closing (`close(keeping:)`) is the consumer giving up, when it failed:
/// the queued values it has no use for are dropped (freed), a producer
/// waiting for room is woken, and from then on a push is refused (the
/// value dropped), unless it is forced: a last message, such as "stop",
/// that must still arrive.
///
/// Waiting hands a CPU permit back: both ends take a closure that wraps or
/// precedes a blocking wait (`CPUBudget.waiting`, `CPUBudget.release`), run
/// only when the call has to wait.
// Safe: `values` and `closed` are used only with `condition` locked; values pass through as `sending`.
final class HandOffQueue<Element>: @unchecked Sendable {
  /// Most values queued at once (at least 1); `push` waits beyond it.
  let capacity: Int
  private let condition = NSCondition()
  private var values: [Element] = []
  private var closed = false

  /// - Parameter capacity: most values queued at once; values below 1 are
  ///   taken as 1.
  init(capacity: Int) {
    self.capacity = max(1, capacity)
  }

  /// How many values are queued now (a snapshot, for tests and reports).
  var count: Int {
    condition.lock()
    defer { condition.unlock() }
    return values.count
  }

  /// Whether `close(keeping:)` has run.
  var isClosed: Bool {
    condition.lock()
    defer { condition.unlock() }
    return closed
  }

  /// Queues `value` at the back, waiting while the queue is full and open.
  ///
  /// - Parameters:
  ///   - value: moved into the queue (or dropped, when refused).
  ///   - force: queue it even when the queue is closed (a last message).
  ///   - aroundWait: runs the blocking wait it is given, only when the
  ///     queue is full: e.g. `{ budget.waiting($0) }`, so the producer's CPU
  ///     permit is handed back while it waits. Called without the lock held.
  /// - Returns: false when the queue is closed: the value was then dropped,
  ///   unless `force` queued it. True when it was queued in an open queue.
  func push(_ value: sending Element, force: Bool = false, aroundWait: (() -> Void) -> Void = { $0() }) -> Bool {
    condition.lock()
    if values.count >= capacity && !closed {
      condition.unlock()
      aroundWait {
        condition.lock()
        while values.count >= capacity && !closed { condition.wait() }
        condition.unlock()
      }
      condition.lock()
    }
    defer { condition.unlock() }
    // One producer: the room found above is still there, unless the queue
    // closed (then a forced value goes beyond the capacity).
    if closed && !force { return false }
    values.append(value)
    condition.broadcast()
    return !closed
  }

  /// Takes the value at the front, waiting while the queue is empty.
  ///
  /// - Parameter beforeWaiting: runs once, without the lock held, when the
  ///   queue is empty at the call, before the wait: e.g. to hand the
  ///   consumer's CPU permits back (`CPUBudget.release`).
  /// - Returns: the value, now the consumer's alone.
  func pop(beforeWaiting: () -> Void = {}) -> sending Element {
    condition.lock()
    if values.isEmpty {
      condition.unlock()
      beforeWaiting()
      condition.lock()
    }
    defer { condition.unlock() }
    while values.isEmpty { condition.wait() }
    // Removed from the queue under the lock: nothing else references it.
    nonisolated(unsafe) let value = values.removeFirst()
    condition.broadcast()
    return value
  }

  /// Closes the queue (the consumer gave up): drops every queued value
  /// `keep` rejects, in order, and wakes a producer waiting for room; later
  /// pushes are refused unless forced. Closing again drops again.
  ///
  /// - Parameter keep: whether the consumer still wants a queued value
  ///   (e.g. a "stop" message); runs with the lock held.
  func close(keeping keep: (Element) -> Bool = { _ in false }) {
    condition.lock()
    closed = true
    values.removeAll { !keep($0) }
    condition.broadcast()
    condition.unlock()
  }
}
