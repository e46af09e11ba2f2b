import Foundation

/// How a published banners.json differs from the one a build would write
/// (`build --check`), in words: the keys that differ per banner (`link of
/// `promo``), banners added or removed, their order, the document's other
/// keys (`surfaces`).
///
/// The published file is untrusted: it is read as any JSON and compared
/// value by value; what is not a banners.json document is said so.
enum ManifestDifference {
  /// The differences, most useful first; never empty for documents whose
  /// bytes differ (`its bytes differ (the same values)` when only the
  /// formatting does).
  static func between(published: Data, expected: Data) -> [String] {
    guard let new = object(expected) else { return ["its bytes differ"] }
    guard let old = object(published) else { return ["the published one is not a banners.json document"] }
    var out: [String] = []
    let oldItems = banners(old), newItems = banners(new)
    let oldByID = Dictionary(oldItems.map { ($0.id, $0.members) }, uniquingKeysWith: { a, _ in a })
    let newIDs = Set(newItems.map(\.id))
    for item in newItems {
      guard let before = oldByID[item.id] else {
        out.append("`\(item.id)` would be added")
        continue
      }
      let keys = Set(before.keys).union(item.members.keys).sorted().filter { !same(before[$0], item.members[$0]) }
      guard !keys.isEmpty else { continue }
      let named = keys.prefix(3).joined(separator: ", ") + (keys.count > 3 ? " and \(keys.count - 3) more" : "")
      out.append("\(named) of `\(item.id)`")
    }
    for item in oldItems where !newIDs.contains(item.id) { out.append("`\(item.id)` would be removed") }
    let common = Set(oldByID.keys).intersection(newIDs)
    if oldItems.map(\.id).filter(common.contains) != newItems.map(\.id).filter(common.contains) {
      out.append("the order of the banners")
    }
    for key in Set(old.keys).union(new.keys).subtracting(["banners"]).sorted() where !same(old[key], new[key]) {
      out.append("`\(key)`")
    }
    if out.isEmpty { out.append("its bytes differ (the same values)") }
    return out
  }

  /// The document's top-level object, or nil.
  private static func object(_ data: Data) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
  }

  /// The banners with their ids (`(no id)` for a banner without one).
  private static func banners(_ document: [String: Any]) -> [(id: String, members: [String: Any])] {
    ((document["banners"] as? [Any]) ?? []).map { element in
      let members = element as? [String: Any] ?? [:]
      return ((members["id"] as? String) ?? "(no id)", members)
    }
  }

  /// Whether two JSON values are equal (compared as sorted-key JSON).
  private static func same(_ a: Any?, _ b: Any?) -> Bool {
    func text(_ value: Any?) -> Data? {
      guard let value else { return nil }
      return try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys])
    }
    return text(a) == text(b)
  }
}
