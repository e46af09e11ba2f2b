import Foundation
import MediaIO

/// What ``DarkVariantCheck`` found for pairs of encoded files (a light
/// picture and its dark variant), each pair named by the SHA-256 of the two
/// files' bytes.
///
/// The build judges a still's dark variant as it is published (the files
/// encoded, decoded and checked, ``ImageRenderer``); the build's own check
/// of its outputs then reads the same files back from the staging folder.
/// A pair whose bytes on disk are the bytes that were judged (the same two
/// digests) takes that judgement; any other pair, a file changed or written
/// wrongly, is judged afresh. The rules are a function of the decoded pixels,
/// and libwebp's and libjpeg-turbo's decoders of the bytes, so the result is
/// the one a second judgement would give. `marquee verify` has none and
/// judges every pair.
public struct DarkJudgements: Sendable, Equatable {
  private struct Pair: Hashable, Sendable {
    let light: SHA256.Digest
    let dark: SHA256.Digest
  }

  private var problems: [Pair: [String]] = [:]

  public init() {}

  /// Records the problems found (empty: the pair passes) for the files
  /// `light` and `dark`.
  mutating func record(light: Data, dark: Data, problems found: [String]) {
    record(light: SHA256.hash(light), dark: SHA256.hash(dark), problems: found)
  }

  /// Records the problems found for the files whose bytes have the digests
  /// `light` and `dark`.
  mutating func record(light: SHA256.Digest, dark: SHA256.Digest, problems found: [String]) {
    problems[Pair(light: light, dark: dark)] = found
  }

  /// The problems recorded for exactly these bytes, or nil when the pair
  /// was never judged.
  func problems(light: Data, dark: Data) -> [String]? {
    guard !problems.isEmpty else { return nil }
    return problems(light: SHA256.hash(light), dark: SHA256.hash(dark))
  }

  /// The problems recorded for the files with these digests, or nil.
  func problems(light: SHA256.Digest, dark: SHA256.Digest) -> [String]? {
    problems[Pair(light: light, dark: dark)]
  }

  /// Keeps only the pairs whose two files are among `files` (the published
  /// ones; a rejected candidate's pairs are dropped).
  func published(_ files: [Data]) -> DarkJudgements {
    published(Set(files.map { SHA256.hash($0) }))
  }

  /// Keeps only the pairs whose two files' digests are among `digests`.
  func published(_ digests: Set<SHA256.Digest>) -> DarkJudgements {
    var kept = DarkJudgements()
    kept.problems = problems.filter { digests.contains($0.key.light) && digests.contains($0.key.dark) }
    return kept
  }

  /// How many pairs are recorded.
  var count: Int { problems.count }
}
