import Foundation

// MARK: - Settings

extension JobDocumentValidator {
  /// Every key the `settings` object accepts, in the order they are checked.
  static let settingsKeys = [
    "segment_duration", "max_height", "image_width", "webp_quality", "jpeg_quality",
    "dark_surface", "background", "max_duration", "max_pixels", "max_file_size_mb",
    "video_url", "renditions", "mp4_height", "image_widths", "video_crf", "video_target_ssim",
    "allow_damaged_sources", "allow_outside_sources", "max_bundle_mb", "max_item_mb", "audio_loudness",
    "video_codecs", "image_formats",
  ]

  /// `settings.allow_outside_sources`: whether a source may lie outside the
  /// job file's folder. Read by `job(from:)` before the banners; not part
  /// of `JobSettings`, since it changes no output (and so no fingerprint).
  func allowsOutsideSources(_ settings: Any?) throws(JobError) -> Bool {
    guard let object = settings as? [String: Any], let value = object["allow_outside_sources"] else { return false }
    return try bool(value, at: JobJSON.path("settings", key: "allow_outside_sources"))
  }

  /// Validates the `settings` object; absent keys keep `JobSettings.default`.
  func settings(_ value: Any) throws(JobError) -> JobSettings {
    let parent = "settings"
    let object = try self.object(value, at: parent)
    try checkKeys(of: object, allowed: Self.settingsKeys, at: parent) { key in
      JobDocumentValidator.bannerKeys.contains(key)
        ? "\(JobJSON.quoted(key)) is a banner key; set it on each banner" : nil
    }
    var settings = JobSettings.default
    func path(_ key: String) -> String { JobJSON.path(parent, key: key) }

    if let value = object["segment_duration"] {
      let range = JobSettings.segmentDurationRange
      settings.segmentDuration = try seconds(
        value, at: path("segment_duration"), above: range.lowerBound, inclusive: true, max: range.upperBound)
    }
    if let value = object["max_height"] {
      settings.maxHeight = try integer(value, at: path("max_height"), in: JobSettings.maxHeightRange, unit: " pixels")
    }
    if let value = object["image_width"] {
      settings.imageWidth = try integer(value, at: path("image_width"), in: JobSettings.imageWidthRange, unit: " pixels")
    }
    if let value = object["webp_quality"] {
      settings.webpQuality = try integer(value, at: path("webp_quality"), in: JobSettings.qualityRange)
    }
    if let value = object["jpeg_quality"] {
      settings.jpegQuality = try integer(value, at: path("jpeg_quality"), in: JobSettings.qualityRange)
    }
    if let value = object["dark_surface"] {
      settings.darkSurface = try color(value, at: path("dark_surface"))
    }
    if let value = object["background"] {
      settings.background = try color(value, at: path("background"))
    }
    if let value = object["max_duration"] {
      settings.maxDuration = try seconds(
        value, at: path("max_duration"), above: 0, inclusive: false, max: JobSettings.maxDurationLimit)
    }
    if let value = object["max_pixels"] {
      settings.maxPixels = try integer(value, at: path("max_pixels"), in: JobSettings.maxPixelsRange, unit: " pixels")
    }
    if let value = object["max_file_size_mb"] {
      let keyPath = path("max_file_size_mb")
      let megabytes = try number(value, at: keyPath)
      guard megabytes > 0, megabytes <= JobSettings.maxFileSizeMBLimit else {
        throw fail(
          keyPath,
          "must be more than 0 and at most \(Int(JobSettings.maxFileSizeMBLimit)) (MB), found \(JobJSON.render(value))")
      }
      let bytes = (megabytes * Double(JobSettings.bytesPerMB)).rounded()
      settings.maxFileSize = max(1, Int64(bytes))
    }
    if let value = object["video_url"] {
      let keyPath = path("video_url")
      let text = try string(value, at: keyPath)
      guard let choice = VideoURLChoice(rawValue: text) else {
        throw fail(keyPath, "expected \"hls\" or \"mp4\", found \(JobJSON.quoted(text))")
      }
      settings.videoURL = choice
    }
    if let value = object["renditions"] {
      settings.renditions = try renditions(value, at: path("renditions"))
    }
    if let value = object["mp4_height"] {
      settings.mp4Height = try integer(value, at: path("mp4_height"), in: JobSettings.maxHeightRange, unit: " pixels")
    }
    if let value = object["image_widths"] {
      if object["image_width"] != nil {
        throw fail(path("image_widths"), "give either image_width or image_widths, not both")
      }
      let keyPath = path("image_widths")
      guard let list = value as? [Any] else { throw mismatch("an array of widths", found: value, at: keyPath) }
      guard (1...JobSettings.maxLadderCount).contains(list.count) else {
        throw fail(keyPath, "must list 1 to \(JobSettings.maxLadderCount) widths, found \(list.count)")
      }
      var widths: [Int] = []
      for (i, item) in list.enumerated() {
        let w = try integer(item, at: "\(keyPath)[\(i)]", in: JobSettings.imageWidthRange, unit: " pixels")
        if widths.contains(w) { throw fail("\(keyPath)[\(i)]", "width \(w) is listed twice") }
        widths.append(w)
      }
      settings.imageWidths = widths.sorted()
    }
    if let value = object["video_crf"] {
      let keyPath = path("video_crf")
      let crf = try number(value, at: keyPath)
      let range = JobSettings.videoCRFRange
      guard range.contains(crf) else {
        throw fail(keyPath, "must be from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound)) (x264 CRF; lower is better quality), found \(JobJSON.render(value))")
      }
      settings.videoCRF = crf
    }
    if let value = object["video_target_ssim"] {
      let keyPath = path("video_target_ssim")
      let ssim = try number(value, at: keyPath)
      let range = JobSettings.videoTargetSSIMRange
      guard ssim == 0 || range.contains(ssim) else {
        throw fail(keyPath, "must be 0 (no check) or from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound)) (the top rendition's SSIM), found \(JobJSON.render(value))")
      }
      settings.videoTargetSSIM = ssim
    }
    if let value = object["allow_damaged_sources"] {
      settings.allowDamagedSources = try bool(value, at: path("allow_damaged_sources"))
    }
    if let value = object["max_bundle_mb"] {
      settings.maxBundleBytes = try budget(value, at: path("max_bundle_mb"))
    }
    if let value = object["max_item_mb"] {
      settings.maxItemBytes = try budget(value, at: path("max_item_mb"))
    }
    if let value = object["audio_loudness"] {
      let keyPath = path("audio_loudness")
      if JobJSONType(of: value) == .null {
        settings.audioLoudness = nil
      } else {
        let lufs = try number(value, at: keyPath)
        let range = JobSettings.audioLoudnessRange
        guard range.contains(lufs) else {
          throw fail(keyPath, "must be null (each sound keeps its level) or from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound)) (LUFS, integrated loudness), found \(JobJSON.render(value))")
        }
        settings.audioLoudness = lufs
      }
    }
    if let value = object["video_codecs"] {
      settings.videoCodecs = try videoCodecs(value, at: path("video_codecs"))
    }
    if let value = object["image_formats"] {
      settings.imageFormats = try imageFormats(value, at: path("image_formats"))
    }
    return settings
  }

  /// `image_formats`: a list of image formats (`webp`, `jpeg`, `avif`),
  /// each once, holding `webp` and `jpeg` (the client contract names a
  /// WebP and a JPEG of every picture); `avif` adds the AVIF twins. The
  /// order written does not matter: the result is in
  /// `ImageOutputFormat.allCases` order.
  private func imageFormats(_ value: Any, at path: String) throws(JobError) -> [ImageOutputFormat] {
    let formats: [ImageOutputFormat] = try namesListedOnce(value, at: path, kind: "formats", example: #"["webp", "jpeg", "avif"]"#,
                                                           choices: ", ")
    for required in ImageOutputFormat.required where !formats.contains(required) {
      throw fail(path, "must include \(JobJSON.quoted(required.rawValue)): banners.json names a WebP and a JPEG of every picture (the client contract); found \(Self.names(value))")
    }
    return ImageOutputFormat.allCases.filter(formats.contains)
  }

  /// A list of names as written (`["hevc", "h264"]`), or "an empty list".
  static func names(_ value: Any) -> String {
    guard let list = value as? [Any] else { return JobJSON.render(value) }
    if list.isEmpty { return "an empty list" }
    return "[" + list.map { item in (item as? String).map { JobJSON.quoted($0) } ?? JobJSON.render(item) }.joined(separator: ", ") + "]"
  }

  /// A list of names of `T`'s cases (`video_codecs`, `image_formats`),
  /// each at most once, in the order written.
  ///
  /// - Throws: `JobError` at `path` when it is not a list, or at
  ///   `path[i]` for an unknown name ("must be one of …", the names joined
  ///   by `choices`) or one listed twice.
  private func namesListedOnce<T: RawRepresentable & CaseIterable & Equatable>(
    _ value: Any, at path: String, kind: String, example: String, choices: String
  ) throws(JobError) -> [T] where T.RawValue == String {
    guard let list = value as? [Any] else {
      throw fail(path, "must be a list of \(kind) such as \(example), found \(JobJSON.render(value))")
    }
    let names = T.allCases.map { JobJSON.quoted($0.rawValue) }.joined(separator: choices)
    var found: [T] = []
    for (i, item) in list.enumerated() {
      guard let name = item as? String, let value = T(rawValue: name) else {
        throw fail("\(path)[\(i)]", "must be \(choices == ", " ? "one of " : "")\(names), found \(JobJSON.render(item))")
      }
      if found.contains(value) { throw fail("\(path)[\(i)]", "\(JobJSON.quoted(name)) is listed twice") }
      found.append(value)
    }
    return found
  }

  /// `video_codecs`: a list of codec names (`h264`, `hevc`), each once,
  /// `h264` first (every rendition has an H.264 variant; HEVC variants
  /// are its twins).
  private func videoCodecs(_ value: Any, at path: String) throws(JobError) -> [VideoCodec] {
    let codecs: [VideoCodec] = try namesListedOnce(value, at: path, kind: "codecs", example: #"["h264", "hevc"]"#,
                                                   choices: " or ")
    guard codecs.first == .h264 else {
      throw fail(path, "must start with \"h264\": every rendition has an H.264 variant, for the players that cannot play HEVC; found \(Self.names(value))")
    }
    return codecs
  }

  /// A size budget in decimal megabytes (`max_bundle_mb`, `max_item_mb`):
  /// a number from 0.000001 (one byte) to `JobSettings.maxBudgetMBLimit`,
  /// as whole bytes rounded down (a budget of 3.0219265 MB holds 3,021,926
  /// bytes; the half byte is not there to spend).
  private func budget(_ value: Any, at path: String) throws(JobError) -> Int64 {
    let megabytes = try number(value, at: path)
    // (A relative 1e-12 over absorbs binary rounding: 0.011071 × 10⁶ is
    // 11070.999… in a Double.)
    let bytes = (megabytes * Double(JobSettings.budgetBytesPerMB) * (1 + 1e-12)).rounded(.down)
    guard bytes >= 1, megabytes <= JobSettings.maxBudgetMBLimit else {
      throw fail(path, "must be from 0.000001 (1 byte) to \(Self.format(JobSettings.maxBudgetMBLimit)) (decimal MB), found \(JobJSON.render(value))")
    }
    return Int64(bytes)
  }

  /// `[{"height": 720, "bitrate_kbps": 3000}, …]`: 1 to 8 rungs of distinct
  /// heights within `max_height`'s range.
  private func renditions(_ value: Any, at path: String) throws(JobError) -> [RenditionRequest] {
    guard let list = value as? [Any] else { throw mismatch("an array of renditions", found: value, at: path) }
    guard (1...JobSettings.maxLadderCount).contains(list.count) else {
      throw fail(path, "must list 1 to \(JobSettings.maxLadderCount) renditions, found \(list.count)")
    }
    var result: [RenditionRequest] = []
    for (i, item) in list.enumerated() {
      let itemPath = "\(path)[\(i)]"
      let object = try self.object(item, at: itemPath)
      try checkKeys(of: object, allowed: ["height", "bitrate_kbps"], at: itemPath)
      guard let h = object["height"] else { throw fail("\(itemPath).height", "required key is missing") }
      guard let b = object["bitrate_kbps"] else { throw fail("\(itemPath).bitrate_kbps", "required key is missing") }
      let height = try integer(h, at: "\(itemPath).height", in: JobSettings.maxHeightRange, unit: " pixels")
      let kbps = try integer(b, at: "\(itemPath).bitrate_kbps", in: JobSettings.bitrateRange, unit: " kbit/s")
      if result.contains(where: { $0.height == height }) {
        throw fail("\(itemPath).height", "height \(height) is listed twice")
      }
      result.append(RenditionRequest(height: height, bitrateKbps: kbps))
    }
    return result
  }

  /// A duration in seconds: a finite number above `lower` (or equal to it
  /// when `inclusive`) and at most `max`.
  private func seconds(
    _ value: Any, at path: String, above lower: Double, inclusive: Bool, max upper: Double
  ) throws(JobError) -> Double {
    let seconds = try number(value, at: path)
    let lowOK = inclusive ? seconds >= lower : seconds > lower
    guard lowOK, seconds <= upper else {
      let low = inclusive ? "from \(Self.format(lower))" : "more than \(Self.format(lower)) and at most"
      let to = inclusive ? " to" : ""
      throw fail(path, "must be \(low)\(to) \(Self.format(upper)) seconds, found \(JobJSON.render(value))")
    }
    return seconds
  }

  /// `"#RRGGBB"`.
  private func color(_ value: Any, at path: String) throws(JobError) -> RGBColor {
    let text = try string(value, at: path)
    guard let color = RGBColor(hex: text) else {
      throw fail(path, "expected a colour as \"#RRGGBB\" (e.g. \"#1C1C1E\"), found \(JobJSON.quoted(text))")
    }
    return color
  }

  /// `10` rather than `10.0` in messages.
  static func format(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
  }
}
