import Foundation

/// What ``PreviewWriter/write(bundle:)`` produced.
public struct PreviewResult: Sendable, Equatable {
  /// `<out>/preview.html`.
  public var html: URL
  /// `<out>/preview-contact-sheet.png`.
  public var contactSheet: URL
  /// Banners shown, in `banners.json` order.
  public var bannerIDs: [String]
  /// Size of the contact sheet in pixels.
  public var contactSheetWidth: Int
  /// Height of the contact sheet in pixels.
  public var contactSheetHeight: Int
  /// Things a content person should know: files named in `banners.json`
  /// that are missing from the bundle, pictures that could not be decoded.
  public var warnings: [String]
}

/// Writes a look-don't-read preview of a built bundle: `preview.html`,
/// showing every banner (the cover and its dark variant side by side, the
/// MP4 in a `<video>` element, each image width light and dark), and
/// `preview-contact-sheet.png`, one row per banner with its light and dark
/// picture, for a quick glance or a chat message.
///
/// Both files are written outside the bundle, by default beside it in
/// `<bundle>.preview/`, never inside it: a sync of the bundle folder never
/// uploads them and the bundle's files stay byte for byte what `build`
/// published. Every link in the HTML is relative (`../home/videos/…`), so
/// the page works opened from disk and served beside the bundle (the
/// bundle under `marquee nginx-config`'s location, the preview folder next
/// to it). Each video offers its HLS playlist first and the MP4 second
/// (`<source>` elements): a browser that plays HLS natively (Safari,
/// Chromium with its built-in HLS player) takes the playlist, any other
/// (or one that cannot load it, as from disk) falls back to the MP4.
/// URLs in `banners.json` are mapped back to bundle files by dropping the
/// `base_url` prefix (found as the longest URL path suffix that names a
/// file in the bundle, so the preview needs no job file).
///
/// ```swift
/// let result = try PreviewWriter().write(bundle: URL(fileURLWithPath: "Output/home"))
/// print(result.html.path)
/// ```
public struct PreviewWriter: Sendable {
  /// Height of each picture on the contact sheet, in pixels.
  public var tileHeight: Int
  /// The dark surface the dark pictures are shown on, `#RRGGBB`.
  public var darkSurface: String

  /// Creates a writer.
  ///
  /// - Parameters:
  ///   - tileHeight: Height of each contact-sheet picture, at least 16.
  ///   - darkSurface: Background of the dark column, `#RRGGBB`.
  public init(tileHeight: Int = 180, darkSurface: String = "#1C1C1E") {
    self.tileHeight = max(16, tileHeight)
    self.darkSurface = darkSurface
  }

  /// The preview page's file name.
  public static let htmlName = "preview.html"
  /// The contact sheet's file name.
  public static let contactSheetName = "preview-contact-sheet.png"

  // MARK: - API

  /// The default output folder: `<bundle>.preview` beside the bundle.
  public static func defaultFolder(for bundle: URL) -> URL {
    let folder = bundle.standardizedFileURL
    return folder.deletingLastPathComponent().appendingPathComponent(folder.lastPathComponent + ".preview", isDirectory: true)
  }

  /// Reads `<bundle>/banners.json` and writes the preview files into `out`.
  ///
  /// - Parameters:
  ///   - bundle: The bundle folder (`Output/<name>`); nothing in it is
  ///     written.
  ///   - out: The folder to write into, created if needed; `nil` for
  ///     ``defaultFolder(for:)``.
  /// - Returns: The files written and what was shown.
  /// - Throws: ``MarqueeError`` when `out` is the bundle or inside it
  ///   (symbolic links resolved; `.usage`), `banners.json` is missing or
  ///   malformed, or a preview file cannot be written. Missing media files
  ///   are warnings, not errors: the preview shows what is there.
  public func write(bundle: URL, into out: URL? = nil) throws(MarqueeError) -> PreviewResult {
    let folder = out ?? Self.defaultFolder(for: bundle)
    let realBundle = Self.resolved(bundle)
    let realFolder = Self.resolved(folder)
    if realFolder == realBundle || realFolder.hasPrefix(realBundle == "/" ? "/" : realBundle + "/") {
      throw MarqueeError(.usage,
        "\(folder.path) is inside the bundle \(bundle.path): the preview is written beside it (default \(Self.defaultFolder(for: bundle).path)) so a sync never uploads it")
    }
    let manifestURL = bundle.appendingPathComponent("banners.json")
    let data: Data
    do { data = try FileSystem.readOwnedFile(root: bundle, "banners.json", limit: 16 << 20) } catch {
      throw MarqueeError(.unreadableSource, "cannot read \(manifestURL.path): \(error.reason)")
    }
    let banners = try PreviewBanner.parse(data, bundle: bundle)
    var warnings: [String] = []
    for banner in banners {
      for missing in banner.missingFiles {
        warnings.append("\(banner.id): \(missing) is named in banners.json but missing from the bundle")
      }
    }

    do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
      throw MarqueeError(.writeFailed, "cannot create \(folder.path): \(error.localizedDescription)")
    }
    let html = PreviewHTML(darkSurface: darkSurface, bundleLink: Self.relativeLink(from: realFolder, to: realBundle))
      .render(banners, bundleName: bundle.standardizedFileURL.lastPathComponent)
    let htmlURL = folder.appendingPathComponent(Self.htmlName)
    do { try Data(html.utf8).write(to: htmlURL, options: .atomic) } catch {
      throw MarqueeError(.writeFailed, "cannot write \(htmlURL.path): \(error.localizedDescription)")
    }

    let sheet = ContactSheet(tileHeight: tileHeight, darkSurface: darkSurface)
      .compose(banners, bundle: bundle, warnings: &warnings)
    let sheetURL = folder.appendingPathComponent(Self.contactSheetName)
    do {
      try PNGWriter.encode(sheet).write(to: sheetURL, options: .atomic)
    } catch {
      throw MarqueeError(.writeFailed, "cannot write \(sheetURL.path): \(error)")
    }
    return PreviewResult(
      html: htmlURL, contactSheet: sheetURL, bannerIDs: banners.map(\.id),
      contactSheetWidth: sheet.width, contactSheetHeight: sheet.height, warnings: warnings)
  }

  // MARK: - Paths

  /// `path` absolute, with `.`, `..` and symbolic links resolved as far as
  /// it exists (the rest appended as written).
  static func resolved(_ url: URL) -> String {
    var existing = url.standardizedFileURL
    var rest: [String] = []
    while !FileManager.default.fileExists(atPath: existing.path), existing.path != "/" {
      rest.insert(existing.lastPathComponent, at: 0)
      existing = existing.deletingLastPathComponent()
    }
    let base = existing.resolvingSymlinksInPath().path
    return rest.reduce(base) { ($0 as NSString).appendingPathComponent($1) }
  }

  /// The relative link from folder `from` to folder `to` (both absolute),
  /// `/`-terminated and percent-encoded: `../home/`.
  static func relativeLink(from: String, to: String) -> String {
    let a = from.split(separator: "/").map(String.init)
    let b = to.split(separator: "/").map(String.init)
    var common = 0
    while common < a.count, common < b.count, a[common] == b[common] { common += 1 }
    let up = Array(repeating: "..", count: a.count - common)
    let down = b[common...].map { ManifestEmitter.percentEncodedPath($0) }
    let parts = up + down
    return parts.isEmpty ? "" : parts.joined(separator: "/") + "/"
  }
}
