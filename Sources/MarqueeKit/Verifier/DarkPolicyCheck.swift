import Foundation

/// What `marquee verify` checks of an item's dark files by its
/// `dark_policy` (banners.json), beside what every dark file gets (present,
/// readable, an image of its light file's size, a cover never black):
///
/// - `generated`: the dark-variant rules (`PictureLook`), checked by
///   `ImageAssetVerifier` and `VideoAssetVerifier` themselves.
/// - `same`: every dark file is byte-identical to its light file; one that
///   is not is a violation naming the first differing byte.
/// - `designer`: glare only (`DesignerDarkPicture.glareWarning`), and only
///   as a warning, never a violation: the picture is the designer's call.
///   The generated variants' rules do not apply to it.
enum DarkPolicyCheck {
  /// Bundle files larger than this are not compared (a cover or an image
  /// width is far smaller): 256 MiB.
  static let maxComparedBytes: Int64 = 256 << 20

  /// The policy an item of banners.json declares (`dark_policy`), and the
  /// problem when the value is not one Marquee writes. An item without the
  /// key (a bundle built before it existed) is `generated`.
  ///
  /// - Parameters:
  ///   - item: the banners.json item.
  ///   - index: its index, for the problem's path.
  static func policy(of item: [String: Any], index: Int) -> (policy: DarkPolicyKind, problem: String?) {
    guard let value = item["dark_policy"] else { return (.generated, nil) }
    if let text = value as? String, let policy = DarkPolicyKind(rawValue: text) { return (policy, nil) }
    let expected = DarkPolicyKind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
    return (.generated, "banners[\(index)].dark_policy: expected one of \(expected), found \(JobJSON.render(value))")
  }

  /// Why the dark file `dark` is not byte-identical to the light file
  /// `light`, as `dark_policy: "same"` promises, or `nil` when it is (or
  /// when either cannot be read: their own checks report that).
  ///
  /// - Parameter key: the light file's banners.json key, for the message.
  static func sameBytesProblem(light: String, dark: String, key: String, files: AssetFiles) -> String? {
    guard let a = try? files.open(light).readAll(limit: maxComparedBytes),
          let b = try? files.open(dark).readAll(limit: maxComparedBytes) else { return nil }
    guard a != b else { return nil }
    let offset = a.withUnsafeBytes { (x: UnsafeRawBufferPointer) -> Int in
      b.withUnsafeBytes { (y: UnsafeRawBufferPointer) -> Int in
        var i = 0
        while i < x.count && i < y.count && x[i] == y[i] { i += 1 }
        return i
      }
    }
    return "\(key): dark_policy is \"same\" but the dark file differs from \(files.display(light)) from byte \(offset) on (\(b.count) bytes, the light file \(a.count))"
  }

  /// Every (light, dark) pair of files `same` makes byte-identical: each
  /// light file with its `.dark` sibling, and `url` / `jpeg_url` (or
  /// `cover_url` / `cover_jpeg_url`) with the explicit dark keys, each dark
  /// file once.
  ///
  /// - Parameters:
  ///   - files: `(key, path, isDark)` of the item's files.
  ///   - explicit: light key → dark key of banners.json.
  static func samePairs(_ files: [(key: String, path: String, isDark: Bool)],
                        explicit: [String: String]) -> [(key: String, light: String, dark: String)] {
    var pairs: [(key: String, light: String, dark: String)] = []
    var seen: Set<String> = []
    for file in files where !file.isDark {
      if let darkKey = explicit[file.key], let dark = files.first(where: { $0.key == darkKey })?.path,
         seen.insert(dark).inserted {
        pairs.append((file.key, file.path, dark))
      }
      if let sibling = RelativePath.darkSibling(of: file.path), seen.insert(sibling).inserted {
        pairs.append((file.key, file.path, sibling))
      }
    }
    return pairs
  }
}
