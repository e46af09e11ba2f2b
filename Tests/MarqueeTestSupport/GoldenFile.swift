import Foundation

/// Golden files: text outputs (playlists, banners.json, `--help`, error and
/// log lines) compared with a file checked in under `Tests/Golden/`.
///
/// `MARQUEE_RECORD_GOLDEN=1 swift test` writes the current text instead of
/// comparing (then review the diff with git). A mismatch names the golden
/// file and the first differing line, both versions of it, and the line
/// counts, never a diff of the whole text.
public enum GoldenFile {
  /// The folder the golden files live in: `Tests/Golden` of this checkout.
  public static let folder: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Golden", isDirectory: true)

  /// Whether this run records instead of comparing.
  public static var recording: Bool { ProcessInfo.processInfo.environment["MARQUEE_RECORD_GOLDEN"] == "1" }

  /// Compares `text` with the golden file `name` (a path under
  /// `Tests/Golden`, such as `transcoder/master.m3u8`).
  ///
  /// - Returns: nil when they are equal (or when recording), else a
  ///   one-paragraph description of the first difference.
  public static func mismatch(_ text: String, name: String) -> String? {
    let url = folder.appendingPathComponent(name)
    if recording {
      try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try? Data(text.utf8).write(to: url, options: .atomic)
      return nil
    }
    guard let data = FileManager.default.contents(atPath: url.path) else {
      return "golden file Tests/Golden/\(name) is missing: run MARQUEE_RECORD_GOLDEN=1 swift test --filter <this test>"
    }
    let expected = String(decoding: data, as: UTF8.self)
    if expected == text { return nil }
    let a = expected.split(separator: "\n", omittingEmptySubsequences: false)
    let b = text.split(separator: "\n", omittingEmptySubsequences: false)
    let line = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
    let want = line < a.count ? String(a[line]) : "<end of file>"
    let got = line < b.count ? String(b[line]) : "<end of text>"
    return "differs from Tests/Golden/\(name) at line \(line + 1) (golden \(a.count) lines, now \(b.count)):\n"
      + "  golden: \(want)\n  now:    \(got)\n(re-record with MARQUEE_RECORD_GOLDEN=1 if the change is meant)"
  }
}
