import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

#if canImport(Glibc)
import Glibc
#endif

/// Hostile sources, planted output state and bundles that point outside
/// themselves (issue 11). Every run of the CLI here is bounded by
/// coreutils `timeout`, so a hang fails the test instead of stalling the
/// suite.
@Suite("Hostile input: sources, planted state, bundles", .serialized)
struct HostileInputTests {
  /// `marquee <arguments>`, killed after `seconds`.
  static func bounded(_ arguments: [String], seconds: Int = 120) throws -> ProcessResult {
    try Run.process("/usr/bin/timeout", ["-s", "KILL", String(seconds), MarqueeCLI.executable.path] + arguments,
                    environment: MarqueeCLI.environment())
  }

  static func mkfifo(_ url: URL) throws {
    guard Glibc.mkfifo(url.path, 0o644) == 0 else { throw CocoaError(.fileWriteUnknown) }
  }

  /// A 24-bit BMP of one colour (BITMAPINFOHEADER, bottom-up rows).
  static func bmp(width: Int, height: Int, bgr: (UInt8, UInt8, UInt8)) -> Data {
    let row = (width * 3 + 3) / 4 * 4
    let size = 54 + row * height
    var d = Data()
    func le32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { d.append(contentsOf: $0) } }
    func le16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { d.append(contentsOf: $0) } }
    d.append(contentsOf: [0x42, 0x4D]); le32(size); le32(0); le32(54)
    le32(40); le32(width); le32(height); le16(1); le16(24); le32(0); le32(row * height); le32(2835); le32(2835); le32(0); le32(0)
    for _ in 0..<height {
      for _ in 0..<width { d.append(contentsOf: [bgr.0, bgr.1, bgr.2]) }
      d.append(contentsOf: [UInt8](repeating: 0, count: row - width * 3))
    }
    return d
  }

  // MARK: - Sources that are not regular files

  @Test("a FIFO, /dev/zero and /dev/urandom as sources fail at once in build and validate; the good item builds")
  func specialFilesAsSources() throws {
    let fixture = try BatchFixture("hostile-special")
    defer { fixture.remove() }
    try fixture.png("good.png")
    try Self.mkfifo(fixture.dir.appendingPathComponent("pipe.jpg"))
    try FileManager.default.createSymbolicLink(atPath: fixture.dir.appendingPathComponent("zero.mp4").path, withDestinationPath: "/dev/zero")
    try FileManager.default.createSymbolicLink(atPath: fixture.dir.appendingPathComponent("random.png").path, withDestinationPath: "/dev/urandom")
    let job = try fixture.job([
      ["id": "fifo", "type": "image", "source": "pipe.jpg"],
      ["id": "zero", "type": "video", "source": "zero.mp4"],
      ["id": "random", "type": "image", "source": "random.png"],
      ["id": "good", "type": "image", "source": "good.png"],
    ]).path

    let validate = try Self.bounded(["validate", job], seconds: 60)
    #expect(validate.status == 2, "\(validate.stderr)")
    #expect(validate.stderr.contains("banners[0].source: not a regular file (a FIFO) (pipe.jpg)"), "\(validate.stderr)")
    #expect(validate.stderr.contains("banners[1].source: not a regular file (a character device) (zero.mp4)"), "\(validate.stderr)")
    #expect(validate.stderr.contains("banners[2].source: not a regular file (a character device) (random.png)"), "\(validate.stderr)")

    let build = try Self.bounded(["build", job, "--out", fixture.out.path, "--allow-partial", "--log-format", "plain"], seconds: 120)
    #expect(build.status == 1, "\(build.stderr)")
    #expect(build.stderr.contains("error: fifo: hash failed: pipe.jpg: not a regular file (a FIFO)"), "\(build.stderr)")
    #expect(build.stderr.contains("error: zero: hash failed: zero.mp4: not a regular file (a character device)"), "\(build.stderr)")
    #expect(FileManager.default.fileExists(atPath: fixture.out.appendingPathComponent("home/banners.json").path))
    // The lock was released: the next run is not told the bundle is locked.
    let again = try Self.bounded(["build", job, "--out", fixture.out.path, "--allow-partial"], seconds: 120)
    #expect(again.status == 1, "\(again.stderr)")
  }

  @Test("an image named like an image2 pattern is read itself, never the files the pattern names")
  func imagePatternNameReadsOneFile() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-pattern-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let pattern = dir.appendingPathComponent("img%d.bmp")
    try Self.bmp(width: 8, height: 6, bgr: (0, 0, 255)).write(to: pattern)
    for i in 0..<3 { try Self.bmp(width: 32, height: 32, bgr: (255, 0, 0)).write(to: dir.appendingPathComponent("img\(i).bmp")) }
    let source = try ImageSource.open(path: pattern.path, limits: InputLimits())
    #expect(source.header.width == 8 && source.header.height == 6)
    let picture = try source.decodeStill().image
    #expect(picture.width == 8 && picture.height == 6)
    #expect(picture.pixels[0] > 200 && picture.pixels[2] < 50, "red expected, got \(picture.pixels[0..<4])")
    let first = try ImageDecoder.decodeFirstFrame(path: pattern.path, limits: InputLimits())
    #expect(first.image.width == 8)
  }

  @Test("a raw H.264 elementary stream is refused by validate with the reason, as build would fail on it")
  func rawElementaryStreamRefused() throws {
    let fixture = try BatchFixture("hostile-raw")
    defer { fixture.remove() }
    let mp4 = try fixture.clip("a.mp4", tone: nil)
    let raw = fixture.dir.appendingPathComponent("a.h264")
    let convert = try Run.process("ffmpeg", ["-loglevel", "error", "-y", "-i", mp4.path, "-c:v", "copy", "-bsf:v", "h264_mp4toannexb", "-f", "h264", raw.path])
    #expect(convert.status == 0, "\(convert.stderr)")
    let job = try fixture.job([["id": "raw", "type": "video", "source": "a.h264"]]).path
    let validate = try Self.bounded(["validate", job], seconds: 60)
    #expect(validate.status == 2)
    #expect(validate.stderr.contains("raw H.264/HEVC elementary stream"), "\(validate.stderr)")
  }

  @Test("a truncated HEIF is refused with libheif's reason, read before its context is freed (FuzzImageHeaders, ASan)",
        .enabled(if: Corpus.skipReason == nil, "\(Corpus.skipReason ?? "")"))
  func truncatedHEIFReason() throws {
    let whole = try Data(contentsOf: try Corpus.url("image-heic-iphone11promax-displayp3-grid-2566x3313.heic"))
    let error = #expect(throws: MediaIOError.self) {
      try ImageSource.open(data: whole.prefix(65536), path: "cut.heic", limits: InputLimits())
    }
    let reason = error?.reason ?? ""
    #expect(reason.hasPrefix("HEIF cannot be read: ") || reason.hasPrefix("HEIF has no primary image: "), "\(reason)")
    #expect(!reason.contains("\u{FFFD}"), "\(reason)")
  }

  // MARK: - Job files

  @Test("a FIFO as the job file is refused at once; a job file behind a link is size-capped by its target")
  func jobFileFIFOAndLinkedOversize() throws {
    let fixture = try BatchFixture("hostile-job")
    defer { fixture.remove() }
    let fifo = fixture.dir.appendingPathComponent("job.json")
    try Self.mkfifo(fifo)
    let run = try Self.bounded(["validate", fifo.path], seconds: 30)
    #expect(run.status == 2)
    #expect(run.stderr.contains("not a regular file (a FIFO)"), "\(run.stderr)")
    #expect(!run.stderr.contains("permission"), "\(run.stderr)")

    let big = fixture.dir.appendingPathComponent("big.bin")
    #expect(FileManager.default.createFile(atPath: big.path, contents: nil))
    let handle = try FileHandle(forWritingTo: big)
    try handle.truncate(atOffset: UInt64(JobReader.maxJobFileSize) + 4 << 20)
    try handle.close()
    let link = fixture.dir.appendingPathComponent("linked.json")
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: big.path)
    let error = #expect(throws: JobError.self) { try JobReader().read(contentsOf: link) }
    #expect(error?.reason.contains("is 20 MiB; a job file is a small JSON document") == true, "\(String(describing: error))")
  }

  @Test("validate lists every bad banner when only banners are bad")
  func everyBadBannerListed() throws {
    let fixture = try BatchFixture("hostile-banners")
    defer { fixture.remove() }
    let job = try fixture.job([
      ["id": "Bad", "type": "image", "source": "a.png"],
      ["id": "ok", "type": "image", "source": "b.png"],
      ["id": "c", "type": "movie", "source": "c.png"],
      ["id": "d", "type": "image"],
    ])
    let (_, problems) = JobValidator.validate(jobAt: job)
    #expect(problems.map(\.path) == ["banners[0].id", "banners[2].type", "banners[3].source"], "\(problems)")
  }

  // MARK: - Sources outside the job's folder

  @Test("sources outside the job file's folder are refused unless settings.allow_outside_sources is true")
  func outsideSourcesRule() throws {
    let fixture = try BatchFixture("hostile-outside")
    defer { fixture.remove() }
    let inner = fixture.dir.appendingPathComponent("jobs")
    try FileManager.default.createDirectory(at: inner.appendingPathComponent("media"), withIntermediateDirectories: true)
    try fixture.png("outside.png")
    try fixture.png("jobs/media/inside.png")
    func job(_ source: String, allow: Bool? = nil) -> Data {
      var doc: [String: Any] = ["name": "home", "banners": [["id": "a", "type": "image", "source": source]]]
      if let allow { doc["settings"] = ["allow_outside_sources": allow] }
      return (try? JSONSerialization.data(withJSONObject: doc)) ?? Data()
    }
    let jobURL = inner.appendingPathComponent("job.json")
    for source in ["../outside.png", "media/../../outside.png", fixture.dir.appendingPathComponent("outside.png").path, "/etc/hostname"] {
      let error = #expect(throws: JobError.self) { try JobReader().parse(job(source), jobFileURL: jobURL) }
      #expect(error?.path == "banners[0].source", "\(source)")
      #expect(error?.reason.contains("allow_outside_sources") == true, "\(source): \(String(describing: error))")
      let allowed = try JobReader().parse(job(source, allow: true), jobFileURL: jobURL)
      #expect(allowed.banners[0].sourceText == source)
    }
    for source in ["media/inside.png", "media/../media/inside.png", "./media/inside.png", inner.appendingPathComponent("media/inside.png").path] {
      #expect(throws: Never.self) { try JobReader().parse(job(source), jobFileURL: jobURL) }
    }
    let error = #expect(throws: JobError.self) { try JobReader().parse(job("a.png", allow: nil).replacingAllowWithString(), jobFileURL: jobURL) }
    #expect(error?.path == "settings.allow_outside_sources", "\(String(describing: error))")
    // A poster (`cover.image`) is a source like any other.
    let poster = Data(#"{"name": "home", "banners": [{"id": "v", "type": "video", "source": "media/v.mp4", "cover": {"image": "../outside.png"}}]}"#.utf8)
    let posterError = #expect(throws: JobError.self) { try JobReader().parse(poster, jobFileURL: jobURL) }
    #expect(posterError?.path == "banners[0].cover.image", "\(String(describing: posterError))")
  }

  // MARK: - Planted state in the output root

  @Test("a symbolic link planted at any folder of Marquee's state is refused and nothing is written through it",
        arguments: [".marquee", ".marquee/staging", ".marquee/store", ".marquee/store/tmp", ".marquee/store/objects",
                    ".marquee/store/sources", ".marquee/locks"])
  func plantedFolderLinks(_ planted: String) throws {
    let fixture = try BatchFixture("hostile-planted")
    defer { fixture.remove() }
    try fixture.png("b.png")
    let job = try fixture.job([["id": "b", "type": "image", "source": "b.png"]]).path
    let elsewhere = fixture.dir.appendingPathComponent("elsewhere")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
    let link = fixture.out.appendingPathComponent(planted)
    try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: elsewhere.path)

    let run = try Self.bounded(["build", job, "--out", fixture.out.path], seconds: 120)
    #expect(run.status == 4, "\(run.stderr)")
    #expect(run.stderr.contains("\(planted) is a symbolic link or not a folder"), "\(run.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
  }

  @Test("a lock file planted as a link or a hard link is refused; its target is not truncated")
  func plantedLockFile() throws {
    let fixture = try BatchFixture("hostile-lock")
    defer { fixture.remove() }
    try fixture.png("b.png")
    let job = try fixture.job([["id": "b", "type": "image", "source": "b.png"]]).path
    let victim = fixture.dir.appendingPathComponent("victim.txt")
    try Data("precious\n".utf8).write(to: victim)
    let locks = fixture.out.appendingPathComponent(".marquee/locks")
    try FileManager.default.createDirectory(at: locks, withIntermediateDirectories: true)
    let lock = locks.appendingPathComponent("home.lock")

    try FileManager.default.createSymbolicLink(atPath: lock.path, withDestinationPath: victim.path)
    let linked = try Self.bounded(["build", job, "--out", fixture.out.path], seconds: 120)
    #expect(linked.status == 4, "\(linked.stderr)")
    #expect(linked.stderr.contains("home.lock is a symbolic link"), "\(linked.stderr)")
    #expect(try Data(contentsOf: victim) == Data("precious\n".utf8))

    try FileManager.default.removeItem(at: lock)
    try FileManager.default.linkItem(at: victim, to: lock)
    let hard = try Self.bounded(["build", job, "--out", fixture.out.path], seconds: 120)
    #expect(hard.status == 4, "\(hard.stderr)")
    #expect(hard.stderr.contains("has 2 hard links"), "\(hard.stderr)")
    #expect(try Data(contentsOf: victim) == Data("precious\n".utf8))

    try FileManager.default.removeItem(at: lock)
    try Self.mkfifo(lock)
    let fifo = try Self.bounded(["build", job, "--out", fixture.out.path], seconds: 60)
    #expect(fifo.status == 4, "\(fifo.stderr)")
    #expect(fifo.stderr.contains("is not a regular file"), "\(fifo.stderr)")
  }

  @Test("a bundle path that is a link, and a store file replaced by a link, are never published through")
  func plantedBundleAndStoreLinks() throws {
    let fixture = try BatchFixture("hostile-store")
    defer { fixture.remove() }
    try fixture.png("b.png")
    let job = try fixture.job([["id": "b", "type": "image", "source": "b.png"]]).path
    let first = try Self.bounded(["build", job, "--out", fixture.out.path], seconds: 180)
    #expect(first.status == 0, "\(first.stderr)")

    // A store file swapped for a link to a secret: the object is not intact.
    let secret = fixture.dir.appendingPathComponent("secret.webp")
    try Data("secret".utf8).write(to: secret)
    let objects = fixture.out.appendingPathComponent(".marquee/store/objects")
    let object = try #require(try FileManager.default.contentsOfDirectory(atPath: objects.path).first)
    let files = objects.appendingPathComponent(object).appendingPathComponent("files")
    let walker = FileManager.default.enumerator(atPath: files.path)
    let stored = try #require((walker?.allObjects as? [String])?.first { $0.hasSuffix(".webp") })
    let storedURL = files.appendingPathComponent(stored)
    let size = try FileManager.default.attributesOfItem(atPath: storedURL.path)[.size] as? NSNumber
    try Data(repeating: 7, count: size?.intValue ?? 6).write(to: secret)
    try FileManager.default.removeItem(at: storedURL)
    try FileManager.default.createSymbolicLink(atPath: storedURL.path, withDestinationPath: secret.path)
    let record = AssetStore(outputRoot: fixture.out)
    let parsed = try #require(record.record(object))
    #expect(!record.isIntact(parsed))

    // The bundle folder replaced by a link to another folder.
    let bundle = fixture.out.appendingPathComponent("home")
    let moved = fixture.dir.appendingPathComponent("moved-bundle")
    try FileManager.default.moveItem(at: bundle, to: moved)
    try FileManager.default.createSymbolicLink(atPath: bundle.path, withDestinationPath: moved.path)
    let second = try Self.bounded(["build", job, "--out", fixture.out.path], seconds: 180)
    #expect(second.status == 4, "\(second.stderr)")
    #expect(second.stderr.contains("home is a symbolic link; not replacing it"), "\(second.stderr)")
  }

  // MARK: - Bundles that point outside themselves

  /// A built one-image bundle and a file beside it that must stay unread.
  static func builtBundle(_ fixture: BatchFixture) throws -> (bundle: URL, outside: URL) {
    try fixture.png("b.png", width: 480, height: 360)
    let job = try fixture.job([["id": "b", "type": "image", "source": "b.png"]], baseURL: nil).path
    let run = try bounded(["build", job, "--out", fixture.out.path], seconds: 180)
    #expect(run.status == 0, "\(run.stderr)")
    let outside = fixture.out.appendingPathComponent("x.jpg")
    try JPEGEncoder.encode(SyntheticMedia.renderStill("color=c=0xFF00FF:size=64x64"), quality: 90).write(to: outside)
    return (fixture.out.appendingPathComponent("home"), outside)
  }

  static func editManifest(_ bundle: URL, _ edit: (inout [String: Any]) -> Void) throws {
    let url = bundle.appendingPathComponent("banners.json")
    var doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    var items = try #require(doc["banners"] as? [[String: Any]])
    edit(&items[0])
    doc["banners"] = items
    try JSONSerialization.data(withJSONObject: doc).write(to: url)
  }

  @Test("preview refuses percent-encoded traversal, never links javascript:, and follows no link out of the bundle")
  func previewStaysInsideTheBundle() throws {
    let fixture = try BatchFixture("hostile-preview")
    defer { fixture.remove() }
    let (bundle, outside) = try Self.builtBundle(fixture)
    try Self.editManifest(bundle) { item in
      item["url"] = "images%2F..%2F..%2Fx.jpg"
      item["jpeg_url"] = "images/%2E%2E/../x.jpg"
      item["link"] = "javascript:alert(document.domain)"
    }
    // And a symbolic link inside the bundle, named by dark_url.
    let dark = try #require((try Self.manifestItem(bundle))["dark_url"] as? String)
    let darkFile = bundle.appendingPathComponent(dark)
    try FileManager.default.removeItem(at: darkFile)
    try FileManager.default.createSymbolicLink(atPath: darkFile.path, withDestinationPath: outside.path)

    let result = try PreviewWriter().write(bundle: bundle)
    let html = try String(contentsOf: result.html, encoding: .utf8)
    #expect(!html.contains("href=\"javascript"), "a javascript: link is clickable")
    #expect(!html.contains("x.jpg\""), "the outside file is linked")
    #expect(!html.contains("src=\"\(dark)\""), "the linked dark file is shown")
    #expect(result.warnings.contains { $0.contains("images%2F..%2F..%2Fx.jpg") }, "\(result.warnings)")
    // The outside picture (magenta) is nowhere on the contact sheet.
    let sheet = try ImageSource.open(path: result.contactSheet.path, limits: InputLimits()).decodeStill().image
    var magenta = 0
    for i in stride(from: 0, to: sheet.pixels.count, by: 4) where sheet.pixels[i] > 200 && sheet.pixels[i + 1] < 60 && sheet.pixels[i + 2] > 200 {
      magenta += 1
    }
    #expect(magenta < 50, "\(magenta) magenta pixels: the outside file was painted")

    let verify = try Self.bounded(["verify", bundle.path], seconds: 180)
    #expect(verify.status == 1)
    #expect(verify.stderr.contains("leaves the bundle"), "\(verify.stderr)")
    #expect(verify.stderr.contains("dark_url") && verify.stderr.contains("missing"), "\(verify.stderr)")
  }

  static func manifestItem(_ bundle: URL) throws -> [String: Any] {
    let doc = try JSONSerialization.jsonObject(with: Data(contentsOf: bundle.appendingPathComponent("banners.json"))) as? [String: Any]
    return try #require((doc?["banners"] as? [[String: Any]])?.first)
  }

  /// A black 1-bit greyscale PNG of `side`×`side` pixels, about 200 kB for
  /// 16000×16000 (the issue's 31 kB file used zlib's best effort): the
  /// raw rows are all zero bytes (filter 0, black pixels), so the IDAT is
  /// one literal 0 and then matches of 258 bytes at distance 1 in a fixed
  /// Huffman deflate block (RFC 1951 §3.2.6).
  static func blackPNG(side: Int) -> Data {
    let raw = side * (1 + (side + 7) / 8)
    var bits: [UInt8] = []
    var acc: UInt32 = 0, count = 0
    func put(_ value: UInt32, _ n: Int) {  // LSB first
      acc |= value << count
      count += n
      while count >= 8 { bits.append(UInt8(acc & 0xFF)); acc >>= 8; count -= 8 }
    }
    func putHuffman(_ code: UInt32, _ n: Int) {  // Huffman codes MSB first
      var reversed: UInt32 = 0
      for i in 0..<n where code & (1 << i) != 0 { reversed |= 1 << (n - 1 - i) }
      put(reversed, n)
    }
    put(1, 1); put(1, 2)  // final block, fixed Huffman
    putHuffman(0x30, 8)  // literal 0
    var left = raw - 1
    while left >= 258 { putHuffman(0xC5, 8); putHuffman(0, 5); left -= 258 }  // length 258 (code 285), distance 1
    while left > 0 { putHuffman(0x30, 8); left -= 1 }
    putHuffman(0, 7)  // end of block (256)
    if count > 0 { bits.append(UInt8(acc & 0xFF)) }
    let adler = UInt32(raw % 65521) << 16 | 1
    var zlib = Data([0x78, 0x01]) + Data(bits)
    withUnsafeBytes(of: adler.bigEndian) { zlib.append(contentsOf: $0) }
    func crc(_ d: Data) -> UInt32 {
      var c: UInt32 = 0xFFFF_FFFF
      for b in d {
        c ^= UInt32(b)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
      }
      return ~c
    }
    func chunk(_ type: String, _ body: Data) -> Data {
      var d = Data()
      withUnsafeBytes(of: UInt32(body.count).bigEndian) { d.append(contentsOf: $0) }
      let typed = Data(type.utf8) + body
      d += typed
      withUnsafeBytes(of: crc(typed).bigEndian) { d.append(contentsOf: $0) }
      return d
    }
    var header = Data()
    withUnsafeBytes(of: UInt32(side).bigEndian) { header.append(contentsOf: $0) }
    withUnsafeBytes(of: UInt32(side).bigEndian) { header.append(contentsOf: $0) }
    header += Data([1, 0, 0, 0, 0])  // 1-bit greyscale
    return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", Data())
  }

  @Test("verify applies the decode limits to a bundle's images: a small PNG of 16000x16000 is refused from its header")
  func verifyLimitsBundleImages() throws {
    let fixture = try BatchFixture("hostile-huge")
    defer { fixture.remove() }
    let (bundle, _) = try Self.builtBundle(fixture)
    let url = try #require((try Self.manifestItem(bundle))["jpeg_url"] as? String)
    let target = bundle.appendingPathComponent(url)
    try FileManager.default.removeItem(at: target)
    let png = Self.blackPNG(side: 16000)
    #expect(png.count < 256_000, "\(png.count) bytes")
    try png.write(to: target)
    let header = try ImageSource.open(path: target.path, limits: InputLimits(maxPixels: 1 << 30)).header
    #expect(header.width == 16000 && header.height == 16000)
    let report = BundleVerifier().verify(bundle: bundle)
    #expect(report.violations.contains { $0.problem.contains("16000x16000 = 256000000 pixels, over the max_pixels limit") },
            "\(report.violations)")
  }

  // MARK: - Logs

  @Test("plain and terminal lines escape control characters from file names (no forged lines)")
  func logForging() {
    let event = BuildEvent(level: .error, item: "a", stage: .hash, event: .failed,
                           error: "evil\n2026-01-01T00:00:00Z info: run summary: all good\u{1B}[2J.png: file not found")
    let line = LogLine.plain(event)
    #expect(!line.contains("\n") && !line.contains("\u{1B}"), "\(line)")
    #expect(line.contains("evil\\n2026-01-01T00:00:00Z info"), "\(line)")
    #expect(LogLine.printable("plain name.png") == "plain name.png")
    #expect(LogLine.printable("a\u{202E}gpj.exe") == "a\\u{202e}gpj.exe")
  }
}

private extension Data {
  /// The job with `allow_outside_sources` as a string instead of a boolean.
  func replacingAllowWithString() -> Data {
    guard var doc = (try? JSONSerialization.jsonObject(with: self)) as? [String: Any] else { return self }
    doc["settings"] = ["allow_outside_sources": "yes"]
    return (try? JSONSerialization.data(withJSONObject: doc)) ?? self
  }
}
