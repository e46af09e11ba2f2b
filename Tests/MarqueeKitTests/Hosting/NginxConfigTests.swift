import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// `marquee nginx-config`: the printed block, included in a real nginx's
/// `server {}` whose `root` is the output root (the layout that used to
/// expose `.marquee/`), serves a built bundle as the README promises.
/// curl (not Foundation's URL loading) reads every header; ffmpeg reads
/// the master playlist over HTTP with strict error detection. Expected
/// values are written out here from the specs, not taken from the
/// generator's constants.
@Suite("nginx-config: a real nginx serving a bundle", .serialized)
struct NginxConfigTests {
  static let origin = "https://app.example.com"
  static let immutable = "public, max-age=31536000, immutable"

  // MARK: - Generator

  @Test("bad input is refused with a message; the prefix defaults to the bundle's name")
  func refusals() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-ngx-\(UUID().uuidString)")
    let bundle = dir.appendingPathComponent("home")
    try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }

    #expect(throws: MarqueeError(.usage, "\(bundle.path): not a bundle (no banners.json); build one with marquee build")) {
      try NginxBundleConfig(bundle: bundle)
    }
    try Data("{\"banners\": []}".utf8).write(to: bundle.appendingPathComponent("banners.json"))
    let config = try NginxBundleConfig(bundle: bundle)
    #expect(config.prefix == "/home/")
    for bad in ["home/", "/home", "/a//b/", "/../", "/a b/", "/a;b/", "/$x/"] {
      #expect(throws: MarqueeError.self, "\(bad)") { try NginxBundleConfig(bundle: bundle, prefix: bad) }
    }
    for good in ["/", "/home/", "/cdn/v1.2/home_x~y/"] { #expect(try NginxBundleConfig(bundle: bundle, prefix: good).prefix == good) }
    for bad in ["app.example.com", "https://", "https://a.example.com/", "https://a.example.com:0", "ftp://x", "https://a\"b"] {
      #expect(throws: MarqueeError.self, "\(bad)") { try NginxBundleConfig(bundle: bundle, corsOrigin: bad) }
    }
    for good in ["*", "http://localhost:8080", "https://app.example.com"] {
      #expect(try NginxBundleConfig(bundle: bundle, corsOrigin: good).corsOrigin == good)
    }
    #expect(throws: MarqueeError.self) { try NginxBundleConfig(bundle: bundle, manifestMaxAge: -1) }

    // A path nginx would read as a variable is refused, not printed.
    let dollar = dir.appendingPathComponent("a$b")
    try FileManager.default.createDirectory(at: dollar, withIntermediateDirectories: true)
    try Data("{\"banners\": []}".utf8).write(to: dollar.appendingPathComponent("banners.json"))
    #expect(throws: MarqueeError.self) { try NginxBundleConfig(bundle: dollar) }

    // The CLI: the block on stdout, exit 0; an error on stderr, exit 2.
    let printed = try MarqueeCLI.run(["nginx-config", bundle.path, "--prefix", "/cdn/home/"])
    #expect(printed.status == 0, "\(printed.stderr)")
    #expect(printed.stdoutText == (try NginxBundleConfig(bundle: bundle, prefix: "/cdn/home/")).text)
    let missing = try MarqueeCLI.run(["nginx-config", dir.appendingPathComponent("nope").path])
    #expect(missing.status == 2 && missing.stderr.contains("no such bundle folder"), "\(missing.stderr)")
    let usage = try MarqueeCLI.run(["nginx-config", bundle.path, "--cors"])
    #expect(usage.status == 2 && usage.stderr.contains("--cors needs an origin"), "\(usage.stderr)")
    let help = try MarqueeCLI.run(["nginx-config", "--help"])
    #expect(help.status == 0 && help.stdoutText.hasPrefix("Usage: marquee nginx-config"))
  }

  // MARK: - Served by nginx

  @Test(
    "every header, ?theme=dark, 404 for the rest and .marquee; ffmpeg reads the master strictly",
    .enabled(if: NginxDarkThemeTests.skipReason == nil, "\(NginxDarkThemeTests.skipReason ?? "")"))
  func servedBundle() async throws {
    let binary = try #require(NginxDarkThemeTests.nginx, "nginx is required (MARQUEE_REQUIRE_CORPUS=1) but not installed")
    let (root, bundle) = try await SmallBundle.build()
    defer { try? FileManager.default.removeItem(at: root) }
    let outputRoot = bundle.deletingLastPathComponent()
    let files = try ServedFiles(bundle: bundle)

    let printed = try MarqueeCLI.run(["nginx-config", bundle.path, "--cors", Self.origin])
    try #require(printed.status == 0, "\(printed.stderr)")
    let snippet = root.appendingPathComponent("marquee-small.conf")
    try printed.stdout.write(to: snippet)

    let server = try NginxServer(binary: binary, root: root.appendingPathComponent("nginx"), bundle: bundle)
    defer { server.stop() }
    // The output root as the web root, the server's own types without
    // m3u8 or m4s: what the printed block must overcome.
    let log = root.appendingPathComponent("nginx/logs/served.log")
    server.httpExtra = """
        log_format served '$request_uri $status "$sent_http_content_encoding" "$http_user_agent"';
        access_log \(log.path) served;
      """
    server.serverBody = """
          root \(outputRoot.path);
          include \(snippet.path);
      """
    try await server.start()
    let syntax = try Run.process(
      binary, ["-t", "-p", server.root.path + "/", "-c", server.root.appendingPathComponent("nginx.conf").path,
               "-e", server.root.appendingPathComponent("logs/error.log").path])
    #expect(syntax.status == 0 && syntax.stderr.contains("test is successful"), "\(syntax.stderr)")

    let curl = Curl(base: "http://127.0.0.1:\(server.port)", scratch: root)
    let p = "/small/"

    // Playlists: the HLS type, gzip-encoded when accepted (Apple HLS
    // authoring spec 10.1), cached for a year; the identity body without
    // Accept-Encoding; both decode to the file's bytes.
    for playlist in [files.master, files.media, files.iframes] {
      let gz = try curl.get(p + playlist, compressed: true)
      #expect(gz.status == 200, "\(playlist): \(gz.status)")
      #expect(gz["content-type"] == "application/vnd.apple.mpegurl", "\(playlist)")
      #expect(gz["content-encoding"] == "gzip", "\(playlist)")
      #expect(gz["vary"] == "Accept-Encoding", "\(playlist)")
      #expect(gz["cache-control"] == Self.immutable, "\(playlist)")
      #expect(gz["access-control-allow-origin"] == Self.origin)
      #expect(gz.body == (try files.bytes(playlist)), "\(playlist) decodes to other bytes")
      let plain = try curl.get(p + playlist)
      let identity = try files.bytes(playlist)
      #expect(plain["content-encoding"] == nil && plain.body == identity)
    }

    // banners.json: JSON, gzip, short-lived and revalidated.
    let manifest = try curl.get(p + "banners.json", compressed: true)
    #expect(manifest.status == 200)
    #expect(manifest["content-type"] == "application/json")
    #expect(manifest["content-encoding"] == "gzip")
    #expect(manifest["cache-control"] == "public, max-age=60, must-revalidate")
    #expect(manifest["access-control-allow-origin"] == Self.origin)
    #expect(manifest.body == (try files.bytes("banners.json")))
    let plainManifest = try curl.get(p + "banners.json")
    let etag = try #require(plainManifest["etag"], "no ETag to revalidate with")
    #expect(plainManifest["last-modified"] != nil)
    let revalidated = try curl.get(p + "banners.json", headers: ["If-None-Match: \(etag)"])
    #expect(revalidated.status == 304, "revalidation: \(revalidated.status)")
    #expect(revalidated["cache-control"] == "public, max-age=60, must-revalidate")

    // Media: their types, never gzip, immutable, byte ranges.
    let media: [(path: String, type: String)] = [
      (files.initSection, "video/mp4"), (files.segment, "video/iso.segment"), (files.mp4, "video/mp4"),
      (files.cover, "image/webp"), (files.coverJPEG, "image/jpeg"), (files.width, "image/webp"), (files.widthJPEG, "image/jpeg"),
      // The bundle's own types map serves AVIF as image/avif whatever the server's mime.types says.
      (files.coverAVIF, "image/avif"), (files.widthAVIF, "image/avif"),
    ]
    for m in media {
      let r = try curl.get(p + m.path, compressed: true)
      #expect(r.status == 200, "\(m.path): \(r.status)")
      #expect(r["content-type"] == m.type, "\(m.path): \(r["content-type"] ?? "none")")
      #expect(r["content-encoding"] == nil, "\(m.path) is gzip-encoded")
      #expect(r["cache-control"] == Self.immutable, "\(m.path)")
      #expect(r["accept-ranges"] == "bytes", "\(m.path)")
      #expect(r["access-control-allow-origin"] == Self.origin, "\(m.path)")
      #expect(r.body == (try files.bytes(m.path)), "\(m.path)")
    }
    for path in [files.mp4, files.segment] {
      let whole = try files.bytes(path)
      let range = try curl.get(p + path, headers: ["Range: bytes=100-1099"])
      #expect(range.status == 206, "\(path): \(range.status)")
      #expect(range["content-range"] == "bytes 100-1099/\(whole.count)", "\(path)")
      #expect(range.body == whole.subdata(in: 100..<1100), "\(path)")
    }

    // ?theme=dark: the dark sibling, in the nested locations too.
    func dark(_ path: String) -> String {
      let p = path as NSString
      return p.deletingPathExtension + ".dark." + p.pathExtension
    }
    for path in [files.cover, files.coverJPEG, files.width, files.widthJPEG, files.coverAVIF, files.widthAVIF] {
      let r = try curl.get(p + path + "?theme=dark")
      let darkBytes = try files.bytes(dark(path))
      #expect(r.status == 200 && r.body == darkBytes, "\(path)?theme=dark is not its dark file")
      #expect(r["cache-control"] == Self.immutable)
      let light = try curl.get(p + path + "?theme=light")
      #expect(light.body == (try files.bytes(path)))
      #expect(try files.bytes(path) != files.bytes(dark(path)))
    }

    // Nothing else: the rule file, folders, a missing file, and .marquee
    // wherever it is asked for (the files exist on disk).
    let lock = try #require(
      FileSystem.list(outputRoot.appendingPathComponent(".marquee/locks")).first, "no lock file to ask for")
    #expect(FileManager.default.fileExists(atPath: outputRoot.appendingPathComponent(".marquee/locks/\(lock)").path))
    for path in [
      p + NginxDarkThemeRule.fileName, p, p + "videos/nope/cover.webp", p + "videos/nope/cover.webp?theme=dark",
      "/.marquee/locks/\(lock)", "/.marquee/store/", "/.marquee/", p + "../.marquee/locks/\(lock)", "/%2Emarquee/locks/\(lock)",
    ] {
      let r = try curl.get(path)
      #expect(r.status == 404, "\(path): \(r.status)")
      #expect(r["cache-control"] == nil, "\(path): an error carries Cache-Control")
    }
    // A folder of the bundle is not listed (nginx: 403 without an index).
    for path in [p + "videos/", p + "images/", p + (files.master as NSString).deletingLastPathComponent + "/"] {
      let r = try curl.get(path)
      #expect(r.status == 403 || r.status == 404, "\(path): \(r.status)")
    }
    let elsewhere = try curl.get("/small-other/banners.json")
    #expect(elsewhere.status == 404)

    // ffmpeg plays the master over HTTP, gzip accepted, with strict error
    // detection: any damage it would conceal is an error.
    let ffmpeg = try Run.process(
      "timeout",
      ["-s", "KILL", "120", "ffmpeg", "-nostdin", "-v", "error", "-xerror", "-err_detect", "explode",
       "-headers", "Accept-Encoding: gzip\r\n", "-i", curl.base + p + files.master, "-map", "0", "-f", "null", "-"])
    #expect(ffmpeg.status == 0, "ffmpeg: \(ffmpeg.stderr)")
    #expect(ffmpeg.stderr.isEmpty, "ffmpeg: \(ffmpeg.stderr)")
    // nginx's log: ffmpeg (Lavf) got the playlists gzip-encoded, then
    // the init section and segment.
    let served = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").filter { $0.contains("Lavf") }
    #expect(served.contains { $0.hasPrefix(p + files.master + " 200 \"gzip\"") }, "\(served)")
    #expect(served.contains { $0.hasPrefix(p + files.media + " 200 \"gzip\"") }, "\(served)")
    #expect(served.contains { $0.hasPrefix(p + files.segment + " 20") }, "\(served)")
  }
}

// MARK: - Support

/// The bundle-relative paths of a SmallBundle's files, from its
/// `banners.json` and playlists.
struct ServedFiles {
  let bundle: URL
  var master = "", media = "", iframes = "", initSection = "", segment = "", mp4 = ""
  /// The first HEVC variant's media playlist (`hvc1` in the master).
  var hevcMedia = ""
  var cover = "", coverJPEG = "", width = "", widthJPEG = ""
  /// The AVIF twins of the cover and of the narrowest image width.
  var coverAVIF = "", widthAVIF = ""
  /// The video's `duration` in `banners.json`, seconds.
  var duration = 0.0

  init(bundle: URL) throws {
    self.bundle = bundle
    let manifest = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: bundle.appendingPathComponent("banners.json"))) as? [String: Any])
    let items = try #require(manifest["banners"] as? [[String: Any]])
    let video = try #require(items.first { $0["id"] as? String == SmallBundle.videoID })
    let image = try #require(items.first { $0["id"] as? String == SmallBundle.imageID })
    func path(_ url: Any?) throws -> String {
      let text = try #require(url as? String)
      try #require(text.hasPrefix(SmallBundle.baseURL))
      return String(text.dropFirst(SmallBundle.baseURL.count))
    }
    master = try path(video["hls_url"])
    mp4 = try path(video["mp4_url"])
    cover = try path(video["cover_url"])
    coverJPEG = try path(video["cover_jpeg_url"])
    duration = try #require((video["duration"] as? NSNumber)?.doubleValue)
    let source = try #require((image["sources"] as? [[String: Any]])?.first)
    width = try path(source["url"])
    widthJPEG = try path(source["jpeg_url"])
    coverAVIF = try path(video["cover_avif_url"])
    widthAVIF = try path(source["avif_url"])
    let folder = (master as NSString).deletingLastPathComponent
    let masterText = try String(contentsOf: bundle.appendingPathComponent(master), encoding: .utf8)
    let variant = try #require(masterText.split(separator: "\n").first { !$0.hasPrefix("#") && !$0.isEmpty })
    media = folder + "/" + variant
    let lines = masterText.split(separator: "\n").map(String.init)
    let hevcInf = try #require(lines.firstIndex { $0.hasPrefix("#EXT-X-STREAM-INF:") && $0.contains("CODECS=\"hvc1.") },
                               "no HEVC variant in \(master)")
    hevcMedia = folder + "/" + lines[hevcInf + 1]
    let rendition = (media as NSString).deletingLastPathComponent
    iframes = rendition + "/iframes.m3u8"
    let mediaText = try String(contentsOf: bundle.appendingPathComponent(media), encoding: .utf8)
    let firstSegment = try #require(mediaText.split(separator: "\n").first { !$0.hasPrefix("#") && !$0.isEmpty })
    segment = rendition + "/" + firstSegment
    initSection = rendition + "/init.mp4"
    for file in [master, media, hevcMedia, iframes, initSection, segment, mp4, cover, coverJPEG, width, widthJPEG, coverAVIF, widthAVIF] {
      try #require(FileManager.default.fileExists(atPath: bundle.appendingPathComponent(file).path), "\(file) missing")
    }
  }

  func bytes(_ path: String) throws -> Data { try Data(contentsOf: bundle.appendingPathComponent(path)) }
}

/// Debian's `curl` as the HTTP client: status, headers (names lower-cased)
/// and body of one GET, bounded by `--max-time`.
struct Curl {
  let base: String
  let scratch: URL

  struct Response {
    var status: Int
    var headers: [String: String]
    var body: Data
    subscript(_ name: String) -> String? { headers[name] }
  }

  /// GET `path`; `compressed` sends `Accept-Encoding: gzip` and decodes
  /// the body (`--compressed`), so `body` is what the client reads.
  func get(_ path: String, compressed: Bool = false, headers: [String] = []) throws -> Response {
    let id = UUID().uuidString
    let headerFile = scratch.appendingPathComponent("curl-\(id).headers")
    let bodyFile = scratch.appendingPathComponent("curl-\(id).body")
    defer {
      try? FileManager.default.removeItem(at: headerFile)
      try? FileManager.default.removeItem(at: bodyFile)
    }
    var arguments = ["-sS", "--max-time", "30", "--path-as-is", "-D", headerFile.path, "-o", bodyFile.path]
    if compressed { arguments += ["--compressed", "-H", "Accept-Encoding: gzip"] }
    for h in headers { arguments += ["-H", h] }
    arguments.append(base + path)
    let run = try Run.process("curl", arguments)
    try #require(run.status == 0, "curl \(path): \(run.stderr)")
    let text = try String(contentsOf: headerFile, encoding: .utf8)
    var lines = text.split(separator: "\r\n", omittingEmptySubsequences: true).map(String.init)
    let statusLine = lines.isEmpty ? "" : lines.removeFirst()
    let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
    var fields: [String: String] = [:]
    for line in lines {
      guard let colon = line.firstIndex(of: ":") else { continue }
      fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    let body = (try? Data(contentsOf: bodyFile)) ?? Data()
    return Response(status: status, headers: fields, body: body)
  }
}
