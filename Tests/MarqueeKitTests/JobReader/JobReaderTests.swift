import Foundation
import Testing

@testable import MarqueeKit

// MARK: - Fixtures

/// A job file location used for messages; relative, so `file` reads as
/// written.
private let relativeJobURL = URL(fileURLWithPath: "Pipelines/home.json")
/// An absolute job file location for source resolution.
private let absoluteJobURL = URL(fileURLWithPath: "/srv/jobs/home/home.json")

private let video = #"{"id": "spring", "type": "video", "source": "media/spring.mov"}"#
private let image = #"{"id": "sale", "type": "image", "source": "media/sale.jpg"}"#

/// A job with the given banners (JSON texts) and extra root members.
private func job(_ banners: [String] = [video, image], settings: String? = nil, extra: String = "") -> String {
  var members = [#""name": "home""#]
  if let settings { members.append(#""settings": "# + settings) }
  members.append(#""banners": ["# + banners.joined(separator: ", ") + "]")
  if !extra.isEmpty { members.append(extra) }
  return "{" + members.joined(separator: ", ") + "}"
}

/// A job with one video banner carrying the extra members.
private func videoJob(_ members: String) -> String {
  job([#"{"id": "spring", "type": "video", "source": "media/spring.mov", "# + members + "}"])
}

/// A job with one image banner carrying the extra members.
private func imageJob(_ members: String) -> String {
  job([#"{"id": "sale", "type": "image", "source": "media/sale.jpg", "# + members + "}"])
}

private func parse(_ json: String, at url: URL = relativeJobURL) throws(JobError) -> Job {
  try JobReader().parse(Data(json.utf8), jobFileURL: url)
}

private func parseError(_ json: String) -> JobError? {
  do {
    _ = try parse(json)
    return nil
  } catch {
    return error
  }
}

// MARK: - Error cases

/// One invalid job file and where the reader must point.
struct JobErrorCase: Sendable, CustomTestStringConvertible {
  var name: String
  var json: String
  /// The exact JSON path expected.
  var path: String
  /// A fragment the reason must contain.
  var reason: String

  var testDescription: String { name }

  init(_ name: String, _ json: String, path: String, reason: String) {
    self.name = name
    self.json = json
    self.path = path
    self.reason = reason
  }

  static let all: [JobErrorCase] = structure + unknownKeys + wrongTypes + settingsRanges + banners + sources + links + dark
  static let structure: [JobErrorCase] = [
    .init("syntax error gives line and column", "{\n  \"name\": tru\n}", path: "", reason: "invalid JSON"),
    .init("empty document", "  \n", path: "", reason: "empty"),
    .init("root is an array", "[]", path: "", reason: "expected an object, found an array"),
    .init("root is a string", #""home""#, path: "", reason: "expected an object, found a string"),
    .init("missing name", #"{"banners": [\#(video)]}"#, path: "name", reason: "missing"),
    .init("missing banners", #"{"name": "home"}"#, path: "banners", reason: "missing"),
    .init("no banners", job([]), path: "banners", reason: "at least one banner"),
    .init("repeated key in a banner", videoJob(#""source": "media/other.mov""#), path: "banners[0].source", reason: "appears twice"),
    .init("repeated key via escape", #"{"name": "home", "n\u0061me": "x", "banners": [\#(video)]}"#, path: "name", reason: "appears twice"),
    .init("repeated root key", #"{"name": "a", "banners": [\#(video)], "name": "b"}"#, path: "name", reason: "appears twice"),
    .init("trailing comma in banners", "{\"name\": \"home\",\n  \"banners\": [\(video), ]}", path: "banners", reason: "trailing comma at line 2, column 78"),
    .init("trailing comma in a banner", job([#"{"id": "a", "type": "video", "source": "a.mov",}"#]), path: "banners[0]", reason: "trailing comma"),
    .init("trailing comma at the root", #"{"name": "home", "banners": [\#(video)],}"#, path: "", reason: "JSON allows none before } or ]"),
  ]
  static let unknownKeys: [JobErrorCase] = [
    .init("unknown key at root", job(extra: #""output": "x""#), path: "output", reason: #"unknown key "output""#),
    .init("setting at root", job(extra: #""segment_duration": 2"#), path: "segment_duration", reason: "move it into \"settings\""),
    .init("unknown key in settings", job(settings: #"{"segmnt_duration": 2}"#), path: "settings.segmnt_duration", reason: #"did you mean "segment_duration"?"#),
    .init("banner key in settings", job(settings: #"{"muted": true}"#), path: "settings.muted", reason: "banner key"),
    .init("unknown key in a banner", videoJob(#""autoplya": true"#), path: "banners[0].autoplya", reason: #"did you mean "autoplay"?"#),
    .init("unknown key in second banner", job([video, #"{"id": "b", "type": "image", "source": "b.png", "href": "https://x.com"}"#]), path: "banners[1].href", reason: "unknown key"),
    .init("unknown key in cover", videoJob(#""cover": {"at": 1, "frame": 2}"#), path: "banners[0].cover.frame", reason: "unknown key"),
    .init("odd key is quoted in the path", job(extra: #""base url": "x""#), path: #"["base url"]"#, reason: "unknown key"),
    .init("$schema is a number", job(extra: #""$schema": 7"#), path: #"["$schema"]"#, reason: "expected a string, found a number (7)"),
    .init("$schema only at the root", videoJob(#""$schema": "job.schema.json""#), path: #"banners[0]["$schema"]"#, reason: "unknown key"),
  ]
  static let wrongTypes: [JobErrorCase] = [
    .init("name is a number", #"{"name": 5, "banners": [\#(video)]}"#, path: "name", reason: "expected a string, found a number (5)"),
    .init("banners is an object", #"{"name": "home", "banners": {}}"#, path: "banners", reason: "expected an array of banners, found an object"),
    .init("banner is a string", job([#""spring""#]), path: "banners[0]", reason: "expected an object, found a string"),
    .init("settings is an array", job(settings: "[]"), path: "settings", reason: "expected an object, found an array"),
    .init("source is a number", job([#"{"id": "a", "type": "video", "source": 3}"#]), path: "banners[0].source", reason: "expected a string, found a number (3)"),
    .init("autoplay is the number 1", videoJob(#""autoplay": 1"#), path: "banners[0].autoplay", reason: "expected a boolean (true or false), found a number (1)"),
    .init("muted is a string", videoJob(#""muted": "yes""#), path: "banners[0].muted", reason: "found a string"),
    .init("link is null", videoJob(#""link": null"#), path: "banners[0].link", reason: "found null"),
    .init("type is a boolean", job([#"{"id": "a", "type": true, "source": "a.mov"}"#]), path: "banners[0].type", reason: "expected a string, found a boolean (true)"),
    .init("segment_duration is true", job(settings: #"{"segment_duration": true}"#), path: "settings.segment_duration", reason: "expected a number, found a boolean"),
    .init("max_height is a string", job(settings: #"{"max_height": "720"}"#), path: "settings.max_height", reason: "expected a number, found a string"),
    .init("max_height is fractional", job(settings: #"{"max_height": 720.5}"#), path: "settings.max_height", reason: "whole number"),
    .init("cover is a number", videoJob(#""cover": 5"#), path: "banners[0].cover", reason: "found a number"),
    .init("cover.at is a string", videoJob(#""cover": {"at": "1s"}"#), path: "banners[0].cover.at", reason: "expected a number"),
    .init("base_url is a number", job(extra: #""base_url": 1"#), path: "base_url", reason: "expected a string"),
  ]
  static let settingsRanges: [JobErrorCase] = [
    .init("segment_duration below 1", job(settings: #"{"segment_duration": 0.5}"#), path: "settings.segment_duration", reason: "from 1 to 10 seconds"),
    .init("segment_duration above 10", job(settings: #"{"segment_duration": 11}"#), path: "settings.segment_duration", reason: "found 11"),
    .init("max_height below 144", job(settings: #"{"max_height": 100}"#), path: "settings.max_height", reason: "from 144 to 2160"),
    .init("max_height huge does not trap", job(settings: #"{"max_height": 1e30}"#), path: "settings.max_height", reason: "from 144 to 2160"),
    .init("max_height beyond UInt64", job(settings: #"{"max_height": 123456789012345678901}"#), path: "settings.max_height", reason: "from 144 to 2160"),
    .init("image_width above 4096", job(settings: #"{"image_width": 5000}"#), path: "settings.image_width", reason: "from 16 to 4096"),
    .init("max_bundle_mb zero", job(settings: #"{"max_bundle_mb": 0}"#), path: "settings.max_bundle_mb", reason: "from 0.000001 (1 byte) to 1000000 (decimal MB), found 0"),
    .init("max_bundle_mb under a byte", job(settings: #"{"max_bundle_mb": 1e-7}"#), path: "settings.max_bundle_mb", reason: "from 0.000001 (1 byte)"),
    .init("max_item_mb a string", job(settings: #"{"max_item_mb": "5"}"#), path: "settings.max_item_mb", reason: "expected a number"),
    .init("webp_quality 0", job(settings: #"{"webp_quality": 0}"#), path: "settings.webp_quality", reason: "from 1 to 100"),
    .init("jpeg_quality 101", job(settings: #"{"jpeg_quality": 101}"#), path: "settings.jpeg_quality", reason: "from 1 to 100"),
    .init("dark_surface short", job(settings: ##"{"dark_surface": "#12345"}"##), path: "settings.dark_surface", reason: "#RRGGBB"),
    .init("background named colour", job(settings: #"{"background": "white"}"#), path: "settings.background", reason: "#RRGGBB"),
    .init("background bad digits", job(settings: ##"{"background": "#GGGGGG"}"##), path: "settings.background", reason: "#RRGGBB"),
    .init("max_duration 0", job(settings: #"{"max_duration": 0}"#), path: "settings.max_duration", reason: "more than 0"),
    .init("max_pixels 0", job(settings: #"{"max_pixels": 0}"#), path: "settings.max_pixels", reason: "from 1 to"),
    .init("max_file_size_mb negative", job(settings: #"{"max_file_size_mb": -1}"#), path: "settings.max_file_size_mb", reason: "more than 0"),
    .init("video_url dash", job(settings: #"{"video_url": "dash"}"#), path: "settings.video_url", reason: #"expected "hls" or "mp4""#),
    .init("video_crf 0 (lossless)", job(settings: #"{"video_crf": 0}"#), path: "settings.video_crf", reason: "from 1 to 51"),
    .init("video_crf 52", job(settings: #"{"video_crf": 52}"#), path: "settings.video_crf", reason: "found 52"),
    .init("video_crf a string", job(settings: #"{"video_crf": "23"}"#), path: "settings.video_crf", reason: "expected a number, found a string"),
    .init("video_crf null", job(settings: #"{"video_crf": null}"#), path: "settings.video_crf", reason: "found null"),
    .init("video_target_ssim 1", job(settings: #"{"video_target_ssim": 1}"#), path: "settings.video_target_ssim", reason: "0 (no check) or from 0.5 to 0.999"),
    .init("video_target_ssim 0.4", job(settings: #"{"video_target_ssim": 0.4}"#), path: "settings.video_target_ssim", reason: "found 0.4"),
    .init("video_target_ssim in dB", job(settings: #"{"video_target_ssim": 18.2}"#), path: "settings.video_target_ssim", reason: "found 18.2"),
    .init("video_target_ssim a string", job(settings: #"{"video_target_ssim": "0.985"}"#), path: "settings.video_target_ssim", reason: "expected a number, found a string"),
    .init("audio_loudness 0", job(settings: #"{"audio_loudness": 0}"#), path: "settings.audio_loudness", reason: "null (each sound keeps its level) or from -40 to -5"),
    .init("audio_loudness -70", job(settings: #"{"audio_loudness": -70}"#), path: "settings.audio_loudness", reason: "found -70"),
    .init("audio_loudness a string", job(settings: #"{"audio_loudness": "-16 LUFS"}"#), path: "settings.audio_loudness", reason: "expected a number, found a string"),
    .init("audio_loudness false", job(settings: #"{"audio_loudness": false}"#), path: "settings.audio_loudness", reason: "found a boolean"),
    .init("video_codecs a string", job(settings: #"{"video_codecs": "hevc"}"#), path: "settings.video_codecs", reason: "must be a list of codecs"),
    .init("video_codecs av1", job(settings: #"{"video_codecs": ["h264", "av1"]}"#), path: "settings.video_codecs[1]", reason: "must be \"h264\" or \"hevc\", found \"av1\""),
    .init("video_codecs twice", job(settings: #"{"video_codecs": ["h264", "h264"]}"#), path: "settings.video_codecs[1]", reason: "listed twice"),
    .init("video_codecs hevc alone", job(settings: #"{"video_codecs": ["hevc"]}"#), path: "settings.video_codecs", reason: "must start with \"h264\": every rendition has an H.264 variant, for the players that cannot play HEVC; found [\"hevc\"]"),
    .init("video_codecs empty", job(settings: #"{"video_codecs": []}"#), path: "settings.video_codecs", reason: "found an empty list"),
    .init("image_formats a string", job(settings: #"{"image_formats": "avif"}"#), path: "settings.image_formats", reason: "must be a list of formats"),
    .init("image_formats png", job(settings: #"{"image_formats": ["webp", "jpeg", "png"]}"#), path: "settings.image_formats[2]", reason: "must be one of \"webp\", \"jpeg\", \"avif\", found \"png\""),
    .init("image_formats twice", job(settings: #"{"image_formats": ["webp", "jpeg", "avif", "avif"]}"#), path: "settings.image_formats[3]", reason: "listed twice"),
    .init("image_formats without jpeg", job(settings: #"{"image_formats": ["webp", "avif"]}"#), path: "settings.image_formats", reason: "must include \"jpeg\""),
    .init("image_formats without webp", job(settings: #"{"image_formats": ["jpeg"]}"#), path: "settings.image_formats", reason: "must include \"webp\""),
    .init("allow_damaged_sources a string", job(settings: #"{"allow_damaged_sources": "yes"}"#), path: "settings.allow_damaged_sources", reason: "found a string"),
    .init("allow_damaged_sources 1", job(settings: #"{"allow_damaged_sources": 1}"#), path: "settings.allow_damaged_sources", reason: "found a number"),
  ]
  static let banners: [JobErrorCase] = [
    .init("missing id", job([#"{"type": "video", "source": "a.mov"}"#]), path: "banners[0].id", reason: "missing"),
    .init("upper-case id", job([#"{"id": "Spring", "type": "video", "source": "a.mov"}"#]), path: "banners[0].id", reason: #"found "Spring""#),
    .init("id starts with a dash", job([#"{"id": "-a", "type": "video", "source": "a.mov"}"#]), path: "banners[0].id", reason: "must start with"),
    .init("empty id", job([#"{"id": "", "type": "video", "source": "a.mov"}"#]), path: "banners[0].id", reason: "must start with"),
    .init("id with a space", job([#"{"id": "a b", "type": "video", "source": "a.mov"}"#]), path: "banners[0].id", reason: "must start with"),
    .init("id with non-ASCII", job([#"{"id": "spr\u00edng", "type": "video", "source": "a.mov"}"#]), path: "banners[0].id", reason: "must start with"),
    .init("id of 65 characters", job([#"{"id": "\#(String(repeating: "a", count: 65))", "type": "video", "source": "a.mov"}"#]), path: "banners[0].id", reason: "at most 64"),
    .init("duplicate id points at the second", job([video, image, #"{"id": "spring", "type": "image", "source": "x.png"}"#]), path: "banners[2].id", reason: "already used by banners[0]"),
    .init("missing type", job([#"{"id": "a", "source": "a.mov"}"#]), path: "banners[0].type", reason: "missing"),
    .init("unknown type", job([#"{"id": "a", "type": "gif", "source": "a.gif"}"#]), path: "banners[0].type", reason: #"found "gif""#),
    .init("autoplay true without muted", videoJob(#""autoplay": true, "muted": false"#), path: "banners[0].muted", reason: "iOS only autoplays muted video"),
    .init("default autoplay with muted false", videoJob(#""muted": false"#), path: "banners[0].muted", reason: "autoplay is on by default"),
    .init("autoplay on an image", imageJob(#""autoplay": false"#), path: "banners[0].autoplay", reason: "only to video banners"),
    .init("muted on an image", imageJob(#""muted": true"#), path: "banners[0].muted", reason: "only to video banners"),
    .init("cover on an image", imageJob(#""cover": "auto""#), path: "banners[0].cover", reason: "only to video banners"),
    .init("unknown cover policy", videoJob(#""cover": "middle""#), path: "banners[0].cover", reason: #"found "middle""#),
    .init("cover without at", videoJob(#""cover": {}"#), path: "banners[0].cover", reason: #"missing "at""#),
    .init("negative cover time", videoJob(#""cover": {"at": -1}"#), path: "banners[0].cover.at", reason: "0 or more"),
    .init("cover time past max_duration", videoJob(#""cover": {"at": 600}"#), path: "banners[0].cover.at", reason: "max_duration"),
    .init("bad name", #"{"name": "Home Page", "banners": [\#(video)]}"#, path: "name", reason: #"found "Home Page""#),
    .init("name with a dot", #"{"name": "../x", "banners": [\#(video)]}"#, path: "name", reason: "a-z, 0-9"),
    .init("name too long", #"{"name": "\#(String(repeating: "n", count: 65))", "banners": [\#(video)]}"#, path: "name", reason: "at most 64"),
  ]
  static let sources: [JobErrorCase] = [
    .init("missing source", job([#"{"id": "a", "type": "video"}"#]), path: "banners[0].source", reason: "missing"),
    .init("empty source", job([#"{"id": "a", "type": "video", "source": ""}"#]), path: "banners[0].source", reason: "must not be empty"),
    .init("http source", job([#"{"id": "a", "type": "video", "source": "https://cdn.example.com/a.mov"}"#]), path: "banners[0].source", reason: "not a URL (https: scheme); download the file"),
    .init("file URL source", job([#"{"id": "a", "type": "image", "source": "file:///srv/a.png"}"#]), path: "banners[0].source", reason: "(file: scheme)"),
    .init("rtmp source", job([#"{"id": "a", "type": "video", "source": "rtmp://live.example.com/app"}"#]), path: "banners[0].source", reason: "(rtmp: scheme)"),
    .init("data URI source", job([#"{"id": "a", "type": "image", "source": "data:image/png;base64,AAAA"}"#]), path: "banners[0].source", reason: "(data: scheme)"),
    .init("name with a colon gets a ./ hint", job([#"{"id": "a", "type": "video", "source": "clip:1.mov"}"#]), path: "banners[0].source", reason: #"write "./clip:1.mov""#),
    .init("folder source", job([#"{"id": "a", "type": "video", "source": "media/"}"#]), path: "banners[0].source", reason: "folder"),
  ]
  /// `dark`: exactly `"same"` or `{"image": path}`, on either kind.
  static let dark: [JobErrorCase] = [
    .init("dark is a number", imageJob(#""dark": 5"#), path: "banners[0].dark", reason: #"expected "same" or {"image": "media/sale-dark.png"}, found a number (5)"#),
    .init("dark is null", imageJob(#""dark": null"#), path: "banners[0].dark", reason: "found null"),
    .init("dark is an array", videoJob(#""dark": ["same"]"#), path: "banners[0].dark", reason: "found an array"),
    .init("dark is another word", imageJob(#""dark": "auto""#), path: "banners[0].dark", reason: #"found "auto""#),
    .init("dark is spelt in capitals", videoJob(#""dark": "Same""#), path: "banners[0].dark", reason: #"found "Same""#),
    .init("dark generated is the default", imageJob(#""dark": "generated""#), path: "banners[0].dark", reason: #"leave "dark" out"#),
    .init("dark without image", imageJob(#""dark": {}"#), path: "banners[0].dark", reason: #"missing "image""#),
    .init("unknown key in dark", videoJob(#""dark": {"image": "a.png", "at": 1}"#), path: "banners[0].dark.at", reason: #"unknown key "at""#),
    .init("dark typo key", imageJob(#""dark": {"imgae": "a.png"}"#), path: "banners[0].dark.imgae", reason: #"did you mean "image"?"#),
    .init("dark image is a number", imageJob(#""dark": {"image": 3}"#), path: "banners[0].dark.image", reason: "expected a string, found a number (3)"),
    .init("dark image is empty", imageJob(#""dark": {"image": ""}"#), path: "banners[0].dark.image", reason: "must not be empty"),
    .init("dark image is a URL", videoJob(#""dark": {"image": "https://cdn.example.com/d.png"}"#), path: "banners[0].dark.image", reason: "not a URL (https: scheme)"),
    .init("dark image is a folder", imageJob(#""dark": {"image": "media/"}"#), path: "banners[0].dark.image", reason: "folder"),
    .init("dark image leads out with ..", imageJob(#""dark": {"image": "../other/d.png"}"#), path: "banners[0].dark.image", reason: "leads out of the job file's folder"),
    .init("dark image absolute elsewhere", imageJob(#""dark": {"image": "/etc/d.png"}"#), path: "banners[0].dark.image", reason: "absolute path outside"),
  ]
  static let links: [JobErrorCase] = [
    .init("ftp link", videoJob(#""link": "ftp://example.com/file""#), path: "banners[0].link", reason: "only http and https"),
    .init("javascript link", imageJob(#""link": "javascript:alert(1)""#), path: "banners[0].link", reason: "only http and https"),
    .init("relative link", imageJob(#""link": "/promo""#), path: "banners[0].link", reason: "absolute http or https URL"),
    .init("link without host", imageJob(#""link": "https:/promo""#), path: "banners[0].link", reason: "no host"),
    .init("link with a space", imageJob(#""link": "https://example.com/a b""#), path: "banners[0].link", reason: "spaces"),
    .init("ftp base_url", job(extra: #""base_url": "ftp://cdn.example.com/""#), path: "base_url", reason: "only http and https"),
    .init("base_url without scheme", job(extra: #""base_url": "cdn.example.com/home""#), path: "base_url", reason: "absolute http or https URL"),
    .init("base_url with query", job(extra: #""base_url": "https://cdn.example.com/?v=1""#), path: "base_url", reason: "query"),
  ]
}

@Suite struct JobReaderTests {
  // MARK: - Errors

  @Test(arguments: JobErrorCase.all)
  func reportsThePathOfTheProblem(_ errorCase: JobErrorCase) {
    guard let error = parseError(errorCase.json) else {
      Issue.record("accepted: \(errorCase.json)")
      return
    }
    #expect(error.path == errorCase.path, "\(error)")
    #expect(error.reason.contains(errorCase.reason), "\(error)")
    #expect(error.file == "Pipelines/home.json")
  }

  @Test func errorDescriptionNamesFilePathAndReason() {
    let error = parseError(job([#"{"id": "a", "type": "video", "source": 3}"#]))
    #expect(error?.description == "Pipelines/home.json: banners[0].source: expected a string, found a number (3)")
    let root = parseError("[]")
    #expect(root?.description == "Pipelines/home.json: expected an object, found an array")
  }

  @Test func syntaxErrorGivesLineAndColumn() {
    let error = parseError("{\n  \"name\": tru\n}")
    #expect(error?.path == "")
    #expect(error?.reason.contains("line 2, column") == true, "\(String(describing: error))")
  }

  @Test func errorInThirdBannerNamesIt() {
    let third = #"{"id": "c", "type": "video", "source": "c.mov", "muted": 0}"#
    let error = parseError(job([video, image, third]))
    #expect(error?.path == "banners[2].muted")
  }

  // MARK: - Defaults and values

  @Test func minimalJobGetsAllDefaults() throws {
    let parsed = try parse(job())
    #expect(parsed.name == "home")
    #expect(parsed.baseURL == nil)
    #expect(parsed.warnings.isEmpty)
    #expect(parsed.jobFileURL == relativeJobURL)
    let settings = parsed.settings
    #expect(settings == JobSettings.default)
    #expect(settings.segmentDuration == 2)
    #expect(settings.maxHeight == 720)
    #expect(settings.imageWidth == 1170)
    #expect(settings.webpQuality == 80)
    #expect(settings.jpegQuality == 85)
    #expect(settings.darkSurface == RGBColor(r: 0x1C, g: 0x1C, b: 0x1E))
    #expect(settings.background == RGBColor(r: 255, g: 255, b: 255))
    #expect(settings.maxDuration == 600)
    #expect(settings.maxPixels == 40_000_000)
    #expect(settings.maxFileSize == 2048 * 1_048_576)
    #expect(settings.videoURL == .hls)

    let banners = parsed.banners
    try #require(banners.count == 2)
    #expect(banners[0].id == "spring")
    #expect(banners[0].kind == .video)
    #expect(banners[0].autoplay == true)
    #expect(banners[0].muted == true)
    #expect(banners[0].cover == .auto)
    #expect(banners[0].link == nil)
    #expect(banners[0].jsonPath == "banners[0]")
    #expect(banners[1].kind == .image)
    #expect(banners[1].autoplay == false)
    #expect(banners[1].jsonPath == "banners[1]")
  }

  @Test func everySettingIsRead() throws {
    let settings = #"""
      {"segment_duration": 4.5, "max_height": 1080.0, "image_width": 828, "webp_quality": 70,
       "jpeg_quality": 90, "dark_surface": "#000000", "background": "#f0E0d0",
       "max_duration": 30, "max_pixels": 8294400, "max_file_size_mb": 1.5, "video_url": "mp4"}
      """#
    let parsed = try parse(job(settings: settings)).settings
    #expect(parsed.segmentDuration == 4.5)
    #expect(parsed.maxHeight == 1080)
    #expect(parsed.imageWidth == 828)
    #expect(parsed.webpQuality == 70)
    #expect(parsed.jpegQuality == 90)
    #expect(parsed.darkSurface == RGBColor(r: 0, g: 0, b: 0))
    #expect(parsed.background == RGBColor(r: 0xF0, g: 0xE0, b: 0xD0))
    #expect(parsed.maxDuration == 30)
    #expect(parsed.maxPixels == 8_294_400)
    #expect(parsed.maxFileSize == 1_572_864)
    #expect(parsed.videoURL == .mp4)
    #expect(parsed.videoCRF == JobSettings.default.videoCRF && parsed.videoCRF == 23)
    #expect(try parse(job(settings: #"{"video_crf": 19.5}"#)).settings.videoCRF == 19.5)
    #expect(try parse(job(settings: #"{"video_crf": 1}"#)).settings.videoCRF == 1)
    #expect(try parse(job(settings: #"{"video_crf": 51}"#)).settings.videoCRF == 51)
    #expect(parsed.videoTargetSSIM == QualityTarget.defaultSSIM && parsed.videoTargetSSIM == 0.985)
    #expect(try parse(job(settings: #"{"video_target_ssim": 0}"#)).settings.videoTargetSSIM == 0)
    #expect(try parse(job(settings: #"{"video_target_ssim": 0.5}"#)).settings.videoTargetSSIM == 0.5)
    #expect(try parse(job(settings: #"{"video_target_ssim": 0.999}"#)).settings.videoTargetSSIM == 0.999)
    #expect(parsed.audioLoudness == JobSettings.defaultAudioLoudness && parsed.audioLoudness == -16)
    #expect(try parse(job(settings: #"{"audio_loudness": null}"#)).settings.audioLoudness == nil)
    #expect(try parse(job(settings: #"{"audio_loudness": -23}"#)).settings.audioLoudness == -23)
    #expect(try parse(job(settings: #"{"audio_loudness": -5}"#)).settings.audioLoudness == -5)
    #expect(parsed.videoCodecs == [.h264, .hevc])
    #expect(try parse(job(settings: #"{"video_codecs": ["h264"]}"#)).settings.videoCodecs == [.h264])
    #expect(try parse(job(settings: #"{"video_codecs": ["h264", "hevc"]}"#)).settings.videoCodecs == [.h264, .hevc])
    #expect(parsed.imageFormats == [.webp, .jpeg, .avif] && parsed.makesAVIF)
    #expect(try parse(job(settings: #"{"image_formats": ["jpeg", "webp"]}"#)).settings.imageFormats == [.webp, .jpeg])
    #expect(try parse(job(settings: #"{"image_formats": ["avif", "jpeg", "webp"]}"#)).settings.imageFormats == [.webp, .jpeg, .avif])
    #expect(try !parse(job(settings: #"{"image_formats": ["webp", "jpeg"]}"#)).settings.makesAVIF)
    #expect(parsed.allowDamagedSources == false && JobSettings.default.allowDamagedSources == false)
    #expect(try parse(job(settings: #"{"allow_damaged_sources": true}"#)).settings.allowDamagedSources)
  }

  @Test func rangeBoundsAreInclusive() throws {
    let low = try parse(job(settings: #"{"segment_duration": 1, "max_height": 144, "image_width": 16, "webp_quality": 1}"#))
    #expect(low.settings.segmentDuration == 1)
    let high = try parse(job(settings: #"{"segment_duration": 10, "max_height": 2160, "image_width": 4096, "jpeg_quality": 100}"#))
    #expect(high.settings.maxHeight == 2160)
  }

  @Test func videoOptionsAreRead() throws {
    let banners = try parse(
      job([
        #"{"id": "a", "type": "video", "source": "a.mov", "autoplay": false, "muted": false, "cover": "first"}"#,
        #"{"id": "b", "type": "video", "source": "b.mov", "autoplay": true, "muted": true, "cover": {"at": 1.5}}"#,
        #"{"id": "c", "type": "video", "source": "c.mov", "cover": {"at": 0}}"#,
      ])
    ).banners
    #expect(banners[0].autoplay == false)
    #expect(banners[0].muted == false)
    #expect(banners[0].cover == .first)
    #expect(banners[1].cover == .at(seconds: 1.5))
    #expect(banners[2].cover == .at(seconds: 0))
  }

  @Test func darkPolicyIsReadOnBothKinds() throws {
    let banners = try parse(
      job([
        #"{"id": "a", "type": "image", "source": "media/a.png"}"#,
        #"{"id": "b", "type": "image", "source": "media/b.png", "dark": "same"}"#,
        #"{"id": "c", "type": "image", "source": "media/c.png", "dark": {"image": "media/c-dark.png"}}"#,
        #"{"id": "d", "type": "video", "source": "media/d.mov", "dark": {"image": "./media/../media/d dark.webp"}}"#,
        #"{"id": "e", "type": "video", "source": "media/e.mov", "cover": {"image": "p.jpg"}, "dark": "same"}"#,
      ]),
      at: absoluteJobURL
    ).banners
    #expect(banners.map(\.dark.kind) == [.generated, .same, .designer, .designer, .same])
    #expect(banners[2].dark == .image(source: URL(fileURLWithPath: "/srv/jobs/home/media/c-dark.png"), text: "media/c-dark.png"))
    #expect(banners[2].dark.designerSource?.path == "/srv/jobs/home/media/c-dark.png")
    #expect(banners[3].dark.designerSource?.path == "/srv/jobs/home/media/d dark.webp")
    #expect(banners[4].cover.posterSource?.path == "/srv/jobs/home/p.jpg")
    #expect(banners[0].dark.designerSource == nil && banners[1].dark.designerSource == nil)
    // Outside the folder like any source, when the job allows it.
    let outside = try parse(imageJob(#""dark": {"image": "../shared/d.png"}"#).replacingOccurrences(
      of: #""banners""#, with: #""settings": {"allow_outside_sources": true}, "banners""#), at: absoluteJobURL)
    #expect(outside.banners[0].dark.designerSource?.path == "/srv/jobs/shared/d.png")
  }

  @Test func baseURLGetsATrailingSlash() throws {
    #expect(try parse(job(extra: #""base_url": "https://cdn.example.com/home""#)).baseURL == "https://cdn.example.com/home/")
    #expect(try parse(job(extra: #""base_url": "http://cdn.example.com/home/""#)).baseURL == "http://cdn.example.com/home/")
  }

  @Test func everyPartIsCheckedAndEveryProblemListed() throws {
    let json = #"""
      {"name": "Home", "base_url": 1, "settings": {"segment_duration": 0},
       "banners": [{"id": "a", "type": "vid", "source": "x.mp4"},
                   {"id": "b", "type": "image", "source": "y.png"},
                   {"id": "c", "type": "image", "source": "z.png", "autoplya": true},
                   {"id": "b", "type": "image", "source": "w.png"}]}
      """#
    let error = try #require(parseError(json))
    #expect(error.all.map(\.path) == ["name", "base_url", "settings.segment_duration", "banners[0].type",
                                       "banners[2].autoplya", "banners[3].id"])
    #expect(error.path == "name")
    #expect(error.description.contains("(and 5 more problems; `marquee validate Pipelines/home.json` lists them)"), "\(error)")
    // One problem alone reads as before.
    let single = try #require(parseError(job(extra: #""base_url": 1"#)))
    #expect(single.all.count == 1)
    #expect(!single.description.contains("more problem"))
  }

  @Test func schemaKeyForEditorsIsAccepted() throws {
    let parsed = try parse(job(extra: #""$schema": "../Pipelines/job.schema.json""#))
    #expect(parsed.name == "home")
    #expect(parsed.banners.count == 2)
  }

  @Test(arguments: ["https://example.com/spring", "http://example.com", "HTTPS://Example.com/a?b=c#d"])
  func httpLinksAreAccepted(_ link: String) throws {
    let banners = try parse(imageJob(#""link": "\#(link)""#)).banners
    #expect(banners[0].link == link)
  }

  // MARK: - Sources

  @Test func relativeSourceResolvesAgainstTheJobFileFolder() throws {
    let banners = try parse(
      job([
        #"{"id": "a", "type": "video", "source": "media/spring.mov"}"#,
        #"{"id": "b", "type": "image", "source": "../shared/sale.jpg"}"#,
        #"{"id": "c", "type": "image", "source": "/var/media/c d.png"}"#,
        #"{"id": "d", "type": "image", "source": "./clip:1.png"}"#,
      ], settings: #"{"allow_outside_sources": true}"#),
      at: absoluteJobURL
    ).banners
    #expect(banners[0].source == URL(fileURLWithPath: "/srv/jobs/home/media/spring.mov"))
    #expect(banners[0].source.path == "/srv/jobs/home/media/spring.mov")
    #expect(banners[0].sourceText == "media/spring.mov")
    #expect(banners[1].source.path == "/srv/jobs/shared/sale.jpg")
    #expect(banners[2].source.path == "/var/media/c d.png")
    #expect(banners[3].source.path == "/srv/jobs/home/clip:1.png")
    #expect(banners.allSatisfy { $0.source.isFileURL })
  }

  @Test func relativeJobFileResolvesAgainstTheCurrentDirectory() throws {
    let banners = try parse(job(), at: relativeJobURL).banners
    let expected = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
      .appendingPathComponent("Pipelines/media/spring.mov").standardizedFileURL
    #expect(banners[0].source.path == expected.path)
  }

  // MARK: - Warnings

  @Test func moreThanTenBannersWarns() throws {
    func banners(_ count: Int) -> [String] {
      (0..<count).map { #"{"id": "b\#($0)", "type": "image", "source": "b\#($0).png"}"# }
    }
    let ten = try parse(job(banners(10)))
    #expect(ten.warnings.isEmpty)
    let eleven = try parse(job(banners(11)))
    #expect(eleven.banners.count == 11)
    #expect(eleven.warnings.count == 1)
    #expect(eleven.warnings.first?.contains("11 banners") == true)
  }

  // MARK: - JSON type detection (Linux NSNumber)

  @Test func booleansAndNumbersAreToldApart() throws {
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(#"{"t": true, "f": false, "one": 1, "zero": 0, "half": 0.5, "big": 18446744073709551615}"#.utf8))
        as? [String: Any])
    #expect(JobJSONType(of: object["t"] as Any) == .boolean)
    #expect(JobJSONType(of: object["f"] as Any) == .boolean)
    #expect(JobJSONType(of: object["one"] as Any) == .number)
    #expect(JobJSONType(of: object["zero"] as Any) == .number)
    #expect(JobJSONType(of: object["half"] as Any) == .number)
    #expect(JobJSONType(of: object["big"] as Any) == .number)
    #expect(JobJSON.bool(object["one"] as Any) == nil)
    #expect(JobJSON.number(object["t"] as Any) == nil)
    #expect(JobJSON.number(object["big"] as Any) == 18446744073709551615.0)
  }

  // MARK: - Files

  @Test func readsAJobFileFromDisk() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("JobReaderTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("home.json")
    try Data(job().utf8).write(to: file)

    let parsed = try JobReader().read(contentsOf: file)
    #expect(parsed.banners[0].source.path == folder.appendingPathComponent("media/spring.mov").standardizedFileURL.path)

    do {
      _ = try JobReader().read(contentsOf: folder)
      Issue.record("a folder was read as a job")
    } catch {
      #expect(error.path == "")
      #expect(error.reason.contains("folder"))
    }
  }

  @Test func missingJobFileIsAJobError() {
    let url = URL(fileURLWithPath: "Pipelines/does-not-exist.json")
    do {
      _ = try JobReader().read(contentsOf: url)
      Issue.record("read a missing file")
    } catch {
      #expect(error.file == "Pipelines/does-not-exist.json")
      #expect(error.path == "")
      #expect(error.description == "Pipelines/does-not-exist.json: no such file")
    }
  }

  // MARK: - Helpers

  @Test func rgbColorParsesAndPrints() {
    #expect(RGBColor(hex: "#1c1C1e") == RGBColor(r: 0x1C, g: 0x1C, b: 0x1E))
    #expect(RGBColor(r: 0x1C, g: 0x1C, b: 0x1E).hex == "#1C1C1E")
    #expect(RGBColor(hex: "1C1C1E") == nil)
    #expect(RGBColor(hex: "#1C1C1E0") == nil)
    #expect(RGBColor(hex: "#1C1C1G") == nil)
  }

  @Test func duplicateKeyScannerFollowsNesting() {
    func first(_ json: String) -> String? {
      JobJSONStrictScanner.firstDuplicate(in: Data(json.utf8))?.path
    }
    #expect(first(#"{"a": {"b": 1}, "c": {"b": 2}}"#) == nil)
    #expect(first(#"{"a": [{"x": "}\"", "x": 1}]}"#) == "a[0].x")
    #expect(first(#"{"a": 1, "b": [1, {"c": {"d": 1, "d": 2}}]}"#) == "b[1].c.d")
    #expect(first(#"{"\ud83d\ude00": 1, "😀": 2}"#) == #"["😀"]"#)
  }

  /// Found by the FuzzJobReader target: `[}` looped for ever (a byte that
  /// starts no value was skipped as an empty literal, again and again).
  /// The limit is a guard against that hang, not a timing: on a loaded
  /// machine Swift Testing counts the minutes a test waits for a thread of
  /// its pool too (a 1-minute limit failed after 6 minutes of waiting).
  @Test(.timeLimit(.minutes(20)), arguments: ["[}", "{\"a\": [}]}", "[:", "]"])
  func strictScannerStopsOnWhatItDoesNotUnderstand(_ json: String) {
    #expect(JobJSONStrictScanner.firstProblem(in: Data(json.utf8)) == nil)
  }

  /// Found by FuzzJobReader in a long run: a high surrogate followed by an
  /// escape that is not a low one (`\ud800\u0041`) trapped on arithmetic
  /// overflow, so a job file could crash `marquee`. Each unit now stands on
  /// its own: U+FFFD, then the character.
  @Test func strictScannerTakesUnpairedSurrogates() {
    func first(_ json: String) -> String? { JobJSONStrictScanner.firstDuplicate(in: Data(json.utf8))?.path }
    #expect(first("{\"\\ud800\\u0041\": 1, \"\u{FFFD}A\": 2}") == "[\"\u{FFFD}A\"]")
    #expect(first(#"{"\udbff\ua111x": 1, "\ud800\udc00": 2}"#) == nil)
    #expect(first(#"{"\ud83d\ude00": 1, "\ud83d\ude00": 2}"#) == #"["😀"]"#)
  }
}
