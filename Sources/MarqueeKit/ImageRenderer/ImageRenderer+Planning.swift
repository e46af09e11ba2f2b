import Foundation

// Pure decisions of the image stage, kept apart from I/O so they test alone.

// MARK: - Width ladder

/// The output sizes of an image banner.
public enum WidthLadder {
  /// The sizes for a source of `sourceWidth`×`sourceHeight` (upright).
  ///
  /// Widths above the source width are dropped (never upscale: the client
  /// would only spend memory on invented pixels); if none remain, the
  /// source width is the only rung. Heights keep the aspect ratio, rounded,
  /// at least 1. Sorted narrowest first, duplicates removed.
  public static func sizes(sourceWidth: Int, sourceHeight: Int, widths: [Int]) -> [(width: Int, height: Int)] {
    var kept = Array(Set(widths.filter { $0 > 0 && $0 <= sourceWidth })).sorted()
    if kept.isEmpty { kept = [sourceWidth] }
    return kept.map { (width: $0, height: height(forWidth: $0, sourceWidth: sourceWidth, sourceHeight: sourceHeight)) }
  }

  /// `round(width × sourceHeight / sourceWidth)`, at least 1.
  public static func height(forWidth width: Int, sourceWidth: Int, sourceHeight: Int) -> Int {
    max(1, Int((Double(width) * Double(sourceHeight) / Double(sourceWidth)).rounded()))
  }
}

// MARK: - Animation

/// Which frames of an animation to keep, and for how long each is shown,
/// within the client's frame cap (playback constraints §5: 20 decoded frames).
public enum AnimationPlan {
  /// A kept frame: its index in the source and its display time.
  public struct Frame: Sendable, Equatable {
    /// 0-based source frame index.
    public var index: Int
    /// Milliseconds: the source durations of this frame and of the dropped
    /// frames that follow it, summed.
    public var duration: Int

    public init(index: Int, duration: Int) {
      self.index = index
      self.duration = duration
    }
  }

  /// Keeps at most `maxFrames` frames, spread evenly over time.
  ///
  /// With `T` the total duration and `s(i)` the start time of source frame
  /// `i`, kept frame `k` (0 ≤ k < maxFrames) is the frame on screen at time
  /// `k·T / maxFrames`; a frame chosen twice is kept once, and the slots
  /// this frees go to frames `k·N / maxFrames` (N source frames), so the
  /// result has exactly `maxFrames` frames. Each kept frame
  /// absorbs the durations of the dropped frames after it, so the total
  /// duration is exactly `T` and every moment shows the frame nearest
  /// before it that was kept.
  ///
  /// - Parameters:
  ///   - durations: source frame durations in milliseconds.
  ///   - maxFrames: the cap, at least 1.
  public static func select(durations: [Int], maxFrames: Int) -> [Frame] {
    let d = durations.map { max(1, $0) }
    guard !d.isEmpty else { return [] }
    if d.count <= maxFrames {
      return d.enumerated().map { Frame(index: $0.offset, duration: $0.element) }
    }
    var starts: [Int] = []
    var t = 0
    for v in d { starts.append(t); t += v }
    let total = t
    let cap = max(1, maxFrames)
    var chosen = Set<Int>()
    var i = 0
    for k in 0..<cap {
      let at = k * total / cap
      while i + 1 < d.count && starts[i + 1] <= at { i += 1 }
      chosen.insert(i)
    }
    // One long frame can take several time slots; give the free slots to
    // frames spread evenly by index, so an animation keeps its motion.
    for k in 0..<cap where chosen.count < cap {
      chosen.insert(k * d.count / cap)
    }
    return retime(chosen.sorted(), durations: d)
  }

  /// Durations for the frames in `indices` (ascending) when the frames in
  /// between are dropped: each lasts until the next kept frame starts; the
  /// first also covers anything before it and the last runs to the end.
  public static func retime(_ indices: [Int], durations: [Int]) -> [Frame] {
    var starts: [Int] = []
    var t = 0
    for v in durations { starts.append(t); t += max(1, v) }
    let total = t
    return indices.enumerated().map { k, index in
      let begin = k == 0 ? 0 : starts[index]
      let end = k + 1 < indices.count ? starts[indices[k + 1]] : total
      return Frame(index: index, duration: end - begin)
    }
  }

  /// The largest size with the source's aspect ratio, no wider than
  /// `width`, whose decoded frames fit `maxBytes`:
  /// `frames × width × height × 4 ≤ maxBytes` (RGBA, as the client decodes).
  public static func fit(width: Int, sourceWidth: Int, sourceHeight: Int, frames: Int,
                         maxBytes: Int) -> (width: Int, height: Int) {
    func bytes(_ w: Int) -> Int {
      w * WidthLadder.height(forWidth: w, sourceWidth: sourceWidth, sourceHeight: sourceHeight) * 4 * max(1, frames)
    }
    var w = width
    if bytes(w) <= maxBytes {
      return (w, WidthLadder.height(forWidth: w, sourceWidth: sourceWidth, sourceHeight: sourceHeight))
    }
    let scale = (Double(maxBytes) / Double(bytes(w))).squareRoot()
    w = max(1, min(width, Int(Double(w) * scale)))
    while w > 1 && bytes(w) > maxBytes { w -= 1 }
    return (w, WidthLadder.height(forWidth: w, sourceWidth: sourceWidth, sourceHeight: sourceHeight))
  }
}
