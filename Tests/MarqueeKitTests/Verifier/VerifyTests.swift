import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// `marquee verify` and `BundleVerifier`: a built bundle verifies, and each
/// way of breaking one is reported with the item id and the file.
@Suite("Verify: bundles re-checked from their files")
struct VerifyTests {
  /// Builds a one-video, one-image bundle and returns a private copy of it
  /// (a copy, because the bundle's files are hard links into the store).
  static func builtBundle(_ fixture: BatchFixture, settings: [String: Any]? = nil) async throws -> URL {
    try fixture.clip("v.mp4", seconds: 2)
    try fixture.png("i.png")
    try fixture.job([
      ["id": "spot", "type": "video", "source": "v.mp4"],
      ["id": "still", "type": "image", "source": "i.png"],
    ], settings: settings)
    let report = try await BundleBuilder().build(job: try fixture.readJob(), options: BuildOptions(outputRoot: fixture.out, jobs: 2))
    #expect(report.published, "\(report.items.compactMap(\.failure))")
    let copy = fixture.dir.appendingPathComponent("copy")
    try FileManager.default.copyItem(at: report.bundle, to: copy)
    return copy
  }

  static func manifest(_ bundle: URL) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: bundle.appendingPathComponent("banners.json"))) as? [String: Any])
  }

  static func writeManifest(_ object: [String: Any], _ bundle: URL) throws {
    try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])
      .write(to: bundle.appendingPathComponent("banners.json"))
  }

  /// The bundle path of an item key's URL (base URL stripped).
  /// The first video item's folder and one of its rendition folders
  /// (`720p`, …), relative to the bundle.
  static func firstRendition(_ bundle: URL) throws -> (folder: String, rendition: String) {
    let folder = (try path(bundle, item: 0, key: "url") as NSString).deletingLastPathComponent
    guard let rendition = try FileSystem.list(bundle.appendingPathComponent(folder)).first(where: { $0.hasSuffix("p") && !$0.contains(".") }) else {
      throw FFprobe.Failure.failed("no rendition folder in \(folder)")
    }
    return (folder, rendition)
  }

  static func path(_ bundle: URL, item: Int, key: String) throws -> String {
    let items = try #require(try manifest(bundle)["banners"] as? [[String: Any]])
    let url = try #require(items[item][key] as? String)
    return String(url.dropFirst("https://cdn.example.com/home/".count))
  }

  @Test("a freshly built bundle verifies, with the CLI too")
  func cleanBundle() async throws {
    let fixture = try BatchFixture("verify-clean", twins: true)
    defer { fixture.remove() }
    let bundle = try await Self.builtBundle(fixture)
    let report = BundleVerifier().verify(bundle: bundle)
    #expect(report.violations.isEmpty, "\(report.violations)")
    #expect(report.itemCount == 2)
    #expect(report.fileCount >= 10)
    let cli = try MarqueeCLI.run(["verify", bundle.path])
    #expect(cli.status == 0, "\(cli.stderr)")
  }

  @Test("absolute URLs with a percent-encoded name verify: the base is measured on the URL as written")
  func percentEncodedAbsoluteURL() async throws {
    let fixture = try BatchFixture("verify-percent")
    defer { fixture.remove() }
    let bundle = try await Self.builtBundle(fixture)
    let manifestURL = bundle.appendingPathComponent("banners.json")
    var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
    var items = try #require(manifest["banners"] as? [[String: Any]])
    // The first URL of the file (the one the base is found from), its
    // extension's dot written as %2E: the same file, 2 characters longer.
    let first = try #require(items[0]["url"] as? String)
    let encoded = first.replacingOccurrences(of: ".", with: "%2E", options: .backwards,
                                             range: first.range(of: ".", options: .backwards))
    #expect(encoded != first && encoded.hasPrefix("https://cdn.example.com/home/"))
    items[0]["url"] = encoded
    manifest["banners"] = items
    try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys]).write(to: manifestURL)
    let report = BundleVerifier().verify(bundle: bundle)
    #expect(report.violations.isEmpty, "\(report.violations)")
  }

  @Test("a corrupted segment is reported with the item and the segment")
  func corruptedSegment() async throws {
    let fixture = try BatchFixture("verify-segment", twins: true)
    defer { fixture.remove() }
    let bundle = try await Self.builtBundle(fixture)
    let (folder, rendition) = try Self.firstRendition(bundle)
    let segment = "\(folder)/\(rendition)/segment_00000.m4s"
    // Overwrite the media data after the moof with noise, keeping the size.
    let url = bundle.appendingPathComponent(segment)
    var bytes = [UInt8](try Data(contentsOf: url))
    for i in stride(from: 600, to: bytes.count, by: 1) { bytes[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 13) }
    try Data(bytes).write(to: url)

    let report = BundleVerifier().verify(bundle: bundle)
    #expect(report.violations.contains { $0.item == "spot" && $0.file == segment }, "\(report.violations)")
    let cli = try MarqueeCLI.run(["verify", bundle.path])
    #expect(cli.status == 1)
    #expect(cli.stderr.contains("error: spot: \(segment): "), "\(cli.stderr)")
  }

  @Test("damage after a segment's first picture is found by decoding every picture, not by the first-picture probe")
  func damageInsideASegment() async throws {
    let fixture = try BatchFixture("verify-inside", twins: true)
    defer { fixture.remove() }
    let bundle = try await Self.builtBundle(fixture)
    let (folder, rendition) = try Self.firstRendition(bundle)
    let segment = "\(folder)/\(rendition)/segment_00000.m4s"
    // Scramble a 64-byte run every 1 KiB over the last 40 % of the segment
    // (pictures near its end), keeping the size and the first picture.
    let url = bundle.appendingPathComponent(segment)
    var bytes = [UInt8](try Data(contentsOf: url))
    for block in stride(from: bytes.count * 6 / 10, to: bytes.count - 64, by: 1024) {
      for i in block..<block + 64 { bytes[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 11) }
    }
    try Data(bytes).write(to: url)

    let firstPictures = BundleVerifier(options: VerifyOptions(everyPicture: false)).verify(bundle: bundle)
    #expect(firstPictures.violations.isEmpty, "the damage reached the first picture: \(firstPictures.violations)")
    let report = BundleVerifier().verify(bundle: bundle)
    #expect(report.violations.contains { $0.item == "spot" && $0.file == segment && $0.problem.contains("does not decode") },
            "\(report.violations)")
    let cli = try MarqueeCLI.run(["verify", bundle.path])
    #expect(cli.status == 1)
    #expect(cli.stderr.contains("error: spot: \(segment): "), "\(cli.stderr)")
  }

  @Test("a segment cut short, or another segment copied in its place, is reported")
  func truncatedAndSwappedSegments() async throws {
    let fixture = try BatchFixture("verify-cut", twins: true)
    defer { fixture.remove() }
    try fixture.clip("v.mp4", seconds: 4)
    try fixture.job([["id": "spot", "type": "video", "source": "v.mp4"]], settings: ["segment_duration": 1])
    let report = try await BundleBuilder().build(job: try fixture.readJob(), options: BuildOptions(outputRoot: fixture.out, jobs: 2))
    #expect(report.published)
    let bundle = fixture.dir.appendingPathComponent("copy")
    try FileManager.default.copyItem(at: report.bundle, to: bundle)
    #expect(BundleVerifier().verify(bundle: bundle).violations.isEmpty)

    let (folder, rendition) = try Self.firstRendition(bundle)
    let dir = "\(folder)/\(rendition)"
    // Cut segment 1 to half its bytes: what is left still decodes.
    let cut = bundle.appendingPathComponent("\(dir)/segment_00001.m4s")
    let bytes = try Data(contentsOf: cut)
    try bytes.prefix(bytes.count / 2).write(to: cut)
    // Segment 2 replaced by segment 0: decodes, but at the wrong time.
    let swapped = bundle.appendingPathComponent("\(dir)/segment_00002.m4s")
    try FileManager.default.removeItem(at: swapped)
    try FileManager.default.copyItem(at: bundle.appendingPathComponent("\(dir)/segment_00000.m4s"), to: swapped)

    let violations = BundleVerifier().verify(bundle: bundle).violations
    // Its last picture is cut mid-way (strict decoding), or whole pictures are missing (too short).
    #expect(violations.contains { $0.file == "\(dir)/segment_00001.m4s"
              && ($0.problem.contains("cut short") || $0.problem.contains("does not decode")) }, "\(violations)")
    #expect(violations.contains { $0.file == "\(dir)/segment_00002.m4s" && $0.problem.contains("the playlist places the segment at") },
            "\(violations)")
    #expect(!violations.contains { $0.problem.contains("segment-") && $0.problem.contains(".mp4 stream") }, "temporary names leak: \(violations)")
  }

  @Test("a missing or wrong-sized dark variant of any image width or cover file is reported")
  func missingDarkVariants() async throws {
    let fixture = try BatchFixture("verify-dark", twins: true)
    defer { fixture.remove() }
    let bundle = try await Self.builtBundle(fixture)
    let items = try #require(try Self.manifest(bundle)["banners"] as? [[String: Any]])
    let sources = try #require(items[1]["sources"] as? [[String: Any]])
    let width = String(try #require(sources.first?["url"] as? String).dropFirst("https://cdn.example.com/home/".count))
    let widthDark = try #require(RelativePath.darkSibling(of: width))
    try FileManager.default.removeItem(at: bundle.appendingPathComponent(widthDark))
    let coverJPEG = try Self.path(bundle, item: 0, key: "cover_jpeg_url")
    let coverJPEGDark = try #require(RelativePath.darkSibling(of: coverJPEG))
    // A dark variant of another size: the light JPEG of the image.
    let imageJPEG = try Self.path(bundle, item: 1, key: "jpeg_url")
    try FileManager.default.removeItem(at: bundle.appendingPathComponent(coverJPEGDark))
    try FileManager.default.copyItem(at: bundle.appendingPathComponent(imageJPEG), to: bundle.appendingPathComponent(coverJPEGDark))

    let report = BundleVerifier().verify(bundle: bundle)
    #expect(report.violations.contains { $0.item == "still" && $0.file == widthDark && $0.problem.contains("no dark variant") },
            "\(report.violations)")
    #expect(report.violations.contains { $0.item == "spot" && $0.file == coverJPEGDark && $0.problem.contains("the dark variant is") },
            "\(report.violations)")
  }

  @Test("a missing cover is reported")
  func missingCover() async throws {
    let fixture = try BatchFixture("verify-cover", twins: true)
    defer { fixture.remove() }
    let bundle = try await Self.builtBundle(fixture)
    let cover = try Self.path(bundle, item: 0, key: "cover_url")
    try FileManager.default.removeItem(at: bundle.appendingPathComponent(cover))
    let report = BundleVerifier().verify(bundle: bundle)
    #expect(report.violations.contains { $0.item == "spot" && $0.file == cover && $0.problem.contains("cover is missing") },
            "\(report.violations)")
  }

  @Test("a black cover is reported, so is one of the wrong size")
  func blackOrMisfitCover() async throws {
    let fixture = try BatchFixture("verify-black", twins: true)
    defer { fixture.remove() }
    let bundle = try await Self.builtBundle(fixture)
    let cover = try Self.path(bundle, item: 0, key: "cover_url")
    try WebPEncoder.encode(RGBAImage(width: 320, height: 240, fill: (2, 2, 2, 255)), quality: 80)
      .write(to: bundle.appendingPathComponent(cover))
    let jpeg = try Self.path(bundle, item: 0, key: "cover_jpeg_url")
    try JPEGEncoder.encode(RGBAImage(width: 300, height: 240, fill: (200, 40, 40, 255)), quality: 80)
      .write(to: bundle.appendingPathComponent(jpeg))
    let report = BundleVerifier().verify(bundle: bundle)
    #expect(report.violations.contains { $0.file == cover && $0.problem.contains("cover is black") }, "\(report.violations)")
    #expect(report.violations.contains { $0.file == jpeg && $0.problem.contains("300x240 but the video is 320x240") },
            "\(report.violations)")
    // A flat card (a pinned title card) is the user's choice, not a violation.
    try WebPEncoder.encode(RGBAImage(width: 320, height: 240, fill: (40, 80, 200, 255)), quality: 80)
      .write(to: bundle.appendingPathComponent(cover))
    let flat = BundleVerifier().verify(bundle: bundle)
    #expect(!flat.violations.contains { $0.file == cover }, "\(flat.violations)")
  }

  @Test("a duration that is not what url plays is reported")
  func wrongDuration() async throws {
    let fixture = try BatchFixture("verify-duration", twins: true)
    defer { fixture.remove() }
    let bundle = try await Self.builtBundle(fixture)
    var manifest = try Self.manifest(bundle)
    var items = try #require(manifest["banners"] as? [[String: Any]])
    items[0]["duration"] = 7.5
    manifest["banners"] = items
    try Self.writeManifest(manifest, bundle)
    let report = BundleVerifier().verify(bundle: bundle)
    let master = try Self.path(bundle, item: 0, key: "url")
    #expect(report.violations.contains { $0.item == "spot" && $0.file == master && $0.problem.contains("duration in banners.json is 7.500 s") },
            "\(report.violations)")
  }

  @Test("an autoplay item that is not muted is reported")
  func autoplayNotMuted() async throws {
    let fixture = try BatchFixture("verify-muted", twins: true)
    defer { fixture.remove() }
    let bundle = try await Self.builtBundle(fixture)
    var manifest = try Self.manifest(bundle)
    var items = try #require(manifest["banners"] as? [[String: Any]])
    items[0]["muted"] = false
    manifest["banners"] = items
    try Self.writeManifest(manifest, bundle)
    let report = BundleVerifier().verify(bundle: bundle)
    #expect(report.violations.contains { $0.item == "spot" && $0.file == "banners.json" && $0.problem.contains("autoplay: true requires muted: true") },
            "\(report.violations)")
    let cli = try MarqueeCLI.run(["verify", bundle.path, "--log-format", "json"])
    #expect(cli.status == 1)
    let events = cli.stdoutText.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }
    #expect(events.contains { $0["event"] as? String == "violation" && $0["item"] as? String == "spot" && $0["file"] as? String == "banners.json" })
  }

  @Test("playlists without an end tag, a missing image and moov after mdat are reported")
  func structuralProblems() async throws {
    let fixture = try BatchFixture("verify-structure", twins: true)
    defer { fixture.remove() }
    let bundle = try await Self.builtBundle(fixture)
    let (folder, rendition) = try Self.firstRendition(bundle)
    let playlist = bundle.appendingPathComponent("\(folder)/\(rendition)/index.m3u8")
    let text = try String(contentsOf: playlist, encoding: .utf8).replacingOccurrences(of: "#EXT-X-ENDLIST\n", with: "")
    try Data(text.utf8).write(to: playlist)
    let image = try Self.path(bundle, item: 1, key: "jpeg_url")
    try FileManager.default.removeItem(at: bundle.appendingPathComponent(image))
    // Move the moov box after mdat.
    let mp4Path = try Self.path(bundle, item: 0, key: "mp4_url")
    let mp4 = bundle.appendingPathComponent(mp4Path)
    let boxes = try ISOBMFF.topLevelBoxes(of: ReadableFile.open(path: mp4.path)).map(\.type)
    let moovIndex = try #require(boxes.firstIndex(of: "moov")), mdatIndex = try #require(boxes.firstIndex(of: "mdat"))
    #expect(moovIndex < mdatIndex)
    var data = try Data(contentsOf: mp4)
    var offset = 0
    var moov = Data(), rest = Data()
    while offset + 8 <= data.count {
      let size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
      let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
      if type == "moov" { moov = data[offset..<offset + size] } else { rest.append(data[offset..<offset + size]) }
      offset += size
    }
    data = rest + moov
    try data.write(to: mp4)

    let report = BundleVerifier().verify(bundle: bundle)
    let files = Set(report.violations.map(\.file))
    #expect(report.violations.contains { $0.problem.contains("no #EXT-X-ENDLIST") }, "\(report.violations)")
    #expect(files.contains(image))
    #expect(report.violations.contains { $0.file == mp4Path && $0.problem.contains("moov comes after mdat") }, "\(report.violations)")
  }

  @Test("the weak-network variant: built last at no more than 192 kbit/s measured; verify warns when it is removed, and fails a BANDWIDTH its segments do not measure")
  func weakNetworkVariant() async throws {
    let fixture = try BatchFixture("verify-weak", twins: true)
    defer { fixture.remove() }
    let bundle = try await Self.builtBundle(fixture)
    let folder = (try Self.path(bundle, item: 0, key: "url") as NSString).deletingLastPathComponent
    let masterURL = bundle.appendingPathComponent("\(folder)/master.m3u8")
    let original = try String(contentsOf: masterURL, encoding: .utf8)
    // The oracle: the playlist's own #EXTINF durations and the sizes of
    // the files it names, measured here by hand.
    let master = MasterPlaylist(text: original)
    let last = try #require(master.variants.last)
    #expect(last.resolution.map { min($0.width, $0.height) } == WeakNetworkRung.shortSide, "\(original)")
    let declared = try #require(last.attributes.integer("BANDWIDTH"))
    let mediaURL = masterURL.deletingLastPathComponent().appendingPathComponent(last.uri)
    let media = MediaPlaylist(text: try String(contentsOf: mediaURL, encoding: .utf8))
    let dir = mediaURL.deletingLastPathComponent()
    func bytes(_ name: String) throws -> Double {
      Double(try #require(try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(name).path)[.size] as? Int))
    }
    let share = try bytes(try #require(media.mapURI)) / Double(media.segments.count)
    let target = Double(try #require(media.targetDuration))
    /// The highest rate of a run of segments lasting `shortest` to `longest` seconds.
    func peak(shortest: Double, longest: Double) throws -> Double {
      var peak = 0.0
      for i in media.segments.indices {
        var bits = 0.0, seconds = 0.0
        for j in i..<media.segments.count {
          bits += (try bytes(media.segments[j].uri) + share) * 8
          seconds += media.segments[j].duration
          if seconds > longest + 0.0005 { break }
          if seconds >= shortest - 0.0005 { peak = max(peak, bits / seconds) }
        }
      }
      return peak
    }
    // BANDWIDTH: RFC 8216's runs of 0.5 to 1.5 target durations.
    let rfc = try peak(shortest: 0.5 * target, longest: 1.5 * target)
    #expect(abs(Double(declared) - rfc) <= 0.01 * rfc, "declared \(declared), measured \(rfc)")
    // The budget: no run shorter than a second.
    let budget = try peak(shortest: max(1, 0.5 * target), longest: max(2, 1.5 * target))
    #expect(budget > 0 && budget <= 192_000, "the weak variant peaks at \(budget) bit/s")
    // Its sound is AAC at the lower rate, as ffprobe reads the segments.
    let probe = try FFprobe.report(mediaURL)
    #expect(probe.audio?.codecName == "aac" && probe.audio?.profile == "LC", "\(probe.streams)")
    #expect(probe.video.map { [$0.width, $0.height] } == last.resolution.map { [$0.width, $0.height] })

    // Without the weak variant: its two lines taken out.
    var lines = original.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let at = try #require(lines.firstIndex(of: last.uri))
    lines.removeSubrange(at - 1...at)
    try Data(lines.joined(separator: "\n").utf8).write(to: masterURL)
    var report = BundleVerifier().verify(bundle: bundle)
    // Said, as a warning: the source is not at fault.
    #expect(report.warnings.contains { $0.contains("the variant for weak networks") && $0.contains("over 192000") },
            "\(report.warnings)")

    // A BANDWIDTH under what the segments measure.
    let lowered = original.replacingOccurrences(of: "BANDWIDTH=\(declared),", with: "BANDWIDTH=\(declared / 2),")
    try Data(lowered.utf8).write(to: masterURL)
    report = BundleVerifier().verify(bundle: bundle)
    #expect(report.violations.contains { $0.problem.contains("declares BANDWIDTH=\(declared / 2) but its segments measure") },
            "\(report.violations)")
    try Data(original.utf8).write(to: masterURL)
    #expect(BundleVerifier().verify(bundle: bundle).violations.isEmpty)
  }

  @Test("an HEVC variant declared hev1, one whose init section is not hvc1, one listed first, a CODECS level the stream does not have, and a twin's IDR off the H.264 one's are reported")
  func hevcVariants() async throws {
    let fixture = try BatchFixture("verify-hevc", twins: true)
    defer { fixture.remove() }
    let bundle = try await Self.builtBundle(fixture)
    let folder = (try Self.path(bundle, item: 0, key: "url") as NSString).deletingLastPathComponent
    let masterURL = bundle.appendingPathComponent("\(folder)/master.m3u8")
    let original = try String(contentsOf: masterURL, encoding: .utf8)
    let twin = try #require(MasterPlaylist(text: original).variants.first { $0.attributes["CODECS"]?.hasPrefix("hvc1.") == true },
                            "no HEVC variant in \(original)")
    let codecs = try #require(twin.attributes["CODECS"])
    func verify(_ text: String) throws -> [Violation] {
      try Data(text.utf8).write(to: masterURL)
      return BundleVerifier().verify(bundle: bundle).violations
    }
    // Declared as hev1.
    var found = try verify(original.replacingOccurrences(of: "CODECS=\"\(codecs)\"",
                                                         with: "CODECS=\"\(codecs.replacingOccurrences(of: "hvc1.", with: "hev1."))\""))
    #expect(found.contains { $0.problem.contains("need HEVC as hvc1") }, "\(found)")
    // Declared HEVC over the H.264 rendition's files.
    var lines = original.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let at = try #require(lines.firstIndex(of: twin.uri))
    lines[at] = twin.uri.replacingOccurrences(of: RenditionPlanner.hevcNameSuffix + "/", with: "/")
    found = try verify(lines.joined(separator: "\n"))
    #expect(found.contains { $0.problem.contains("video sample entry is avc1, not hvc1") }, "\(found)")
    // The HEVC variant moved to the top.
    lines = original.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let inf = lines[at - 1], uri = lines[at]
    lines.removeSubrange(at - 1...at)
    lines.insert(contentsOf: [inf, uri], at: 3)
    found = try verify(lines.joined(separator: "\n"))
    #expect(found.contains { $0.problem.contains("is HEVC: a player that starts with the first one listed must get H.264") }, "\(found)")
    // A CODECS level the stream does not have (its hvcC says otherwise).
    let level = try #require(codecs.split(separator: ".").first { $0.hasPrefix("L") })
    found = try verify(original.replacingOccurrences(of: "CODECS=\"\(codecs)\"",
                                                     with: "CODECS=\"\(codecs.replacingOccurrences(of: ".\(level).", with: ".L150."))\""))
    #expect(found.contains { $0.problem.contains("CODECS says hvc1.1.6.L150.") && $0.problem.contains("decoder configuration says \(codecs.split(separator: ",")[0])") },
            "\(found)")
    #expect(try verify(original).isEmpty)
    // The twin's second segment moved by a quarter of its start (its
    // tfdt, the first picture's decode time): its IDR is no longer where
    // the H.264 rendition's is, though the playlists still agree.
    let segment = masterURL.deletingLastPathComponent().appendingPathComponent(twin.uri).deletingLastPathComponent()
      .appendingPathComponent("segment_00001.m4s")
    let saved = try Data(contentsOf: segment)
    var bytes = [UInt8](saved)
    let tfdt = try #require((0..<(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual("tfdt".utf8) })
    let field = tfdt + 8  // after the type and the version and flags
    if bytes[tfdt + 4] == 1 {
      var value: UInt64 = 0
      for i in 0..<8 { value = value << 8 | UInt64(bytes[field + i]) }
      value += value / 4
      for i in 0..<8 { bytes[field + i] = UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64(i))) }
    } else {
      var value: UInt32 = 0
      for i in 0..<4 { value = value << 8 | UInt32(bytes[field + i]) }
      value += value / 4
      for i in 0..<4 { bytes[field + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(i))) }
    }
    try Data(bytes).write(to: segment)
    found = BundleVerifier().verify(bundle: bundle).violations
    #expect(found.contains { $0.problem.contains("segment 2 of \(twin.uri) starts with its IDR at") }, "\(found)")
    try saved.write(to: segment)
    #expect(BundleVerifier().verify(bundle: bundle).violations.isEmpty)
  }

  @Test("a missing bundle folder is a usage error; a folder without banners.json fails")
  func missingBundle() throws {
    let fixture = try BatchFixture("verify-missing", twins: true)
    defer { fixture.remove() }
    let none = try MarqueeCLI.run(["verify", fixture.dir.appendingPathComponent("nope").path])
    #expect(none.status == 2)
    let empty = try MarqueeCLI.run(["verify", fixture.dir.path])
    #expect(empty.status == 1)
    #expect(empty.stderr.contains("(bundle): banners.json: missing or unreadable"))
  }
}
