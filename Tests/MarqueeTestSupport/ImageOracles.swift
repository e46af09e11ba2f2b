import Foundation
import MediaIO
import Testing

// Independent checks for the image stage's outputs: the ffmpeg/ffprobe
// command-line tools (Debian's FFmpeg 5.1, a different decoder from the
// libjpeg-turbo/libwebp paths under test), a RIFF chunk walk of our own for
// animated WebP structure, and image distances (mean absolute difference on
// a small thumbnail, 64-bit dHash).

public struct ToolError: Error, CustomStringConvertible {
  public let description: String
}

/// Runs a tool and returns its standard output.
public func runTool(_ tool: String, _ arguments: [String]) throws -> Data {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = [tool] + arguments
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  try process.run()
  let data = out.fileHandleForReading.readDataToEndOfFile()
  let errText = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    throw ToolError(description: "\(tool) \(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(errText)")
  }
  return data
}

public enum FFmpegOracle {
  /// Width and height of the first video stream, per ffprobe.
  public static func size(_ url: URL) throws -> (width: Int, height: Int) {
    let text = String(decoding: try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                         "stream=width,height", "-of", "csv=p=0", url.path]),
                      as: UTF8.self)
    let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
    guard parts.count == 2 else { throw ToolError(description: "ffprobe gave '\(text)' for \(url.lastPathComponent)") }
    return (parts[0], parts[1])
  }

  /// The first frame as RGBA, decoded by the ffmpeg CLI.
  public static func decode(_ url: URL) throws -> RGBAImage {
    let (w, h) = try size(url)
    let raw = try runTool("ffmpeg", ["-v", "error", "-i", url.path, "-frames:v", "1", "-f", "rawvideo",
                                     "-pix_fmt", "rgba", "-"])
    guard raw.count == w * h * 4 else {
      throw ToolError(description: "ffmpeg gave \(raw.count) bytes for \(w)x\(h) \(url.lastPathComponent)")
    }
    return RGBAImage(width: w, height: h, pixels: [UInt8](raw))
  }
}

/// The structure of an animated WebP, read from its RIFF chunks.
public struct WebPAnimationInfo {
  public var canvasWidth: Int
  public var canvasHeight: Int
  public var loopCount: Int
  /// One entry per ANMF chunk: frame duration in milliseconds.
  public var durations: [Int]

  public init?(_ data: Data) {
    let b = [UInt8](data)
    func le(_ i: Int, _ n: Int) -> Int {
      var v = 0
      for k in 0..<n { v |= Int(b[i + k]) << (8 * k) }
      return v
    }
    guard b.count >= 30, String(decoding: b[0..<4], as: UTF8.self) == "RIFF",
          String(decoding: b[8..<12], as: UTF8.self) == "WEBP",
          String(decoding: b[12..<16], as: UTF8.self) == "VP8X" else { return nil }
    canvasWidth = le(24, 3) + 1
    canvasHeight = le(27, 3) + 1
    loopCount = 0
    durations = []
    var pos = 12
    while pos + 8 <= b.count {
      let fourcc = String(decoding: b[pos..<(pos + 4)], as: UTF8.self)
      let size = le(pos + 4, 4)
      let payload = pos + 8
      guard payload + size <= b.count else { return nil }
      if fourcc == "ANIM", size >= 6 { loopCount = le(payload + 4, 2) }
      if fourcc == "ANMF", size >= 16 { durations.append(le(payload + 12, 3)) }
      pos = payload + size + (size & 1)
    }
  }
}

// MARK: - Image distances

/// A `w`×`h` average of `image` (box filter), as gray-free RGBA bytes.
public func thumbnail(_ image: RGBAImage, width w: Int, height h: Int) -> [Double] {
  var out = [Double](repeating: 0, count: w * h * 4)
  for ty in 0..<h {
    let y0 = ty * image.height / h, y1 = max(y0 + 1, (ty + 1) * image.height / h)
    for tx in 0..<w {
      let x0 = tx * image.width / w, x1 = max(x0 + 1, (tx + 1) * image.width / w)
      var sum = [0.0, 0.0, 0.0, 0.0]
      for y in y0..<y1 {
        for x in x0..<x1 {
          let o = image.offset(x: x, y: y)
          for c in 0..<4 { sum[c] += Double(image.pixels[o + c]) }
        }
      }
      let n = Double((y1 - y0) * (x1 - x0))
      for c in 0..<4 { out[(ty * w + tx) * 4 + c] = sum[c] / n }
    }
  }
  return out
}

/// Mean absolute RGB difference (0–255) between two images compared on a
/// 48×32-cell thumbnail, so sizes may differ slightly and JPEG noise
/// averages out.
public func meanAbsoluteDifference(_ a: RGBAImage, _ b: RGBAImage) -> Double {
  let ta = thumbnail(a, width: 48, height: 32), tb = thumbnail(b, width: 48, height: 32)
  var sum = 0.0
  var n = 0
  for i in 0..<ta.count where i % 4 != 3 {
    sum += abs(ta[i] - tb[i])
    n += 1
  }
  return sum / Double(n)
}

/// 64-bit difference hash (9×8 luma thumbnail, left > right).
public func dHash(_ image: RGBAImage) -> UInt64 {
  let t = thumbnail(image, width: 9, height: 8)
  var hash: UInt64 = 0
  for y in 0..<8 {
    for x in 0..<8 {
      func luma(_ i: Int) -> Double { 0.2126 * t[i * 4] + 0.7152 * t[i * 4 + 1] + 0.0722 * t[i * 4 + 2] }
      if luma(y * 9 + x) > luma(y * 9 + x + 1) { hash |= 1 << UInt64(y * 8 + x) }
    }
  }
  return hash
}

public func hammingDistance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }

/// The mean colour of a rectangle, RGBA.
public func meanColour(_ image: RGBAImage, x: Range<Int>, y: Range<Int>) -> (r: Double, g: Double, b: Double, a: Double) {
  var s = (0.0, 0.0, 0.0, 0.0)
  for yy in y {
    for xx in x {
      let o = image.offset(x: xx, y: yy)
      s.0 += Double(image.pixels[o]); s.1 += Double(image.pixels[o + 1])
      s.2 += Double(image.pixels[o + 2]); s.3 += Double(image.pixels[o + 3])
    }
  }
  let n = Double(x.count * y.count)
  return (s.0 / n, s.1 / n, s.2 / n, s.3 / n)
}

/// A fresh temporary folder, removed by the caller.
public func temporaryFolder() throws -> URL {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-image-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url
}

extension Trait where Self == ConditionTrait {
  /// Skips a corpus test with a message when `../shared/corpus` is absent
  /// (unless `MARQUEE_REQUIRE_CORPUS=1`, when `Corpus.url` then fails it).
  public static var imageCorpus: Self {
    .enabled(if: Corpus.skipReason == nil, Comment(rawValue: Corpus.skipReason ?? ""))
  }
}

/// Regions of the CMYK test picture with known colours (500×333 pixels).
public enum CMYKRegions {
  /// The child's red coat: about (127, 35, 40).
  public static let red = (x: 334..<344, y: 198..<208)
  /// Grass in shade: about (51, 84, 46).
  public static let green = (x: 90..<100, y: 246..<256)
}

/// Checks the CMYK test picture's colours: a child in a red coat in a
/// stroller, on a path beside green grass (Wikipedia's "Channel digital
/// image CMYK color"). The regions were located on our decode, which
/// matches Little CMS's own `jpgicc -t1 -b` conversion of the file (mean
/// absolute difference 0.36 levels, checked when this test was written).
public func checkCMYKColours(_ image: RGBAImage) throws {
  let coat = meanColour(image, x: CMYKRegions.red.x, y: CMYKRegions.red.y)
  #expect(coat.r > 90 && coat.r > coat.g * 2.5 && coat.r > coat.b * 2.5, "red coat \(coat)")
  let grass = meanColour(image, x: CMYKRegions.green.x, y: CMYKRegions.green.y)
  #expect(grass.g > grass.r + 20 && grass.g > grass.b + 20, "green grass \(grass)")
}
