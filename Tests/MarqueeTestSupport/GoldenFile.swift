import Foundation

/// Golden files: text outputs (playlists, banners.json, `--help`, error and
/// log lines) compared with a file checked in under `Tests/Golden/`.
///
/// What a library release changes without Marquee changing is masked
/// before comparing (`Mask`): measured bit rates and byte ranges (x264's
/// byte counts) and content hashes (which include the library versions).
/// Structure, tags, keys, order and text stay as they are.
///
/// `MARQUEE_RECORD_GOLDEN=1 swift test` writes the current (masked) text
/// instead of comparing, and the test fails, saying what it wrote: review
/// the diff with git, then run again without the variable. A mismatch
/// names the golden file and the first differing line, both versions of
/// it, and the line counts, never a diff of the whole text.
public enum GoldenFile {
  /// The folder the golden files live in: `Tests/Golden` of this checkout.
  public static let folder: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Golden", isDirectory: true)

  /// Whether this run records instead of comparing.
  public static var recording: Bool { ProcessInfo.processInfo.environment["MARQUEE_RECORD_GOLDEN"] == "1" }

  /// A value that is measured, not designed: replaced by a placeholder in
  /// the text and in its golden file.
  public struct Mask: Sendable {
    /// An `NSRegularExpression` pattern matching the value alone (context
    /// in look-arounds).
    public let pattern: String
    /// What the value becomes (`<n>`, `<hash16>`).
    public let placeholder: String

    public init(_ pattern: String, _ placeholder: String) {
      self.pattern = pattern
      self.placeholder = placeholder
    }

    /// `BANDWIDTH=` and `AVERAGE-BANDWIDTH=` values (bits per second,
    /// measured from the segments' sizes).
    public static let bandwidth = Mask(#"(?<=BANDWIDTH=)\d+"#, "<n>")
    /// The length of `#EXT-X-BYTERANGE:<length>[@<offset>]`: x264's byte
    /// count. The offset stays: where a range starts in its segment is
    /// Marquee's choice (an I-frame range from the segment's start, `@0`).
    public static let byteRange = Mask(#"(?<=#EXT-X-BYTERANGE:)\d+"#, "<n>")
    /// The 16 hex digits of an item's content hash in its bundle folder
    /// (`videos/clip-45adaec261cf77e8/`): the fingerprint includes the
    /// library versions.
    public static let contentHash = Mask(#"(?<=-)[0-9a-f]{16}(?=/)"#, "<hash16>")

    /// An item's placeholder colours in banners.json (`color`,
    /// `dark_color`: the mean of its encoded picture).
    public static let placeholderColour = Mask(#"(?<="color": "|"dark_color": ")#[0-9A-F]{6}(?=")"#, "#<rgb>")
    /// An item's ThumbHashes in banners.json (`thumbhash`,
    /// `dark_thumbhash`: made from its encoded picture).
    public static let thumbHash = Mask(#"(?<="thumbhash": "|"dark_thumbhash": ")[A-Za-z0-9+/=]+(?=")"#, "<thumbhash>")

    /// Every mask of a bundle's measured values.
    public static let measured: [Mask] = [.bandwidth, .byteRange, .contentHash, .placeholderColour, .thumbHash]

    /// `text` with every match replaced by the placeholder.
    public func apply(_ text: String) -> String {
      // The patterns are constants of this file, checked by its tests.
      guard let regex = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else {
        preconditionFailure("invalid golden mask pattern \(pattern)")
      }
      return regex.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text),
                                            withTemplate: NSRegularExpression.escapedTemplate(for: placeholder))
    }
  }

  /// `text` with `masks` applied in order.
  public static func masked(_ text: String, _ masks: [Mask]) -> String {
    masks.reduce(text) { $1.apply($0) }
  }

  /// Compares `text`, masked, with the golden file `name` (a path under
  /// `Tests/Golden`, such as `bundle/master.m3u8`).
  ///
  /// - Parameters:
  ///   - masks: the measured values to mask (none for designed text such
  ///     as `--help`).
  ///   - recording: write the golden file instead of comparing
  ///     (`MARQUEE_RECORD_GOLDEN=1`).
  ///   - folder: where golden files live (`Tests/Golden`).
  /// - Returns: nil when they are equal, else a one-paragraph description
  ///   of the first difference; when recording, always what was written,
  ///   so a recording run never passes.
  public static func mismatch(_ text: String, name: String, masks: [Mask] = [], recording: Bool = GoldenFile.recording,
                              folder: URL = GoldenFile.folder) -> String? {
    let text = masked(text, masks)
    let url = folder.appendingPathComponent(name)
    if recording {
      do {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url, options: .atomic)
      } catch {
        return "MARQUEE_RECORD_GOLDEN=1: could not write Tests/Golden/\(name): \(error)"
      }
      let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
      return "MARQUEE_RECORD_GOLDEN=1: wrote Tests/Golden/\(name) (\(lines) lines, \(text.utf8.count) bytes); "
        + "review it with git diff, then run the test again without MARQUEE_RECORD_GOLDEN"
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
