import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

// MARK: - Fixtures

private func videoEntry(
  id: String = "spring",
  duration: Double = 15.2,
  autoplay: Bool = true,
  muted: Bool = true,
  link: String? = "https://example.com/spring",
  urlChoice: VideoURLChoice = .hls,
  playlistPath: String? = nil
) -> VideoManifestEntry {
  VideoManifestEntry(
    id: id,
    playlistPath: playlistPath ?? "video/\(id)/master.m3u8",
    mp4Path: "video/\(id)/\(id).mp4",
    coverPath: "covers/\(id).webp",
    coverJPEGPath: "covers/\(id).jpg",
    darkCoverPath: "covers/\(id).dark.webp",
    darkCoverJPEGPath: "covers/\(id).dark.jpg",
    duration: duration,
    width: 1280,
    height: 720,
    autoplay: autoplay,
    muted: muted,
    link: link,
    urlChoice: urlChoice)
}

private func imageEntry(id: String = "sale", link: String? = nil, path: String? = nil) -> ImageManifestEntry {
  ImageManifestEntry(
    id: id,
    path: path ?? "images/\(id)/\(id)-1170.webp",
    jpegPath: "images/\(id)/\(id)-1170.jpg",
    darkPath: "images/\(id)/\(id)-1170.dark.webp",
    darkJPEGPath: "images/\(id)/\(id)-1170.dark.jpg",
    width: 1170,
    height: 658,
    link: link,
    widths: [
      ImageWidthEntry(width: 780, height: 439, webpPath: "images/\(id)/\(id)-780.webp", jpegPath: "images/\(id)/\(id)-780.jpg"),
      ImageWidthEntry(width: 1170, height: 658, webpPath: "images/\(id)/\(id)-1170.webp", jpegPath: "images/\(id)/\(id)-1170.jpg"),
    ])
}

/// Renders and parses back the `banners` array.
private func renderedItems(
  _ entries: [ManifestEntry], baseURL: String? = "https://cdn.example.com/home/"
) throws -> [[String: Any]] {
  let data = try ManifestEmitter(baseURL: baseURL).render(entries)
  let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  #expect(Set(root.keys) == ["banners"])
  return try #require(root["banners"] as? [[String: Any]])
}

private func renderError(_ entries: [ManifestEntry], baseURL: String? = nil) -> MarqueeError? {
  do {
    _ = try ManifestEmitter(baseURL: baseURL).render(entries)
    return nil
  } catch {
    return error
  }
}

// MARK: - Cases

/// An entry the emitter must refuse, and where it must point.
struct ManifestRenderErrorCase: Sendable, CustomTestStringConvertible {
  var name: String
  var entries: [ManifestEntry]
  var baseURL: String?
  var path: String
  var reason: String
  var testDescription: String { name }

  static let all: [ManifestRenderErrorCase] = [
    .init(name: "autoplay without muted", entries: [.video(videoEntry(autoplay: true, muted: false))], path: "banners[0].muted", reason: "autoplay requires muted"),
    .init(name: "empty playlist path", entries: [.video(videoEntry(playlistPath: ""))], path: "banners[0].url", reason: "empty"),
    .init(name: "NaN duration", entries: [.video(videoEntry(duration: .nan))], path: "banners[0].duration", reason: "finite"),
    .init(name: "infinite duration", entries: [.video(videoEntry(duration: .infinity))], path: "banners[0].duration", reason: "finite"),
    .init(name: "negative duration", entries: [.video(videoEntry(duration: -1))], path: "banners[0].duration", reason: "above 0"),
    .init(name: "zero duration", entries: [.video(videoEntry(duration: 0))], path: "banners[0].duration", reason: "above 0"),
    .init(name: "duration that rounds to zero", entries: [.video(videoEntry(duration: 0.0004))], path: "banners[0].duration", reason: "above 0"),
    .init(name: "ftp link", entries: [.image(imageEntry()), .video(videoEntry(link: "ftp://example.com/x"))], path: "banners[1].link", reason: "only http and https"),
    .init(name: "relative link", entries: [.image(imageEntry(link: "/promo"))], path: "banners[0].link", reason: "absolute"),
    .init(name: "path escaping the bundle", entries: [.video(videoEntry(playlistPath: "../video/master.m3u8"))], path: "banners[0].url", reason: "'..'"),
    .init(name: "absolute path", entries: [.video(videoEntry(playlistPath: "/video/master.m3u8"))], path: "banners[0].url", reason: "relative to the bundle root"),
    .init(name: "video url with the wrong type", entries: [.video(videoEntry(playlistPath: "video/master.txt"))], path: "banners[0].url", reason: ".m3u8"),
    .init(name: "image url with the wrong type", entries: [.image(imageEntry(path: "images/sale.gif"))], path: "banners[0].url", reason: ".webp"),
    .init(name: "duplicate id", entries: [.image(imageEntry()), .image(imageEntry())], path: "banners[1].id", reason: "duplicate"),
    .init(name: "ftp base URL", entries: [.image(imageEntry())], baseURL: "ftp://cdn.example.com/", path: "", reason: "only http and https"),
    .init(name: "relative base URL", entries: [.image(imageEntry())], baseURL: "cdn.example.com", path: "", reason: "absolute"),
  ]
}

/// A banners.json that breaks the contract, and the line `validate` must
/// produce for it.
struct ContractViolationCase: Sendable, CustomTestStringConvertible {
  var name: String
  var json: String
  var violation: String
  var testDescription: String { name }

  static let video = #""type": "video", "url": "https://c.example.com/a.m3u8", "cover_url": "https://c.example.com/a.webp", "duration": 15.2"#
  static let image = #""type": "image", "url": "https://c.example.com/b.webp""#

  static func item(_ members: String) -> String { #"{"banners": [{"# + members + "}]}" }

  static let all: [ContractViolationCase] = [
    .init(name: "not JSON", json: "{", violation: "(root): invalid JSON"),
    .init(name: "root is an array", json: "[]", violation: "(root): expected an object, found an array"),
    .init(name: "banners missing", json: "{}", violation: "banners: missing"),
    .init(name: "banners is an object", json: #"{"banners": {}}"#, violation: "banners: expected an array"),
    .init(name: "item is a string", json: #"{"banners": ["x"]}"#, violation: "banners[0]: expected an object"),
    .init(name: "type missing", json: item(#""url": "a.webp""#), violation: "banners[0].type: missing"),
    .init(name: "type gif", json: item(#""type": "gif", "url": "a.gif""#), violation: #"banners[0].type: expected "video" or "image""#),
    .init(name: "url missing", json: item(#""type": "image""#), violation: "banners[0].url: missing"),
    .init(name: "url is a number", json: item(#""type": "image", "url": 5"#), violation: "banners[0].url: expected a string, found a number"),
    .init(name: "url is empty", json: item(#""type": "image", "url": """#), violation: "banners[0].url: is empty"),
    .init(name: "url is ftp", json: item(#""type": "image", "url": "ftp://c.example.com/b.webp""#), violation: "banners[0].url: only http and https"),
    .init(name: "video url is an image", json: item(#""type": "video", "url": "a.webp", "cover_url": "a.webp", "duration": 1, "autoplay": true, "muted": true"#), violation: "banners[0].url: expected a .m3u8/.mp4 file"),
    .init(name: "image url is a GIF", json: item(#""type": "image", "url": "https://c.example.com/b.gif?v=2""#), violation: "banners[0].url: expected a .jpeg/.jpg/.png/.webp file"),
    .init(name: "video without cover_url", json: item(#""type": "video", "url": "a.mp4", "duration": 3, "autoplay": false, "muted": false"#), violation: "banners[0].cover_url: missing (required for video items)"),
    .init(name: "autoplay without muted", json: item(video + #", "autoplay": true, "muted": false"#), violation: "banners[0].muted: autoplay: true requires muted: true"),
    .init(name: "autoplay missing", json: item(video + #", "muted": true"#), violation: "banners[0].autoplay: missing"),
    .init(name: "muted is a number", json: item(video + #", "autoplay": false, "muted": 1"#), violation: "banners[0].muted: expected a boolean, found a number"),
    .init(name: "duration missing", json: item(#""type": "video", "url": "a.mp4", "cover_url": "a.webp", "autoplay": true, "muted": true"#), violation: "banners[0].duration: missing"),
    .init(name: "duration is a string", json: item(#""type": "video", "url": "a.mp4", "cover_url": "a.webp", "duration": "15", "autoplay": true, "muted": true"#), violation: "banners[0].duration: expected a number of seconds, found a string"),
    .init(name: "duration is a boolean", json: item(#""type": "video", "url": "a.mp4", "cover_url": "a.webp", "duration": true, "autoplay": true, "muted": true"#), violation: "banners[0].duration: expected a number of seconds, found a boolean"),
    .init(name: "duration is zero", json: item(#""type": "video", "url": "a.mp4", "cover_url": "a.webp", "duration": 0, "autoplay": true, "muted": true"#), violation: "banners[0].duration: must be a positive number"),
    .init(name: "duration is negative", json: item(#""type": "video", "url": "a.mp4", "cover_url": "a.webp", "duration": -2.5, "autoplay": true, "muted": true"#), violation: "banners[0].duration: must be a positive number"),
    .init(name: "cover_url on an image", json: item(image + #", "cover_url": "b.webp""#), violation: "banners[0].cover_url: not allowed on image items"),
    .init(name: "ftp link", json: item(image + #", "link": "ftp://example.com/x""#), violation: "banners[0].link: only http and https"),
    .init(name: "relative link", json: item(image + #", "link": "/promo""#), violation: "banners[0].link: expected an absolute http or https URL"),
    .init(name: "link is a number", json: item(image + #", "link": 7"#), violation: "banners[0].link: expected a string"),
    .init(name: "repeated key", json: item(image + #", "url": "https://c.example.com/c.webp""#), violation: #"banners[0].url: key "url" appears twice"#),
  ]
}

@Suite struct ManifestEmitterTests {
  // MARK: - Rendering

  @Test func videoItemHasContractAndExtraKeys() throws {
    let items = try renderedItems([.video(videoEntry())])
    let item = try #require(items.first)
    #expect(
      Set(item.keys) == [
        "type", "url", "cover_url", "duration", "autoplay", "muted", "link",
        "id", "hls_url", "mp4_url", "cover_jpeg_url", "cover_dark_url", "cover_dark_jpeg_url", "width", "height",
        "dark_policy",
      ])
    let base = "https://cdn.example.com/home/"
    #expect(item["type"] as? String == "video")
    #expect(item["id"] as? String == "spring")
    #expect(item["url"] as? String == base + "video/spring/master.m3u8")
    #expect(item["hls_url"] as? String == base + "video/spring/master.m3u8")
    #expect(item["mp4_url"] as? String == base + "video/spring/spring.mp4")
    #expect(item["cover_url"] as? String == base + "covers/spring.webp")
    #expect(item["cover_jpeg_url"] as? String == base + "covers/spring.jpg")
    #expect(item["cover_dark_url"] as? String == base + "covers/spring.dark.webp")
    #expect(item["cover_dark_jpeg_url"] as? String == base + "covers/spring.dark.jpg")
    #expect(item["link"] as? String == "https://example.com/spring")
    // Booleans must be JSON booleans and numbers JSON numbers.
    #expect(JobJSONType(of: item["autoplay"] as Any) == .boolean)
    #expect(JobJSONType(of: item["muted"] as Any) == .boolean)
    #expect(JobJSON.bool(item["autoplay"] as Any) == true)
    #expect(JobJSON.bool(item["muted"] as Any) == true)
    #expect(JobJSONType(of: item["duration"] as Any) == .number)
    #expect(JobJSON.number(item["duration"] as Any) == 15.2)
    #expect(JobJSON.number(item["width"] as Any) == 1280)
    #expect(JobJSON.number(item["height"] as Any) == 720)
  }

  @Test("dark_policy names where each item's dark pictures came from; the contract keys do not change")
  func darkPolicyIsWritten() throws {
    var video = videoEntry(id: "v")
    video.darkPolicy = .designer
    var same = imageEntry(id: "s")
    same.darkPolicy = .same
    let items = try renderedItems([.video(video), .image(same), .image(imageEntry(id: "g"))])
    #expect(items.map { $0["dark_policy"] as? String } == ["designer", "same", "generated"])
    let contract: Set<String> = ["type", "url", "cover_url", "duration", "autoplay", "muted", "link"]
    let plain = try renderedItems([.video(videoEntry(id: "v")), .image(imageEntry(id: "s")), .image(imageEntry(id: "g"))])
    for (a, b) in zip(items, plain) {
      for key in contract { #expect("\(a[key] ?? "-")" == "\(b[key] ?? "-")", "\(key)") }
    }
    let data = try ManifestEmitter(baseURL: nil).render([.video(video), .image(same)])
    #expect(ManifestEmitter.validate(data).isEmpty)
  }

  @Test func mp4ChoicePointsURLAtTheMP4() throws {
    let item = try #require(try renderedItems([.video(videoEntry(urlChoice: .mp4))]).first)
    #expect(item["url"] as? String == "https://cdn.example.com/home/video/spring/spring.mp4")
    #expect(item["hls_url"] as? String == "https://cdn.example.com/home/video/spring/master.m3u8")
  }

  @Test func imageItemHasNoCoverAndListsItsWidths() throws {
    let items = try renderedItems([.image(imageEntry(link: "http://example.com/sale"))])
    let item = try #require(items.first)
    #expect(
      Set(item.keys) == ["type", "url", "link", "id", "jpeg_url", "dark_url", "dark_jpeg_url", "width", "height", "sources",
                         "dark_policy"])
    #expect(item["cover_url"] == nil)
    #expect(item["type"] as? String == "image")
    #expect(item["url"] as? String == "https://cdn.example.com/home/images/sale/sale-1170.webp")
    #expect(item["dark_url"] as? String == "https://cdn.example.com/home/images/sale/sale-1170.dark.webp")
    #expect(item["link"] as? String == "http://example.com/sale")
    let sources = try #require(item["sources"] as? [[String: Any]])
    #expect(sources.count == 2)
    #expect(Set(sources[0].keys) == ["width", "height", "url", "jpeg_url"])
    #expect(JobJSON.number(sources[0]["width"] as Any) == 780)
    #expect(JobJSON.number(sources[0]["height"] as Any) == 439)
    #expect(sources[0]["url"] as? String == "https://cdn.example.com/home/images/sale/sale-780.webp")
    #expect(sources[1]["jpeg_url"] as? String == "https://cdn.example.com/home/images/sale/sale-1170.jpg")
  }

  @Test func itemsKeepTheGivenOrderAndOmitAbsentLinks() throws {
    let items = try renderedItems([
      .image(imageEntry(id: "b")), .video(videoEntry(id: "a", link: nil)), .image(imageEntry(id: "c")),
    ])
    #expect(items.map { $0["id"] as? String } == ["b", "a", "c"])
    #expect(items.allSatisfy { $0["link"] == nil })
  }

  @Test(arguments: [(15.2004, 15.2), (9.87654, 9.876), (4.971633, 4.971), (0.0339, 0.033), (0.999999999, 1.0), (600, 600)])
  func durationIsRoundedToMilliseconds(_ input: Double, _ expected: Double) throws {
    let item = try #require(try renderedItems([.video(videoEntry(duration: input))]).first)
    #expect(JobJSON.number(item["duration"] as Any) == expected)
  }

  // MARK: - URLs

  @Test(arguments: ["https://cdn.example.com/home", "https://cdn.example.com/home/"])
  func baseURLIsJoinedWithOneSlash(_ base: String) throws {
    let item = try #require(try renderedItems([.image(imageEntry())], baseURL: base).first)
    #expect(item["url"] as? String == "https://cdn.example.com/home/images/sale/sale-1170.webp")
  }

  @Test func pathSegmentsArePercentEncoded() throws {
    let entry = ImageManifestEntry(
      id: "sale", path: "images/summer sale/ü#1?.webp", jpegPath: "a~b-c_d.e/100%.jpg",
      darkPath: "x/y+z.webp", darkJPEGPath: "x/é.jpg", width: 10, height: 10, link: nil, widths: [])
    let item = try #require(try renderedItems([.image(entry)]).first)
    #expect(item["url"] as? String == "https://cdn.example.com/home/images/summer%20sale/%C3%BC%231%3F.webp")
    #expect(item["jpeg_url"] as? String == "https://cdn.example.com/home/a~b-c_d.e/100%25.jpg")
    #expect(item["dark_url"] as? String == "https://cdn.example.com/home/x/y%2Bz.webp")
    #expect(item["dark_jpeg_url"] as? String == "https://cdn.example.com/home/x/%C3%A9.jpg")
    #expect((item["sources"] as? [Any])?.isEmpty == true)
  }

  @Test func noBaseURLGivesRelativeURLs() throws {
    let items = try renderedItems([.video(videoEntry()), .image(imageEntry())], baseURL: nil)
    #expect(items[0]["url"] as? String == "video/spring/master.m3u8")
    #expect(items[0]["cover_url"] as? String == "covers/spring.webp")
    #expect(items[1]["url"] as? String == "images/sale/sale-1170.webp")
    #expect(try ManifestEmitter(baseURL: nil).url(forBundlePath: "a b/c.webp") == "a%20b/c.webp")
  }

  // MARK: - Exact text

  @Test func outputIsSortedPrettyAndDeterministic() throws {
    let entries: [ManifestEntry] = [
      .video(videoEntry(duration: 4, link: nil)),
      .image(
        ImageManifestEntry(
          id: "sale", path: "i/sale.webp", jpegPath: "i/sale.jpg", darkPath: "i/sale.dark.webp",
          darkJPEGPath: "i/sale.dark.jpg", width: 780, height: 439, link: "https://example.com/sale",
          widths: [ImageWidthEntry(width: 780, height: 439, webpPath: "i/sale.webp", jpegPath: "i/sale.jpg")])),
    ]
    let emitter = ManifestEmitter(baseURL: nil)
    let data = try emitter.render(entries)
    #expect(ByteComparison.difference(try emitter.render(entries), data) == nil)
    let expected = """
      {
        "banners": [
          {
            "autoplay": true,
            "cover_dark_jpeg_url": "covers/spring.dark.jpg",
            "cover_dark_url": "covers/spring.dark.webp",
            "cover_jpeg_url": "covers/spring.jpg",
            "cover_url": "covers/spring.webp",
            "dark_policy": "generated",
            "duration": 4.0,
            "height": 720,
            "hls_url": "video/spring/master.m3u8",
            "id": "spring",
            "mp4_url": "video/spring/spring.mp4",
            "muted": true,
            "type": "video",
            "url": "video/spring/master.m3u8",
            "width": 1280
          },
          {
            "dark_jpeg_url": "i/sale.dark.jpg",
            "dark_policy": "generated",
            "dark_url": "i/sale.dark.webp",
            "height": 439,
            "id": "sale",
            "jpeg_url": "i/sale.jpg",
            "link": "https://example.com/sale",
            "sources": [
              {
                "height": 439,
                "jpeg_url": "i/sale.jpg",
                "url": "i/sale.webp",
                "width": 780
              }
            ],
            "type": "image",
            "url": "i/sale.webp",
            "width": 780
          }
        ]
      }

      """
    #expect(String(decoding: data, as: UTF8.self) == expected)
  }

  @Test func emptyManifestIsValidJSON() throws {
    let data = try ManifestEmitter(baseURL: nil).render([])
    #expect(String(decoding: data, as: UTF8.self) == "{\n  \"banners\": []\n}\n")
  }

  // MARK: - Render errors

  @Test(arguments: ManifestRenderErrorCase.all)
  func renderRefusesContractBreaks(_ errorCase: ManifestRenderErrorCase) {
    guard let error = renderError(errorCase.entries, baseURL: errorCase.baseURL) else {
      Issue.record("rendered \(errorCase.name)")
      return
    }
    #expect(error.code == .invalidManifest, "\(error)")
    #expect(error.field == errorCase.path, "\(error)")
    #expect(error.message.contains(errorCase.reason), "\(error)")
  }

  @Test func renderErrorDescriptionNamesTheBanner() {
    let error = renderError([.video(videoEntry(autoplay: true, muted: false))])
    #expect(
      error?.description
        == #"banners[0].muted (banner "spring"): autoplay requires muted (iOS only autoplays muted video)"#)
  }

  // MARK: - Contract check

  @Test func renderedOutputKeepsTheContract() throws {
    let entries: [ManifestEntry] = [
      .video(videoEntry()), .video(videoEntry(id: "quiet", autoplay: false, muted: false, urlChoice: .mp4)),
      .image(imageEntry(link: "https://example.com/sale")),
    ]
    for base in [nil, "https://cdn.example.com/home"] {
      let data = try ManifestEmitter(baseURL: base).render(entries)
      #expect(ManifestEmitter.validate(data) == [])
    }
  }

  @Test func documentedExampleKeepsTheContract() {
    let example = """
      { "banners": [
          { "type": "video", "url": "https://cdn.example.com/a.m3u8", "cover_url": "https://cdn.example.com/a.jpg",
            "duration": 15.2, "autoplay": true, "muted": true },
          { "type": "image", "url": "https://cdn.example.com/b.jpg", "link": "https://example.com/promo1" }
      ] }
      """
    #expect(ManifestEmitter.validate(Data(example.utf8)) == [])
  }

  @Test(arguments: ContractViolationCase.all)
  func validateFindsTheViolation(_ violationCase: ContractViolationCase) {
    let problems = ManifestEmitter.validate(Data(violationCase.json.utf8))
    #expect(
      problems.contains { $0.hasPrefix(violationCase.violation) },
      "\(problems)")
  }

  @Test func validateReportsEveryViolation() {
    let json = #"{"banners": [{"type": "video", "url": "a.mp4", "autoplay": true, "muted": false, "duration": -1}, {"type": "image", "url": "b.webp", "cover_url": "c.webp"}]}"#
    let problems = ManifestEmitter.validate(Data(json.utf8))
    #expect(problems.count == 4, "\(problems)")
    #expect(problems.map { $0.prefix(while: { $0 != ":" }) } == [
      "banners[0].cover_url", "banners[0].duration", "banners[0].muted", "banners[1].cover_url",
    ])
  }
}
