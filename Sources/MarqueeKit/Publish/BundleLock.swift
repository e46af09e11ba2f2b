import Foundation

internal import CFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive lock on one bundle of an output root, so two runs never
/// build or publish the same bundle at once.
///
/// `flock(2)` on `<out>/.marquee/locks/<name>.lock`: the kernel releases it
/// when the process exits, however it exits (SIGKILL included), so a lock
/// is never stale. The holder writes its host, process id, start time and
/// command into the file for the message a second run prints. The file
/// itself is never removed (removing a lock file races with a waiter).
///
/// The file is opened without following a symbolic link on the way or at
/// the end, and must be a regular file with one link
/// (`FileSystem.openOwnedFileForWriting`): the holder truncates it, so a
/// planted link would otherwise truncate whatever file it names.
final class BundleLock {
  private var descriptor: Int32
  /// Whether this process holds the lock: only the holder writes or clears
  /// the holder text (a losing run must leave the winner's name in place).
  private var held = false
  let url: URL

  private init(descriptor: Int32, url: URL) {
    self.descriptor = descriptor
    self.url = url
  }

  deinit { release() }

  /// The lock file for `bundleName` under `outputRoot`.
  static func url(outputRoot: URL, bundleName: String) -> URL {
    outputRoot.appendingPathComponent(relativePath(bundleName: bundleName))
  }

  /// The lock file relative to the output root.
  static func relativePath(bundleName: String) -> String { ".marquee/locks/\(bundleName).lock" }

  /// Takes the lock of `bundleName` under `outputRoot`.
  ///
  /// - Parameters:
  ///   - wait: wait for the holder to finish instead of failing.
  ///   - onWait: called once with the holder's description before waiting.
  ///   - command: what this run is, written for others to read.
  /// - Throws: `Busy` naming the holder when the lock is taken and `wait`
  ///   is false; `MarqueeError` when the lock file cannot be opened, or is a
  ///   link, not a regular file, or has other hard links.
  static func acquire(outputRoot: URL, bundleName: String, wait: Bool, command: String,
                      onWait: (String) -> Void) async throws -> BundleLock {
    let url = Self.url(outputRoot: outputRoot, bundleName: bundleName)
    let fd = try FileSystem.openOwnedFileForWriting(root: outputRoot, relativePath(bundleName: bundleName))
    let lock = BundleLock(descriptor: fd, url: url)
    if marquee_flock(fd, 1, 0) != 0 {
      let code = errno
      guard marquee_is_would_block(code) != 0 else { throw FileSystem.failure("cannot lock", url.path, code) }
      let holder = lock.holderText()
      guard wait else { throw MarqueeError(.locked, holder) }
      onWait(holder)
      let status = await Worker.run { marquee_flock(fd, 1, 1) == 0 ? Int32(0) : errno }
      if status != 0 { throw FileSystem.failure("cannot lock", url.path, status) }
    }
    lock.held = true
    lock.writeHolder(command: command)
    return lock
  }

  /// What the holder wrote, or a fallback naming the file.
  private func holderText() -> String {
    var buffer = [UInt8](repeating: 0, count: 4096)
    let n = pread(descriptor, &buffer, buffer.count, 0)
    let text = n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
    return text.isEmpty ? "another run (lock file \(url.path))" : text
  }

  private func writeHolder(command: String) {
    let owner = ProcessOwner.current
    let text = "pid \(owner.pid) on host \(owner.host), since \(LogLine.timestamp(Date(), milliseconds: false)) (\(command))\n"
    _ = ftruncate(descriptor, 0)
    _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
  }

  /// Releases the lock (also on deinit).
  func release() {
    guard descriptor >= 0 else { return }
    if held { _ = ftruncate(descriptor, 0) }
    held = false
    // Unlock explicitly: a child forked by another thread may share the
    // descriptor until it execs, and close alone would not release it then.
    _ = marquee_funlock(descriptor)
    close(descriptor)
    descriptor = -1
  }
}
