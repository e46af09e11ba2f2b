import Foundation

/// The file format each banners.json image key promises, checked against
/// the extension of the file it names (the extension is what nginx serves
/// its `Content-Type` by, and `verify` then checks the bytes against it).
///
/// - keys ending in `avif_url` (`avif_url`, `dark_avif_url`,
///   `cover_avif_url`, `cover_dark_avif_url`, `sources[i].avif_url`) name
///   `.avif` files: a client asks for them only where it decodes AVIF;
/// - keys ending in `jpeg_url` name `.jpg` or `.jpeg` files (the fallback
///   every decoder has);
/// - every other image key (`url`, `dark_url`, `cover_url`,
///   `cover_dark_url`, `sources[i].url`) names a JPEG, PNG or WebP, never
///   an AVIF: the playback contract's `url` is "a JPEG, PNG or WebP file",
///   and iOS decodes AVIF only from 16.
enum ImageKeyFormat {
  /// The problem with `path` under `key`, in words, or nil.
  static func problem(key: String, path: String) -> String? {
    let ext = (path as NSString).pathExtension.lowercased()
    let name = (path as NSString).lastPathComponent
    if key.hasSuffix("avif_url") {
      return ext == "avif" ? nil : "\(key): names \(name), not an AVIF file"
    }
    if key.hasSuffix("jpeg_url") {
      return ext == "jpg" || ext == "jpeg" ? nil : "\(key): names \(name), not a JPEG file"
    }
    return ext == "avif" ? "\(key): names an AVIF file, but a client that cannot decode AVIF loads this key: JPEG, PNG or WebP only" : nil
  }
}
