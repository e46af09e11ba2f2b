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

  /// Records `picture`, decoded from the file whose bytes have the
  /// SHA-256 `digest`.
  mutating func record(_ digest: SHA256.Digest, picture: RGBAImage) {
    pictures[digest] = picture
  }

  /// The picture recorded for the file with this digest, or nil.
  func picture(for digest: SHA256.Digest) -> RGBAImage? {
    pictures[digest]
  }

  /// Records the placeholder's thumbnail of the picture in the file whose
  /// bytes have the SHA-256 `digest`.
  mutating func record(_ digest: SHA256.Digest, thumbnail: Placeholder.Thumbnail) {
    thumbnails[digest] = thumbnail
  }

  /// The thumbnail recorded for the file with this digest, or nil.
  func thumbnail(for digest: SHA256.Digest) -> Placeholder.Thumbnail? {
    thumbnails[digest]
  }

  /// Keeps only the pictures of the files whose digests are among
  /// `digests` (the published ones; a rejected candidate's pictures are
  /// dropped).
  func published(_ digests: Set<SHA256.Digest>) -> DecodedFiles {
    var kept = DecodedFiles()
    kept.pictures = pictures.filter { digests.contains($0.key) }
    kept.thumbnails = thumbnails.filter { digests.contains($0.key) }
    return kept
  }

  /// Whether nothing is recorded: a caller need not hash its files.
  var isEmpty: Bool { pictures.isEmpty && thumbnails.isEmpty }

  /// How many pictures are recorded.
  var count: Int { pictures.count }
}
