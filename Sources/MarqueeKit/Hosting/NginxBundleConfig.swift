import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The nginx configuration that serves one built bundle right on the first
/// deploy: `marquee nginx-config` prints ``text``, to `include` inside a
/// `server {}` block.
///
/// What the printed block does, each point checked against Debian's nginx
/// 1.22 by `ServingTests` (curl, ffmpeg, GStreamer and Chromium as
/// clients):
///
/// - Serves `banners.json`, `videos/` and `images/` of the bundle under
///   ``prefix`` and nothing else: any other path under the prefix
///   (`nginx-dark-theme.conf`, a stray file, a dot file) is a 404, and a
///   server-level regex location answers 404 for any URI with a `.marquee`
///   path segment, so the output root's locks, store and staging folder
///   stay private even when the server's `root` is the output root.
///   `disable_symlinks on` keeps a symbolic link in the bundle from
///   reaching outside it (the bundle path is printed resolved, without
///   links).
/// - Media types from the location's own `types` map, so a stock
///   `mime.types` (no `.m4s`) does not matter: `.m3u8`
///   `application/vnd.apple.mpegurl` (RFC 8216 §4), `.m4s`
///   `video/iso.segment` (the IANA type of ISO BMFF media segments),
///   `.mp4` `video/mp4`, `.webp` `image/webp`, `.avif` `image/avif`
///   (nginx's own `mime.types` has it only since 1.21.4), `.jpg` `image/jpeg`,
///   `banners.json` `application/json` (RFC 8259).
/// - gzip for playlists and JSON when the client accepts it, with
///   `Vary: Accept-Encoding`, also for requests through a proxy or CDN
///   (`gzip_proxied any`): the Apple HLS authoring specification §10.1
///   requires playlists to be delivered gzip-encoded, RFC 8216 §6.2.1 says
///   servers should.
/// - `Cache-Control: public, max-age=31536000, immutable` (one year, RFC
///   8246) for `videos/` and `images/`, whose folders are named by a hash
///   of their content; `Cache-Control: public, max-age=<manifestMaxAge>,
///   must-revalidate` for `banners.json`, revalidated with the `ETag` and
///   `Last-Modified` nginx sends (RFC 9111 §5.2.2.2, RFC 9110 §13).
///   Error responses carry no `Cache-Control` (nginx's `add_header`
///   without `always`).
/// - Byte ranges (`Accept-Ranges: bytes`, `206 Partial Content`), which
///   AVPlayer needs for MP4 (nginx's static module; gzip-encoded
///   responses are sent whole).
/// - The ``NginxDarkThemeRule`` directives inside each location that
///   serves covers and images (rewrite-module rules are not inherited into
///   nested locations), so `?theme=dark` serves `<name>.dark.<ext>`.
/// - Optionally `Access-Control-Allow-Origin` (``corsOrigin``) with
///   `Content-Length`, `Content-Range` exposed, for web players on another
///   origin.
///
/// The prefix location is `^~`, so the server's own regex locations (a
/// common `location ~* \.(jpg|webp)$ { expires 30d; }`) never take the
/// bundle's requests.
///
/// ```swift
/// let config = try NginxBundleConfig(bundle: URL(fileURLWithPath: "/srv/cdn/home"))
/// print(config.text)  // location ^~ /home/ { … }
/// ```
public struct NginxBundleConfig: Sendable, Equatable {
  /// The bundle folder, absolute, symbolic links resolved.
  public var bundlePath: String
  /// The URL path the bundle is served under, `/` first and last
  /// (`/home/`).
  public var prefix: String
  /// The origin allowed to read the bundle from a web page
  /// (`https://app.example.com`, or `*`), `nil` for no CORS header.
  public var corsOrigin: String?
  /// `banners.json`'s `max-age`, in seconds.
  public var manifestMaxAge: Int

  /// `Cache-Control` of the content-hashed `videos/` and `images/`: a year,
  /// never revalidated (RFC 8246).
  public static let immutableCacheControl = "public, max-age=31536000, immutable"

  /// The media types served, by file extension: playlists per RFC 8216 §4,
  /// fMP4 segments as `video/iso.segment`.
  public static let mediaTypes: [(type: String, extensions: [String])] = [
    ("application/vnd.apple.mpegurl", ["m3u8"]),
    ("video/iso.segment", ["m4s"]),
    ("video/mp4", ["mp4"]),
    ("image/webp", ["webp"]),
    ("image/avif", ["avif"]),
    ("image/jpeg", ["jpg", "jpeg"]),
    ("image/png", ["png"]),
    ("application/json", ["json"]),
  ]

  /// The types nginx gzips: playlists and `banners.json`.
  public static let gzipTypes = ["application/vnd.apple.mpegurl", "application/json"]

  /// Creates the configuration of the bundle at `bundle`.
  ///
  /// - Parameters:
  ///   - bundle: A built bundle folder (it holds `banners.json`).
  ///   - prefix: The URL path to serve it under, `/` first and last, made of
  ///     letters, digits and `-._~` between the slashes; `nil` for
  ///     `/<bundle folder name>/`.
  ///   - corsOrigin: `*` or an origin (`http(s)://host[:port]`, nothing
  ///     after it) to send as `Access-Control-Allow-Origin`; `nil` for none.
  ///   - manifestMaxAge: `banners.json`'s `max-age` in seconds, 0 to
  ///     31536000 (default 60: a new bundle reaches clients within a
  ///     minute).
  /// - Throws: ``MarqueeError`` (`.usage`) when the folder holds no
  ///   `banners.json`, its path cannot be written into nginx's syntax
  ///   (`"`, `\`, `$`, control characters), or the prefix, origin or
  ///   max-age is not one of the forms above.
  public init(
    bundle: URL, prefix: String? = nil, corsOrigin: String? = nil, manifestMaxAge: Int = 60
  ) throws(MarqueeError) {
    guard let resolved = Self.realPath(bundle.path) else {
      throw MarqueeError(.usage, "\(bundle.path): no such bundle folder")
    }
    var isDirectory: ObjCBool = false
    let manifest = resolved + "/banners.json"
    guard FileManager.default.fileExists(atPath: manifest, isDirectory: &isDirectory), !isDirectory.boolValue else {
      throw MarqueeError(.usage, "\(bundle.path): not a bundle (no banners.json); build one with marquee build")
    }
    if let bad = resolved.unicodeScalars.first(where: { $0 == "\"" || $0 == "\\" || $0 == "$" || $0.value < 0x20 || $0.value == 0x7F }) {
      throw MarqueeError(.usage, "\(resolved): the path contains '\(bad.escaped(asASCII: true))', which nginx would read as syntax or a variable; move the bundle")
    }
    let name = (resolved as NSString).lastPathComponent
    let chosen = prefix ?? "/\(name)/"
    guard Self.isValidPrefix(chosen) else {
      throw MarqueeError(.usage, "--prefix needs a URL path with / first and last and letters, digits or -._~ between (e.g. /home/), got '\(chosen)'")
    }
    if let corsOrigin, !Self.isValidOrigin(corsOrigin) {
      throw MarqueeError(.usage, "--cors needs * or an origin like https://app.example.com (scheme, host, optional port, nothing after), got '\(corsOrigin)'")
    }
    guard (0...31_536_000).contains(manifestMaxAge) else {
      throw MarqueeError(.usage, "--manifest-max-age needs 0 to 31536000 seconds, got \(manifestMaxAge)")
    }
    bundlePath = resolved
    self.prefix = chosen
    self.corsOrigin = corsOrigin
    self.manifestMaxAge = manifestMaxAge
  }

  /// `Cache-Control` of `banners.json`: short-lived, revalidated.
  public var manifestCacheControl: String { "public, max-age=\(manifestMaxAge), must-revalidate" }

  // MARK: - Text

  /// The configuration: a `.marquee` guard and one `location ^~ <prefix>`
  /// block with a nested location each for `banners.json`, `videos/` and
  /// `images/`, ready to `include` inside `server {}`.
  public var text: String {
    let bundle = bundlePath == "/" ? "" : bundlePath
    var lines: [String] = []
    func add(_ indent: Int, _ text: String...) {
      for line in text { lines.append(line.isEmpty ? "" : String(repeating: " ", count: indent * 4) + line) }
    }
    func cors(_ indent: Int) {
      guard let corsOrigin else { return }
      add(indent, "add_header Access-Control-Allow-Origin \"\(corsOrigin)\";")
      add(indent, "add_header Access-Control-Expose-Headers \"Content-Length, Content-Range\";")
    }
    add(0, "# Marquee bundle \(bundlePath), served under \(prefix)")
    add(0, "# (written by `marquee nginx-config`; include it inside a server {} block).")
    add(0, "# Serves banners.json, videos/ and images/ and nothing else: the rest is 404.")
    add(0, "")
    add(0, "# The output root's .marquee/ (locks, store, staging) is never served,")
    add(0, "# whatever the server's root.")
    add(0, "location ~ \"(^|/)\\.marquee(/|$)\" {", "    return 404;", "}", "")
    add(0, "location ^~ \(prefix) {")
    add(1, "disable_symlinks on;", "autoindex off;")
    add(1, "# Only the bundle's types, whatever the server's mime.types says.")
    add(1, "types {")
    for entry in Self.mediaTypes {
      add(2, entry.type.padding(toLength: 32, withPad: " ", startingAt: 0) + entry.extensions.joined(separator: " ") + ";")
    }
    add(1, "}", "default_type application/octet-stream;")
    add(1, "# Playlists and banners.json gzip-encoded (Apple HLS authoring spec 10.1),")
    add(1, "# also through a CDN (gzip_proxied), with Vary: Accept-Encoding.")
    add(1, "gzip on;", "gzip_types \(Self.gzipTypes.joined(separator: " "));", "gzip_proxied any;", "gzip_vary on;")
    add(1, "# Byte ranges: on for every file sent whole (MP4, segments, images).", "")
    add(1, "# The client's contract: short-lived, revalidated (ETag, Last-Modified).")
    add(1, "location = \(prefix)banners.json {")
    add(2, "alias \"\(bundle)/banners.json\";", "add_header Cache-Control \"\(manifestCacheControl)\";")
    cors(2)
    add(1, "}", "")
    for folder in ["videos", "images"] {
      add(1, "# Named by a hash of their content: cached for a year.")
      add(1, "location \(prefix)\(folder)/ {")
      add(2, "alias \"\(bundle)/\(folder)/\";", "add_header Cache-Control \"\(Self.immutableCacheControl)\";")
      cors(2)
      add(2, "# ?theme=dark on a cover or image: its <name>.dark.<ext> sibling.")
      for line in NginxDarkThemeRule.directives.split(separator: "\n") { add(2, String(line)) }
      add(1, "}", "")
    }
    add(1, "# nginx-dark-theme.conf, anything else: not part of what clients read.")
    add(1, "return 404;")
    add(0, "}")
    return lines.joined(separator: "\n") + "\n"
  }

  // MARK: - Checks

  /// `/`, or `/seg/…/` with segments of `[A-Za-z0-9._~-]`, none `.` or `..`.
  static func isValidPrefix(_ prefix: String) -> Bool {
    guard prefix.hasPrefix("/"), prefix.hasSuffix("/") else { return false }
    if prefix == "/" { return true }
    let segments = prefix.dropFirst().dropLast().split(separator: "/", omittingEmptySubsequences: false)
    let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
    return segments.allSatisfy { segment in
      !segment.isEmpty && segment != "." && segment != ".." && segment.allSatisfy { allowed.contains($0) }
    }
  }

  /// `*`, or `http(s)://host[:port]` with a host of letters, digits, `-`
  /// and `.` (the serialised origin of RFC 6454 §6.2).
  static func isValidOrigin(_ origin: String) -> Bool {
    if origin == "*" { return true }
    let rest: Substring
    if origin.hasPrefix("https://") {
      rest = origin.dropFirst(8)
    } else if origin.hasPrefix("http://") {
      rest = origin.dropFirst(7)
    } else {
      return false
    }
    let parts = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
    let hostCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.")
    guard let host = parts.first, !host.isEmpty, host.allSatisfy({ hostCharacters.contains($0) }),
      !host.hasPrefix("."), !host.hasSuffix(".")
    else { return false }
    if parts.count == 2 {
      guard let port = Int(parts[1]), (1...65535).contains(port), parts[1].allSatisfy(\.isNumber) else { return false }
    }
    return true
  }

  /// `realpath(3)`: absolute, without `.`, `..` or symbolic links.
  static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
