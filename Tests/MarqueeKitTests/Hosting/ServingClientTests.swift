import Foundation
import MarqueeTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@testable import MarqueeKit

/// Real players against a bundle served by a real nginx through the
/// printed `marquee nginx-config`: GStreamer's playbin and headless
/// Chromium (its built-in HLS player and its MP4 player), and the preview
/// page opened from disk and from the server. Run by `make test-serving`
/// (`MARQUEE_SERVING_TESTS=1`).
@Suite("Serving: GStreamer and Chromium play the served bundle", .serialized)
struct ServingClientTests {
  static var skipReason: String? { ServingChecks.skipReason }

  @Test(
    "GStreamer playbin plays the master playlist, the HEVC variant and the MP4 over HTTP to EOS",
    .enabled(if: skipReason == nil, "\(skipReason ?? "")"), .timeLimit(.minutes(5)))
  func gstreamerPlaysToEOS() async throws {
    let gst = try #require(ServingChecks.tool("gst-launch-1.0"), "gst-launch-1.0 is not installed (make setup-serving)")
    let served = try await ServedBundle.start()
    defer { served.stop() }
    for path in [served.files.master, served.files.hevcMedia, served.files.mp4] {
      let run = try Run.process(
        "timeout",
        ["-s", "KILL", "120", gst, "-v", "playbin", "uri=\(served.url(path))",
         "video-sink=fakesink sync=true", "audio-sink=fakesink sync=true"])
      let output = run.stdoutText + run.stderr
      #expect(run.status == 0, "\(path): exit \(run.status)\n\(output.suffix(2000))")
      #expect(output.contains("Got EOS from element \"playbin0\""), "\(path): no EOS\n\(output.suffix(2000))")
      #expect(!output.contains("ERROR:"), "\(path)\n\(output.suffix(2000))")
      // Pictures and sound were decoded (caps of raw video at the bundle's
      // size, raw audio; the sinks' own caps notices are sometimes not
      // printed before the pipeline stops, so any element's count).
      let caps = output.split(separator: "\n").filter { $0.contains("caps = ") }
      #expect(caps.contains { $0.contains("caps = video/x-raw") && $0.contains("width=(int)320") }, "\(path): no raw video")
      #expect(caps.contains { $0.contains("caps = audio/x-raw") }, "\(path): no raw audio\n\(caps.joined(separator: "\n").suffix(3000))")
      let decoder = path == served.files.hevcMedia ? "avdec_h265" : "avdec_h264"
      #expect(output.contains(decoder) && output.contains("avdec_aac"), "\(path): not decoded by \(decoder)/avdec_aac")
      if path.hasSuffix(".m3u8") {
        #expect(output.contains("hlsdemux"), "\(path) was not played as HLS")
      }
    }
  }

  @Test(
    "headless Chromium plays the master natively and the MP4 to ended, for banners.json's duration",
    .enabled(if: skipReason == nil, "\(skipReason ?? "")"), .timeLimit(.minutes(5)))
  func chromiumPlaysHLSAndMP4() async throws {
    let served = try await ServedBundle.start()
    defer { served.stop() }
    let page = "/test/harness.html?hls=" + served.prefix + served.files.master + "&mp4=" + served.prefix + served.files.mp4
    let result = try Chromium(scratch: served.root).run("http://127.0.0.1:\(served.server.port)\(page)")
    let videos = try #require(result["videos"] as? [[String: Any]], "\(result)")
    try #require(videos.count == 2, "\(result)")
    for (video, kind) in zip(videos, ["hls", "mp4"]) {
      #expect(video["end"] as? String == "ended", "\(kind): \(video)")
      #expect(video["error"] is NSNull, "\(kind): \(video)")
      #expect(video["width"] as? Int == 320 && video["height"] as? Int == 240, "\(kind): \(video)")
      #expect((video["currentSrc"] as? String ?? "").hasSuffix(kind == "hls" ? "/master.m3u8" : "/video.mp4"), "\(kind): \(video)")
      let duration = try #require((video["duration"] as? NSNumber)?.doubleValue, "\(kind): \(video)")
      Self.expectDuration(duration, served.files.duration, kind)
      // The first picture shown (requestVideoFrameCallback's mediaTime) is
      // the one at 0: before the sound was decoded after the pictures,
      // Chromium's HLS player showed it at 0.021333 s.
      let first = try #require((video["firstFrame"] as? NSNumber)?.doubleValue, "\(kind): \(video)")
      #expect(abs(first) <= Self.tolerance, "\(kind): Chromium shows the first picture at \(first) s")
    }
    // Chromium played HLS itself (no script library): it says it can.
    #expect(["maybe", "probably"].contains(videos[0]["hlsSupport"] as? String ?? ""), "\(videos[0])")
  }

  @Test(
    "the preview plays from file:// and from beside the bundle on nginx; captions leave no empty bands",
    .enabled(if: skipReason == nil, "\(skipReason ?? "")"), .timeLimit(.minutes(5)))
  func previewPlaysFromDiskAndServer() async throws {
    let served = try await ServedBundle.start()
    defer { served.stop() }
    let before = try TreeSnapshot.of(served.bundle)
    let preview = try MarqueeCLI.run(["preview", served.bundle.path])
    try #require(preview.status == 0, "\(preview.stderr)")
    #expect(TreeSnapshot.differences(before, try TreeSnapshot.of(served.bundle)).isEmpty, "preview changed the bundle")
    let folder = PreviewWriter.defaultFolder(for: served.bundle)
    let page = folder.appendingPathComponent("preview.html")

    let chromium = Chromium(scratch: served.root)
    let fromDisk = try chromium.run(
      "file://" + served.www.appendingPathComponent("harness.html").path + "?page=" + "file://" + page.path)
    let fromServer = try chromium.run(
      "http://127.0.0.1:\(served.server.port)/test/harness.html?page=/small.preview/preview.html")
    for (result, origin) in [(fromDisk, "file://"), (fromServer, "nginx")] {
      let videos = try #require(result["videos"] as? [[String: Any]], "\(origin): \(result)")
      try #require(videos.count == 1, "\(origin): \(result)")
      let video = videos[0]
      #expect(video["end"] as? String == "ended", "\(origin): \(video)")
      let source = video["currentSrc"] as? String ?? ""
      if origin == "nginx" {
        // Chromium's built-in HLS player takes the first source.
        #expect(source.hasSuffix("/small/" + served.files.master), "\(origin): \(source)")
      } else {
        #expect(source.hasSuffix("/" + served.files.master) || source.hasSuffix("/" + served.files.mp4), "\(origin): \(source)")
      }
      let duration = try #require((video["duration"] as? NSNumber)?.doubleValue)
      Self.expectDuration(duration, served.files.duration, "preview from \(origin)")
      let images = try #require(result["images"] as? [[String: Any]])
      #expect(images.count >= 8, "\(origin): \(images)")
      for image in images { #expect(image["ok"] as? Bool == true, "\(origin): \(image)") }
      // Layout: a figure is as wide as its picture plus its padding (a
      // long caption wraps instead of widening it) and as tall as its
      // content (no row stretches a short figure).
      let figures = try #require(result["figures"] as? [[String: Any]])
      #expect(figures.count >= 8)
      for f in figures {
        let width = (f["figureWidth"] as? NSNumber)?.doubleValue ?? 0
        let media = (f["mediaWidth"] as? NSNumber)?.doubleValue ?? 0
        let height = (f["figureHeight"] as? NSNumber)?.doubleValue ?? 0
        let content = (f["contentHeight"] as? NSNumber)?.doubleValue ?? 0
        #expect(abs(width - (media + 16)) <= 1, "\(origin): a figure wider than its picture: \(f)")
        #expect(abs(height - (content + 16)) <= 1, "\(origin): a figure taller than its content: \(f)")
      }
    }
    try? FileManager.default.removeItem(at: folder)
  }

  /// How far a time Chromium reports may be from the bundle's, seconds:
  /// 1.5 ms, well under one picture (40 ms at the clip's 25 fps), room for
  /// the MP4's millisecond movie timescale and Chromium's microseconds.
  static let tolerance = 0.0015

  /// `duration` in `banners.json` is what the player reports, within
  /// `tolerance`: the MP4 and Chromium's HLS player (which reported one AAC
  /// frame more, 2.021333 s for 2.000 s, until the HLS sound was decoded
  /// from one sample after the pictures, `AudioDecodeDelay`).
  static func expectDuration(_ reported: Double, _ expected: Double, _ what: String) {
    #expect(abs(reported - expected) <= tolerance, "\(what): Chromium \(reported) s, banners.json \(expected) s")
  }
}

// MARK: - Support

/// A SmallBundle served by nginx through the printed `marquee
/// nginx-config` (under `/small/`), the preview folder beside it under
/// `/small.preview/` and the harness page under `/test/`.
// Safe: immutable after init; its server is started and stopped by one serialized suite.
final class ServedBundle: @unchecked Sendable {
  let root: URL
  let bundle: URL
  let files: ServedFiles
  let server: NginxServer
  let www: URL
  let prefix = "/small/"

  private init(root: URL, bundle: URL, files: ServedFiles, server: NginxServer, www: URL) {
    self.root = root
    self.bundle = bundle
    self.files = files
    self.server = server
    self.www = www
  }

  static func start() async throws -> ServedBundle {
    let binary = try #require(NginxDarkThemeTests.nginx, "nginx is not installed (make setup)")
    let (root, bundle) = try await SmallBundle.build()
    do {
      let files = try ServedFiles(bundle: bundle)
      let printed = try MarqueeCLI.run(["nginx-config", bundle.path])
      try #require(printed.status == 0, "\(printed.stderr)")
      let snippet = root.appendingPathComponent("marquee-small.conf")
      try printed.stdout.write(to: snippet)
      let www = root.appendingPathComponent("www")
      try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
      try Data(Chromium.harness.utf8).write(to: www.appendingPathComponent("harness.html"))
      let preview = PreviewWriter.defaultFolder(for: bundle)
      let server = try NginxServer(binary: binary, root: root.appendingPathComponent("nginx"), bundle: bundle)
      server.serverBody = """
            include \(snippet.path);
            location /test/ { alias \(www.path)/; types { text/html html; } }
            location /small.preview/ { alias \(preview.path)/; types { text/html html; image/png png; } }
        """
      try await server.start()
      return ServedBundle(root: root, bundle: bundle, files: files, server: server, www: www)
    } catch {
      try? FileManager.default.removeItem(at: root)
      throw error
    }
  }

  func url(_ path: String) -> String { "http://127.0.0.1:\(server.port)\(prefix)\(path)" }

  func stop() {
    server.stop()
    try? FileManager.default.removeItem(at: root)
  }
}

/// Debian's `chromium`, headless, as root (`--no-sandbox`), with its
/// profile in a temporary folder: loads one page, whose script writes its
/// result to the console, which `--enable-logging=stderr` puts in a log
/// file the test reads. Bounded: the browser's process group (coreutils
/// `timeout` leads it) is stopped when the result is there, and killed
/// by `timeout` after 120 s in any case.
struct Chromium {
  let scratch: URL

  func run(_ url: String) throws -> [String: Any] {
    let binary = try #require(ServingChecks.tool("chromium", "chromium-browser"), "chromium is not installed (make setup-serving)")
    let profile = scratch.appendingPathComponent("chromium-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: profile) }
    let log = profile.appendingPathComponent("console.log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let handle = try FileHandle(forWritingTo: log)
    defer { try? handle.close() }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
    p.arguments = [
      "-s", "KILL", "120", binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
      "--user-data-dir=\(profile.path)", "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--mute-audio", "--autoplay-policy=no-user-gesture-required",
      "--allow-file-access-from-files", "--enable-logging=stderr", "--v=0", url,
    ]
    p.environment = MarqueeCLI.environment(["HOME": profile.path])
    p.standardOutput = handle
    p.standardError = handle
    p.standardInput = FileHandle.nullDevice
    try p.run()
    var text = ""
    let done = ServingChecks.wait(110) {
      text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
      return text.contains(" MARQUEE-END") || !p.isRunning
    }
    // timeout leads its own process group: stop the browser and every
    // helper it started (zygote, renderer, GPU and network processes).
    kill(-p.processIdentifier, SIGTERM)
    for _ in 0..<100 where p.isRunning { usleep(50_000) }
    kill(-p.processIdentifier, SIGKILL)
    p.waitUntilExit()
    try #require(done, "Chromium gave no result for \(url) in 110 s:\n\(text.suffix(3000))")
    guard let start = text.range(of: "MARQUEE-RESULT "), let end = text.range(of: " MARQUEE-END", range: start.upperBound..<text.endIndex),
      let json = String(text[start.upperBound..<end.lowerBound]).removingPercentEncoding,
      let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
    else {
      Issue.record("Chromium's log has no result for \(url):\n\(text.suffix(3000))")
      return [:]
    }
    return object
  }

  /// The page the tests load: `?hls=…&mp4=…` plays those URLs in new video
  /// elements; `?page=…` loads the preview in a frame and plays its videos
  /// (looping off), loads its images and measures its figures. Each video
  /// reports how it ended (`ended`, `error`, `timeout` after 30 s), its
  /// duration, size and source, and the earliest presentation time among
  /// the pictures it showed (`firstFrame`, requestVideoFrameCallback's
  /// `mediaTime`).
  static let harness = #"""
    <!doctype html>
    <html><head><meta charset="utf-8"><title>Marquee test harness</title></head><body><script>
    const q = new URLSearchParams(location.search);
    const results = { videos: [] };
    function finish() { console.log('MARQUEE-RESULT ' + encodeURIComponent(JSON.stringify(results)) + ' MARQUEE-END'); }
    function playToEnd(v) {
      return new Promise(resolve => {
        const r = { hlsSupport: v.canPlayType('application/vnd.apple.mpegurl'), firstFrame: null };
        let settled = false;
        const onFrame = (now, meta) => {
          if (r.firstFrame === null || meta.mediaTime < r.firstFrame) r.firstFrame = meta.mediaTime;
          if (!settled) v.requestVideoFrameCallback(onFrame);
        };
        if (v.requestVideoFrameCallback) v.requestVideoFrameCallback(onFrame);
        const done = (how) => {
          if (settled) return;
          settled = true;
          Object.assign(r, { end: how, duration: v.duration, currentTime: v.currentTime, currentSrc: v.currentSrc,
            width: v.videoWidth, height: v.videoHeight, error: v.error ? v.error.code + ' ' + v.error.message : null });
          resolve(r);
        };
        v.loop = false; v.muted = true;
        v.addEventListener('ended', () => done('ended'));
        v.addEventListener('error', () => { if (v.networkState === 3) done('error'); }, true);
        setTimeout(() => done('timeout'), 30000);
        v.play().catch(e => { r.playError = String(e); });
      });
    }
    (async () => {
      try {
        if (q.get('page')) {
          const f = document.createElement('iframe');
          f.style.width = '1400px'; f.style.height = '3000px';
          f.src = q.get('page'); document.body.appendChild(f);
          await new Promise(r => f.addEventListener('load', r));
          const doc = f.contentDocument;
          const imgs = Array.from(doc.querySelectorAll('img'));
          for (const i of imgs) i.loading = 'eager';
          results.images = [];
          for (const i of imgs) {
            let ok = true;
            try { await i.decode(); } catch (e) { ok = false; }
            results.images.push({ src: i.getAttribute('src'), ok: ok && i.naturalWidth > 0 });
          }
          results.figures = Array.from(doc.querySelectorAll('figure')).filter(fig => fig.querySelector('img, video')).map(fig => {
            const media = fig.querySelector('img, video');
            const caption = fig.querySelector('figcaption');
            const cs = getComputedStyle(caption || fig);
            const content = media.getBoundingClientRect().height + (caption ? caption.getBoundingClientRect().height + parseFloat(cs.marginTop) : 0);
            return { src: media.getAttribute('src') || media.getAttribute('poster'), figureWidth: fig.clientWidth,
              mediaWidth: media.getBoundingClientRect().width, figureHeight: fig.clientHeight, contentHeight: content };
          });
          for (const v of Array.from(doc.querySelectorAll('video'))) results.videos.push(await playToEnd(v));
        }
        for (const key of ['hls', 'mp4']) {
          if (!q.get(key)) continue;
          const v = document.createElement('video');
          v.src = q.get(key); document.body.appendChild(v);
          results.videos.push(await playToEnd(v));
        }
      } catch (e) { results.exception = String(e); }
      finish();
    })();
    </script></body></html>
    """#
}
