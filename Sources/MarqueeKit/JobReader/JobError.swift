/// A problem with a job file: it is missing, unreadable, not JSON, or breaks
/// the job format.
///
/// Every error names the job file and the JSON path of the offending value,
/// so a user can go straight to it:
///
/// ```
/// Pipelines/home.json: banners[3].source: expected a string, found a number
/// ```
///
/// `JobReader` reports the first problem it finds, checking the document in
/// a fixed order (root keys, `name`, `base_url`, `settings`, then each banner
/// in order), so the same file always gives the same error.
public struct JobError: Error, CustomStringConvertible, Sendable, Equatable {
  /// The job file path as the caller gave it (`URL.relativePath` of a file
  /// URL), e.g. `Pipelines/home.json`.
  public var file: String
  /// The JSON path of the offending value, e.g. `banners[3].source` or
  /// `settings.segment_duration`; `""` for the document as a whole (a missing
  /// file, a JSON syntax error, a root that is not an object).
  public var path: String
  /// What is wrong and, where it helps, how to fix it. Starts lower-case.
  public var reason: String
  /// Further problems found in the same pass, in document order (at most
  /// one per part of the job: root keys, `name`, `base_url`, `settings`,
  /// each banner). `marquee validate` lists them all.
  public var more: [JobError] = []

  /// This problem and the further ones, in document order.
  public var all: [JobError] {
    var first = self
    first.more = []
    return [first] + more.flatMap(\.all)
  }

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - file: The job file path as given.
  ///   - path: The JSON path, or `""` for the document root.
  ///   - reason: What is wrong.
  public init(file: String, path: String, reason: String) {
    self.file = file
    self.path = path
    self.reason = reason
  }

  /// `file: path: reason`, or `file: reason` when the path is empty; with
  /// further problems, how many and where to see them.
  public var description: String {
    let first = path.isEmpty ? "\(file): \(reason)" : "\(file): \(path): \(reason)"
    let others = all.count - 1
    guard others > 0 else { return first }
    return first + " (and \(others) more problem\(others == 1 ? "" : "s"); `marquee validate \(file)` lists them)"
  }
}
