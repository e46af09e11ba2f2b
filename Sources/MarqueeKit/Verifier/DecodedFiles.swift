import Foundation
import MediaIO

/// Pictures the build already decoded from files it wrote, each named by the
/// SHA-256 of the file's bytes.
///
/// The image renderer decodes a still's widest light and dark files to judge
/// the dark variant as published (``DarkJudgements``); the placeholder and
/// the build's own check of its outputs then read the same files back from
/// the staging folder. A file whose bytes on disk have the digest of a
/// recorded one takes the recorded picture instead of being decoded again:
/// libwebp's and libjpeg-turbo's decoders are functions of the bytes, so
/// the picture is the one a second decode would give. Any other bytes are
/// decoded afresh; `marquee verify` has none and decodes every file.
public struct DecodedFiles: Sendable, Equatable {
  private var pictures: [SHA256.Digest: RGBAImage] = [:]
  private var thumbnails: [SHA256.Digest: Placeholder.Thumbnail] = [:]

  public init() {}

  /// Records `picture`, decoded from the file bytes `data`.
  mutating func record(_ data: Data, picture: RGBAImage) {
    pictures[SHA256.hash(data)] = picture
  }

  /// The picture recorded for exactly these bytes, or nil.
  func picture(for data: Data) -> RGBAImage? {
    guard !pictures.isEmpty else { return nil }
    return pictures[SHA256.hash(data)]
  }

  /// Records the placeholder's thumbnail of the picture in the file bytes
  /// `data`.
  mutating func record(_ data: Data, thumbnail: Placeholder.Thumbnail) {
    thumbnails[SHA256.hash(data)] = thumbnail
  }

  /// The thumbnail recorded for exactly these bytes, or nil.
  func thumbnail(for data: Data) -> Placeholder.Thumbnail? {
    guard !thumbnails.isEmpty else { return nil }
    return thumbnails[SHA256.hash(data)]
  }

  /// Keeps only the pictures of `files` (the published ones; a rejected
  /// candidate's pictures are dropped).
  func published(_ files: [Data]) -> DecodedFiles {
    let digests = Set(files.map { SHA256.hash($0) })
    var kept = DecodedFiles()
    kept.pictures = pictures.filter { digests.contains($0.key) }
    kept.thumbnails = thumbnails.filter { digests.contains($0.key) }
    return kept
  }

  /// How many pictures are recorded.
  var count: Int { pictures.count }
}
