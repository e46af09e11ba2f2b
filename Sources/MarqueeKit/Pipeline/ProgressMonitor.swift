import Foundation

/// How far each video being encoded has got, for live progress: the
/// transcoder reports the seconds of source it has handed to the encoders
/// (`TranscodeRequest.progress`, after every picture), and the fraction is
/// that over the source's duration.
final class ProgressMonitor: @unchecked Sendable {
  struct Item {
    /// Source duration in seconds (container duration).
    var duration: Double
    /// Seconds of source encoded so far.
    var encoded: Double
    var started: Date
  }

  private let lock = NSLock()
  private var items: [String: Item] = [:]

  /// Starts tracking item `id`; items of unknown duration are not tracked.
  func begin(id: String, duration: Double) {
    guard duration > 0 else { return }
    lock.lock()
    items[id] = Item(duration: duration, encoded: 0, started: Date())
    lock.unlock()
  }

  /// Records that `seconds` of item `id`'s source are encoded.
  func advance(id: String, to seconds: Double) {
    lock.lock()
    items[id]?.encoded = seconds
    lock.unlock()
  }

  func end(id: String) {
    lock.lock()
    items[id] = nil
    lock.unlock()
  }

  /// Each active item's fraction encoded (0...0.99; the last percent is
  /// the flush, the playlists, covers and verification) and seconds since
  /// it started, sorted by id.
  func snapshot() -> [(id: String, fraction: Double, elapsed: Double)] {
    lock.lock()
    let current = items
    lock.unlock()
    let now = Date()
    return current.keys.sorted().compactMap { id in
      guard let item = current[id] else { return nil }
      return (id, min(0.99, max(0, item.encoded / item.duration)), now.timeIntervalSince(item.started))
    }
  }
}
