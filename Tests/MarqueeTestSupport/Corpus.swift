import Foundation

/// The real-media corpus in `../shared/corpus` (see its SOURCES.md).
///
/// When the folder is absent, corpus tests skip with a message; when the
/// environment sets `MARQUEE_REQUIRE_CORPUS=1` (CI does), a missing corpus
/// or file is a failure instead.
public enum Corpus {
  /// The repository root, from this file's location.
  public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// `../shared/corpus` beside the repository, or `MARQUEE_CORPUS` if set.
  public static var folder: URL {
    if let env = ProcessInfo.processInfo.environment["MARQUEE_CORPUS"], !env.isEmpty {
      return URL(fileURLWithPath: env, isDirectory: true)
    }
    return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus", isDirectory: true)
  }

  /// Whether a missing corpus must fail rather than skip.
  public static var isRequired: Bool { ProcessInfo.processInfo.environment["MARQUEE_REQUIRE_CORPUS"] == "1" }

  /// Whether the corpus folder exists.
  public static var isAvailable: Bool { FileManager.default.fileExists(atPath: folder.path) }

  /// Why corpus tests are disabled, for `.enabled(if:)` traits; nil if they run.
  public static var skipReason: String? {
    if isAvailable || isRequired { return nil }
    return "corpus not found at \(folder.path); set MARQUEE_CORPUS or MARQUEE_REQUIRE_CORPUS=1"
  }

  /// The URL of a corpus file.
  ///
  /// - Throws: `CorpusError.missing` when it does not exist (with
  ///   `MARQUEE_REQUIRE_CORPUS=1`, or when the corpus folder exists but lacks it).
  public static func url(_ name: String) throws -> URL {
    let url = folder.appendingPathComponent(name)
    guard FileManager.default.fileExists(atPath: url.path) else { throw CorpusError.missing(url.path) }
    return url
  }
}

public enum CorpusError: Error, CustomStringConvertible {
  case missing(String)
  public var description: String {
    switch self { case .missing(let p): return "corpus file missing: \(p)" }
  }
}
