import Foundation

/// Damaged and truncated copies of generated sources, made the way real
/// uploads break: seeded garbage written over part of the media data (a
/// bad sector, a flaky transfer), or a file cut short (a copy still in
/// progress).
public enum DamagedMedia {
  /// `SplitMix64`'s low bytes: the same garbage for the same seed on every
  /// machine.
  public struct SeededBytes {
    private var generator: SplitMix64
    public init(seed: UInt64) { generator = SplitMix64(seed: seed) }
    public mutating func next() -> UInt8 { UInt8(truncatingIfNeeded: generator.next()) }
  }

  /// Copies `source` to `destination` with `length` bytes of seeded garbage
  /// written at each of `fractions` of the media data: the payload after the
  /// first `marker` (`movi` in an AVI, `mdat` in an MP4), so the container's
  /// headers and index stay intact.
  ///
  /// - Returns: the byte offsets written, for messages.
  @discardableResult
  public static func writeGarbage(from source: URL, to destination: URL, marker: String, at fractions: [Double],
                                  length: Int, seed: UInt64) throws -> [Int] {
    var data = [UInt8](try Data(contentsOf: source))
    let tag = [UInt8](marker.utf8)
    guard let start = (0..<(data.count - tag.count)).first(where: { Array(data[$0..<$0 + tag.count]) == tag }) else {
      throw FFprobe.Failure.failed("no \(marker) in \(source.lastPathComponent)")
    }
    let media = start + tag.count
    var random = SeededBytes(seed: seed)
    var offsets: [Int] = []
    for f in fractions {
      let at = media + Int(Double(data.count - media) * f)
      guard at + length <= data.count else { continue }
      for i in at..<(at + length) { data[i] = random.next() }
      offsets.append(at)
    }
    try Data(data).write(to: destination)
    return offsets
  }

  /// Copies the first `fraction` of `source`'s bytes to `destination`.
  public static func truncate(_ source: URL, to destination: URL, keeping fraction: Double) throws {
    let data = try Data(contentsOf: source)
    try data.prefix(Int(Double(data.count) * fraction)).write(to: destination)
  }

  /// Writes `count` bytes of seeded garbage to `destination`: a file that
  /// is no media file at all.
  public static func writeNoise(count: Int, seed: UInt64, to destination: URL) throws {
    var random = SeededBytes(seed: seed)
    try Data((0..<count).map { _ in random.next() }).write(to: destination)
  }

  /// Copies `source` to `destination` with every byte of each audio packet
  /// whose presentation time lies in `times` (seconds, half-open)
  /// overwritten with seeded garbage; the video and the container stay
  /// intact. The packets' places and sizes come from ffprobe.
  ///
  /// - Returns: the presentation times of the packets written, seconds.
  @discardableResult
  public static func writeGarbageIntoAudio(from source: URL, to destination: URL, times: Range<Double>,
                                           seed: UInt64) throws -> [Double] {
    let r = try Run.process("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts_time,pos,size",
                                        "-of", "json", source.path])
    guard r.status == 0, let doc = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any],
          let packets = doc["packets"] as? [[String: Any]] else {
      throw FFprobe.Failure.failed("ffprobe packets of \(source.lastPathComponent): \(r.stderr)")
    }
    var data = [UInt8](try Data(contentsOf: source))
    var random = SeededBytes(seed: seed)
    var written: [Double] = []
    for p in packets {
      guard let t = Double(p["pts_time"] as? String ?? ""), times.contains(t), let pos = Int(p["pos"] as? String ?? ""),
            let size = Int(p["size"] as? String ?? ""), pos + size <= data.count else { continue }
      for i in pos..<(pos + size) { data[i] = random.next() }
      written.append(t)
    }
    try Data(data).write(to: destination)
    return written
  }

  /// The audio packets of `damaged` that decode to no frame while the same
  /// packet of `clean` does: presentation times in seconds. Both are read
  /// by ffprobe (its packets, then the frames its decoder gives), an
  /// implementation independent of Marquee's.
  public static func lostAudioPacketTimes(clean: URL, damaged: URL) throws -> [Double] {
    func lost(_ url: URL) throws -> [String] {
      func times(_ entries: String, _ key: String) throws -> [String] {
        let r = try Run.process("ffprobe", ["-v", "quiet", "-threads", "1", "-select_streams", "a:0", "-show_entries",
                                            "\(entries)=pts_time", "-of", "json", url.path])
        guard let doc = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any],
              let list = doc[key] as? [[String: Any]] else {
          throw FFprobe.Failure.failed("ffprobe \(entries)s of \(url.lastPathComponent): \(r.stderr)")
        }
        return list.compactMap { $0["pts_time"] as? String }
      }
      let decoded = Set(try times("frame", "frames"))
      return try times("packet", "packets").filter { !decoded.contains($0) }
    }
    let cleanLost = Set(try lost(clean))
    return try lost(damaged).filter { !cleanLost.contains($0) }.compactMap(Double.init)
  }

  /// The top-level boxes of an ISO BMFF file as ffprobe's MP4 demuxer reads
  /// them (`-v trace`: `type:'mdat' parent:'root' sz: <size> <end of its
  /// header> <file size>`): type, where the box starts (an 8-byte header
  /// assumed), its declared size, bytes.
  public static func rootBoxes(_ url: URL) throws -> [(type: String, offset: Int, size: Int)] {
    let r = try Run.process("ffprobe", ["-v", "trace", url.path])
    let pattern = #/type:'(....)' parent:'root' sz: (\d+) (\d+) \d+/#
    var boxes: [(type: String, offset: Int, size: Int)] = []
    for line in r.stderr.split(separator: "\n") {
      guard let m = line.firstMatch(of: pattern), let size = Int(m.2), let end = Int(m.3) else { continue }
      if boxes.contains(where: { $0.offset == end - 8 }) { break }  // read again on a second pass
      boxes.append((String(m.1), end - 8, size))
    }
    return boxes
  }

  /// The pictures of `damaged` that differ from `clean`'s picture at the
  /// same time (mean absolute difference of 64x48 gray thumbnails above
  /// `threshold`), or that are missing from it: times in seconds from the
  /// first picture of `clean`. Both are decoded by the ffmpeg CLI and
  /// ffprobe (one thread, every decoded picture once), an implementation
  /// independent of Marquee's.
  public static func damagedPictureTimes(clean: URL, damaged: URL, threshold: Double = 2) throws -> [Double] {
    let good = try Oracle.timedGrayFrames(clean)
    let bad = try Oracle.timedGrayFrames(damaged)
    guard let origin = good.first?.time else { return [] }
    var byTime: [Int: [UInt8]] = [:]
    for f in bad { byTime[Int((f.time * 1000).rounded())] = f.gray }
    return good.compactMap { f in
      guard let other = byTime[Int((f.time * 1000).rounded())] else { return f.time - origin }
      return Oracle.meanAbsoluteDifference(f.gray, other) > threshold ? f.time - origin : nil
    }
  }
}

extension Oracle {
  /// Every decoded picture of the first video stream, in output order, as
  /// `width`×`height` gray with its best-effort time in seconds: pixels
  /// from the ffmpeg CLI (`-vsync passthrough`), times from ffprobe, one
  /// decoder thread each so both see the same pictures.
  public static func timedGrayFrames(_ url: URL, width: Int = 64, height: Int = 48) throws -> [(time: Double, gray: [UInt8])] {
    let probe = try Run.process("ffprobe", ["-v", "error", "-threads", "1", "-select_streams", "v:0", "-show_entries",
                                            "frame=best_effort_timestamp_time", "-of", "csv=p=0", url.path])
    guard probe.status == 0 else { throw FFprobe.Failure.failed("ffprobe frames of \(url.lastPathComponent): \(probe.stderr)") }
    let times = probe.stdoutText.split(separator: "\n").compactMap { Double($0.split(separator: ",").first ?? "") }
    let r = try Run.process("ffmpeg", ["-v", "error", "-threads", "1", "-i", url.path, "-map", "0:v:0", "-vsync", "passthrough",
                                       "-vf", "scale=\(width):\(height):flags=area,format=gray", "-f", "rawvideo", "-"])
    let size = width * height
    guard r.status == 0 else { throw FFprobe.Failure.failed("ffmpeg decode of \(url.lastPathComponent): \(r.stderr)") }
    let bytes = [UInt8](r.stdout)
    let frames = stride(from: 0, to: bytes.count - size + 1, by: size).map { Array(bytes[$0..<$0 + size]) }
    guard frames.count == times.count else {
      throw FFprobe.Failure.failed("\(url.lastPathComponent): ffmpeg gave \(frames.count) pictures, ffprobe \(times.count)")
    }
    return zip(times, frames).map { ($0, $1) }
  }
}
