import Foundation

/// Puts a staging bundle together from the store: every good item's files
/// hard-linked (or copied, across file systems) from its store object under
/// the item's content-addressed folder, then the nginx dark-theme rule and
/// banners.json, written last and atomically.
///
/// The manifest entries come from the stored records (`StoredItem.entry`),
/// made once per item; nothing is read back from the staged files.
struct BundleAssembler: Sendable {
  /// One item to place: its job spec, stored record and bundle folder.
  struct Item: Sendable {
    var spec: BannerSpec
    var record: StoredItem
    var folder: String
  }

  /// What was placed.
  struct Summary: Sendable {
    var items: Int
    var files: Int
  }

  let store: AssetStore
  let baseURL: String?
  let surfaces: PictureLook.Surfaces

  /// Links the items into `staging` (created) and writes banners.json.
  ///
  /// - Throws: `MarqueeError` when a folder, link or file cannot be made
  ///   (`isIO` for a full disk and the like) or banners.json is invalid.
  func assemble(_ items: [Item], into staging: URL) throws(MarqueeError) -> Summary {
    try FileSystem.makeDirectory(staging)
    var fileCount = 0
    for item in items { fileCount += try link(item, into: staging) }
    let manifest = try self.manifest(items)
    for (name, data) in Self.fixedFiles.sorted(by: { $0.key < $1.key }) {
      try FileSystem.writeAtomically(data, to: staging.appendingPathComponent(name))
    }
    try FileSystem.writeAtomically(manifest, to: staging.appendingPathComponent("banners.json"))
    return Summary(items: items.count, files: fileCount)
  }

  /// The bytes of the bundle's banners.json for `items`, in their order:
  /// what `assemble` writes, and what `build --check` compares the
  /// published one with.
  ///
  /// - Throws: `MarqueeError` when a record does not match its item's kind
  ///   or banners.json is invalid.
  func manifest(_ items: [Item]) throws(MarqueeError) -> Data {
    var entries: [ManifestEntry] = []
    for item in items { entries.append(try item.record.entry(for: item.spec, folder: item.folder)) }
    do { return try ManifestEmitter(baseURL: baseURL, surfaces: surfaces).render(entries) } catch {
      throw MarqueeError.store("banners.json cannot be written: \(error)")
    }
  }

  /// The files of a bundle besides the items' folders, by name, with the
  /// bytes `assemble` gives them (banners.json aside): what `build
  /// --check` compares the published ones with.
  static let fixedFiles: [String: Data] = [NginxDarkThemeRule.fileName: Data(NginxDarkThemeRule.text.utf8)]

  /// Links one item's stored files; returns how many.
  private func link(_ item: Item, into staging: URL) throws(MarqueeError) -> Int {
    let source = store.files(item.record.hash)
    let target = staging.appendingPathComponent(item.folder, isDirectory: true)
    var made: Set<String> = []
    for file in item.record.files {
      let destination = target.appendingPathComponent(file.path)
      let parent = destination.deletingLastPathComponent()
      if made.insert(parent.path).inserted { try FileSystem.makeDirectory(parent) }
      try FileSystem.linkOrCopy(source.appendingPathComponent(file.path), to: destination)
    }
    return item.record.files.count
  }
}
