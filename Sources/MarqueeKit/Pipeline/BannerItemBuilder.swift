import Foundation

/// Builds one banner into the staging bundle: the stage chain for its kind.
struct BannerItemBuilder: Sendable {
  let settings: JobSettings
  let staging: URL

  var limits: InputLimits {
    InputLimits(maxFileSize: settings.maxFileSize, maxPixels: settings.maxPixels, maxDuration: settings.maxDuration)
  }

  var darkVariants: DarkVariantGenerator {
    let s = settings.darkSurface
    return DarkVariantGenerator(options: .init(surface: DarkSurface(r: s.r, g: s.g, b: s.b)))
  }

  /// Runs the item; never throws: a failure becomes the outcome, and the
  /// item's partial files are removed.
  func build(_ spec: BannerSpec, parallelItems: Int) -> ItemOutcome {
    let start = Date()
    let folder = spec.kind == .video ? "videos/\(spec.id)" : "images/\(spec.id)"
    do {
      let (entry, warnings, summary) = try spec.kind == .video
        ? buildVideo(spec, folder: folder, parallelItems: parallelItems)
        : buildImage(spec, folder: folder)
      return ItemOutcome(id: spec.id, kind: spec.kind, entry: entry, failure: nil, warnings: warnings,
                         seconds: Date().timeIntervalSince(start), summary: summary)
    } catch {
      try? FileManager.default.removeItem(at: staging.appendingPathComponent(folder))
      let reason: String
      switch error {
      case let e as TranscodeError: reason = e.reason
      case let e as MediaIOError: reason = e.description
      case let e as ItemFailure: reason = e.reason
      default: reason = "\(error)"
      }
      return ItemOutcome(id: spec.id, kind: spec.kind, entry: nil,
                         failure: ItemFailure(id: spec.id, source: spec.sourceText, reason: reason),
                         warnings: [], seconds: Date().timeIntervalSince(start), summary: "")
    }
  }

  private func buildVideo(_ spec: BannerSpec, folder: String, parallelItems: Int) throws -> (ManifestEntry, [String], String) {
    let dir = staging.appendingPathComponent(folder, isDirectory: true)
    let request = TranscodeRequest(
      source: spec.source, outputDirectory: dir, segmentDuration: settings.segmentDuration,
      maxHeight: settings.maxHeight, limits: limits, coverPolicy: spec.cover)
    let result = try Transcoder().run(request)

    // Master playlist from measured segments.
    var variants: [MasterPlaylistWriter.Variant] = []
    var playlists: [MediaPlaylist] = []
    for r in result.renditions {
      let url = dir.appendingPathComponent(r.playlistPath)
      let playlist = MediaPlaylist(text: try String(contentsOf: url, encoding: .utf8))
      playlists.append(playlist)
      variants.append(.init(uri: r.playlistPath,
                            bandwidth: MeasuredBandwidth(playlist: playlist, directory: url.deletingLastPathComponent()),
                            codecs: r.codecs, width: r.plan.width, height: r.plan.height,
                            frameRate: result.plan.frameRate.doubleValue))
    }
    let master = MasterPlaylistWriter().render(variants, defaultIndex: result.plan.mp4Rendition)
    try Data(master.utf8).write(to: dir.appendingPathComponent("master.m3u8"), options: .atomic)

    let cover = try CoverExtractor(webpQuality: settings.webpQuality, jpegQuality: settings.jpegQuality,
                                   darkVariants: darkVariants)
      .write(result.cover, bundleRoot: staging, directory: folder)

    // The duration of what `url` plays, measured from the output.
    let hlsDuration = playlists[result.plan.mp4Rendition].duration
    let mp4Duration = try InputContainer(path: dir.appendingPathComponent(result.mp4Path).path,
                                         allowedFormats: ["mov", "mp4"]).duration ?? hlsDuration
    let duration = settings.videoURL == .mp4 ? mp4Duration : hlsDuration
    let top = result.renditions[0].plan
    let entry = VideoManifestEntry(
      id: spec.id, playlistPath: "\(folder)/master.m3u8", mp4Path: "\(folder)/\(result.mp4Path)",
      coverPath: cover.webp, coverJPEGPath: cover.jpeg, darkCoverPath: cover.darkWebP,
      darkCoverJPEGPath: cover.darkJPEG, duration: duration, width: top.width, height: top.height,
      autoplay: spec.autoplay, muted: spec.muted, link: spec.link, urlChoice: settings.videoURL)
    let ladder = result.renditions.map { "\($0.plan.width)x\($0.plan.height)" }.joined(separator: ", ")
    let summary = String(format: "%@ → H.264 %@ @ %.3f fps%@, %.3f s, cover at %.2f s",
                         result.sourceCodec, ladder, result.plan.frameRate.doubleValue,
                         result.hasAudio ? " + AAC" : "", duration, result.coverTime)
    return (.video(entry), result.warnings, summary)
  }
}
