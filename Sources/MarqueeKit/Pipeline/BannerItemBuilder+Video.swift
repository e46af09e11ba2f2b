import Foundation
import MediaIO

extension BannerItemBuilder {
  /// Video banners: `VideoBannerBuilder` (transcoder, master playlist,
  /// cover and its dark variant) with the pipeline's fixed encoder threads;
  /// then the dark cover made to follow the banner's dark policy
  /// (`DarkCoverWriter`). The designer's picture is read before anything
  /// is encoded, so a bad one fails the item at once.
  func buildVideo(_ spec: BannerSpec, folder: String) throws(MarqueeError) -> ItemProduct {
    let dark = try DarkSource.load(for: spec, settings: settings)
    let built: BuiltVideoBanner
    do {
      built = try VideoBannerBuilder(settings: settings, darkVariants: darkVariants,
                                     encoderThreads: ItemFingerprint.encoderThreads)
        .build(spec, bundleRoot: staging, folder: folder, budget: budget, progress: progress)
    } catch { throw .wrapping(error) }
    var entry = built.entry
    let darkWarnings: [String]
    do {
      darkWarnings = try DarkCoverWriter(settings: settings, darkVariants: darkVariants)
        .apply(dark, to: entry, itemFolder: staging.appendingPathComponent(folder, isDirectory: true))
    } catch { throw .wrapping(error) }
    entry.darkPolicy = dark.kind
    var product = ItemProduct(entry: .video(entry), warnings: built.warnings + darkWarnings,
                              summary: built.summary + Self.darkSummary(spec.dark, what: "dark cover"), health: built.health)
    product.loudness = built.result.loudness
    return product
  }
}

/// A built video banner: its manifest entry and what to tell the user.
public struct BuiltVideoBanner: Sendable {
  public var entry: VideoManifestEntry
  public var warnings: [String]
  /// One line: codecs, ladder, frame rate, duration, cover time.
  public var summary: String
  public var result: TranscodeResult
  /// The cover frame's time in seconds; `nil` when the cover is a poster.
  public var coverTime: Double?
  /// The top rendition's encodes for the SSIM target, in order (empty when
  /// `video_target_ssim` is 0): one, or more when it was encoded again.
  public var qualityTrials: [QualityTarget.Trial] = []
  /// Why the last trial is still short of the target (`QualityCorrection`:
  /// held to the cap, a gain too small to encode for, the lowest CRF, the
  /// most corrections); nil when it is not.
  public var qualityShortfall: String? = nil
  /// Why each correction was made, in order (`QualityCorrection`: the
  /// gain predicted, the slope, the pictures held to the cap).
  public var qualityCorrections: [String] = []
  /// What decoding found wrong with the source (`allow_damaged_sources`
  /// built it anyway); sound for a clean source.
  public var health: SourceHealth { result.health }
}

/// The video banner's stage chain: transcoder (and, when the top rendition
/// misses `video_target_ssim` and a lower CRF can help, its correction:
/// `QualityCorrection`, `Transcoder.encodeTopRendition`) → master and I-frame
/// playlists from the segments the muxers wrote (`RenditionSegments`; the
/// start variant listed first) → cover stage (the chosen frame or the job's
/// poster, with its dark variant) → the manifest entry, whose duration is
/// that of the output `url` points at (the sum of the start variant's
/// `#EXTINF`, or the MP4's pictures).
public struct VideoBannerBuilder: Sendable {
  public var settings: JobSettings
  public var darkVariants: DarkVariantGenerator
  /// x264 threads per rendition; fixed (not derived from `--jobs` or the
  /// core count) because libx264's output depends on its thread count, so
  /// the same job and sources encode to the same bytes on any machine.
  /// A correction of the top rendition runs the same: libx264's slice
  /// threads are no more repeatable under a VBV than its frame threads.
  public var encoderThreads: Int

  /// One x264 thread per rendition: libx264's frame threads make its rate
  /// control timing-dependent (the same job gave different bytes run to
  /// run), so parallelism comes from encoding the renditions side by side
  /// (`RenditionWorker`) and from building items concurrently.
  public static let defaultEncoderThreads = 1

  public init(settings: JobSettings, darkVariants: DarkVariantGenerator,
              encoderThreads: Int = VideoBannerBuilder.defaultEncoderThreads) {
    self.settings = settings
    self.darkVariants = darkVariants
    self.encoderThreads = encoderThreads
  }

  /// Builds `spec` into `bundleRoot/folder`.
  ///
  /// - Returns: the banner, its manifest entry's paths relative to
  ///   `bundleRoot/folder` (`master.m3u8`, `video.mp4`, `cover.webp`, …): the
  ///   store keeps them as they are and banners.json puts the bundle folder
  ///   before them once.
  ///
  /// - Parameters:
  ///   - budget: the build's CPU permits; the calling thread holds one.
  ///   - progress: how far the transcode has got (`TranscodeRequest.progress`).
  /// - Throws: `MarqueeError`, `MediaIOError` or a file-system error; the
  ///   caller removes the item's folder.
  public func build(_ spec: BannerSpec, bundleRoot: URL, folder: String, budget: CPUBudget = .unlimited,
                    progress: (@Sendable (TranscodeProgress) -> Void)? = nil) throws -> BuiltVideoBanner {
    let dir = bundleRoot.appendingPathComponent(folder, isDirectory: true)
    let coverStage = CoverStage(settings: settings, darkVariants: darkVariants)
    // The cover extractor sees the top rendition's pictures as they are made.
    let coverSink = coverStage.frameSink(for: spec.cover)
    let limits = settings.inputLimits
    var request = TranscodeRequest(
      source: spec.source, outputDirectory: dir, segmentDuration: settings.segmentDuration,
      ladder: settings.renditions, maxHeight: settings.maxHeight, limits: limits,
      encoderThreads: encoderThreads, mp4Height: settings.mp4Height, budget: budget, progress: progress,
      crf: settings.videoCRF, pictureSink: coverSink)
    request.measuresTopQuality = settings.videoTargetSSIM > 0
    request.allowsDamagedSource = settings.allowDamagedSources
    request.loudnessTarget = settings.audioLoudness
    // Opened once for the first encode and its corrections: a correction
    // must read the very file the other renditions were made from.
    let sourceFile: ReadableFile
    do { sourceFile = try limits.openSourceFile(atPath: spec.source.path) } catch {
      throw MarqueeError.decoding(error, file: nil)
    }
    request.sourceFile = sourceFile
    var result = try Transcoder().run(request)
    try Self.checkUnchanged(sourceFile)
    // A correction's sound gets the gain the first encode measured.
    request.loudness = result.loudness
    let quality = try reachTargetSSIM(&result, request: request, itemFolder: dir)
    let trials = quality.trials, shortfall = quality.shortfall

    // Master and I-frame playlists from the segments the muxers wrote.
    var variants: [MasterPlaylistWriter.Variant] = []
    for r in result.renditions {
      // I-frame playlist beside the media playlist (spec §6.1).
      let iframe = IFramePlaylistWriter().render(rendition: r.segments)
      let iframeName = "\(r.plan.name)/iframes.m3u8"
      try Data(iframe.text.utf8).write(to: dir.appendingPathComponent(iframeName), options: .atomic)
      variants.append(.init(uri: r.playlistPath, bandwidth: MeasuredBandwidth(rendition: r.segments),
                            codecs: r.codecs, width: r.plan.width, height: r.plan.height,
                            frameRate: result.plan.frameRate.doubleValue,
                            iFrames: .init(uri: iframeName, bandwidth: iframe.bandwidth),
                            isWeakNetwork: r.plan.isWeakNetwork))
    }
    var weakWarning: String? = nil
    if let weak = result.renditions.last, weak.plan.isWeakNetwork {
      let peak = WeakNetworkRung.budgetPeak(segments: MeasuredBandwidth.segments(of: weak.segments),
                                            targetDuration: weak.segments.targetDuration)
      if peak > WeakNetworkRung.peakLimit { weakWarning = WeakNetworkRung.overBudget(uri: weak.playlistPath, peak: peak) }
    }
    let start = MasterPlaylistWriter.startVariant(variants)
    let master = MasterPlaylistWriter().render(variants, defaultIndex: start)
    try Data(master.utf8).write(to: dir.appendingPathComponent("master.m3u8"), options: .atomic)

    let top = result.renditions[0].plan
    let coverOutput = try coverStage.run(policy: spec.cover, frame: coverSink?.choice(), width: top.width,
                                         height: top.height, itemFolder: dir)
    let cover = coverOutput.files

    // The duration of what `url` plays: the start variant's #EXTINF sum,
    // or the MP4's, which lasts as long as its pictures.
    let duration = settings.videoURL == .mp4 ? result.pictureDuration : result.renditions[start].segments.duration
    let entry = VideoManifestEntry(
      id: spec.id, playlistPath: "master.m3u8", mp4Path: result.mp4Path,
      coverPath: cover.webp, coverJPEGPath: cover.jpeg, darkCoverPath: cover.darkWebP,
      darkCoverJPEGPath: cover.darkJPEG, duration: duration, width: top.width, height: top.height,
      autoplay: spec.autoplay, muted: spec.muted, link: spec.link, urlChoice: settings.videoURL)
    let ladder = result.renditions.map { "\($0.plan.width)x\($0.plan.height)" }.joined(separator: ", ")
    var summary = String(format: "%@ → H.264 %@ @ %.3f fps%@, %.3f s, %@",
                         result.sourceCodec, ladder, result.plan.frameRate.doubleValue,
                         result.hasAudio ? " + AAC" : "", duration,
                         coverOutput.origin + ", dark: \(cover.darkKind), \(cover.darkMethod.rawValue)")
    if let loudness = result.loudness { summary += ", " + loudness.summary }
    if !trials.isEmpty {
      summary += ", top SSIM " + trials.map { String(format: "%.4f at CRF %.2f", $0.ssim, $0.crf) }.joined(separator: " → ")
      for why in quality.corrections { summary += " (encoded again: \(why))" }
      if let why = shortfall { summary += String(format: " (under the target %.3f: %@)", settings.videoTargetSSIM, why) }
    }
    let health = result.health
    if let t = health.truncation {
      summary += t.declaredDuration.map { String(format: ", truncated source: pictures end at %.2f s of %.2f s", t.picturesEnd, $0) }
        ?? ", truncated source: its last packet is cut short"
    }
    if health.damagedPictures > 0 {
      summary += ", damaged source: \(health.damagedPictures) picture(s) at \(health.rangeList)"
    }
    if health.soundIsDamaged {
      summary += ", damaged sound: \(health.audioErrors) audio packet(s) at \(health.audioGapList)"
    }
    return BuiltVideoBanner(entry: entry, warnings: result.warnings + coverOutput.warnings + [weakWarning].compactMap { $0 },
                            summary: summary,
                            result: result, coverTime: coverOutput.time, qualityTrials: trials,
                            qualityShortfall: shortfall, qualityCorrections: quality.corrections)
  }

  /// Fails the item when its source was written in place while it was
  /// being encoded (its size or `st_mtim` moved since it was opened): the renditions could hold pictures of two different files.
  /// A file renamed over the path is not seen at all, since the encodes
  /// read the descriptor opened first.
  static func checkUnchanged(_ file: ReadableFile) throws {
    let written: Int64?
    do { written = try file.sizeIfWrittenSinceOpened() } catch { throw MarqueeError.decoding(error, file: nil) }
    if let size = written {
      throw MarqueeError(.corruptSource, "the source file was written to while it was being encoded (size \(file.identity.size) → \(size) bytes); build again once it is complete")
    }
  }

  /// Encodes the top rendition again at a lower CRF while
  /// `QualityCorrection` finds that it misses `video_target_ssim` and that a
  /// lower CRF can still help (`Transcoder.encodeTopRendition`), replacing
  /// its HLS rendition (and the MP4 when the MP4 is made from it) in
  /// `result`. The source is decoded again for each correction; the other
  /// renditions are kept as they are.
  ///
  /// - Returns: the top rendition's encodes, the first one included (empty
  ///   when the check is off), why each correction was made, and why the
  ///   last encode is still short, if it is.
  /// - Throws: what the transcoder throws; the caller removes the item.
  private func reachTargetSSIM(_ result: inout TranscodeResult, request: TranscodeRequest,
                               itemFolder dir: URL) throws -> QualityOutcome {
    guard settings.videoTargetSSIM > 0, var quality = result.topQuality else { return QualityOutcome() }
    let top = result.renditions[0].plan
    let correction = QualityCorrection(
      target: QualityTarget(ssim: settings.videoTargetSSIM), cap: .init(top),
      frameRate: result.plan.frameRate.doubleValue,
      lowest: max(JobSettings.videoCRFRange.lowerBound, top.crf(jobCRF: settings.videoCRF) - QualityTarget.maxLowering))
    var outcome = QualityOutcome(trials: [QualityTarget.Trial(crf: result.topCRF, ssim: quality.ssim)])
    while true {
      let decision = correction.decide(after: outcome.trials, pictures: quality.encodedPictures,
                                       averageBitRate: quality.averageBitRate(duration: result.pictureDuration))
      guard case .encodeAgain(let crf, let why) = decision else {
        if case .keep(let why) = decision { outcome.shortfall = why }
        return outcome
      }
      outcome.corrections.append(why)
      // No file of the encode being replaced may outlive it.
      try FileManager.default.removeItem(at: dir.appendingPathComponent(top.name, isDirectory: true))
      if result.plan.mp4Rendition == 0 {
        try FileManager.default.removeItem(at: dir.appendingPathComponent(result.mp4Path))
      }
      let corrected = try Transcoder().encodeTopRendition(request, crf: crf)
      guard let measured = corrected.topQuality, corrected.renditions.count == 1 else {
        throw MarqueeError(.encodeFailed, "the top rendition's correction measured no SSIM")
      }
      // The source is read again, through the descriptor the first encode
      // read (so a file renamed over its path is not seen): it must not have
      // been written in place meanwhile, and must give the same pictures.
      if let file = request.sourceFile { try Self.checkUnchanged(file) }
      guard corrected.pictureDuration == result.pictureDuration,
            corrected.renditions[0].segments.segments.map(\.duration) == result.renditions[0].segments.segments.map(\.duration) else {
        throw MarqueeError(.corruptSource, String(format: "the source changed while its top rendition was encoded again (%.3f s of pictures, %.3f s before)",
                                                  corrected.pictureDuration, result.pictureDuration))
      }
      result.renditions[0] = corrected.renditions[0]
      result.topCRF = corrected.topCRF
      result.topQuality = measured
      quality = measured
      outcome.trials.append(.init(crf: crf, ssim: measured.ssim))
    }
  }

  /// What the SSIM check did to the top rendition.
  struct QualityOutcome {
    /// Its encodes, in order (empty when the check is off).
    var trials: [QualityTarget.Trial] = []
    /// Why each correction was made (`QualityCorrection.Decision`).
    var corrections: [String] = []
    /// Why the last encode is still short of the target; nil when it is not.
    var shortfall: String? = nil
  }
}
