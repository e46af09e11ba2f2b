import Foundation
import MarqueeKit

/// Every regular file under a folder, by relative path, with its bytes.
public enum TreeSnapshot {
  public static func of(_ folder: URL) throws -> [String: Data] {
    var result: [String: Data] = [:]
    let base = folder.standardizedFileURL.path
    guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { return [:] }
    for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
      let path = url.standardizedFileURL.path
      result[String(path.dropFirst(base.count + 1))] = try Data(contentsOf: url)
    }
    return result
  }

  /// The files that differ (missing on either side, or other bytes), each
  /// with its sizes, digests and first differing offset
  /// (`ByteComparison`).
  public static func differences(_ a: [String: Data], _ b: [String: Data]) -> [String] {
    Set(a.keys).union(b.keys).sorted().compactMap { path in
      guard let x = a[path], let y = b[path] else { return a[path] == nil ? "\(path) (only in the second)" : "\(path) (only in the first)" }
      return ByteComparison.difference(x, y).map { "\(path): \($0)" }
    }
  }
}

/// A `marquee` run whose stdout lines can be awaited while it runs: for
/// killing a run at a given event, or starting a second one while the
/// first holds the lock.
// Safe: the lines and stderr text are read and written only with `condition` locked.
public final class LiveProcess: @unchecked Sendable {
  private let process = Process()
  private let condition = NSCondition()
  private var lines: [String] = []
  private var stdoutDone = false
  private var errText = Data()
  private var errDone = false

  public init(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws {
    process.executableURL = MarqueeCLI.executable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    process.environment = MarqueeCLI.environment(environment)
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    Thread.detachNewThread { [self] in
      var pending = Data()
      while true {
        let chunk = out.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        pending.append(chunk)
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
          let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
          pending.removeSubrange(pending.startIndex...newline)
          condition.lock()
          lines.append(line)
          condition.broadcast()
          condition.unlock()
        }
      }
      condition.lock()
      stdoutDone = true
      condition.broadcast()
      condition.unlock()
    }
    Thread.detachNewThread { [self] in
      let data = err.fileHandleForReading.readDataToEndOfFile()
      condition.lock()
      errText = data
      errDone = true
      condition.broadcast()
      condition.unlock()
    }
  }

  public var pid: Int32 { process.processIdentifier }

  /// Waits for a stdout line matching `match`; `nil` when the run ended
  /// without one. (A generous safety limit keeps a broken run from hanging
  /// the suite; nothing is timed.)
  public func waitForLine(_ match: (String) -> Bool) -> String? {
    let limit = Date().addingTimeInterval(300)
    condition.lock()
    defer { condition.unlock() }
    var seen = 0
    while true {
      while seen < lines.count {
        if match(lines[seen]) { return lines[seen] }
        seen += 1
      }
      if stdoutDone || Date() > limit { return nil }
      condition.wait(until: limit)
    }
  }

  /// Waits for the JSON log event `stage`/`event` (optionally of `item`).
  public func waitForEvent(stage: String, event: String, item: String? = nil) -> String? {
    waitForLine { line in
      guard let data = line.data(using: .utf8),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return false }
      return object["stage"] as? String == stage && object["event"] as? String == event
        && (item == nil || object["item"] as? String == item)
    }
  }

  public func kill9() { kill(process.processIdentifier, SIGKILL) }

  /// Waits for the run to end: exit status (or signal) and the output.
  public func finish() -> (status: Int32, signaled: Bool, stdout: String, stderr: String) {
    process.waitUntilExit()
    condition.lock()
    let limit = Date().addingTimeInterval(60)
    while !(stdoutDone && errDone) && Date() < limit { condition.wait(until: limit) }
    let out = lines.joined(separator: "\n")
    let err = String(decoding: errText, as: UTF8.self)
    condition.unlock()
    return (process.terminationStatus, process.terminationReason == .uncaughtSignal, out, err)
  }
}

// MARK: - CLI tests

