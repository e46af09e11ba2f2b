import Foundation

/// A bundle's size budget (`settings.max_bundle_mb`, `settings.max_item_mb`):
/// the bytes a client can download, measured on the staged bundle before it
/// is published.
///
/// Every regular file of the bundle counts, at its size on disk
/// (`banners.json`, playlists, segments, MP4s, covers, images and their dark
/// variants); an item is the files of its folder (`videos/<id>-<hash>/`,
/// `images/<id>-<hash>/`). Budgets are decimal megabytes
/// (`JobSettings.budgetBytesPerMB`), as app stores and HTTP tools give
/// download sizes.
struct SizeBudget: Sendable, Equatable {
  /// The most bytes of the whole bundle; nil: no budget.
  var maxBundleBytes: Int64?
  /// The most bytes of one item's folder; nil: no budget.
  var maxItemBytes: Int64?

  init(settings: JobSettings) {
    maxBundleBytes = settings.maxBundleBytes
    maxItemBytes = settings.maxItemBytes
  }

  /// Whether there is a budget to check.
  var isSet: Bool { maxBundleBytes != nil || maxItemBytes != nil }

  /// What a staged bundle weighs.
  struct Weight: Sendable, Equatable {
    /// Every file of the bundle, bytes.
    var bundleBytes: Int64
    /// Each item's folder, bytes, in the order given.
    var items: [(id: String, bytes: Int64)]

    static func == (a: Weight, b: Weight) -> Bool {
      a.bundleBytes == b.bundleBytes && a.items.map(\.id) == b.items.map(\.id) && a.items.map(\.bytes) == b.items.map(\.bytes)
    }
  }

  /// Weighs the bundle staged at `bundle`.
  ///
  /// - Parameter items: each item's id and its folder, relative to `bundle`.
  /// - Throws: `MarqueeError` (I/O) when the folder cannot be listed.
  static func weigh(_ bundle: URL, items: [(id: String, folder: String)]) throws(MarqueeError) -> Weight {
    let files = try FileSystem.files(under: bundle)
    var total: Int64 = 0
    var byFolder: [String: Int64] = [:]
    for file in files {
      total += file.size
      // `videos/<id>-<hash>/…` or `images/<id>-<hash>/…`: the first two
      // components name the item's folder.
      let parts = file.path.split(separator: "/", maxSplits: 2)
      if parts.count == 3 { byFolder["\(parts[0])/\(parts[1])", default: 0] += file.size }
    }
    return Weight(bundleBytes: total, items: items.map { ($0.id, byFolder[$0.folder] ?? 0) })
  }

  /// Why `weight` is over this budget, in one line: by how much the bundle
  /// and each item over its budget is over, and the largest items (at most
  /// three); nil when it fits.
  func overage(_ weight: Weight) -> String? {
    var reasons: [String] = []
    if let limit = maxBundleBytes, weight.bundleBytes > limit {
      reasons.append("the bundle is \(Self.size(weight.bundleBytes)), \(Self.size(weight.bundleBytes - limit)) over max_bundle_mb \(Self.megabytes(limit))")
    }
    if let limit = maxItemBytes {
      for item in weight.items where item.bytes > limit {
        reasons.append("\(item.id) is \(Self.size(item.bytes)), \(Self.size(item.bytes - limit)) over max_item_mb \(Self.megabytes(limit))")
      }
    }
    guard !reasons.isEmpty else { return nil }
    let largest = weight.items.sorted { $0.bytes != $1.bytes ? $0.bytes > $1.bytes : $0.id < $1.id }.prefix(3)
    return "over the size budget: " + reasons.joined(separator: "; ")
      + "; largest items: " + largest.map { "\($0.id) \(Self.size($0.bytes))" }.joined(separator: ", ")
  }

  /// Bytes as decimal megabytes (`1.23 MB`) or, under one, kilobytes
  /// (`812.4 kB`).
  static func size(_ bytes: Int64) -> String {
    bytes >= JobSettings.budgetBytesPerMB
      ? String(format: "%.2f MB", Double(bytes) / Double(JobSettings.budgetBytesPerMB))
      : String(format: "%.1f kB", Double(bytes) / 1000)
  }

  /// A budget as the job gave it, in decimal megabytes (`0.5`, `12`).
  static func megabytes(_ bytes: Int64) -> String {
    JobDocumentValidator.format(Double(bytes) / Double(JobSettings.budgetBytesPerMB))
  }
}
