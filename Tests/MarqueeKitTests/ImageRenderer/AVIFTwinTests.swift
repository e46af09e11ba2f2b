import Foundation
import MarqueeTestSupport
import MediaIO
import Testing

@testable import MarqueeKit

/// The AVIF twins (`image_formats`), built through the whole pipeline and
/// read back by independent oracles: Pillow (its AVIF plugin) decodes every
/// `.avif` and its WebP, the ffmpeg CLI measures SSIM on the PNGs Pillow
/// wrote against the resized source, and the `colr` box is read byte by
/// byte from the file.
@Suite("AVIF twins: built, read back by Pillow and ffmpeg", .serialized)
struct AVIFTwinTests {
  /// A photo-like JPEG of 1200x800 with grain (two widths: 780 and 1170),
  /// an animated WebP and a short clip.
  static func build(_ fixture: BatchFixture, settings: [String: Any]? = nil, video: Bool = true,
                    animation: Bool = true) async throws -> (bundle: URL, banners: [[String: Any]]) {
    let photo = try SyntheticMedia.renderStill(SyntheticMedia.photoLikeSource(width: 1200, height: 800, seed: 5, grain: 6))
    try JPEGEncoder.encode(photo, quality: 92).write(to: fixture.dir.appendingPathComponent("photo.jpg"))
    var banners: [[String: Any]] = [["id": "photo", "type": "image", "source": "photo.jpg"]]
    if animation {
      try fixture.animatedLosslessWebP("anim.webp", width: 96, height: 96)
      banners.append(["id": "anim", "type": "image", "source": "anim.webp"])
    }
    if video {
      try fixture.clip("clip.mp4")
      banners.append(["id": "clip", "type": "video", "source": "clip.mp4"])
    }
    var all = settings ?? [:]
    all["video_codecs"] = ["h264"]
    try fixture.job(banners, settings: all, baseURL: nil)
    let built = try await buildWritten(fixture)
    return (built.report.bundle, built.banners)
  }

  /// Builds the job already written in `fixture`; the report and the
  /// banners.json entries.
  static func buildWritten(_ fixture: BatchFixture) async throws -> (report: BuildReport, banners: [[String: Any]]) {
    let report = try await BundleBuilder().build(job: try fixture.readJob(), options: BuildOptions(outputRoot: fixture.out, jobs: 2))
    #expect(report.published, "\(report.items.compactMap(\.failure))")
    let manifest = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: report.bundle.appendingPathComponent("banners.json"))) as? [String: Any])
    return (report, try #require(manifest["banners"] as? [[String: Any]]))
  }

  static func item(_ banners: [[String: Any]], _ id: String) throws -> [String: Any] {
    try #require(banners.first { $0["id"] as? String == id })
  }

  /// Every file under `folder` whose name ends with `suffix`.
  static func files(under folder: URL, suffix: String) -> [String] {
    let walker = FileManager.default.enumerator(atPath: folder.path)
    var found: [String] = []
    while let path = walker?.nextObject() as? String { if path.hasSuffix(suffix) { found.append(path) } }
    return found.sorted()
  }

  /// Pillow's size and mode of each file, `w h mode` per line.
  static func pillowSizes(_ urls: [URL]) throws -> [(width: Int, height: Int)] {
    let script = "import sys\nfrom PIL import Image\nfor p in sys.argv[1:]:\n  im = Image.open(p); im.load(); print(im.size[0], im.size[1])\n"
    let r = try Run.process("python3", ["-c", script] + urls.map(\.path))
    #expect(r.status == 0, "Pillow: \(r.stderr)")
    return r.stdoutText.split(separator: "\n").map {
      let parts = $0.split(separator: " ").compactMap { Int($0) }
      return (parts[0], parts[1])
    }
  }

  /// `file` decoded by Pillow, written as an RGB PNG.
  static func pillowPNG(_ file: URL, to png: URL) throws {
    let r = try Run.process("python3", ["-c", "import sys\nfrom PIL import Image\nImage.open(sys.argv[1]).convert('RGB').save(sys.argv[2])",
                                        file.path, png.path])
    #expect(r.status == 0, "Pillow: \(r.stderr)")
  }

  /// SSIM (`All`) of two PNGs by the ffmpeg CLI, both as YUV 4:4:4.
  static func ffmpegSSIM(_ a: URL, _ b: URL) throws -> Double {
    let r = try Run.process("ffmpeg", ["-v", "info", "-nostats", "-i", a.path, "-i", b.path, "-lavfi",
                                       "[0:v]format=yuv444p[a];[1:v]format=yuv444p[b];[a][b]ssim", "-f", "null", "-"])
    let line = try #require(r.stderr.split(separator: "\n").last { $0.contains("SSIM ") && $0.contains("All:") }, "\(r.stderr)")
    let all = try #require(line.range(of: "All:"))
    return try #require(Double(line[all.upperBound...].prefix { $0 != " " }))
  }

  /// The `colr` box's `nclx` values, read from the file's bytes.
  static func nclx(_ data: Data) -> (primaries: Int, transfer: Int, matrix: Int, fullRange: Bool)? {
    let bytes = [UInt8](data)
    let marker: [UInt8] = Array("colrnclx".utf8)
    guard bytes.count > marker.count + 7 else { return nil }
    for i in 0..<(bytes.count - marker.count - 7) where Array(bytes[i..<(i + marker.count)]) == marker {
      let v = i + marker.count
      func u16(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
      return (u16(v), u16(v + 2), u16(v + 4), bytes[v + 6] & 0x80 != 0)
    }
    return nil
  }

  @Test("every still width and cover has an AVIF and dark AVIF: Pillow decodes them at their WebP's size, nclx sRGB; the animation has none")
  func twins() async throws {
    let fixture = try BatchFixture("avif-twins", twins: true)
    defer { fixture.remove() }
    let (bundle, banners) = try await Self.build(fixture)
    func url(_ value: Any?) throws -> URL { bundle.appendingPathComponent(try #require(value as? String)) }

    let photo = try Self.item(banners, "photo")
    let sources = try #require(photo["sources"] as? [[String: Any]])
    #expect(sources.count == 2)
    var pairs: [(avif: URL, webp: URL)] = [(try url(photo["avif_url"]), try url(photo["url"])),
                                           (try url(photo["dark_avif_url"]), try url(photo["dark_url"]))]
    for source in sources { pairs.append((try url(source["avif_url"]), try url(source["url"]))) }
    let clip = try Self.item(banners, "clip")
    pairs.append((try url(clip["cover_avif_url"]), try url(clip["cover_url"])))
    pairs.append((try url(clip["cover_dark_avif_url"]), try url(clip["cover_dark_url"])))
    // Each light AVIF has its dark sibling, for ?theme=dark.
    for source in sources {
      let light = try url(source["avif_url"])
      let dark = light.deletingPathExtension().appendingPathExtension("dark").appendingPathExtension("avif")
      pairs.append((dark, try url(source["url"]).deletingPathExtension().appendingPathExtension("dark").appendingPathExtension("webp")))
    }
    let avifSizes = try Self.pillowSizes(pairs.map(\.avif))
    let webpSizes = try Self.pillowSizes(pairs.map(\.webp))
    #expect(avifSizes.count == pairs.count)
    for (i, pair) in pairs.enumerated() where i < avifSizes.count && i < webpSizes.count {
      #expect(avifSizes[i] == webpSizes[i], "\(pair.avif.lastPathComponent): \(avifSizes[i]) vs its WebP's \(webpSizes[i])")
      // An AVIF is only served where it saves bytes.
      let avifBytes = try Data(contentsOf: pair.avif).count, webpBytes = try Data(contentsOf: pair.webp).count
      #expect(avifBytes < webpBytes, "\(pair.avif.lastPathComponent): \(avifBytes) bytes, its WebP \(webpBytes)")
      let colour = try #require(Self.nclx(try Data(contentsOf: pair.avif)), "\(pair.avif.lastPathComponent) has no nclx colr box")
      #expect(colour.primaries == 1 && colour.transfer == 13 && colour.matrix == 6 && colour.fullRange,
              "\(pair.avif.lastPathComponent): \(colour)")
    }
    #expect(clip["cover_avif_url"] != nil && clip["cover_dark_avif_url"] != nil)

    // The animation: WebP only, no AVIF key, no AVIF file.
    let anim = try Self.item(banners, "anim")
    #expect(!anim.keys.contains { $0.contains("avif") }, "\(anim.keys.sorted())")
    #expect(((anim["sources"] as? [[String: Any]]) ?? []).allSatisfy { $0["avif_url"] == nil })
    let animFolder = (try #require(anim["url"] as? String) as NSString).deletingLastPathComponent
    #expect(Self.files(under: bundle.appendingPathComponent(animFolder), suffix: ".avif").isEmpty)

    // The bundle verifies.
    let report = BundleVerifier().verify(bundle: bundle)
    #expect(report.violations.isEmpty, "\(report.violations)")
  }

  @Test("the photo's AVIF is at most 0.8x its WebP's bytes at an SSIM at most 0.005 lower, against the resized source (ffmpeg on Pillow's PNGs)")
  func qualityMatch() async throws {
    let fixture = try BatchFixture("avif-quality", twins: true)
    defer { fixture.remove() }
    let (bundle, banners) = try await Self.build(fixture, video: false, animation: false)
    let photo = try Self.item(banners, "photo")
    let avif = bundle.appendingPathComponent(try #require(photo["avif_url"] as? String))
    let webp = bundle.appendingPathComponent(try #require(photo["url"] as? String))
    let width = try #require(photo["width"] as? Int), height = try #require(photo["height"] as? Int)
    // The reference: the source decoded and resized to the widest width.
    let source = try ImageSource.open(path: fixture.dir.appendingPathComponent("photo.jpg").path, limits: InputLimits())
      .decodeStill().image
    let reference = fixture.dir.appendingPathComponent("reference.png")
    try PNGWriter.encode(try ImageResampler.resize(source, width: width, height: height)).write(to: reference)
    let avifPNG = fixture.dir.appendingPathComponent("avif.png"), webpPNG = fixture.dir.appendingPathComponent("webp.png")
    try Self.pillowPNG(avif, to: avifPNG)
    try Self.pillowPNG(webp, to: webpPNG)
    let avifSSIM = try Self.ffmpegSSIM(avifPNG, reference), webpSSIM = try Self.ffmpegSSIM(webpPNG, reference)
    let avifBytes = try Data(contentsOf: avif).count, webpBytes = try Data(contentsOf: webp).count
    #expect(avifSSIM >= webpSSIM - 0.005, "AVIF SSIM \(avifSSIM), WebP \(webpSSIM)")
    #expect(Double(avifBytes) <= 0.8 * Double(webpBytes), "AVIF \(avifBytes) bytes, WebP \(webpBytes)")
  }

  @Test("a still whose AVIF would not be smaller than its WebP gets none: no .avif, no AVIF key, the log names both sizes; the bundle verifies")
  func leftOutWhenNotSmaller() async throws {
    let fixture = try BatchFixture("avif-tiny", twins: true)
    defer { fixture.remove() }
    try fixture.png("tiny.png", width: 8, height: 8)
    try fixture.png("small.png", width: 96, height: 72)
    try fixture.job([["id": "tiny", "type": "image", "source": "tiny.png"],
                     ["id": "small", "type": "image", "source": "small.png"]], baseURL: nil)
    let (report, banners) = try await Self.buildWritten(fixture)
    for id in ["tiny", "small"] {
      let entry = try Self.item(banners, id)
      let webpPath = try #require(entry["url"] as? String)
      let webpBytes = try Data(contentsOf: report.bundle.appendingPathComponent(webpPath)).count
      let folder = report.bundle.appendingPathComponent((webpPath as NSString).deletingLastPathComponent)
      let summary = try #require(report.items.first { $0.id == id }?.summary)
      if let avifPath = entry["avif_url"] as? String {
        let avifBytes = try Data(contentsOf: report.bundle.appendingPathComponent(avifPath)).count
        #expect(avifBytes < webpBytes, "\(id): AVIF \(avifBytes) bytes, WebP \(webpBytes)")
      } else {
        #expect(!entry.keys.contains { $0.contains("avif") }, "\(entry.keys.sorted())")
        #expect(Self.files(under: folder, suffix: ".avif").isEmpty)
        // Each AVIF named as left out: its WebP (same name, .webp, on disk)
        // has the bytes the log gives, and the AVIF had at least as many.
        let said = summary.matches(of: #/([^ ;(]+\.avif) (\d+) bytes, not under the WebP's (\d+)/#)
        #expect(!said.isEmpty && summary.contains("AVIF left out: "), "\(summary)")
        for m in said {
          let webpName = String(m.1).replacingOccurrences(of: ".avif", with: ".webp")
          let onDisk = try Data(contentsOf: folder.appendingPathComponent(webpName)).count
          #expect(Int(m.3) == onDisk && Int(m.2)! >= onDisk, "\(summary); \(webpName) has \(onDisk) bytes")
        }
      }
    }
    // An 8x8 picture's WebP is a few hundred bytes at most: AVIF's boxes alone outweigh it.
    #expect(try Self.item(banners, "tiny")["avif_url"] == nil)
    let verified = BundleVerifier().verify(bundle: report.bundle)
    #expect(verified.violations.isEmpty, "\(verified.violations)")
  }

  @Test("widths 1170 and 16: the 16 px width, whose AVIFs are larger than its WebPs, gets no AVIF pair; the 1170 px one keeps its pair; the bundle verifies")
  func leftOutPerWidth() async throws {
    let fixture = try BatchFixture("avif-width", twins: true)
    defer { fixture.remove() }
    let photo = try SyntheticMedia.renderStill(SyntheticMedia.photoLikeSource(width: 1200, height: 800, seed: 5, grain: 6))
    try JPEGEncoder.encode(photo, quality: 92).write(to: fixture.dir.appendingPathComponent("photo.jpg"))
    try fixture.job([["id": "photo", "type": "image", "source": "photo.jpg"]], settings: ["image_widths": [1170, 16]], baseURL: nil)
    let (report, banners) = try await Self.buildWritten(fixture)
    let entry = try Self.item(banners, "photo")
    let sources = try #require(entry["sources"] as? [[String: Any]])
    #expect(sources.map { $0["width"] as? Int } == [16, 1170])
    func size(_ path: Any?) throws -> Int { try Data(contentsOf: report.bundle.appendingPathComponent(try #require(path as? String))).count }
    // The 1170 px pair is served and smaller than its WebPs.
    #expect(try size(entry["avif_url"]) < size(entry["url"]) && size(entry["dark_avif_url"]) < size(entry["dark_url"]))
    #expect(sources[1]["avif_url"] as? String == entry["avif_url"] as? String)
    // The 16 px width: no key, no file, and the log names both AVIFs.
    #expect(sources[0]["avif_url"] == nil, "\(sources[0])")
    let folder = report.bundle.appendingPathComponent(((entry["url"] as? String ?? "") as NSString).deletingLastPathComponent)
    #expect(Self.files(under: folder, suffix: ".avif") == ["w1170.avif", "w1170.dark.avif"])
    let summary = try #require(report.items.first?.summary)
    #expect(summary.contains("+ AVIF (q ") && summary.contains("AVIF left out: w16.avif "), "\(summary)")
    let verified = BundleVerifier().verify(bundle: report.bundle)
    #expect(verified.violations.isEmpty, "\(verified.violations)")
  }

  @Test("a designer's flat dark cover whose AVIF is larger than its WebP: the cover gets no AVIF pair, the log says why; the bundle verifies")
  func designerDarkCoverLeftOut() async throws {
    let fixture = try BatchFixture("avif-designer", twins: true)
    defer { fixture.remove() }
    try fixture.clip("v.mp4", seconds: 2, size: "96x54")
    let flat = RGBAImage(width: 1200, height: 600, pixels: [UInt8]((0..<(1200 * 600)).flatMap { _ in [70, 70, 90, 255] as [UInt8] }))
    try PNGWriter.encode(flat).write(to: fixture.dir.appendingPathComponent("flatdark.png"))
    try fixture.job([["id": "v", "type": "video", "source": "v.mp4", "dark": ["image": "flatdark.png"]]],
                    settings: ["video_codecs": ["h264"]], baseURL: nil)
    let (report, banners) = try await Self.buildWritten(fixture)
    let entry = try Self.item(banners, "v")
    let darkWebP = try Data(contentsOf: report.bundle.appendingPathComponent(try #require(entry["cover_dark_url"] as? String))).count
    let summary = try #require(report.items.first?.summary)
    if let avif = entry["cover_dark_avif_url"] as? String {
      // Only if this libaom codes the flat picture under its WebP's size.
      #expect(try Data(contentsOf: report.bundle.appendingPathComponent(avif)).count < darkWebP)
    } else {
      #expect(entry["cover_avif_url"] == nil)
      let folder = report.bundle.appendingPathComponent(((entry["cover_url"] as? String ?? "") as NSString).deletingLastPathComponent)
      #expect(Self.files(under: folder, suffix: ".avif").isEmpty)
      let said = try #require(summary.firstMatch(of: #/cover AVIF left out: cover\.dark\.avif (\d+) bytes, not under the WebP's (\d+)/#), "\(summary)")
      #expect(Int(said.2) == darkWebP && Int(said.1)! >= darkWebP, "\(summary)")
    }
    // The flat dark picture's WebP is a few dozen bytes: AVIF cannot beat it.
    #expect(entry["cover_dark_avif_url"] == nil, "\(summary)")
    let verified = BundleVerifier().verify(bundle: report.bundle)
    #expect(verified.violations.isEmpty, "\(verified.violations)")
  }

  @Test("image_formats [\"webp\", \"jpeg\"]: no .avif file and no AVIF key anywhere")
  func turnedOff() async throws {
    let fixture = try BatchFixture("avif-off", twins: true)
    defer { fixture.remove() }
    let (bundle, banners) = try await Self.build(fixture, settings: ["image_formats": ["webp", "jpeg"]], animation: false)
    #expect(Self.files(under: bundle, suffix: ".avif").isEmpty)
    for banner in banners {
      #expect(!banner.keys.contains { $0.contains("avif") }, "\(banner.keys.sorted())")
      #expect(((banner["sources"] as? [[String: Any]]) ?? []).allSatisfy { $0["avif_url"] == nil })
    }
  }

  @Test("verify names a truncated, a corrupted and a wrong-sized AVIF, an AVIF under url and a WebP under avif_url")
  func verifyCatchesBadAVIF() async throws {
    let fixture = try BatchFixture("avif-verify", twins: true)
    defer { fixture.remove() }
    let (built, banners) = try await Self.build(fixture, video: false, animation: false)
    let photo = try Self.item(banners, "photo")
    let sources = try #require(photo["sources"] as? [[String: Any]])
    let widest = try #require(photo["avif_url"] as? String)
    let narrow = try #require(sources.first?["avif_url"] as? String)
    let dark = try #require(photo["dark_avif_url"] as? String)

    func damaged(_ label: String, _ change: (URL) throws -> Void) throws -> [Violation] {
      let copy = fixture.dir.appendingPathComponent("copy-\(label)")
      try FileManager.default.copyItem(at: built, to: copy)
      try change(copy)
      return BundleVerifier().verify(bundle: copy).violations
    }
    // Cut to half its bytes.
    let truncated = try damaged("truncated") { bundle in
      let url = bundle.appendingPathComponent(widest)
      let data = try Data(contentsOf: url)
      try data.prefix(data.count / 2).write(to: url)
    }
    #expect(truncated.contains { $0.file == widest && $0.problem.contains("avif_url") }, "\(truncated)")
    // The AV1 data overwritten with noise, the size kept.
    let corrupted = try damaged("corrupted") { bundle in
      let url = bundle.appendingPathComponent(dark)
      var bytes = [UInt8](try Data(contentsOf: url))
      for i in stride(from: bytes.count / 2, to: bytes.count, by: 1) { bytes[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 13) }
      try Data(bytes).write(to: url)
    }
    #expect(corrupted.contains { $0.file == dark && $0.problem.contains("dark_avif_url") }, "\(corrupted)")
    // The narrow width's AVIF where the widest one should be.
    let wrongSize = try damaged("wrong-size") { bundle in
      try Data(contentsOf: bundle.appendingPathComponent(narrow)).write(to: bundle.appendingPathComponent(widest))
    }
    #expect(wrongSize.contains { $0.file == widest && $0.problem.contains("but its WebP is") }, "\(wrongSize)")
    // banners.json with the photo's url and avif_url swapped: both files
    // are whole, but a client without AVIF would load an AVIF from url.
    let webp = try #require(photo["url"] as? String)
    let swapped = try damaged("swapped") { bundle in
      let url = bundle.appendingPathComponent("banners.json")
      var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
      var items = try #require(manifest["banners"] as? [[String: Any]])
      let i = try #require(items.firstIndex { $0["id"] as? String == "photo" })
      items[i]["url"] = widest
      items[i]["avif_url"] = webp
      manifest["banners"] = items
      try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys]).write(to: url)
    }
    #expect(swapped.contains { $0.problem.contains("url: names an AVIF file") }, "\(swapped)")
    // A key naming a file an earlier key already named is judged too: the
    // widest source entry's url set to the widest AVIF (which avif_url
    // names first).
    let sameFile = try damaged("same-file") { bundle in
      let url = bundle.appendingPathComponent("banners.json")
      var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
      var items = try #require(manifest["banners"] as? [[String: Any]])
      let i = try #require(items.firstIndex { $0["id"] as? String == "photo" })
      var entries = try #require(items[i]["sources"] as? [[String: Any]])
      entries[entries.count - 1]["url"] = widest
      items[i]["sources"] = entries
      manifest["banners"] = items
      try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys]).write(to: url)
    }
    #expect(sameFile.contains { $0.problem.contains("sources[\(sources.count - 1)].url: names an AVIF file") }, "\(sameFile)")
    #expect(swapped.contains { $0.problem.contains("avif_url: names \((webp as NSString).lastPathComponent), not an AVIF file") }, "\(swapped)")
  }
}
