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
    let applied: DarkCoverWriter.Applied
    do {
      applied = try DarkCoverWriter(settings: settings, darkVariants: darkVariants)
        .apply(dark, to: &entry, itemFolder: staging.appendingPathComponent(folder, isDirectory: true))
    } catch { throw .wrapping(error) }
    entry.darkPolicy = dark.kind
    var product = ItemProduct(entry: .video(entry), warnings: built.warnings + applied.warnings,
                              summary: built.summary + Self.darkSummary(spec.dark, what: "dark cover")
                                + (applied.note.map { ", " + $0 } ?? ""), health: built.health)
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
  /// The top HEVC twin's encodes for the SSIM target, in order (empty when
  /// the check is off or the ladder has no HEVC).
  public var hevcQualityTrials: [QualityTarget.Trial] = []
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
    request.videoCodecs = settings.videoCodecs
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
    // The top rendition of each codec is held to the SSIM target, the
    // codecs side by side.
    let outcomes = try reachTargetSSIM(&result, request: request, itemFolder: dir)
    let quality = outcomes[.h264] ?? QualityOutcome()
    let trials = quality.trials, shortfall = quality.shortfall

    // A twin that costs as many bytes as its H.264 rendition is left out.
    let dropped = HEVCTwinSelection.unhelpful(result.renditions.map {
      .init(name: $0.plan.name, codec: $0.plan.codec, averageBitRate: MeasuredBandwidth(rendition: $0.segments).average)
    })
    for twin in dropped.reversed() {
      try FileManager.default.removeItem(at: dir.appendingPathComponent(result.renditions[twin.index].plan.name, isDirectory: true))
      result.renditions.remove(at: twin.index)
    }

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
    var weakWarnings: [String] = []
    for weak in result.renditions where weak.plan.isWeakNetwork {
      let peak = WeakNetworkRung.budgetPeak(segments: MeasuredBandwidth.segments(of: weak.segments),
                                            targetDuration: weak.segments.targetDuration)
      if peak > WeakNetworkRung.peakLimit { weakWarnings.append(WeakNetworkRung.overBudget(uri: weak.playlistPath, peak: peak)) }
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
    var entry = VideoManifestEntry(
      id: spec.id, playlistPath: "master.m3u8", mp4Path: result.mp4Path,
      coverPath: cover.webp, coverJPEGPath: cover.jpeg, darkCoverPath: cover.darkWebP,
      darkCoverJPEGPath: cover.darkJPEG, duration: duration, width: top.width, height: top.height,
      autoplay: spec.autoplay, muted: spec.muted, link: spec.link, urlChoice: settings.videoURL)
    entry.coverAVIFPath = cover.avif
    entry.darkCoverAVIFPath = cover.darkAVIF
    var ladders: [String] = []
    for codec in VideoCodec.allCases {
      let sizes = result.renditions.filter { $0.plan.codec == codec }.map { "\($0.plan.width)x\($0.plan.height)" }
      if !sizes.isEmpty { ladders.append(codec.displayName + " " + sizes.joined(separator: ", ")) }
    }
    var summary = String(format: "%@ → %@ @ %.3f fps%@, %.3f s, %@",
                         result.sourceCodec, ladders.joined(separator: "; "), result.plan.frameRate.doubleValue,
                         result.hasAudio ? " + AAC" : "", duration,
                         coverOutput.origin + ", dark: \(cover.darkKind), \(cover.darkMethod.rawValue)"
                           + (cover.avifQuantizer.map { ", cover AVIF q \($0)" } ?? "")
                           + (cover.avifLeftOut.isEmpty ? "" : ", cover AVIF left out: " + cover.avifLeftOut.map {
                             "\($0.file) \($0.avifBytes) bytes, not under the WebP's \($0.webpBytes)" }.joined(separator: "; ")))
    for twin in dropped { summary += ", " + twin.reason }
    if let loudness = result.loudness { summary += ", " + loudness.summary }
    for codec in VideoCodec.allCases {
      guard let outcome = outcomes[codec], !outcome.trials.isEmpty else { continue }
      summary += ", " + (codec == .h264 ? "top" : "\(codec.displayName) top") + " SSIM "
        + outcome.trials.map { String(format: "%.4f at CRF %.2f", $0.ssim, $0.crf) }.joined(separator: " → ")
      for why in outcome.corrections { summary += " (encoded again: \(why))" }
      if let why = outcome.shortfall { summary += String(format: " (under the target %.3f: %@)", settings.videoTargetSSIM, why) }
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
    var built = BuiltVideoBanner(entry: entry, warnings: result.warnings + coverOutput.warnings + weakWarnings,
                                 summary: summary,
                                 result: result, coverTime: coverOutput.time, qualityTrials: trials,
                                 qualityShortfall: shortfall, qualityCorrections: quality.corrections)
    built.hevcQualityTrials = outcomes[.hevc]?.trials ?? []
    return built
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

  /// Holds the top rendition of each codec (`VideoPlan.measuredRenditions`)
  /// to `video_target_ssim` (`correctRendition`), the codecs side by side:
  /// the H.264 top on this thread, each other codec's on a thread of its
  /// own that takes a permit of `request.budget` while it works. Each
  /// encoder runs one thread, as in the first encode, so the bytes are the
  /// same whichever finishes first. The corrected renditions replace
  /// theirs in `result` once all are done.
  ///
  /// - Returns: what the check did, by codec (empty when it is off).
  /// - Throws: the first error a correction threw (the H.264 one's first);
  ///   the caller removes the item.
  private func reachTargetSSIM(_ result: inout TranscodeResult, request: TranscodeRequest,
                               itemFolder dir: URL) throws -> [VideoCodec: QualityOutcome] {
    let indices = result.plan.measuredRenditions.filter { result.qualities[$0] != nil }
    guard settings.videoTargetSSIM > 0, !indices.isEmpty else { return [:] }
    let first = result
    // The other codecs' corrections, each on its own thread.
    final class Slot: @unchecked Sendable {
      // Safe: written by its thread before `join()` returns, read after.
      var outcome: Result<CorrectedRendition, Error>? = nil
    }
    let others = indices.dropFirst().map { index in
      let slot = Slot()
      let thread = Worker.start(name: "marquee.correction", stackSize: 4 << 20) { [self] in
        slot.outcome = Result {
          try request.budget.withPermit { () throws -> CorrectedRendition in
            try correctRendition(first, index: index, request: request, itemFolder: dir)
          }
        }
      }
      return (index, slot, thread)
    }
    let own = Result { try correctRendition(first, index: indices[0], request: request, itemFolder: dir) }
    var corrected = [(indices[0], own)]
    for (index, slot, thread) in others {
      request.budget.waiting { thread.join() }
      corrected.append((index, slot.outcome ?? .failure(MarqueeError(.encodeFailed, "a correction stopped without saying why"))))
    }
    var outcomes: [VideoCodec: QualityOutcome] = [:]
    for (index, outcome) in corrected {
      let done = try outcome.get()
      result.renditions[index] = done.rendition
      result.crfs[index] = done.crf
      result.qualities[index] = done.quality
      outcomes[result.plan.renditions[index].codec] = done.outcome
    }
    return outcomes
  }

  /// One rendition after the SSIM check: the last encode, its CRF and
  /// SSIM, and what the check did.
  struct CorrectedRendition: Sendable {
    var rendition: RenditionOutput
    var crf: Double
    var quality: PictureQuality
    var outcome: QualityOutcome
  }

  /// Encodes the rendition at `index` of `result` (the top one of its
  /// codec) again at a lower CRF while `QualityCorrection` finds that it
  /// misses `video_target_ssim` and that a lower CRF can still help
  /// (`Transcoder.encodeRendition`), replacing its HLS rendition (and the
  /// MP4 when the MP4 is made from it) on disk. The source is decoded
  /// again for each correction; no other rendition's files are touched.
  ///
  /// - Returns: the last encode of the rendition (the first one when none
  ///   was made), its encodes, why each correction was made, and why the
  ///   last encode is still short, if it is.
  /// - Throws: what the transcoder throws.
  private func correctRendition(_ result: TranscodeResult, index: Int, request: TranscodeRequest,
                                itemFolder dir: URL) throws -> CorrectedRendition {
    var rendition = result.renditions[index]
    var crf = result.crfs[index]
    guard var quality = result.qualities[index] else {
      throw MarqueeError(.encodeFailed, "the \(rendition.plan.name) rendition was not measured")
    }
    let top = rendition.plan
    let correction = QualityCorrection(
      target: QualityTarget(ssim: settings.videoTargetSSIM), cap: .init(top),
      frameRate: result.plan.frameRate.doubleValue,
      lowest: max(JobSettings.videoCRFRange.lowerBound, top.crf(jobCRF: settings.videoCRF) - QualityTarget.maxLowering))
    var outcome = QualityOutcome(trials: [QualityTarget.Trial(crf: crf, ssim: quality.ssim)])
    while true {
      let decision = correction.decide(after: outcome.trials, pictures: quality.encodedPictures,
                                       averageBitRate: quality.averageBitRate(duration: result.pictureDuration))
      guard case .encodeAgain(let next, let why) = decision else {
        if case .keep(let why) = decision { outcome.shortfall = why }
        return CorrectedRendition(rendition: rendition, crf: crf, quality: quality, outcome: outcome)
      }
      outcome.corrections.append(why)
      // No file of the encode being replaced may outlive it.
      try FileManager.default.removeItem(at: dir.appendingPathComponent(top.name, isDirectory: true))
      if result.plan.mp4Rendition == index {
        try FileManager.default.removeItem(at: dir.appendingPathComponent(result.mp4Path))
      }
      let corrected = try Transcoder().encodeRendition(index, request, crf: next)
      guard let measured = corrected.qualities[0], corrected.renditions.count == 1 else {
        throw MarqueeError(.encodeFailed, "the \(top.name) rendition's correction measured no SSIM")
      }
      // The source is read again, through the descriptor the first encode
      // read (so a file renamed over its path is not seen): it must not have
      // been written in place meanwhile, and must give the same pictures.
      if let file = request.sourceFile { try Self.checkUnchanged(file) }
      guard corrected.pictureDuration == result.pictureDuration,
            corrected.renditions[0].segments.segments.map(\.duration) == rendition.segments.segments.map(\.duration) else {
        throw MarqueeError(.corruptSource, String(format: "the source changed while its %@ rendition was encoded again (%.3f s of pictures, %.3f s before)",
                                                  top.name, corrected.pictureDuration, result.pictureDuration))
      }
      rendition = corrected.renditions[0]
      crf = corrected.crfs[0]
      quality = measured
      outcome.trials.append(.init(crf: next, ssim: measured.ssim))
    }
  }

  /// What the SSIM check did to the top rendition.
  struct QualityOutcome: Sendable {
    /// Its encodes, in order (empty when the check is off).
    var trials: [QualityTarget.Trial] = []
    /// Why each correction was made (`QualityCorrection.Decision`).
    var corrections: [String] = []
    /// Why the last encode is still short of the target; nil when it is not.
    var shortfall: String? = nil
  }
}
