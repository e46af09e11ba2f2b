import Foundation

/// Runs a program and captures its output, for oracle tools (`ffprobe`,
/// `ffmpeg`) and for end-to-end tests of the `marquee` executable.
public struct ProcessResult: Sendable {
  public var status: Int32
  public var stdout: Data
  public var stderr: String
  public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

public enum Run {
  /// Runs `executable` (a path, or a name looked up on PATH) with `arguments`.
  public static func process(_ executable: String, _ arguments: [String], currentDirectory: URL? = nil,
                             environment: [String: String]? = nil) throws -> ProcessResult {
    let p = Process()
    if executable.contains("/") {
      p.executableURL = URL(fileURLWithPath: executable)
      p.arguments = arguments
    } else {
      p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      p.arguments = [executable] + arguments
    }
    if let d = currentDirectory { p.currentDirectoryURL = d }
    if let e = environment { p.environment = e }
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = FileHandle.nullDevice
    try p.run()
    // Read both pipes concurrently so neither fills and blocks the child.
    nonisolated(unsafe) var errData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
      errData = err.fileHandleForReading.readDataToEndOfFile()
      group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    p.waitUntilExit()
    return ProcessResult(status: p.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
  }
}

/// What Debian's `ffprobe` (FFmpeg 5.1) says about a file: the independent
/// oracle for the properties Marquee promises.
public struct ProbeReport: Sendable {
  public struct Stream: Sendable {
    public var index: Int
    public var codecType: String
    public var codecName: String
    public var profile: String?
    public var pixelFormat: String?
    public var width: Int?
    public var height: Int?
    public var sampleAspectRatio: String?
    public var colorSpace: String?
    public var colorTransfer: String?
    public var colorPrimaries: String?
    public var level: Int?
    public var codecTag: String?
    public var duration: Double?
    public var sampleRate: Int?
    public var channels: Int?
    public var rotation: Double?
  }
  public var formatName: String
  public var duration: Double?
  public var streams: [Stream]
  public var video: Stream? { streams.first { $0.codecType == "video" } }
  public var audio: Stream? { streams.first { $0.codecType == "audio" } }
}

/// A decoded video frame as ffprobe reports it.
public struct ProbeFrame: Sendable {
  public var pts: Double
  public var isKeyframe: Bool
  public var pictureType: String
}

public enum FFprobe {
  public enum Failure: Error, CustomStringConvertible {
    case failed(String)
    public var description: String { switch self { case .failed(let s): return s } }
  }

  static func json(_ args: [String]) throws -> [String: Any] {
    let r = try Run.process("ffprobe", ["-v", "error", "-of", "json"] + args)
    guard r.status == 0, let obj = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any] else {
      throw Failure.failed("ffprobe \(args.joined(separator: " ")) failed (\(r.status)): \(r.stderr)")
    }
    return obj
  }

  /// Streams and format of `url`.
  public static func report(_ url: URL) throws -> ProbeReport {
    let obj = try json(["-show_format", "-show_streams", url.path])
    let format = obj["format"] as? [String: Any] ?? [:]
    let streams = (obj["streams"] as? [[String: Any]] ?? []).map { s -> ProbeReport.Stream in
      var rotation: Double? = nil
      for sd in s["side_data_list"] as? [[String: Any]] ?? [] {
        if let r = sd["rotation"] as? NSNumber { rotation = r.doubleValue }
      }
      return ProbeReport.Stream(
        index: (s["index"] as? NSNumber)?.intValue ?? 0,
        codecType: s["codec_type"] as? String ?? "",
        codecName: s["codec_name"] as? String ?? "",
        profile: s["profile"] as? String,
        pixelFormat: s["pix_fmt"] as? String,
        width: (s["width"] as? NSNumber)?.intValue,
        height: (s["height"] as? NSNumber)?.intValue,
        sampleAspectRatio: s["sample_aspect_ratio"] as? String,
        colorSpace: s["color_space"] as? String,
        colorTransfer: s["color_transfer"] as? String,
        colorPrimaries: s["color_primaries"] as? String,
        level: (s["level"] as? NSNumber)?.intValue,
        codecTag: s["codec_tag_string"] as? String,
        duration: Double(s["duration"] as? String ?? ""),
        sampleRate: Int(s["sample_rate"] as? String ?? ""),
        channels: (s["channels"] as? NSNumber)?.intValue,
        rotation: rotation)
    }
    return ProbeReport(formatName: format["format_name"] as? String ?? "",
                       duration: Double(format["duration"] as? String ?? ""), streams: streams)
  }

  /// Every decoded video frame of `url` (pts in seconds, key flag, type).
  public static func videoFrames(_ url: URL) throws -> [ProbeFrame] {
    let obj = try json(["-select_streams", "v:0", "-show_frames", "-show_entries",
                        "frame=pts_time,best_effort_timestamp_time,key_frame,pict_type", url.path])
    return (obj["frames"] as? [[String: Any]] ?? []).map { f in
      let t = Double(f["pts_time"] as? String ?? "") ?? Double(f["best_effort_timestamp_time"] as? String ?? "") ?? .nan
      return ProbeFrame(pts: t, isKeyframe: (f["key_frame"] as? NSNumber)?.intValue == 1,
                        pictureType: f["pict_type"] as? String ?? "?")
    }
  }

  /// Decodes a still image (or a video's first frame) with `ffmpeg` to
  /// 8-bit gray and returns (width, height, mean luma 0–255).
  public static func meanLuma(_ url: URL) throws -> (width: Int, height: Int, mean: Double) {
    let info = try report(url)
    guard let v = info.video, let w = v.width, let h = v.height else { throw Failure.failed("no picture in \(url.path)") }
    let r = try Run.process("ffmpeg", ["-v", "error", "-i", url.path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
    guard r.status == 0, r.stdout.count == w * h else {
      throw Failure.failed("ffmpeg could not decode \(url.path): \(r.stderr)")
    }
    let sum = r.stdout.reduce(0) { $0 + Int($1) }
    return (w, h, Double(sum) / Double(w * h))
  }
}

/// Top-level ISO BMFF boxes of a file, read directly (box size + type):
/// used to check `moov` precedes `mdat` (fast start).
public enum BoxLayout {
  public static func topLevelTypes(_ url: URL) throws -> [String] {
    let data = try Data(contentsOf: url)
    var types: [String] = []
    var offset = 0
    while offset + 8 <= data.count {
      let b = [UInt8](data[offset..<offset + 8])
      var size = Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
      let type = String(decoding: b[4..<8], as: UTF8.self)
      if size == 1, offset + 16 <= data.count {
        size = data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) }
      } else if size == 0 {
        size = data.count - offset
      }
      types.append(type)
      guard size >= 8 else { break }
      offset += size
    }
    return types
  }
}
