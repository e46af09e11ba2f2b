import Foundation

/// What ``PreviewWriter/write(bundle:)`` produced.
public struct PreviewResult: Sendable, Equatable {
  /// `<bundle>/preview.html`.
  public var html: URL
  /// `<bundle>/preview-contact-sheet.png`.
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

/// A preview-time failure: `banners.json` is missing or not the
/// document Marquee writes, or a preview file cannot be written.
public struct PreviewError: Error, CustomStringConvertible, Sendable {
  /// What went wrong, naming the file.
  public var description: String

  init(_ description: String) { self.description = description }
}

/// Writes a look-don't-read preview of a built bundle: `preview.html`,
/// showing every banner (the cover and its dark variant side by side, the
/// MP4 in a `<video>` element, each image width light and dark), and
/// `preview-contact-sheet.png`, one row per banner with its light and dark
/// picture, for a quick glance or a chat message.
///
/// Both files sit at the bundle root and are not referenced by
/// `banners.json`, so the client never sees them. Every link in the HTML is
/// relative to the bundle, so the folder can be opened from disk or served
/// as it is: URLs in `banners.json` are mapped back to bundle files by
/// dropping the `base_url` prefix (found as the longest URL path suffix
/// that names a file in the bundle, so the preview needs no job file).
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

  /// Reads `<bundle>/banners.json` and writes the preview files beside it.
  ///
  /// - Parameter bundle: The bundle folder (`Output/<name>`).
  /// - Returns: The files written and what was shown.
  /// - Throws: ``PreviewError`` when `banners.json` is missing or malformed,
  ///   or a preview file cannot be written. Missing media files are
  ///   warnings, not errors: the preview shows what is there.
  public func write(bundle: URL) throws(PreviewError) -> PreviewResult {
    let manifestURL = bundle.appendingPathComponent("banners.json")
    let data: Data
    do { data = try FileSystem.readOwnedFile(root: bundle, "banners.json", limit: 16 << 20) } catch {
      throw PreviewError("cannot read \(manifestURL.path): \(error.reason)")
    }
    let banners = try PreviewBanner.parse(data, bundle: bundle)
    var warnings: [String] = []
    for banner in banners {
      for missing in banner.missingFiles {
        warnings.append("\(banner.id): \(missing) is named in banners.json but missing from the bundle")
      }
    }

    let html = PreviewHTML(darkSurface: darkSurface).render(banners, bundleName: bundle.lastPathComponent)
    let htmlURL = bundle.appendingPathComponent(Self.htmlName)
    do { try Data(html.utf8).write(to: htmlURL, options: .atomic) } catch {
      throw PreviewError("cannot write \(htmlURL.path): \(error.localizedDescription)")
    }

    let sheet = ContactSheet(tileHeight: tileHeight, darkSurface: darkSurface)
      .compose(banners, bundle: bundle, warnings: &warnings)
    let sheetURL = bundle.appendingPathComponent(Self.contactSheetName)
    do {
      try PNGWriter.encode(sheet).write(to: sheetURL, options: .atomic)
    } catch {
      throw PreviewError("cannot write \(sheetURL.path): \(error)")
    }
    return PreviewResult(
      html: htmlURL, contactSheet: sheetURL, bannerIDs: banners.map(\.id),
      contactSheetWidth: sheet.width, contactSheetHeight: sheet.height, warnings: warnings)
  }
}
