import Foundation

// MARK: - The job file's text

extension JobTemplate {
  /// The job file `marquee init` prints or writes, and the job it reads
  /// back as.
  public struct Document: Sendable {
    /// The job file: pretty JSON in the style of `Pipelines/demo.json`
    /// (two-space indent, one banner per line), keys in a fixed order
    /// (`name`, `settings`, `banners`; settings in the reader's order;
    /// `id`, `type`, `source`, then `autoplay`, `muted`, `cover` for a
    /// video), ending in a newline. The same template gives the same bytes.
    public var text: String
    /// The text read back by `JobReader`: what `validate` and `build`
    /// see, its `warnings` included (more than ten banners).
    public var job: Job
  }

  /// The settings keys `init` leaves out, and why: none has a value that
  /// means its default (`mp4_height`: the rendition nearest 720;
  /// `image_widths`: `image_width` and two thirds of it, and the reader
  /// refuses both keys at once; the budgets: none).
  public static let settingsLeftOut: Set<String> = ["mp4_height", "image_widths", "max_bundle_mb", "max_item_mb"]

  /// The job file's text, checked by reading it back.
  ///
  /// - Parameter fileName: the job file's name in `jobFolder`, for the
  ///   reader's messages (`job.json: banners: 12 banners; …`).
  /// - Throws: `MarqueeError` with code `.usage` when the folder holds no
  ///   media (no banner to list: the job reader needs one); `.invalidRequest`
  ///   when the text does not read back (a bug in the writer).
  public func document(fileName: String = "job.json") throws(MarqueeError) -> Document {
    guard !banners.isEmpty else {
      let detail = skipped.isEmpty ? "it is empty" : "\(skipped.count) file(s) left out, each with a note"
      throw MarqueeError(.usage, "no video or image Marquee can build in \(mediaFolder.relativePath) (\(detail)); a job needs at least one banner")
    }
    let text = json
    let jobFile = URL(fileURLWithPath: fileName, relativeTo: jobFolder)
    do {
      return Document(text: text, job: try JobReader().parse(Data(text.utf8), jobFileURL: jobFile))
    } catch {
      throw MarqueeError(.invalidRequest, "the job init wrote does not read back: \(error)")
    }
  }

  /// The JSON text, unchecked (`document()` checks it).
  var json: String {
    var out = "{\n"
    out += "  \"name\": \(Self.string(name)),\n"
    out += "  \"settings\": {\n"
    out += settingsMembers.map { "    \(Self.string($0.key)): \($0.value)" }.joined(separator: ",\n")
    out += "\n  },\n"
    out += "  \"banners\": [\n"
    out += banners.map { "    " + Self.line($0) }.joined(separator: ",\n")
    out += "\n  ]\n}\n"
    return out
  }

  /// One banner on one line: `{"id": …, "type": …, "source": …}`, and a
  /// video's `autoplay`, `muted` and `cover` at their defaults (`true`,
  /// `true`, `"auto"`: iOS autoplays only muted video, and the defaults
  /// allow it).
  static func line(_ banner: Banner) -> String {
    var members = [("id", string(banner.id)), ("type", string(banner.kind.rawValue)), ("source", string(banner.source))]
    if banner.kind == .video {
      members += [("autoplay", "true"), ("muted", "true"), ("cover", string("auto"))]
    }
    return "{" + members.map { "\(string($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
  }

  /// Every setting with a value, as JSON text, in the reader's order
  /// (`JobDocumentValidator.settingsKeys`), from `settings`: the defaults
  /// themselves, never numbers typed again here. Keys in
  /// `settingsLeftOut` appear only when `settings` gives them a value.
  var settingsMembers: [(key: String, value: String)] {
    let s = settings
    return JobDocumentValidator.settingsKeys.compactMap { key -> (key: String, value: String)? in
      let value: String? =
        switch key {
        case "segment_duration": Self.number(s.segmentDuration)
        case "max_height": String(s.maxHeight)
        case "image_width": String(s.imageWidth)
        case "webp_quality": String(s.webpQuality)
        case "jpeg_quality": String(s.jpegQuality)
        case "dark_surface": Self.string(s.darkSurface.hex)
        case "background": Self.string(s.background.hex)
        case "max_duration": Self.number(s.maxDuration)
        case "max_pixels": String(s.maxPixels)
        case "max_file_size_mb": Self.number(Double(s.maxFileSize) / Double(JobSettings.bytesPerMB))
        case "video_url": Self.string(s.videoURL.rawValue)
        case "renditions": Self.renditions(s.renditions)
        case "mp4_height": s.mp4Height.map { String($0) }
        case "image_widths": s.imageWidths.map { "[" + $0.map { String($0) }.joined(separator: ", ") + "]" }
        case "video_crf": Self.number(s.videoCRF)
        case "video_target_ssim": Self.number(s.videoTargetSSIM)
        case "allow_damaged_sources": String(s.allowDamagedSources)
        // Not a `JobSettings` value (it changes no output); the reader's
        // default is false.
        case "allow_outside_sources": "false"
        case "max_bundle_mb": s.maxBundleBytes.map { Self.number(Double($0) / Double(JobSettings.budgetBytesPerMB)) }
        case "max_item_mb": s.maxItemBytes.map { Self.number(Double($0) / Double(JobSettings.budgetBytesPerMB)) }
        // null (each sound keeps its level) is a value of its own.
        case "audio_loudness": s.audioLoudness.map { Self.number($0) } ?? "null"
        case "video_codecs": "[" + s.videoCodecs.map { Self.string($0.rawValue) }.joined(separator: ", ") + "]"
        case "image_formats": "[" + s.imageFormats.map { Self.string($0.rawValue) }.joined(separator: ", ") + "]"
        default: nil
        }
      return value.map { (key, $0) }
    }
  }

  /// The rendition ladder, one rung a line.
  static func renditions(_ ladder: [RenditionRequest]) -> String {
    let rungs = ladder.map { "      {\"height\": \($0.height), \"bitrate_kbps\": \($0.bitrateKbps)}" }
    return "[\n" + rungs.joined(separator: ",\n") + "\n    ]"
  }

  /// A JSON string literal (`TextEscaping.appendJSON`).
  static func string(_ text: String) -> String {
    var out = ""
    TextEscaping.appendJSON(text, to: &out)
    return out
  }

  /// A number as the job reader reads it back exactly: `2`, not `2.0`;
  /// `0.985` (Swift's shortest round-tripping form).
  static func number(_ value: Double) -> String {
    JobDocumentValidator.format(value)
  }
}

// MARK: - Writing

extension JobTemplate {
  /// Whether `url` names nothing yet (no file, folder or link, a dangling
  /// link included), checked before any work so that `--out` fails fast.
  ///
  /// - Throws: `MarqueeError` with code `.usage` when something is there.
  public static func checkNew(_ url: URL) throws(MarqueeError) {
    if FileSystem.identity(url) != nil { throw existsError(url) }
  }

  /// Writes `text` as the new file `url`: whole or not at all, never over
  /// an existing file (`FileSystem.createNewFile`: a temporary file beside
  /// it, hard-linked into place).
  ///
  /// - Throws: `MarqueeError` with code `.usage` when `url` exists (it is
  ///   left as it was, byte for byte), `.writeFailed` when it cannot be
  ///   written (a missing folder, permissions, a full disk).
  public static func write(_ text: String, to url: URL) throws(MarqueeError) {
    guard try FileSystem.createNewFile(Data(text.utf8), at: url) else { throw existsError(url) }
  }

  private static func existsError(_ url: URL) -> MarqueeError {
    MarqueeError(.usage, "\(url.relativePath) already exists; init never overwrites a file (remove it, or give another --out)")
  }
}
