import Foundation

/// The record of one item in the content-addressed store (`item.json` beside
/// its `files/` folder): what the stages produced, with every path relative
/// to `files/`, so the same outputs can be linked into any bundle under any
/// folder.
///
/// Values that only banners.json carries (`id`, `link`, `autoplay`,
/// `muted`) are not stored; they come from the job when the bundle is
/// assembled.
struct StoredItem: Codable, Sendable, Equatable {
  /// Version of this record's layout.
  static let recordFormat = 1
  static let recordName = "item.json"

  struct Video: Codable, Sendable, Equatable {
    var playlistPath: String
    var mp4Path: String
    var coverPath: String
    var coverJPEGPath: String
    var darkCoverPath: String
    var darkCoverJPEGPath: String
    /// The cover's AVIF pair; absent with AVIF off.
    var coverAVIFPath: String? = nil
    var darkCoverAVIFPath: String? = nil
    var duration: Double
    var width: Int
    var height: Int
    var urlChoice: String
  }

  struct ImageWidth: Codable, Sendable, Equatable {
    var width: Int
    var height: Int
    var webpPath: String
    var jpegPath: String
    /// Absent for animations and with AVIF off.
    var avifPath: String? = nil
  }

  struct Image: Codable, Sendable, Equatable {
    var path: String
    var jpegPath: String
    var darkPath: String
    var darkJPEGPath: String
    /// The widest rendition's AVIF pair; absent for animations and with
    /// AVIF off.
    var avifPath: String? = nil
    var darkAVIFPath: String? = nil
    var width: Int
    var height: Int
    var widths: [ImageWidth]
  }

  struct File: Codable, Sendable, Equatable {
    /// Relative to `files/`.
    var path: String
    var size: Int64
    /// Modification time in ns since 1970 when stored: bundles hard-link
    /// store files, so a bundle file edited in place changes it here too.
    var modified: Int64?
  }

  var format: Int
  /// The item fingerprint (`ItemFingerprint.hash`).
  var hash: String
  var kind: String
  var video: Video?
  var image: Image?
  var warnings: [String]
  var summary: String
  /// Every file under `files/`, sorted by path.
  var files: [File]
  /// Seconds the build took.
  var buildSeconds: Double
  /// Whether the outputs were decoded and checked before they were stored.
  var verified: Bool
  /// Where the dark pictures came from; absent (`nil`) for `generated`, so
  /// a generated item's record reads as it did before the policy existed
  /// (and records written then read as generated).
  var darkPolicy: DarkPolicyKind?

  /// `darkPolicy`, absent meaning generated.
  var dark: DarkPolicyKind { darkPolicy ?? .generated }

  /// A video built from a damaged or truncated source
  /// (`allow_damaged_sources`): what was wrong with it. Absent for a
  /// sound source and in records written before it existed. The setting is
  /// not in the fingerprint, so reuse reads this: without the setting the
  /// item fails with `failureReason` instead of being reused.
  var health: SourceHealth? = nil
  /// The item's placeholder (`Placeholder`); absent in records written
  /// before it existed (output format 7 and older, never reused now).
  var placeholder: Placeholder? = nil
  /// What the fingerprint was made of (`ItemFingerprint.inputs`), so a
  /// later `build --check` can say whether the source or a setting
  /// changed (`ItemFingerprint.changes(since:)`); absent in records
  /// written before it existed.
  var inputs: Inputs? = nil

  /// The inputs of an item's fingerprint besides the fixed text around
  /// them: the source's SHA-256 and the canonical settings text (which
  /// holds the poster's and the designer's dark picture's digests).
  struct Inputs: Codable, Sendable, Equatable {
    var sourceDigest: String
    var settings: String
  }

  var totalBytes: Int64 { files.reduce(0) { $0 + $1.size } }

  /// Records `entry` as the stages made it: its paths relative to the
  /// item's folder, kept as they are.
  ///
  /// - Throws: `MarqueeError` when a path is empty, absolute, or has an
  ///   empty, `.` or `..` component (it would leave the item's files).
  init(entry: ManifestEntry, hash: String, warnings: [String], summary: String,
       files: [File], buildSeconds: Double) throws(MarqueeError) {
    func inside(_ path: String?) throws(MarqueeError) -> String? {
      guard let path else { return nil }
      return try inside(path) as String
    }
    func inside(_ path: String) throws(MarqueeError) -> String {
      let parts = path.split(separator: "/", omittingEmptySubsequences: false)
      guard !path.isEmpty, !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
        throw MarqueeError.store("output \(path) is not a path inside the item's folder")
      }
      return path
    }
    format = Self.recordFormat
    self.hash = hash
    self.warnings = warnings
    self.summary = summary
    self.files = files
    self.buildSeconds = buildSeconds
    verified = false
    switch entry {
    case .video(let v):
      kind = BannerKind.video.rawValue
      placeholder = v.placeholder
      darkPolicy = v.darkPolicy == .generated ? nil : v.darkPolicy
      video = Video(
        playlistPath: try inside(v.playlistPath), mp4Path: try inside(v.mp4Path), coverPath: try inside(v.coverPath),
        coverJPEGPath: try inside(v.coverJPEGPath), darkCoverPath: try inside(v.darkCoverPath),
        darkCoverJPEGPath: try inside(v.darkCoverJPEGPath), duration: v.duration, width: v.width, height: v.height,
        urlChoice: v.urlChoice.rawValue)
      video?.coverAVIFPath = try inside(v.coverAVIFPath)
      video?.darkCoverAVIFPath = try inside(v.darkCoverAVIFPath)
      image = nil
    case .image(let i):
      kind = BannerKind.image.rawValue
      placeholder = i.placeholder
      var widths: [ImageWidth] = []
      for w in i.widths {
        widths.append(ImageWidth(width: w.width, height: w.height, webpPath: try inside(w.webpPath), jpegPath: try inside(w.jpegPath),
                                 avifPath: try inside(w.avifPath)))
      }
      darkPolicy = i.darkPolicy == .generated ? nil : i.darkPolicy
      image = Image(
        path: try inside(i.path), jpegPath: try inside(i.jpegPath), darkPath: try inside(i.darkPath),
        darkJPEGPath: try inside(i.darkJPEGPath), avifPath: try inside(i.avifPath), darkAVIFPath: try inside(i.darkAVIFPath),
        width: i.width, height: i.height, widths: widths)
      video = nil
    }
  }

  /// The manifest entry for `spec` with the outputs under `folder` in the
  /// bundle.
  ///
  /// - Throws: `MarqueeError` when the record does not match the spec's kind.
  func entry(for spec: BannerSpec, folder: String) throws(MarqueeError) -> ManifestEntry {
    func at(_ p: String) -> String { folder + "/" + p }
    switch (spec.kind, video, image) {
    case (.video, let v?, _):
      var entry = VideoManifestEntry(
        id: spec.id, playlistPath: at(v.playlistPath), mp4Path: at(v.mp4Path), coverPath: at(v.coverPath),
        coverJPEGPath: at(v.coverJPEGPath), darkCoverPath: at(v.darkCoverPath), darkCoverJPEGPath: at(v.darkCoverJPEGPath),
        duration: v.duration, width: v.width, height: v.height, autoplay: spec.autoplay, muted: spec.muted,
        link: spec.link, urlChoice: VideoURLChoice(rawValue: v.urlChoice) ?? .hls, darkPolicy: dark)
      entry.placeholder = placeholder
      entry.coverAVIFPath = v.coverAVIFPath.map(at)
      entry.darkCoverAVIFPath = v.darkCoverAVIFPath.map(at)
      return .video(entry)
    case (.image, _, let i?):
      var entry = ImageManifestEntry(
        id: spec.id, path: at(i.path), jpegPath: at(i.jpegPath), darkPath: at(i.darkPath), darkJPEGPath: at(i.darkJPEGPath),
        width: i.width, height: i.height, link: spec.link,
        widths: i.widths.map {
          var rung = ImageWidthEntry(width: $0.width, height: $0.height, webpPath: at($0.webpPath), jpegPath: at($0.jpegPath))
          rung.avifPath = $0.avifPath.map(at)
          return rung
        },
        darkPolicy: dark, avifPath: i.avifPath.map(at), darkAVIFPath: i.darkAVIFPath.map(at))
      entry.placeholder = placeholder
      return .image(entry)
    default:
      throw MarqueeError.store("store object \(hash.prefix(16)) holds a \(kind), not a \(spec.kind.rawValue)")
    }
  }

  /// What `VideoAssetVerifier` / `ImageAssetVerifier` check for this
  /// record, paths relative to `files/`.
  func verification(id: String, autoplay: Bool, muted: Bool) -> (video: VideoAssets?, image: ImageAssets?) {
    if let v = video {
      let url = v.urlChoice == VideoURLChoice.mp4.rawValue ? v.mp4Path : v.playlistPath
      var covers = [("cover_url", v.coverPath, false), ("cover_jpeg_url", v.coverJPEGPath, false),
                    ("cover_dark_url", v.darkCoverPath, true), ("cover_dark_jpeg_url", v.darkCoverJPEGPath, true)]
      if let avif = v.coverAVIFPath { covers.append(("cover_avif_url", avif, false)) }
      if let avif = v.darkCoverAVIFPath { covers.append(("cover_dark_avif_url", avif, true)) }
      return (VideoAssets(
        id: id, urlPath: url, masterPath: v.playlistPath, mp4Path: v.mp4Path,
        covers: covers,
        width: v.width, height: v.height, duration: ManifestEmitter.roundedDuration(v.duration), darkPolicy: dark,
        placeholder: placeholder), nil)
    }
    if let i = image {
      var files: [ImageAssets.File] = [
        .init(key: "url", path: i.path, width: i.width, height: i.height),
        .init(key: "jpeg_url", path: i.jpegPath, width: i.width, height: i.height),
        .init(key: "dark_url", path: i.darkPath, width: i.width, height: i.height),
        .init(key: "dark_jpeg_url", path: i.darkJPEGPath, width: i.width, height: i.height),
      ]
      if let avif = i.avifPath { files.append(.init(key: "avif_url", path: avif, width: i.width, height: i.height)) }
      if let avif = i.darkAVIFPath { files.append(.init(key: "dark_avif_url", path: avif, width: i.width, height: i.height)) }
      for (n, w) in i.widths.enumerated() {
        files.append(.init(key: "sources[\(n)].url", path: w.webpPath, width: w.width, height: w.height))
        files.append(.init(key: "sources[\(n)].jpeg_url", path: w.jpegPath, width: w.width, height: w.height))
        if let avif = w.avifPath {
          files.append(.init(key: "sources[\(n)].avif_url", path: avif, width: w.width, height: w.height))
        }
      }
      return (nil, ImageAssets(id: id, files: files, darkPolicy: dark, placeholder: placeholder))
    }
    return (nil, nil)
  }
}
