import Foundation

/// The encoders and muxers of one transcode: a libx264 (or, for an HEVC
/// twin, libx265) encoder and an HLS fMP4 muxer per rendition, one AAC-LC encoder shared by every muxer but
/// the weak-network rung's, which has its own at
/// `WeakNetworkRung.audioBitRate` (`audioEncoders`), and
/// the fast-start MP4 muxer fed by one rendition's encoder
/// (`VideoPlan.mp4Rendition`). Every muxer starts at 0
/// (`OutputContainer.startAtZeroOptions`).
///
/// Made on the item's thread; from `RenditionFanOut.start()` until `join()`
/// each rendition's encoder and muxers belong to its worker thread, then
/// `finish()` writes the trailers back on the item's thread, or, when the
/// transcode fails, `abandon()` gives every muxer up.
final class TranscodeOutputs {
  /// The MP4's file name in the item folder.
  static let mp4Name = "video.mp4"

  let videoEncoders: [Encoder]
  /// The AAC-LC encoders, each fed every sound frame (`AudioPath`): the
  /// 128 kbit/s one first, then the weak-network rung's when the plan has
  /// that rung; empty without sound.
  let audioEncoders: [Encoder]
  /// What each of `audioEncoders` was opened with (the loudness meter's
  /// trial encodes the sound with the same).
  let audioEncoderSettings: [AudioEncoderSettings]
  /// Per rendition, the index into `audioEncoders` of the sound its muxers
  /// carry (nil without sound).
  let audioSources: [Int?]
  let hls: [OutputContainer]
  /// The MP4 muxer; nil when this transcode makes no MP4 (a correction of
  /// the top rendition when the MP4 is another's).
  let mp4: OutputContainer?
  /// The CRF of each rendition.
  let crfs: [Double]
  /// What each rendition's encoder is (codecs string, profile, level).
  private let descriptions: [RenditionDescription]
  /// What each rendition's HLS muxer writes, learnt as it writes it.
  private let recorders: [SegmentRecorder]

  /// Opens every encoder and writes every muxer's header.
  ///
  /// - Parameters:
  ///   - gopLength: pictures per GOP, from the keyframe planner.
  ///   - audioChannels: 1 or 2 when the source has decodable audio, else nil.
  ///   - writesMP4: whether to make the MP4 (from `plan.mp4Rendition`).
  ///   - topCRF: rendition 0's CRF when it is encoded again alone
  ///     (`Transcoder.encodeTopRendition`); nil: the job's CRF plus its
  ///     offset.
  /// - Throws: `MediaIOError` when an encoder cannot open or a muxer cannot
  ///   write (`.output` kind), `MarqueeError.encodeFailed` when an encoder's
  ///   SPS does not give its profile and level.
  init(plan: VideoPlan, request: TranscodeRequest, gopLength: Int, audioChannels: Int?, writesMP4: Bool = true,
       topCRF: Double? = nil) throws {
    let crfs = plan.renditions.enumerated().map { i, r in
      (i == 0 ? topCRF : nil) ?? r.crf(jobCRF: request.crf)
    }
    self.crfs = crfs
    // A correction runs the first encode's threads (`EncoderEffort`).
    videoEncoders = try zip(plan.renditions, crfs).map { r, crf in
      try Encoder(video: EncoderEffort.settings(for: r, frameRate: plan.frameRate, gopLength: gopLength,
                                                threads: request.encoderThreads, crf: crf))
    }
    var audioSettings: [AudioEncoderSettings] = []
    var audioSources = [Int?](repeating: nil, count: plan.renditions.count)
    if let channels = audioChannels {
      audioSettings.append(AudioEncoderSettings(channels: channels))
      for (i, r) in plan.renditions.enumerated() {
        if r.isWeakNetwork {
          audioSettings.append(AudioEncoderSettings(channels: channels, bitRate: WeakNetworkRung.audioBitRate))
          audioSources[i] = audioSettings.count - 1
        } else {
          audioSources[i] = 0
        }
      }
    }
    let audioEncoders = try audioSettings.map { s throws(MediaIOError) in try Encoder(audio: s) }
    audioEncoderSettings = audioSettings
    self.audioEncoders = audioEncoders
    self.audioSources = audioSources
    let audioEncoder = audioEncoders.first
    var hls: [OutputContainer] = []
    var recorders: [SegmentRecorder] = []
    var descriptions: [RenditionDescription] = []
    var mp4: OutputContainer? = nil
    do {
      for (i, r) in plan.renditions.enumerated() {
        let dir = request.outputDirectory.appendingPathComponent(r.name)
        let recorder = SegmentRecorder(playlistPath: dir.appendingPathComponent(Self.playlistName).path,
                                       initName: Self.initName)
        let audio = audioSources[i].map { audioEncoders[$0] }
        hls.append(try Self.hlsMuxer(in: dir, video: videoEncoders[i], audio: audio, recorder: recorder))
        recorders.append(recorder)
        descriptions.append(try Self.describe(r, encoder: videoEncoders[i], hasAudio: audio != nil))
      }
      if writesMP4 {
        let m = try OutputContainer(path: request.outputDirectory.appendingPathComponent(Self.mp4Name).path, format: "mp4")
        mp4 = m
        _ = try m.addStream(from: videoEncoders[plan.mp4Rendition])
        if let a = audioEncoder { _ = try m.addStream(from: a) }
        try m.writeHeader(options: OutputContainer.startAtZeroOptions(fragmented: false))
      }
    } catch {
      for m in hls { m.abandon() }
      mp4?.abandon()
      throw error
    }
    self.hls = hls
    self.recorders = recorders
    self.descriptions = descriptions
    self.mp4 = mp4
  }

  /// Writes every muxer's trailer (the MP4's `moov`, moved to the front).
  ///
  /// - Returns: each rendition as written, with its segments.
  /// - Throws: `MediaIOError` when a trailer cannot be written, or what a
  ///   rendition's `SegmentRecorder` found wrong (`MarqueeError`); the
  ///   muxers not finished yet are then abandoned.
  func finish() throws -> [RenditionOutput] {
    do {
      for m in hls {
        // A recorder's own error says more than the muxer's status.
        do { try m.finish() } catch { throw m.files?.failure ?? error }
      }
      try mp4?.finish()
    } catch {
      abandon()
      throw error
    }
    return try zip(descriptions, recorders).map { d, recorder in
      RenditionOutput(plan: d.plan, playlistPath: "\(d.plan.name)/\(Self.playlistName)", codecs: d.codecs,
                      profile: d.profile, level: d.level, segments: try recorder.segments())
    }
  }

  /// Gives up every muxer not finished (`OutputContainer.abandon()`): the
  /// transcode failed and its files are discarded with the item's folder.
  /// Call once no worker writes to them (after `RenditionFanOut.stop()`).
  func abandon() {
    for m in hls { m.abandon() }
    mp4?.abandon()
  }

  /// The media playlist's and init section's file names in a rendition's folder.
  static let playlistName = "index.m3u8"
  static let initName = "init.mp4"

  /// The rendition's HLS muxer: fMP4 segments in `dir`, cut at every
  /// keyframe. The muxer cuts at the first keyframe past each multiple of
  /// `hls_time`, and the IDRs `KeyframePlanner` forces are the only
  /// keyframes, so they alone place the segments. Its files pass through
  /// `recorder` on their way to disk (`MuxerFiles`).
  private static func hlsMuxer(in dir: URL, video: Encoder, audio: Encoder?,
                               recorder: SegmentRecorder) throws -> OutputContainer {
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let files = MuxerFiles { try recorder.take(&$0) }
    let mux = try OutputContainer(path: dir.appendingPathComponent(playlistName).path, format: "hls", files: files)
    do {
      _ = try mux.addStream(from: video)
      if let a = audio { _ = try mux.addStream(from: a) }
      try mux.writeHeader(options: [
        ("hls_time", "0.001"),
        ("hls_playlist_type", "vod"),
        ("hls_list_size", "0"),
        ("hls_segment_type", "fmp4"),
        ("hls_fmp4_init_filename", initName),
        ("hls_segment_filename", dir.appendingPathComponent("segment_%05d.m4s").path),
        ("hls_flags", "independent_segments"),
      ] + OutputContainer.startAtZeroOptions(fragmented: true))
    } catch {
      mux.abandon()
      throw error
    }
    return mux
  }

  /// The rendition's RFC 6381 codecs string and profile and level, read
  /// from the SPS libx264 or libx265 wrote into the encoder's extradata.
  private static func describe(_ r: RenditionPlan, encoder: Encoder, hasAudio: Bool) throws(MarqueeError) -> RenditionDescription {
    let audio = hasAudio ? ",mp4a.40.2" : ""
    if r.codec == .hevc {
      guard let sps = encoder.hevcParameterSets else {
        throw MarqueeError(.encodeFailed, "the \(r.name) encoder wrote no readable HEVC SPS (no profile and level for CODECS)")
      }
      return RenditionDescription(plan: r, codecs: sps.codecs + audio, profile: sps.profile, level: sps.level)
    }
    guard let pl = encoder.h264ProfileAndLevel else {
      throw MarqueeError(.encodeFailed, "the \(r.name) encoder wrote no readable H.264 SPS (no profile and level for CODECS)")
    }
    return RenditionDescription(
      plan: r,
      codecs: String(format: "avc1.%02X%02X%02X", pl.profile, pl.constraints, pl.level) + audio,
      profile: Int(pl.profile), level: Int(pl.level))
  }

  /// A rendition's encoder, as the master playlist names it.
  private struct RenditionDescription {
    var plan: RenditionPlan
    var codecs: String
    var profile: Int
    var level: Int
  }
}
