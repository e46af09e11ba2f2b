import Foundation

/// A bundle's size budget (`settings.max_bundle_mb`, `settings.max_item_mb`):
/// the bytes a client can download, measured on the staged bundle before it
/// is published.
///
/// Every file a client can read counts, at its size on disk: `banners.json`
/// and every regular file under `videos/` and `images/` (playlists, init
/// sections, segments, MP4s, covers, images and their dark variants), what
/// `marquee nginx-config` serves; `nginx-dark-theme.conf` is for the server
/// and does not count. An item is the files of its folder
/// (`videos/<id>-<hash>/`, `images/<id>-<hash>/`). Budgets are decimal
/// megabytes (`JobSettings.budgetBytesPerMB`), as app stores and HTTP tools
/// give download sizes.
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
  struct Weight: Sendable {
    /// Every file of the bundle, bytes.
    var bundleBytes: Int64
    /// Each item's folder, bytes, in the order given.
    var items: [(id: String, bytes: Int64)]
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
      // `videos/<id>-<hash>/…` or `images/<id>-<hash>/…`: the first two
      // components name the item's folder.
      let parts = file.path.split(separator: "/", maxSplits: 2)
      if parts.count == 3 && (parts[0] == "videos" || parts[0] == "images") {
        byFolder["\(parts[0])/\(parts[1])", default: 0] += file.size
        total += file.size
      } else if file.path == "banners.json" {
        total += file.size
      }
    }
    return Weight(bundleBytes: total, items: items.map { ($0.id, byFolder[$0.folder] ?? 0) })
  }

  /// What a bundle of stored items would weigh, without staging it (`build
  /// --check`): the files `weigh` counts, each item's folder holding
  /// exactly its stored files (`StoredItem.totalBytes`, hard-linked as
  /// they are), plus banners.json.
  ///
  /// - Parameters:
  ///   - manifestBytes: the size of the banners.json a build would write.
  ///   - items: each item's id and the bytes of its stored files.
  static func weight(manifestBytes: Int64, items: [(id: String, bytes: Int64)]) -> Weight {
    Weight(bundleBytes: items.reduce(manifestBytes) { $0 + $1.bytes }, items: items)
  }

  /// Why `weight` is over this budget, in one line: by how much the bundle
  /// and each item over its budget is over, and the largest items (at most
  /// three); nil when it fits.
  func overage(_ weight: Weight) -> String? {
    var reasons: [String] = []
    if let limit = maxBundleBytes, weight.bundleBytes > limit {
      reasons.append("the bundle is \(Self.size(weight.bundleBytes)) (\(weight.bundleBytes) bytes), "
        + "\(Self.size(weight.bundleBytes - limit)) over max_bundle_mb \(Self.megabytes(limit))")
    }
    if let limit = maxItemBytes {
      for item in weight.items where item.bytes > limit {
        reasons.append("\(item.id) is \(Self.size(item.bytes)) (\(item.bytes) bytes), \(Self.size(item.bytes - limit)) over max_item_mb \(Self.megabytes(limit))")
      }
    }
    guard !reasons.isEmpty else { return nil }
    let largest = weight.items.sorted { $0.bytes != $1.bytes ? $0.bytes > $1.bytes : $0.id < $1.id }.prefix(3)
    return "over the size budget: " + reasons.joined(separator: "; ")
      + "; largest items: " + largest.map { "\($0.id) \(Self.size($0.bytes))" }.joined(separator: ", ")
  }

  /// Bytes as decimal megabytes (`1.23 MB`), kilobytes (`812.4 kB`) or,
  /// under one kilobyte, bytes (`1 byte`, `640 bytes`): the unit is chosen
  /// after rounding, so 999,990 bytes read `1.00 MB`, never `1000.0 kB`.
  static func size(_ bytes: Int64) -> String {
    if bytes >= 999_995 { return String(format: "%.2f MB", Double(bytes) / Double(JobSettings.budgetBytesPerMB)) }
    if bytes >= 1000 { return String(format: "%.1f kB", Double(bytes) / 1000) }
    return bytes == 1 ? "1 byte" : "\(bytes) bytes"
  }

  /// A budget in decimal megabytes, as the job gave it to the byte (`0.5`,
  /// `12`, `3.021926`).
  static func megabytes(_ bytes: Int64) -> String {
    var text = String(format: "%.6f", Double(bytes) / Double(JobSettings.budgetBytesPerMB))
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text
  }

  /// The event fields of a weighed bundle: its bytes, the budgets, and the
  /// items over theirs (comma-separated ids), for JSON log readers.
  func fields(_ weight: Weight) -> [String: String] {
    var fields = ["bundle_bytes": String(weight.bundleBytes)]
    if let limit = maxBundleBytes { fields["max_bundle_bytes"] = String(limit) }
    if let limit = maxItemBytes {
      fields["max_item_bytes"] = String(limit)
      let over = weight.items.filter { $0.bytes > limit }.map(\.id)
      if !over.isEmpty { fields["items_over_budget"] = over.joined(separator: ",") }
    }
    if let largest = weight.items.max(by: { $0.bytes < $1.bytes }) {
      fields["largest_item"] = largest.id
      fields["largest_item_bytes"] = String(largest.bytes)
    }
    return fields
  }

  /// How a bundle within its budget stands, in one line (the headroom).
  func headroom(_ weight: Weight) -> String {
    var parts: [String] = []
    if let limit = maxBundleBytes {
      parts.append("the bundle is \(Self.size(weight.bundleBytes)) of max_bundle_mb \(Self.megabytes(limit))")
    }
    if let limit = maxItemBytes, let largest = weight.items.max(by: { $0.bytes < $1.bytes }) {
      parts.append("the largest item, \(largest.id), is \(Self.size(largest.bytes)) of max_item_mb \(Self.megabytes(limit))")
    }
    return "within the size budget: " + parts.joined(separator: "; ")
  }
}
