import Foundation
import MarqueeTestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif
#if canImport(Glibc)
  import Glibc
#endif

@testable import MarqueeKit

/// Serves a bundle built by the test with Debian's real `nginx` (the one
/// `make setup` installs) and the `nginx-dark-theme.conf` the bundle
/// carries, and checks what a client gets for `?theme=dark`.
///
/// nginx runs as a child of the test on 127.0.0.1 and a free port, with
/// every path (prefix, config, pid, logs, temp folders) in a temporary
/// folder, in the foreground (`daemon off`), and is stopped at the end.
/// Without nginx the test is skipped, unless `MARQUEE_REQUIRE_CORPUS=1`
/// (CI), where a missing nginx fails it.
@Suite("nginx dark-theme rule", .serialized)
struct NginxDarkThemeTests {
  static let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }
  static var skipReason: String? {
    if nginx != nil || Corpus.isRequired { return nil }
    return "nginx is not installed (make setup installs it); skipping"
  }

  @Test(.enabled(if: skipReason == nil, "\(skipReason ?? "")"))
  func darkVariantsAreServedForThemeDarkAndLightOtherwise() async throws {
    let binary = try #require(Self.nginx, "nginx is required (MARQUEE_REQUIRE_CORPUS=1) but not installed")
    let (root, bundle) = try await SmallBundle.build()
    defer { try? FileManager.default.removeItem(at: root) }
    let rule = bundle.appendingPathComponent(NginxDarkThemeRule.fileName)
    #expect(try String(contentsOf: rule, encoding: .utf8) == NginxDarkThemeRule.text)

    // The light and dark files, found from banners.json (item folders may
    // carry a content hash).
    let manifest = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: bundle.appendingPathComponent("banners.json")))
        as? [String: Any])
    let items = try #require(manifest["banners"] as? [[String: Any]])
    func path(_ url: Any?) throws -> String {
      let text = try #require(url as? String)
      try #require(text.hasPrefix(SmallBundle.baseURL))
      return String(text.dropFirst(SmallBundle.baseURL.count))
    }
    let video = try #require(items.first { $0["id"] as? String == SmallBundle.videoID })
    let image = try #require(items.first { $0["id"] as? String == SmallBundle.imageID })
    let cover = try path(video["cover_url"])
    let coverJPEG = try path(video["cover_jpeg_url"])
    let sources = try #require(image["sources"] as? [[String: Any]])
    let width = try path(sources.first?["url"])
    func dark(_ path: String) -> String {
      let p = path as NSString
      return p.deletingPathExtension + ".dark." + p.pathExtension
    }
    #expect(try path(video["cover_dark_url"]) == dark(cover))

    let server = try NginxServer(binary: binary, root: root.appendingPathComponent("nginx"), bundle: bundle)
    defer { server.stop() }
    try await server.start()

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: bundle.appendingPathComponent(path)) }
    let cases: [(query: String, path: String, expected: String)] = [
      ("", cover, cover),
      ("?theme=dark", cover, dark(cover)),
      ("?theme=light", cover, cover),
      ("?theme=dark", coverJPEG, dark(coverJPEG)),
      ("?utm=x&theme=dark", cover, dark(cover)),
      ("?theme=dark", dark(cover), dark(cover)),
      ("", width, width),
      ("?theme=dark", width, dark(width)),
      ("?theme=light", width, width),
    ]
    for c in cases {
      let (status, body, type) = try await server.get("/small/" + c.path + c.query)
      let expected = try bytes(c.expected)
      #expect(status == 200, "\(c.path)\(c.query): HTTP \(status)")
      #expect(ByteComparison.difference(body, expected) == nil, "\(c.path)\(c.query) should serve \(c.expected)")
      #expect(type.hasPrefix(c.expected.hasSuffix(".webp") ? "image/webp" : "image/jpeg"))
    }
    // The two variants really differ, so the checks above mean something.
    #expect(try bytes(cover) != bytes(dark(cover)))
    #expect(try bytes(width) != bytes(dark(width)))

    // A file without a dark sibling falls back to the light file.
    let lonely = (width as NSString).deletingLastPathComponent + "/only-light.webp"
    try bytes(width).write(to: bundle.appendingPathComponent(lonely))
    let (status, body, _) = try await server.get("/small/" + lonely + "?theme=dark")
    let lonelyBytes = try bytes(lonely)
    #expect(status == 200)
    #expect(ByteComparison.difference(body, lonelyBytes) == nil)
    // And a missing file is still a 404, dark or not.
    let missing = try await server.get("/small/videos/nope/cover.webp?theme=dark")
    #expect(missing.status == 404)
  }
}

/// Why the nginx harness could not run.
struct NginxTestError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// One nginx master process serving `bundle` under `/small/` (an `alias`
/// location, like a CDN origin serving several bundles), with all its
/// state (config, pid, logs, temp folders) in `root`.
// Safe: configured, started and stopped by one serialized suite, one test at a time.
final class NginxServer: @unchecked Sendable {
  let binary: String
  let root: URL
  let bundle: URL
  private(set) var port: UInt16 = 0
  private var process: Process?
  /// Replaces the `server {}` body's default `/small/` location (the
  /// `listen` line is written before it); `ServingTests` put the printed
  /// `marquee nginx-config` here.
  var serverBody: String?
  /// Extra `http {}` directives (a log format, the stock `mime.types`).
  var httpExtra = ""
  /// The path whose 200 says the server is up.
  var probePath = "/small/banners.json"

  init(binary: String, root: URL, bundle: URL) throws {
    self.binary = binary
    self.root = root
    self.bundle = bundle
    try FileManager.default.createDirectory(at: root.appendingPathComponent("logs"), withIntermediateDirectories: true)
  }

  /// Starts nginx on a free loopback port and waits (bounded) until it
  /// answers; retries with another port if the chosen one was taken.
  func start() async throws {
    var lastError = ""
    for _ in 0..<3 {
      port = try Self.freePort()
      let config = root.appendingPathComponent("nginx.conf")
      try Data(configuration().utf8).write(to: config)
      let p = Process()
      p.executableURL = URL(fileURLWithPath: binary)
      p.arguments = [
        "-p", root.path + "/", "-c", config.path, "-e", root.appendingPathComponent("logs/error.log").path,
        "-g", "daemon off;",
      ]
      p.standardOutput = FileHandle.nullDevice
      p.standardError = FileHandle.nullDevice
      p.standardInput = FileHandle.nullDevice
      try p.run()
      process = p
      // Bounded wait: up to 10 s in 50 ms steps.
      for _ in 0..<200 {
        if !p.isRunning { break }
        if (try? await get(probePath).status) == 200 { return }
        try await Task.sleep(nanoseconds: 50_000_000)
      }
      stop()
      lastError = (try? String(contentsOf: root.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
    }
    throw NginxTestError("nginx did not start: \(lastError)")
  }

  /// Stops nginx (SIGTERM to the master, which stops its workers) and
  /// waits for it, at most 10 s, then SIGKILL.
  func stop() {
    guard let p = process else { return }
    process = nil
    if p.isRunning { p.terminate() }
    for _ in 0..<200 where p.isRunning { usleep(50_000) }
    if p.isRunning { kill(p.processIdentifier, SIGKILL) }
    p.waitUntilExit()
  }

  /// GET `path` from the server.
  func get(_ path: String) async throws -> (status: Int, body: Data, contentType: String) {
    let url = try #require(URL(string: "http://127.0.0.1:\(port)\(path)"))
    var request = URLRequest(url: url)
    request.timeoutInterval = 10
    request.cachePolicy = .reloadIgnoringLocalCacheData
    let (data, response) = try await URLSession.shared.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    return (http.statusCode, data, http.value(forHTTPHeaderField: "Content-Type") ?? "")
  }

  /// The configuration: the bundle's own rule file included in the
  /// location that serves it, nothing outside `root` but the bundle.
  func configuration() -> String {
    let r = root.path
    let body = serverBody ?? """
          location /small/ {
            alias \(bundle.path)/;
            include \(bundle.path)/\(NginxDarkThemeRule.fileName);
          }
      """
    // As root the master starts workers as `nobody`: the bundle must be
    // world-readable, as it is for a real web server.
    return """
      worker_processes 1;
      pid \(r)/nginx.pid;
      error_log \(r)/logs/error.log info;
      events { worker_connections 64; }
      http {
        access_log \(r)/logs/access.log;
        client_body_temp_path \(r)/client_body;
        proxy_temp_path \(r)/proxy;
        fastcgi_temp_path \(r)/fastcgi;
        uwsgi_temp_path \(r)/uwsgi;
        scgi_temp_path \(r)/scgi;
        types { image/webp webp; image/jpeg jpg; image/png png; application/json json; video/mp4 mp4; }
        default_type application/octet-stream;
      \(httpExtra)
        server {
          listen 127.0.0.1:\(port);
      \(body)
        }
      }

      """
  }

  /// A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0).
  static func freePort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw NginxTestError("socket() failed: \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw NginxTestError("bind() failed: \(errno)") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard named == 0 else { throw NginxTestError("getsockname() failed: \(errno)") }
    return UInt16(bigEndian: address.sin_port)
  }
}
