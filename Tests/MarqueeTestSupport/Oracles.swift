import Foundation

/// Picture and sound measurements made with Debian's `ffmpeg` CLI, an
/// implementation independent of Marquee's own code paths.
public enum Oracle {
  /// `signalstats` of one frame (the first, or the one at `time` seconds):
  /// mean luma, mean saturation, 10th/90th-percentile luma (limited range).
  public struct SignalStats: Sendable { public var yavg, satavg, ylow, yhigh: Double }

  public static func signalStats(_ url: URL, at time: Double? = nil, filterPrefix: String = "") throws -> SignalStats {
    var args = ["-v", "error"]
    if let t = time { args += ["-ss", String(format: "%.3f", t)] }
    args += ["-i", url.path, "-frames:v", "1", "-vf",
             "\(filterPrefix)scale=320:-2,format=yuv420p,signalstats,metadata=print:file=-", "-f", "null", "-"]
    let r = try Run.process("ffmpeg", args)
    func value(_ key: String) -> Double {
      for line in r.stdoutText.split(separator: "\n") where line.contains("lavfi.signalstats.\(key)=") {
        return Double(line.split(separator: "=").last ?? "") ?? .nan
      }
      return .nan
    }
    return SignalStats(yavg: value("YAVG"), satavg: value("SATAVG"), ylow: value("YLOW"), yhigh: value("YHIGH"))
  }

  /// Frames decoded by ffmpeg as 8-bit gray at `width`×`height`, with
  /// ffmpeg's own display-matrix handling unless `autorotate` is false.
  /// The picture goes through RGB first, so limited- and full-range sources
  /// give the same gray levels (a direct YUV→gray conversion copies luma
  /// without range conversion).
  public static func grayFrames(_ url: URL, width: Int, height: Int, count: Int = 1, autorotate: Bool = true,
                                at time: Double? = nil) throws -> [[UInt8]] {
    var args = ["-v", "error"]
    if !autorotate { args.append("-noautorotate") }
    if let t = time { args += ["-ss", String(format: "%.3f", t)] }
    args += ["-i", url.path, "-frames:v", "\(count)", "-vf", "scale=\(width):\(height):flags=area,format=rgb24,format=gray",
             "-f", "rawvideo", "-"]
    let r = try Run.process("ffmpeg", args)
    let size = width * height
    guard r.status == 0, r.stdout.count >= size else { throw FFprobe.Failure.failed("ffmpeg decode of \(url.path) failed: \(r.stderr)") }
    let bytes = [UInt8](r.stdout)
    return stride(from: 0, to: bytes.count - size + 1, by: size).map { Array(bytes[$0..<$0 + size]) }
  }

  /// Mean absolute difference of two equal-size gray pictures.
  public static func meanAbsoluteDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
    guard a.count == b.count, !a.isEmpty else { return .infinity }
    var total = 0
    for i in a.indices { total += abs(Int(a[i]) - Int(b[i])) }
    return Double(total) / Double(a.count)
  }

  /// The first audio stream decoded by ffmpeg to mono 32-bit float at `rate` Hz.
  public static func monoSamples(_ url: URL, rate: Int = 48_000) throws -> [Float] {
    let r = try Run.process("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:a:0", "-ac", "1", "-ar", "\(rate)",
                                       "-f", "f32le", "-"])
    guard r.status == 0 else { throw FFprobe.Failure.failed("ffmpeg audio decode failed: \(r.stderr)") }
    return r.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
  }

  /// `idet` (interlace detection) on the first `frames` frames:
  /// (interlaced TFF+BFF count, progressive count) from multi-frame detection.
  public static func interlaceDetection(_ url: URL, frames: Int = 40) throws -> (interlaced: Int, progressive: Int) {
    let r = try Run.process("ffmpeg", ["-v", "info", "-nostats", "-i", url.path, "-frames:v", "\(frames)", "-vf", "idet",
                                       "-an", "-f", "null", "-"])
    guard let line = r.stderr.split(separator: "\n").first(where: { $0.contains("Multi frame detection") }) else {
      throw FFprobe.Failure.failed("idet printed nothing: \(r.stderr.suffix(400))")
    }
    func count(_ key: String) -> Int {
      guard let range = line.range(of: "\(key):") else { return 0 }
      let rest = line[range.upperBound...].drop { $0 == " " }
      return Int(rest.prefix { $0.isNumber }) ?? 0
    }
    return (count("TFF") + count("BFF"), count("Progressive"))
  }

  /// SSIM of the first video stream of `distorted` against that of
  /// `reference`, picture by picture from the start: the "All" figure
  /// (Y, U and V weighted by their sample counts) of the ffmpeg CLI's
  /// `ssim` filter, mean over the pictures, as read from the dB figure it
  /// prints (finer than its six-decimal SSIM).
  public static func ssim(_ distorted: URL, reference: URL) throws -> Double {
    let r = try Run.process("ffmpeg", ["-v", "info", "-nostats", "-i", distorted.path, "-i", reference.path, "-lavfi",
                                       "[0:v]setpts=PTS-STARTPTS[a];[1:v]setpts=PTS-STARTPTS[b];[a][b]ssim", "-f", "null", "-"])
    guard r.status == 0, let line = r.stderr.split(separator: "\n").last(where: { $0.contains("SSIM ") && $0.contains("All:") }),
          let all = line.range(of: "All:") else {
      throw FFprobe.Failure.failed("ffmpeg ssim \(distorted.lastPathComponent): \(r.stderr.suffix(600))")
    }
    let rest = line[all.upperBound...]
    guard let open = rest.firstIndex(of: "("), let close = rest.firstIndex(of: ")"),
          let db = Double(rest[rest.index(after: open)..<close]) else {
      return Double(rest.prefix { $0 != " " }) ?? .nan
    }
    return 1 - pow(10, -db / 10)
  }

  /// Generates a test source with the ffmpeg CLI (libavfilter sources), for
  /// inputs Marquee's own generator does not make (interlaced, VFR, other
  /// codecs). Fails the caller with ffmpeg's message.
  public static func generate(_ arguments: [String], to url: URL) throws {
    let r = try Run.process("ffmpeg", ["-v", "error", "-y"] + arguments + [url.path])
    guard r.status == 0 else { throw FFprobe.Failure.failed("ffmpeg \(arguments.joined(separator: " ")): \(r.stderr)") }
  }

  /// Packets of the first video stream: pts in seconds and key flag.
  public static func videoPackets(_ url: URL) throws -> [(pts: Double, key: Bool)] {
    let r = try Run.process("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags",
                                        "-of", "csv=p=0", url.path])
    guard r.status == 0 else { throw FFprobe.Failure.failed(r.stderr) }
    return r.stdoutText.split(separator: "\n").compactMap { line in
      let parts = line.split(separator: ",")
      guard parts.count >= 2, let t = Double(parts[0]) else { return nil }
      return (t, parts[1].contains("K"))
    }.sorted { $0.pts < $1.pts }
  }

  /// `start_time`, `duration` and `field_order` of each stream as ffprobe reports them.
  public static func streamTiming(_ url: URL) throws -> [(type: String, start: Double, duration: Double, fieldOrder: String, frameRate: String)] {
    let r = try Run.process("ffprobe", ["-v", "error", "-show_entries",
                                        "stream=codec_type,start_time,duration,field_order,r_frame_rate", "-of", "json", url.path])
    let obj = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
    return (obj?["streams"] as? [[String: Any]] ?? []).map {
      ($0["codec_type"] as? String ?? "", Double($0["start_time"] as? String ?? "") ?? .nan,
       Double($0["duration"] as? String ?? "") ?? .nan, $0["field_order"] as? String ?? "", $0["r_frame_rate"] as? String ?? "")
    }
  }
}

extension Oracle {
  /// Video packets of the first video stream in decode order as ffprobe
  /// reports them: pts in seconds and size in bytes.
  public static func videoPacketSizes(_ url: URL) throws -> [(pts: Double, bytes: Int)] {
    let r = try Run.process("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,size",
                                        "-of", "csv=p=0", url.path])
    guard r.status == 0 else { throw FFprobe.Failure.failed(r.stderr) }
    return r.stdoutText.split(separator: "\n").compactMap { line in
      let parts = line.split(separator: ",")
      guard parts.count >= 2, let t = Double(parts[0]), let n = Int(parts[1]) else { return nil }
      return (t, n)
    }
  }

  /// EBU R128 figures of the first audio stream of `url` (a file or a
  /// media playlist) as the ffmpeg CLI's `ebur128` gives them: integrated
  /// loudness in LUFS and true peak in dBTP, read from the filter's frame
  /// metadata (three decimals, finer than its printed summary). With
  /// `dualMono`, a mono stream counts as played on two speakers.
  public static func loudness(_ url: URL, dualMono: Bool = false) throws -> (integrated: Double, truePeak: Double) {
    let metadata = FileManager.default.temporaryDirectory
      .appendingPathComponent("r128-\(UUID().uuidString).txt")
    defer { try? FileManager.default.removeItem(at: metadata) }
    let r = try Run.process("ffmpeg", [
      "-v", "error", "-nostats", "-i", url.path, "-map", "0:a:0", "-af",
      "ebur128=peak=true:metadata=1\(dualMono ? ":dualmono=true" : ""),ametadata=print:file=\(metadata.path)",
      "-f", "null", "-",
    ])
    guard r.status == 0 else { throw FFprobe.Failure.failed("ebur128 \(url.lastPathComponent): \(r.stderr)") }
    var integrated = Double.nan, peak = Double.nan
    for line in try String(contentsOf: metadata, encoding: .utf8).split(separator: "\n") {
      if line.hasPrefix("lavfi.r128.I=") { integrated = Double(line.dropFirst(13)) ?? .nan }
      if line.hasPrefix("lavfi.r128.true_peak=") {
        let linear = Double(line.dropFirst(21)) ?? .nan
        peak = linear > 0 ? 20 * log10(linear) : linear == 0 ? -.infinity : .nan
      }
    }
    return (integrated, peak)
  }

  /// The bytes of every packet of the first audio stream, per ffprobe.
  public static func audioPacketBytes(_ url: URL) throws -> Int {
    let r = try Run.process("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=size",
                                        "-of", "csv=p=0", url.path])
    guard r.status == 0 else { throw FFprobe.Failure.failed(r.stderr) }
    return r.stdoutText.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.reduce(0, +)
  }

  /// SHA-256 of every regular file under `folder` (hex, by path relative to
  /// it), from coreutils' `sha256sum`.
  public static func digests(under folder: URL) throws -> [String: String] {
    let base = folder.standardizedFileURL.path
    guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else {
      return [:]
    }
    var paths: [String] = []
    for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
      paths.append(url.standardizedFileURL.path)
    }
    var result: [String: String] = [:]
    for chunk in stride(from: 0, to: paths.count, by: 64).map({ Array(paths[$0..<min($0 + 64, paths.count)]) }) {
      let r = try Run.process("sha256sum", chunk)
      guard r.status == 0 else { throw FFprobe.Failure.failed("sha256sum: \(r.stderr)") }
      for line in r.stdoutText.split(separator: "\n") {
        let digest = String(line.prefix(64))
        let path = String(line.dropFirst(66))
        result[String(path.dropFirst(base.count + 1))] = digest
      }
    }
    return result
  }

  /// Where two files first differ, as `cmp` says it ("differ: byte N, line
  /// M", or "EOF on …" when one is a prefix of the other); nil when equal.
  public static func firstDifference(_ a: URL, _ b: URL) throws -> String? {
    let r = try Run.process("cmp", [a.path, b.path])
    if r.status == 0 { return nil }
    let text = (r.stdoutText + r.stderr).trimmingCharacters(in: .whitespacesAndNewlines)
    return text.replacingOccurrences(of: a.deletingLastPathComponent().path + "/", with: "")
      .replacingOccurrences(of: b.deletingLastPathComponent().path + "/", with: "")
  }
}
