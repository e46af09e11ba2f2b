import Foundation

internal import CFileSystem

/// Hooks that let tests stop a run at a chosen moment. Each is read from the
/// environment and does nothing unless its variable is set.
///
/// They exist only in debug builds (`swift build`, `swift test`); in a
/// release build (`swift build -c release`, `make dist`) every hook is an
/// empty inline function, so no environment variable can change what a
/// shipped binary does.
enum TestHooks {
  /// Where `MARQUEE_TEST_FAIL_AT=<point>` makes a stage fail, so tests can
  /// reach error paths that real media reach only by chance.
  enum FailPoint: String {
    /// A rendition worker's encoder flush (after the last picture).
    case renditionFlush = "rendition-flush"
    /// An HEVC twin's encode of a picture its H.264 rendition's worker
    /// scaled for it (`RenditionWorker`'s `.scaled`).
    case fedPicture = "fed-picture"
  }

  struct InjectedFailure: Error, CustomStringConvertible {
    var point: FailPoint
    var description: String { "test failure injected at \(point.rawValue)" }
  }

  #if DEBUG
  /// `MARQUEE_TEST_HOLD_LOCK=<file>`: after taking the bundle lock, wait
  /// until `<file>` exists, so a test can start a second run while this one
  /// certainly holds the lock.
  static func holdLockIfAsked() async {
    guard let path = ProcessInfo.processInfo.environment["MARQUEE_TEST_HOLD_LOCK"], !path.isEmpty else { return }
    while !FileManager.default.fileExists(atPath: path) {
      try? await Task.sleep(nanoseconds: 20_000_000)
    }
  }

  /// `MARQUEE_TEST_HOLD_CLAIM=<file>`: after claiming an item in the
  /// store (`ItemClaim`), create `<file>.claimed-<the fingerprint's first 16
  /// hex digits>` and wait until `<file>` exists, so a test can start other
  /// runs, or kill this one, while it certainly holds the claim. Runs on a
  /// worker thread.
  static func holdClaimIfAsked(_ hash: String) {
    guard let path = ProcessInfo.processInfo.environment["MARQUEE_TEST_HOLD_CLAIM"], !path.isEmpty else { return }
    FileManager.default.createFile(atPath: "\(path).claimed-\(hash.prefix(16))", contents: nil)
    while !FileManager.default.fileExists(atPath: path) { usleep(20_000) }
  }

  static let failPoint = ProcessInfo.processInfo.environment["MARQUEE_TEST_FAIL_AT"].flatMap(FailPoint.init(rawValue:))

  /// Throws `InjectedFailure` when `MARQUEE_TEST_FAIL_AT` names `point`.
  static func failIfAsked(_ point: FailPoint) throws {
    if failPoint == point { throw InjectedFailure(point: point) }
  }

  static let armedCrashPoint = ProcessInfo.processInfo.environment["MARQUEE_TEST_CRASH_AT"]

  /// SIGKILLs the process when `MARQUEE_TEST_CRASH_AT` names `point`.
  static func crashIfAsked(_ point: CrashPoint) {
    if armedCrashPoint == point.rawValue { marquee_kill_self() }
  }
  #else
  @inline(__always) static func holdLockIfAsked() async {}
  @inline(__always) static func holdClaimIfAsked(_ hash: String) {}
  @inline(__always) static func failIfAsked(_ point: FailPoint) throws {}
  @inline(__always) static func crashIfAsked(_ point: CrashPoint) {}
  #endif
}

/// Test-only crash points: with `MARQUEE_TEST_CRASH_AT=<point>` in the
/// environment a debug build SIGKILLs itself on reaching that point, so tests
/// can check what a killed run leaves behind at exactly the delicate
/// moments.
enum CrashPoint: String {
  /// After the first item is committed to the store.
  case itemStored = "item-stored"
  /// After the staging bundle is assembled, before verification.
  case staged
  /// After verification, before the switch.
  case verified
  /// After the switch, before the old bundle is removed.
  case exchanged

  func hit() { TestHooks.crashIfAsked(self) }
}

#if DEBUG
extension TestHooks {
  /// `MARQUEE_DEBUG_DUMP_RENDITIONS=<folder>` (debug builds only; a release
  /// build has no such code): every rendition worker writes the pictures it
  /// hands libx264, exactly as scaled, to `<folder>/<w>x<h>.y4m`, so a
  /// benchmark (`Benchmarks/rate_bench.py --dump`) can encode Marquee's own
  /// pixels with the ffmpeg CLI and measure SSIM against them. libavfilter
  /// does the pixel work, so a debug build's pictures are a release build's.
  final class RenditionDump {
    private let handle: FileHandle
    private let width: Int
    private let height: Int

    /// A dump for a `width`×`height` rendition at `frameRate`, or nil when
    /// the variable is unset or the file cannot be created.
    static func ifAsked(width: Int, height: Int, frameRate: Rational) -> RenditionDump? {
      guard let folder = ProcessInfo.processInfo.environment["MARQUEE_DEBUG_DUMP_RENDITIONS"], !folder.isEmpty else {
        return nil
      }
      let path = folder + "/\(width)x\(height).y4m"
      guard FileManager.default.createFile(atPath: path, contents: nil), let h = FileHandle(forWritingAtPath: path) else {
        return nil
      }
      let header = "YUV4MPEG2 W\(width) H\(height) F\(frameRate.num):\(frameRate.den) Ip A1:1 C420jpeg\n"
      h.write(Data(header.utf8))
      return RenditionDump(handle: h, width: width, height: height)
    }

    private init(handle: FileHandle, width: Int, height: Int) {
      self.handle = handle
      self.width = width
      self.height = height
    }

    deinit { try? handle.close() }

    /// Appends one `yuv420p` picture (planes without row padding).
    func write(_ frame: Frame) {
      guard frame.pixelFormatName == "yuv420p", frame.width == width, frame.height == height else { return }
      var data = Data("FRAME\n".utf8)
      let cw = (width + 1) / 2, ch = (height + 1) / 2
      for (plane, w, h) in [(0, width, height), (1, cw, ch), (2, cw, ch)] {
        frame.withPlane(plane, rows: h) { bytes, stride in
          guard let base = bytes.baseAddress else { return }
          for row in 0..<h { data.append(base + row * stride, count: w) }
        }
      }
      handle.write(data)
    }
  }
}
#endif
