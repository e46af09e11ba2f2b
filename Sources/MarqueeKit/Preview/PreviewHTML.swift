import Foundation

/// Renders the preview page: plain HTML and CSS, no script, every link
/// relative to the page, through ``bundleLink`` to the bundle's files.
struct PreviewHTML {
  /// Background of the dark column, `#RRGGBB`.
  var darkSurface: String
  /// The relative link from the page's folder to the bundle, `/`-terminated
  /// and percent-encoded (`../home/`), `""` when they are the same folder.
  var bundleLink = ""

  func render(_ banners: [PreviewBanner], bundleName: String) -> String {
    var out = """
      <!doctype html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>\(escape(bundleName)) – Marquee preview</title>
      <style>
      body { font: 14px/1.4 -apple-system, system-ui, sans-serif; margin: 24px; color: #222; background: #f4f4f6; }
      h1 { font-size: 20px; }
      section.banner { background: #fff; border-radius: 10px; padding: 16px; margin: 0 0 24px; box-shadow: 0 1px 3px #0002; }
      section.banner h2 { font-size: 16px; margin: 0 0 4px; }
      .meta { color: #666; margin: 0 0 12px; }
      .pair { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
      figure { margin: 0; padding: 8px; border-radius: 8px; }
      figure.light { background: #fff; border: 1px solid #ddd; }
      figure.dark { background: \(escape(darkSurface)); color: #ddd; }
      figure img, figure video { display: block; max-width: 420px; max-height: 320px; height: auto; }
      figcaption { font-size: 12px; margin-top: 4px; width: 0; min-width: 100%; overflow-wrap: anywhere; }
      .missing { color: #b00; }
      .widths { display: flex; flex-wrap: wrap; gap: 12px; margin-top: 12px; align-items: flex-start; }
      .widths figure img { max-width: 200px; }
      </style>
      </head>
      <body>
      <h1>\(escape(bundleName)): \(banners.count) banner\(banners.count == 1 ? "" : "s")</h1>
      <p class="meta">Light and dark side by side, as the app shows them. Open from disk, or serve this folder beside the bundle; this page and the contact sheet are not part of it.</p>

      """
    for banner in banners {
      out += section(banner)
    }
    out += "</body>\n</html>\n"
    return out
  }

  private func section(_ banner: PreviewBanner) -> String {
    var meta: [String] = [banner.kind.rawValue]
    if let w = banner.width, let h = banner.height { meta.append("\(w)×\(h)") }
    if let d = banner.duration { meta.append(String(format: "%.3f s", d)) }
    if banner.kind == .video {
      meta.append(banner.autoplay == true ? "autoplay" : "no autoplay")
      meta.append(banner.muted == false ? "sound on" : "muted")
    }
    var out = "<section class=\"banner\" id=\"banner-\(escape(banner.id))\" data-banner-id=\"\(escape(banner.id))\">\n"
    out += "<h2>\(escape(banner.id))</h2>\n"
    out += "<p class=\"meta\">\(escape(meta.joined(separator: " · ")))"
    if let link = banner.link {
      // Only an http(s) URL becomes a link (`javascript:`, `data:` … stay
      // text); it goes into the attribute escaped for it.
      if HTTPURLRule.problem(with: link) == nil {
        out += " · link: <a href=\"\(escape(link))\" rel=\"noopener noreferrer\">\(escape(link))</a>"
      } else {
        out += " · link (not http(s), not linked): <code>\(escape(link))</code>"
      }
    }
    out += "</p>\n<div class=\"pair\">\n"
    switch banner.kind {
    case .video:
      out += figure("light", banner.cover, caption: "cover", placeholder: banner.colour, hash: banner.thumbHash,
                    size: banner)
      out += figure("dark", banner.darkCover, caption: "cover, dark (?theme=dark)\(banner.darkOrigin)",
                    placeholder: banner.darkColour, hash: banner.darkThumbHash, size: banner)
      if let mp4 = banner.mp4 {
        let poster = banner.cover.map { " poster=\"\(href($0))\"" } ?? ""
        // HLS where the browser plays it natively, else (or when it cannot
        // load it, as from disk) the MP4.
        out += "<figure class=\"light\"><video\(poster) controls muted playsinline loop preload=\"metadata\">"
        if let hls = banner.hls { out += "<source src=\"\(href(hls))\" type=\"application/vnd.apple.mpegurl\">" }
        out += "<source src=\"\(href(mp4))\" type=\"video/mp4\"></video>"
        out += "<figcaption>video.mp4"
        if let hls = banner.hls { out += " · <a href=\"\(href(hls))\">HLS playlist</a>" }
        out += "</figcaption></figure>\n"
      } else {
        out += "<figure class=\"light\"><p class=\"missing\">MP4 missing</p></figure>\n"
      }
    case .image:
      out += figure("light", banner.image, caption: "image", placeholder: banner.colour, hash: banner.thumbHash,
                    size: banner)
      out += figure("dark", banner.darkImage, caption: "image, dark (?theme=dark)\(banner.darkOrigin)",
                    placeholder: banner.darkColour, hash: banner.darkThumbHash, size: banner)
    }
    out += "</div>\n"
    if !banner.sources.isEmpty {
      out += "<div class=\"widths\">\n"
      for source in banner.sources {
        let size = "\(source.width)×\(source.height)"
        out += figure("light", source.webp ?? source.jpeg, caption: "w\(source.width) (\(size))")
        out += figure("dark", source.darkWebP ?? source.darkJPEG, caption: "w\(source.width), dark\(banner.darkOrigin)")
      }
      out += "</div>\n"
    }
    if !banner.missingFiles.isEmpty {
      out += "<p class=\"missing\">Missing from the bundle: "
      out += banner.missingFiles.map { escape($0) }.joined(separator: ", ")
      out += "</p>\n"
    }
    out += "</section>\n"
    return out
  }

  /// One picture. With a placeholder and the banner's size, the `<img>`
  /// box is painted at the picture's aspect ratio until the picture covers
  /// it, as the carousel paints it from banners.json alone: the `hash`
  /// (`thumbhash` / `dark_thumbhash`) drawn by `ThumbHash.render` into a
  /// PNG data URL, or, when there is none or it does not decode, the flat
  /// `placeholder` colour (`color` / `dark_color`). Nothing under a
  /// picture whose hash has alpha: it would show through once loaded.
  private func figure(_ style: String, _ path: String?, caption: String, placeholder: RGBColor? = nil,
                      hash: String? = nil, size: PreviewBanner? = nil) -> String {
    guard let path else {
      return "<figure class=\"\(style)\"><p class=\"missing\">\(escape(caption)): missing</p></figure>\n"
    }
    var paint = ""
    if let w = size?.width, let h = size?.height, w > 0, h > 0 {
      // The size the picture is shown at (max 420x320 px, as the CSS says).
      let scale = min(1, 420 / Double(w), 320 / Double(h))
      // A page without script cannot take the placeholder away once the
      // picture has loaded, and a transparent picture would show it
      // through: under a hash with alpha nothing is painted.
      let transparent = hash.flatMap { Data(base64Encoded: $0) }.flatMap { ThumbHash.Header([UInt8]($0)) }?.hasAlpha ?? false
      let background = transparent ? nil
        : Self.placeholderURL(hash, width: w, height: h).map { "url(\($0)) center / 100% 100% no-repeat" } ?? placeholder?.hex
      if let background {
        paint = " style=\"background: \(background); aspect-ratio: \(w) / \(h); width: \(max(1, Int(Double(w) * scale)))px\""
      }
    }
    return "<figure class=\"\(style)\"><img src=\"\(href(path))\" alt=\"\(escape(caption))\" loading=\"lazy\"\(paint)>"
      + "<figcaption>\(escape(caption)) · \(escape(path))</figcaption></figure>\n"
  }

  /// The longer side, in pixels, a placeholder is drawn at: the
  /// specification's 32, stretched over the box by the browser.
  static let placeholderSide = 32

  /// `hash` (base64) drawn at the aspect ratio of `width`×`height`, 32 px
  /// on the longer side, as a `data:image/png;base64,` URL; nil when it is
  /// no ThumbHash. The URL holds base64 characters only, safe in a `style`.
  static func placeholderURL(_ hash: String?, width: Int, height: Int) -> String? {
    guard let hash, hash.utf8.count <= 64, let bytes = Data(base64Encoded: hash) else { return nil }
    let side = Double(placeholderSide), long = Double(max(width, height))
    let w = max(1, Int((Double(width) * side / long).rounded())), h = max(1, Int((Double(height) * side / long).rounded()))
    guard let picture = ThumbHash.render([UInt8](bytes), width: w, height: h),
          let png = try? PNGWriter.encode(picture) else { return nil }
    return "data:image/png;base64," + png.base64EncodedString()
  }

  /// A relative link to a bundle file: each path segment percent-encoded.
  private func href(_ path: String) -> String {
    escape(bundleLink + ManifestEmitter.percentEncodedPath(path))
  }

  /// Text and attribute escaping: `& < > " '`.
  private func escape(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.count)
    for ch in text {
      switch ch {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      default: out.append(ch)
      }
    }
    return out
  }
}
