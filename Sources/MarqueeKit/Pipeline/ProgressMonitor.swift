import Foundation

/// How far each video being encoded has got, for live progress: the
/// transcoder reports the seconds it has handed to the encoders and the
/// source's duration from the container it opened (`TranscodeProgress`,
/// after every picture), and the fraction is one over the other.
// Safe: `items` is read and written only with `lock` held.
final class ProgressMonitor: @unchecked Sendable {
  struct Item {
    /// Source duration in seconds (container duration); 0 until known.
    var duration: Double
    /// Seconds of source encoded so far.
    var encoded: Double
    var started: Date
  }

  private let lock = NSLock()
  private var items: [String: Item] = [:]

  /// Starts tracking item `id`.
  func begin(id: String) {
    lock.lock()
    items[id] = Item(duration: 0, encoded: 0, started: Date())
    lock.unlock()
  }

  /// Records how far item `id`'s transcode has got.
  func advance(id: String, to progress: TranscodeProgress) {
    lock.lock()
    items[id]?.encoded = progress.encoded
    items[id]?.duration = progress.sourceDuration ?? 0
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
      // An item whose duration is not known yet (or at all) has no fraction.
      guard let item = current[id], item.duration > 0 else { return nil }
      return (id, min(0.99, max(0, item.encoded / item.duration)), now.timeIntervalSince(item.started))
    }
  }
}
