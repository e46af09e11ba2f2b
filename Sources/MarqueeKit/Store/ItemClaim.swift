import Foundation

internal import CFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A claim on one item fingerprint of a store, so that builds sharing an
/// output root (cron jobs, a CI matrix, shards) encode each shared item
/// once: the first to claim it encodes it, the others wait and then reuse
/// what it stored.
///
/// `flock(2)` on `<out>/.marquee/store/claims/<fingerprint>.lock`, as the
/// bundle lock (`BundleLock`): the kernel releases it when its holder
/// exits, however it exits, so a build killed with SIGKILL hands the item
/// to a waiter, which finds no object and encodes it itself. Whoever holds
/// the claim looks in the store again before encoding (`AssetStore.record`):
/// the object may have been stored while it waited.
///
/// The file is opened without following a symbolic link
/// (`FileSystem.openOwnedFileForWriting`) and never removed while its
/// object is wanted (removing a lock file races with a waiter); `prune`
/// removes the claims of objects long gone. Holding it is what counts:
/// the file holds nothing.
final class ItemClaim: @unchecked Sendable {
  private var descriptor: Int32
  /// Whether acquiring had to wait for another holder.
  let waited: Bool

  private init(descriptor: Int32, waited: Bool) {
    self.descriptor = descriptor
    self.waited = waited
  }

  deinit { release() }

  /// The claim file of `hash` relative to the output root.
  static func relativePath(_ hash: String) -> String { "\(AssetStore.claimsFolder)/\(hash).lock" }

  /// Claims `hash` in `store`, waiting (on the calling thread) while
  /// another process holds it.
  ///
  /// - Parameter onWait: called once before waiting.
  /// - Throws: `MarqueeError` when the claim file cannot be opened or
  ///   locked (a link, not a regular file, a read-only store).
  static func acquire(_ hash: String, in store: AssetStore, onWait: () -> Void) throws(MarqueeError) -> ItemClaim {
    precondition(hash.count == 64 && hash.allSatisfy(\.isHexDigit))
    let path = relativePath(hash)
    let fd = try FileSystem.openOwnedFileForWriting(root: store.outputRoot, path)
    var waited = false
    if marquee_flock(fd, 1, 0) != 0 {
      let code = errno
      guard marquee_is_would_block(code) != 0 else {
        close(fd)
        throw FileSystem.failure("cannot lock", store.outputRoot.appendingPathComponent(path).path, code)
      }
      onWait()
      waited = true
      if marquee_flock(fd, 1, 1) != 0 {
        let code = errno
        close(fd)
        throw FileSystem.failure("cannot lock", store.outputRoot.appendingPathComponent(path).path, code)
      }
    }
    // Its age tells `prune` it is in use.
    _ = futimens(fd, nil)
    return ItemClaim(descriptor: fd, waited: waited)
  }

  /// Gives the claim up (closing the descriptor releases the lock).
  func release() {
    guard descriptor >= 0 else { return }
    close(descriptor)
    descriptor = -1
  }
}
