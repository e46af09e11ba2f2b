import Foundation

/// One way a bundle breaks the playback constraints
/// (docs/playback-constraints.md) or the HLS rules: which item, which file,
/// what is wrong.
public struct Violation: Sendable, Equatable, CustomStringConvertible {
  /// The banner id, or `nil` for the bundle as a whole.
  public var item: String?
  /// The file, relative to the bundle folder (`banners.json`,
  /// `videos/spring-3fa9…/720p/segment_00002.m4s`).
  public var file: String
  /// What is wrong, starting lower-case.
  public var problem: String

  public init(item: String?, file: String, problem: String) {
    self.item = item
    self.file = file
    self.problem = problem
  }

  /// `spring: videos/spring-3fa9…/cover.webp: cover is black (mean luma 3)`.
  public var description: String { "\(item ?? "(bundle)"): \(file): \(problem)" }
}

/// What `BundleVerifier` found.
public struct VerifyReport: Sendable {
  /// Every violation, in bundle order (banners.json first, then each item).
  public var violations: [Violation]
  /// Things worth a look that do not break playback (more than ten items).
  public var warnings: [String]
  /// Banner items checked.
  public var itemCount: Int
  /// Files checked (opened, parsed or decoded).
  public var fileCount: Int
  public var isValid: Bool { violations.isEmpty }
}

/// How thoroughly to verify.
public struct VerifyOptions: Sendable {
  /// Decode media: every HLS segment (init + segment, first picture must be
  /// a keyframe), the MP4's streams, covers (not black, not blank) and
  /// images. Without it only structure is checked: banners.json, files
  /// present, playlists, durations, box order, image headers.
  public var decodeMedia: Bool
  /// With `decodeMedia`: decode every picture and audio frame of every
  /// segment and MP4 with strict error recognition, not just the first
  /// picture, so damage in the middle of a segment is found. On by default
  /// (`marquee verify`); `build` checks an item it has just encoded by its
  /// first pictures (its bytes come straight from the encoder).
  public var everyPicture: Bool
  /// Bundle-relative folders whose media were decoded and checked when they
  /// entered the content-addressed store (and whose files still match the
  /// store's record): only their structure is checked again.
  public var trustedFolders: Set<String>
  /// What covers and images are shown on, for "darker as shown"
  /// (`PictureLook`). A bundle's banners.json names its own (`surfaces`),
  /// which win over this.
  public var surfaces: PictureLook.Surfaces = .standard

  public init(decodeMedia: Bool = true, everyPicture: Bool = true, trustedFolders: Set<String> = []) {
    self.decodeMedia = decodeMedia
    self.everyPicture = everyPicture
    self.trustedFolders = trustedFolders
  }
}

/// Finds a verified item's files: paths relative to a root folder, shown in
/// messages relative to the bundle.
struct AssetFiles: Sendable {
  /// The folder paths are relative to.
  let root: URL
  /// Prepended to a path in messages (`""` for a bundle, the item's bundle
  /// folder for a store object).
  let displayPrefix: String

  func url(_ path: String) -> URL { root.appendingPathComponent(path) }
  func display(_ path: String) -> String { displayPrefix.isEmpty ? path : displayPrefix + "/" + path }

  /// The file's size, or `nil` when it is missing, not a regular file, or
  /// reached through a symbolic link (`FileSystem.ownedIdentity`: no link
  /// inside the bundle is followed, so nothing outside it is checked or
  /// read as if it were part of it).
  func size(_ path: String) -> Int64? {
    guard let id = FileSystem.ownedIdentity(root: root, path), id.isRegularFile else { return nil }
    return id.size
  }

  /// Opens a bundle file without following a link (`ReadableFile.open(_:beneath:)`).
  func open(_ path: String) throws(MediaIOError) -> ReadableFile {
    try ReadableFile.open(path, beneath: root.path)
  }

  /// A text file of the bundle (a playlist), at most `limit` bytes, or
  /// `nil` when it is missing, a link, too large or not UTF-8.
  func text(_ path: String, limit: Int64 = 16 << 20) -> String? {
    guard let data = try? open(path).readAll(limit: limit) else { return nil }
    return String(data: data, encoding: .utf8)
  }

  /// Opens a bundle image (`ImageSource.open(file:…)`) within `limits`.
  func image(_ path: String, limits: InputLimits) throws(MediaIOError) -> ImageSource {
    try imageAndBytes(path, limits: limits).source
  }

  /// ``image(_:limits:)``, with the file's bytes as read.
  func imageAndBytes(_ path: String, limits: InputLimits) throws(MediaIOError) -> (source: ImageSource, data: Data) {
    let file = try open(path)
    try limits.check(file)
    let data = try file.readAll()
    return (try ImageSource.open(data: data, path: url(path).path, limits: limits), data)
  }
}
