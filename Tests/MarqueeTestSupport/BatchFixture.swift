import Foundation
import MarqueeKit

// MARK: - Support for the batch-run suites (CLI, Verify, Publish, Incremental, Locking, Logs, Shard)

/// The built `marquee` executable, run as a separate process the way cron
/// and Kubernetes run it.
public enum MarqueeCLI {
  /// `marquee` beside the test runner (both are products of the same
  /// `swift build`), else `<repo>/.build/debug/marquee`.
  public static var executable: URL {
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = dir.appendingPathComponent("marquee")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      dir = dir.deletingLastPathComponent()
    }
    let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return repo.appendingPathComponent(".build/debug/marquee")
  }

  /// The environment of a run: ours without test hooks, plus `extra`.
  public static func environment(_ extra: [String: String] = [:]) -> [String: String] {
    var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("MARQUEE_TEST_") }
    env["NO_COLOR"] = nil
    for (k, v) in extra { env[k] = v }
    return env
  }

  /// Runs `marquee <arguments>` to completion.
  public static func run(_ arguments: [String], in directory: URL? = nil, environment extra: [String: String] = [:]) throws -> ProcessResult {
    try Run.process(executable.path, arguments, currentDirectory: directory, environment: environment(extra))
  }

  /// Runs `marquee <arguments>` under `ulimit -f <blocks>` (512-byte blocks
  /// in dash): a disk that fills up, where mounting one is not possible.
  /// A run that hangs is killed after 10 minutes (coreutils `timeout`), so
  /// a hang fails the test instead of stalling the suite.
  public static func runWithFileSizeLimit(blocks: Int, _ arguments: [String], in directory: URL? = nil) throws -> ProcessResult {
    try Run.process("/bin/sh", ["-c", "ulimit -f \(blocks) && exec timeout -s KILL 600 \"$0\" \"$@\"", executable.path] + arguments,
                    currentDirectory: directory, environment: environment())
  }
}

/// A scratch folder with small synthetic sources (320x240, 1 s) and job
/// files, removed by `remove()`.
///
/// Its jobs make H.264, WebP and JPEG only (`video_codecs: ["h264"]`,
/// `image_formats: ["webp", "jpeg"]`) unless the fixture is made with
/// `twins: true` or the job's settings name them: the suites about the
/// HEVC and AVIF twins, verify, the golden bundle and the repeated-build
/// (determinism) tests build the defaults; the others, which test the
/// store, publishing, logs and the CLI, do not spend an x265 ladder and an
/// AV1 quantizer search on each build.
public struct BatchFixture {
  public let dir: URL
  /// Whether jobs keep the default outputs, HEVC and AVIF twins included.
  public let twins: Bool

  public init(_ label: String = "batch", twins: Bool = false) throws {
    self.twins = twins
    dir = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  }

  public var out: URL { dir.appendingPathComponent("out") }

  public func remove() { try? FileManager.default.removeItem(at: dir) }

  /// A 1 s, 320x240 (or `size`), 25 fps H.264 clip from libavfilter's
  /// `testsrc2`, its hue turned by `hue` degrees so clips differ; with a
  /// tone unless `tone` is nil.
  @discardableResult
  public func clip(_ name: String, hue: Int = 0, tone: Int? = 440, seconds: Double = 1, size: String = "320x240") throws -> URL {
    let url = dir.appendingPathComponent(name)
    try SyntheticMedia.writeClip(
      .init(video: "testsrc2=size=\(size):rate=25,hue=h=\(hue)", frameRate: Rational(25, 1), duration: seconds, toneHz: tone),
      to: url.path)
    return url
  }

  /// A small product-on-white PNG (`DemoSources.productOnWhite`).
  @discardableResult
  public func png(_ name: String, width: Int = 240, height: Int = 180) throws -> URL {
    let url = dir.appendingPathComponent(name)
    try PNGWriter.encode(DemoSources.productOnWhite(width: width, height: height)).write(to: url)
    return url
  }

  /// A small photo-like JPEG (`SyntheticMedia.photoLikeSource`), the
  /// same bytes for the same seed on every run.
  @discardableResult
  public func jpeg(_ name: String, seed: Int = 3) throws -> URL {
    let url = dir.appendingPathComponent(name)
    try JPEGEncoder.encode(SyntheticMedia.renderStill(SyntheticMedia.photoLikeSource(width: 320, height: 200, seed: seed)),
                           quality: 90).write(to: url)
    return url
  }

  /// An animated lossless WebP with alpha (ffmpeg's `libwebp_anim`,
  /// `-lossless 1`, BGRA): 12 frames of `testsrc2` at `width`×`height`, an
  /// opaque disc in a half-transparent ring, transparent corners. The odd
  /// default size is the case where 4:2:0 JPEG chroma once read past the
  /// picture (the corpus's 245x245 `animated-lossless-alpha` WebP).
  @discardableResult
  public func animatedLosslessWebP(_ name: String, width: Int = 245, height: Int = 245) throws -> URL {
    let url = dir.appendingPathComponent(name)
    let r = min(width, height) / 2
    let alpha = "if(lt(hypot(X-\(width / 2),Y-\(height / 2)),\(r * 4 / 5)),255,if(lt(hypot(X-\(width / 2),Y-\(height / 2)),\(r - 2)),128,0))"
    let run = try Run.process("ffmpeg", [
      "-nostdin", "-v", "error", "-y", "-f", "lavfi",
      "-i", "testsrc2=size=\(width)x\(height):rate=10:duration=1.2,format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='\(alpha)'",
      "-c:v", "libwebp_anim", "-lossless", "1", "-loop", "0", "-pix_fmt", "bgra", url.path,
    ])
    guard run.status == 0 else { throw FixtureError.tool("ffmpeg (animated lossless WebP): \(run.stderr)") }
    return url
  }

  /// The usual two-item job: a generated clip `a.mp4` (item `a`) and a
  /// product PNG `b.png` (item `b`).
  @discardableResult
  public func videoAndImageJob() throws -> URL {
    try clip("a.mp4")
    try png("b.png")
    return try job([
      ["id": "a", "type": "video", "source": "a.mp4"],
      ["id": "b", "type": "image", "source": "b.png"],
    ])
  }

  /// Writes a job file; sources are paths relative to the fixture folder.
  @discardableResult
  public func job(_ banners: [[String: Any]], name: String = "home", settings: [String: Any]? = nil,
           baseURL: String? = "https://cdn.example.com/home/", file: String = "job.json") throws -> URL {
    var doc: [String: Any] = ["name": name, "banners": banners]
    if let baseURL { doc["base_url"] = baseURL }
    var settings = settings
    if !twins {
      var lean = settings ?? [:]
      if lean["video_codecs"] == nil { lean["video_codecs"] = ["h264"] }
      if lean["image_formats"] == nil { lean["image_formats"] = ["webp", "jpeg"] }
      settings = lean
    }
    if let settings { doc["settings"] = settings }
    let url = dir.appendingPathComponent(file)
    try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys]).write(to: url)
    return url
  }

  /// The standard 4-item job: two videos (one silent), a PNG and a JPEG;
  /// `extra` banners are appended.
  @discardableResult
  public func fourItemJob(file: String = "job.json", extra: [[String: Any]] = []) throws -> URL {
    try clip("a.mp4", hue: 0)
    try clip("b.mp4", hue: 120, tone: nil)
    try png("c.png")
    try jpeg("d.jpg")
    return try job([
      ["id": "clip-a", "type": "video", "source": "a.mp4", "link": "https://example.com/a"],
      ["id": "clip-b", "type": "video", "source": "b.mp4", "cover": "first"],
      ["id": "product", "type": "image", "source": "c.png"],
      ["id": "photo", "type": "image", "source": "d.jpg", "link": "https://example.com/d"],
    ] + extra, file: file)
  }

  /// A job on the library API.
  public func readJob(_ file: String = "job.json") throws -> Job {
    try JobReader().read(contentsOf: dir.appendingPathComponent(file))
  }
}

/// A fixture that could not be made.
public enum FixtureError: Error, CustomStringConvertible {
  case tool(String)
  public var description: String {
    switch self { case .tool(let text): return text }
  }
}
