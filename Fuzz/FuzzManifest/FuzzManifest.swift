import CFuzzDriver
import Foundation
@testable import MarqueeKit

/// An empty bundle folder: URL-to-file mapping must find nothing in it,
/// whatever banners.json says.
let bundle: URL = {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-fuzz-bundle-\(getpid())")
  try? FileManager.default.createDirectory(at: url.appendingPathComponent("images/a"), withIntermediateDirectories: true)
  return url
}()

/// banners.json as `verify` and `preview` read it: the contract check, the
/// base-URL and relative-URL resolvers, the asset lists and the preview's
/// parser and page.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data else { return 0 }
  let bytes = Data(bytes: data, count: size)
  _ = ManifestEmitter.validate(bytes)
  if let root = (try? JSONSerialization.jsonObject(with: bytes)) as? [String: Any], let items = root["banners"] as? [Any] {
    let resolver = BundleURLResolver(bundle: bundle, items: items)
    for case let item as [String: Any] in items {
      var paths: [String: String] = [:]
      for (key, url) in BundleURLResolver.urlKeys(of: item) {
        if case .success(let p) = resolver.path(for: url) {
          precondition(!p.split(separator: "/").contains(".."), "\(url) resolved to \(p)")
          paths[key] = p
        }
      }
      _ = BundleVerifier.videoAssets(id: "a", item: item, paths: paths)
      _ = BundleVerifier.imageAssets(id: "a", item: item, paths: paths)
    }
  }
  if let banners = try? PreviewBanner.parse(bytes, bundle: bundle) {
    for banner in banners {
      // The bundle is empty: no URL may map to a file.
      precondition(banner.lightPicture == nil && banner.darkPicture == nil, "\(banner)")
    }
    let html = PreviewHTML(darkSurface: "#1C1C1E").render(banners, bundleName: "fuzz")
    precondition(!html.contains("href=\"javascript:"), "a javascript: link")
  }
  return 0
}

@_cdecl("FuzzManifest_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
  var count = argc
  var arguments = argv
  return LLVMFuzzerRunDriver(&count, &arguments) { testOneInput($0, $1) }
}
