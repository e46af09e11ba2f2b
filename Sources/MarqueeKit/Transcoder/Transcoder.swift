import Foundation

/// What the transcoder is asked to make from one source.
public struct TranscodeRequest: Sendable {
  /// The local source file.
  public var source: URL
  /// The item's folder inside the staging bundle; created if missing.
  public var outputDirectory: URL
  /// Segment duration in seconds: an IDR starts every multiple of it.
  public var segmentDuration: Double
  public var ladder: [RenditionRequest]
  /// Cap on the renditions' short side in pixels.
  public var maxHeight: Int
  public var limits: InputLimits
  /// x264 threads per rendition (0 = libx264's choice), the top rendition
  /// encoded again alone included.
  public var encoderThreads: Int
  /// Short side of the rendition muxed to MP4; nil = nearest 720.
  public var mp4Height: Int?
  /// The build's CPU permits. The calling thread must hold one; the
  /// rendition workers take their own, and FFmpeg's decoder and filter
  /// threads are sized from it (`CPUBudget.libraryThreads`).
  public var budget: CPUBudget
  /// Called on the transcoding thread after each picture handed to the
  /// encoders; the encoders trail it by at most a few pictures.
  public var progress: (@Sendable (TranscodeProgress) -> Void)?
  /// x264 constant rate factor (the job's `video_crf`); each rendition adds
  /// its `RenditionPlan.crfOffset` (lower for small pictures).
  public var crf: Double
  /// Length of the first HLS segment in seconds (the later ones last
  /// `segmentDuration`); nil: as long as the others.
  public var firstSegmentDuration: Double?
  /// Sees the top rendition's pictures as they are made (the cover
  /// extractor's `CoverFrameSink`); nil: nobody looks.
  public var pictureSink: PictureSink?
  /// Measure the top rendition's SSIM while encoding it
  /// (`TranscodeResult.topQuality`, `PictureQualityMeter`).
  public var measuresTopQuality = false
  /// Whether a damaged or truncated source is encoded anyway
  /// (`allow_damaged_sources`; `SourceHealth`): when false, the transcode
  /// stops at the first damaged picture and throws
  /// `MarqueeError.Code.damagedSource` naming the damage.
  public var allowsDamagedSource = false
  /// The source, already opened (`InputLimits.openSourceFile`), so that a
  /// correction reads the very file the first encode read, whatever has
  /// been renamed over its path since; nil: `source` is opened.
  public var sourceFile: ReadableFile?
  /// The integrated loudness the sound is brought to, LUFS
  /// (`audio_loudness`, `LoudnessAdjustment`); nil leaves its level alone.
  public var loudnessTarget: Double?
  /// The gain already decided for this source (a correction of the top
  /// rendition takes the first encode's `TranscodeResult.loudness`, so its
  /// MP4 sounds as the other renditions do); nil: measured when
  /// `loudnessTarget` is set.
  public var loudness: LoudnessAdjustment?
  /// The codecs of the HLS ladder (`video_codecs`): H.264, and with
  /// `.hevc` an HEVC twin of every rendition large enough
  /// (`RenditionPlanner.hevcTwin(of:)`).
  public var videoCodecs: [VideoCodec] = JobSettings.defaultVideoCodecs

  /// The first segment's length by default, seconds: a 1 s first segment
  /// keeps the bytes before the first picture (init section + first
  /// segment) of a 2 Mbit/s start variant under 300 kB.
  public static let startupSegmentDuration = 1.0

  public init(source: URL, outputDirectory: URL, segmentDuration: Double, ladder: [RenditionRequest] = RenditionRequest.defaultLadder,
              maxHeight: Int, limits: InputLimits, encoderThreads: Int = 0,
              mp4Height: Int? = nil, budget: CPUBudget = .unlimited, progress: (@Sendable (TranscodeProgress) -> Void)? = nil,
              crf: Double = JobSettings.default.videoCRF,
              firstSegmentDuration: Double? = TranscodeRequest.startupSegmentDuration,
              pictureSink: PictureSink? = nil) {
    self.pictureSink = pictureSink
    self.crf = crf
    self.firstSegmentDuration = firstSegmentDuration
    self.budget = budget
    self.progress = progress
    self.source = source
    self.outputDirectory = outputDirectory
    self.segmentDuration = segmentDuration
    self.ladder = ladder
    self.maxHeight = maxHeight
    self.limits = limits
    self.encoderThreads = encoderThreads
    self.mp4Height = mp4Height
  }
}

/// How far a transcode has got, reported after each picture.
public struct TranscodeProgress: Sendable, Equatable {
  /// Seconds of the output handed to the encoders so far (output time, from 0).
  public var encoded: Double
  /// The source's duration in seconds, from its container (the one
  /// opening the transcoder reads); nil when the container does not say.
  public var sourceDuration: Double?
}

/// One encoded rendition as written.
public struct RenditionOutput: Sendable {
  public var plan: RenditionPlan
  /// Media playlist path relative to the item folder, e.g. `720p/index.m3u8`.
  public var playlistPath: String
  /// RFC 6381 codecs string: `avc1.PPCCLL` plus `mp4a.40.2` with audio.
  public var codecs: String
  /// H.264 profile_idc and level_idc read from the encoded SPS.
  public var profile: Int
  public var level: Int
  /// The segments its HLS muxer wrote.
  public var segments: RenditionSegments
}

/// What the transcoder produced for one source.
public struct TranscodeResult: Sendable {
  public var plan: VideoPlan
  public var renditions: [RenditionOutput]
  /// The MP4 path relative to the item folder.
  public var mp4Path: String
  /// How long the pictures last on the output timeline, seconds: the
  /// encoded picture count over the frame rate. The MP4's duration, since
  /// its sound is cut to end with the pictures (`AudioPath`).
  public var pictureDuration: Double
  /// The CRF each rendition was encoded at, by index into `renditions`.
  public var crfs: [Double]
  /// The SSIM of the renditions the check measures
  /// (`VideoPlan.measuredRenditions`: the top one of each codec), by
  /// index into `renditions`, when `TranscodeRequest.measuresTopQuality`.
  public var qualities: [Int: PictureQuality] = [:]
  /// The x264 CRF the top rendition was encoded at.
  public var topCRF: Double { crfs[0] }
  /// The top rendition's SSIM, when `TranscodeRequest.measuresTopQuality`.
  public var topQuality: PictureQuality? { qualities[0] }
  public var hasAudio: Bool
  /// The sound's measured loudness and the gain it was given; nil when
  /// there is no sound, `loudnessTarget` is nil, or it was not measured
  /// (a warning says why).
  public var loudness: LoudnessAdjustment?
  /// Warnings for the user (no qualifying cover, dropped audio, …).
  public var warnings: [String]
  /// Source facts for logs.
  public var sourceCodec: String
  public var dynamicRange: DynamicRange
  /// What decoding found wrong with the source (sound unless the request
  /// allowed a damaged source: otherwise the transcode threw).
  public var health = SourceHealth()
}

/// A cover picture taken from the video.
public struct CoverPicture: Sendable {
  /// RGBA sRGB, opaque, at the top rendition's size.
  public var image: RGBAImage
  /// Presentation time in seconds from the start of the output.
  public var time: Double
  /// The selector's warning (a flat last resort, a pinned time past the end).
  public var warning: String?
  /// Why the selector took it (`CoverChoice.basis`).
  public var basis: String = ""
}

/// Decodes a source once and encodes every rendition once, muxing each
/// encoded packet into both the HLS fMP4 media playlist and (for one
/// rendition) the fast-start MP4: one pass, no second decode or encode.
///
/// The parts, in the order a picture goes through them:
/// 1. `SourceStreams` and `SourceReader`: demux and decode once, following
///    the source's health (`SourceHealth`: damaged pictures, a truncated
///    end), which fails the item unless the request allows it;
/// 2. `TimelineRebaser`: timestamps rebased so the first picture is at 0;
/// 3. `VideoPath`: the shared filter chain (deinterlace, CFR, tone map),
///    then a reference to each picture for every rendition;
/// 4. `RenditionFanOut` / `RenditionWorker`: per rendition, on its own
///    thread, scale and rotate → IDR forced at each segment boundary
///    (`KeyframePlanner`) → libx264 (libx265 for an HEVC twin) → HLS
///    muxer (+ MP4 muxer); rendition 0
///    shows its pictures to the request's `PictureSink` (the cover
///    extractor) before encoding them;
/// 5. `AudioPath`: `aresample` → the loudness gain (measured first by
///    `LoudnessMeter`, decided by `LoudnessAdjustment`) → cut at the
///    pictures' end → AAC-LC once per bit rate (the weak-network rung has
///    its own) → the muxers;
/// 6. `TranscodeOutputs`: the encoders and muxers, finished last.
public struct Transcoder {
  /// The smallest picture side accepted, in pixels: below it there is no
  /// picture worth a banner, and H.264's 16×16 macroblocks have nothing to code.
  public static let minimumSide = 16

  public init() {}

  /// Runs the transcode.
  ///
  /// - Throws: `MarqueeError` for sources with no video (`corruptSource`),
  ///   limits exceeded (`limitExceeded`), damaged pictures or a truncated
  ///   end without `allowsDamagedSource` (`damagedSource`), or
  ///   encoder and muxer failures (`encodeFailed`, `writeFailed`); the cause
  ///   carries FFmpeg's reason.
  public func run(_ request: TranscodeRequest) throws(MarqueeError) -> TranscodeResult {
    try mapErrors(request) { try transcode(request, scope: .everyRendition) }
  }

  /// Encodes the top rendition again, alone, at `crf`: its HLS rendition,
  /// and the MP4 when the MP4 is made from it (`VideoPlan.mp4Rendition`
  /// is 0); the other renditions' files are not touched. The source is
  /// decoded again (through `request.sourceFile` when set, so the very
  /// file the first encode read); nobody sees its pictures and no progress
  /// is reported. The caller removes the files of the encode being
  /// replaced first (`QualityCorrection` decides whether and at which CRF).
  ///
  /// The one libx264 encoder runs `request.encoderThreads` threads, as the
  /// first encode did, fixed whatever the budget and the machine, since
  /// libx264's bytes depend on them (`EncoderEffort`).
  ///
  /// - Returns: the result with the one rendition (the top one) and its
  ///   SSIM when `request.measuresTopQuality`.
  /// - Throws: what `run(_:)` throws.
  public func encodeTopRendition(_ request: TranscodeRequest, crf: Double) throws(MarqueeError) -> TranscodeResult {
    try encodeRendition(0, request, crf: crf)
  }

  /// Encodes the rendition at `index` of the plan again, alone, at `crf`,
  /// as `encodeTopRendition(_:crf:)` does the top one: the top HEVC twin
  /// is corrected this way. Its SSIM is measured when
  /// `request.measuresTopQuality`; the MP4 is written only when it is made
  /// from that rendition.
  ///
  /// - Returns: the result with that one rendition (as `renditions[0]`,
  ///   its quality as `qualities[0]`).
  public func encodeRendition(_ index: Int, _ request: TranscodeRequest, crf: Double) throws(MarqueeError) -> TranscodeResult {
    var alone = request
    alone.pictureSink = nil
    alone.progress = nil
    return try mapErrors(alone) { try transcode(alone, scope: .rendition(index, crf: crf)) }
  }

  /// Which renditions a transcode makes.
  enum Scope: Equatable {
    /// Every rendition of the plan, each at its CRF, and the MP4.
    case everyRendition
    /// The rendition at an index alone at `crf` (and the MP4 when it is
    /// made from it).
    case rendition(Int, crf: Double)
  }

  /// Maps what a transcode throws to `MarqueeError`.
  private func mapErrors(_ request: TranscodeRequest,
                         _ body: () throws -> TranscodeResult) throws(MarqueeError) -> TranscodeResult {
    do {
      return try body()
    } catch let e as MarqueeError {
      throw e
    } catch let e as MediaIOError {
      // The pipeline already names the item and its source: say only what
      // failed (and where, when it is not the source file itself).
      let file = request.source.lastPathComponent
      var error = MarqueeError.decoding(e, file: nil)
      if e.kind == .failed { error.code = .encodeFailed }
      if !e.context.isEmpty && e.context != file { error.message = "\(e.context): \(error.message)" }
      throw error
    } catch {
      throw MarqueeError(.encodeFailed, "\(error)")
    }
  }

  /// The pipeline of one source, part by part.
  private func transcode(_ request: TranscodeRequest, scope: Scope) throws -> TranscodeResult {
    let source = try SourceStreams(request)
    var plan = RenditionPlanner.plan(stream: source.video, requests: request.ladder, maxHeight: request.maxHeight,
                                     mp4Height: request.mp4Height, codecs: request.videoCodecs)
    var writesMP4 = true
    var topCRF: Double? = nil
    if case .rendition(let index, let crf) = scope {
      guard plan.renditions.indices.contains(index) else {
        throw MarqueeError(.encodeFailed, "the source's plan has no rendition \(index) to encode again")
      }
      writesMP4 = plan.mp4Rendition == index
      plan.renditions = [plan.renditions[index]]
      plan.mp4Rendition = 0
      topCRF = crf
    }
    try? FileManager.default.createDirectory(at: request.outputDirectory, withIntermediateDirectories: true)
    let planners = plan.renditions.map { _ in
      KeyframePlanner(frameRate: plan.frameRate, segmentDuration: request.segmentDuration,
                      firstSegmentDuration: request.firstSegmentDuration)
    }
    let outputs = try TranscodeOutputs(plan: plan, request: request, gopLength: planners[0].gopLength,
                                       audioChannels: source.audio.map { _ in source.audioChannels }, writesMP4: writesMP4,
                                       topCRF: topCRF)
    var started: RenditionFanOut? = nil
    do {
      let fanOut = try RenditionFanOut(outputs: outputs, plan: plan, planners: planners, budget: request.budget,
                                       sink: request.pictureSink, frameDuration: 1 / plan.frameRate.doubleValue,
                                       measured: request.measuresTopQuality ? plan.measuredRenditions : [])
      started = fanOut
      fanOut.start()
      return try transcode(request, source: source, plan: plan, outputs: outputs, fanOut: fanOut)
    } catch {
      // Every worker has stopped writing before its muxers are given up;
      // the unfinished outputs are dropped with the item's folder.
      started?.stop()
      outputs.abandon()
      throw error
    }
  }

  /// The reading, the two paths and the end of a transcode whose outputs
  /// are open and whose rendition workers run.
  private func transcode(_ request: TranscodeRequest, source: SourceStreams, plan: VideoPlan,
                         outputs: TranscodeOutputs, fanOut: RenditionFanOut) throws -> TranscodeResult {
    var audio: AudioPath? = nil
    var loudness: LoudnessAdjustment? = nil
    var warnings = source.warnings
    if let decoder = source.audioDecoder, let stream = source.audio, !outputs.audioEncoders.isEmpty {
      if let decided = request.loudness {
        loudness = decided
      } else if let target = request.loudnessTarget {
        let meter = LoudnessMeter(file: source.file, path: request.source.path, limits: request.limits,
                                  streamIndex: stream.index, channels: source.audioChannels)
        do {
          loudness = try LoudnessAdjustment.decide(meter: meter, target: target, encoders: outputs.audioEncoderSettings)
        } catch let e as MediaIOError {
          warnings.append("the sound's loudness could not be measured (\(e.reason)); it keeps its level")
        }
      }
      audio = try AudioPath(decoder: decoder, encoders: outputs.audioEncoders, channels: source.audioChannels,
                            gain: loudness?.gain ?? 0, fanOut: fanOut)
    }
    let video = try VideoPath(stream: source.video, decoder: source.videoDecoder, plan: plan, fanOut: fanOut,
                              audio: audio, sourceDuration: source.input.duration, progress: request.progress)
    let read = try SourceReader(source: source, video: video, audio: audio, allowsDamage: request.allowsDamagedSource)
      .run(limits: request.limits, frameRate: plan.frameRate)
    // A damaged or truncated source fails here unless the job allows it.
    if !request.allowsDamagedSource, let reason = read.health.failureReason {
      throw MarqueeError(.damagedSource, reason)
    }
    try video.finish(end: read.timeline.videoEnd)
    try audio?.finish()
    try fanOut.finish()
    let renditions = try outputs.finish()
    return TranscodeResult(plan: plan, renditions: renditions, mp4Path: TranscodeOutputs.mp4Name,
                           pictureDuration: video.pictureEnd.seconds, crfs: outputs.crfs,
                           qualities: fanOut.qualities,
                           hasAudio: audio?.producedAudio ?? false,
                           loudness: audio?.producedAudio == true ? loudness : nil,
                           warnings: warnings + read.warnings + read.health.warnings,
                           sourceCodec: source.video.codecName, dynamicRange: video.dynamicRange, health: read.health)
  }
}
