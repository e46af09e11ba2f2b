import Foundation

/// Estimates how far each video being encoded has got, for live progress:
/// the HLS muxer writes one segment file after another, so the number of
/// finished segments times the segment duration, over the source's
/// duration, is the fraction encoded.
///
/// Polls the item's folder from outside the encoder. (A progress callback
/// from the transcoder would be finer-grained; this needs none.)
final class ProgressMonitor: @unchecked Sendable {
  struct Item {
    var folder: URL
    var duration: Double
    var segmentDuration: Double
    var started: Date
  }

  private let lock = NSLock()
  private var items: [String: Item] = [:]

  func begin(id: String, folder: URL, duration: Double, segmentDuration: Double) {
    guard duration > 0 else { return }
    lock.lock()
    items[id] = Item(folder: folder, duration: duration, segmentDuration: segmentDuration, started: Date())
    lock.unlock()
  }

  func end(id: String) {
    lock.lock()
    items[id] = nil
    lock.unlock()
  }

  /// Each active item's fraction encoded (0...0.99) and seconds since it
  /// started.
  func snapshot() -> [(id: String, fraction: Double, elapsed: Double)] {
    lock.lock()
    let current = items
    lock.unlock()
    return current.keys.sorted().compactMap { id in
      guard let item = current[id] else { return nil }
      var finished = 0
      for rendition in FileSystem.list(item.folder) {
        let count = FileSystem.list(item.folder.appendingPathComponent(rendition))
          .filter { $0.hasPrefix("segment_") && $0.hasSuffix(".m4s") }.count
        finished = max(finished, count - 1)
      }
      let fraction = min(0.99, Double(finished) * item.segmentDuration / item.duration)
      return (id, fraction, Date().timeIntervalSince(item.started))
    }
  }
}
