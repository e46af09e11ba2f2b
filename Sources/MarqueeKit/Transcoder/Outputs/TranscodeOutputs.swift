import Foundation

/// The encoders and muxers of one transcode: a libx264 encoder and an HLS
/// fMP4 muxer per rendition, one AAC-LC encoder shared by every muxer, and
/// the fast-start MP4 muxer fed by one rendition's encoder
/// (`VideoPlan.mp4Rendition`). Every muxer starts at 0
/// (`OutputContainer.startAtZeroOptions`).
///
/// Made on the item's thread; from `RenditionFanOut.start()` until `join()`
/// each rendition's encoder and muxers belong to its worker thread, then
/// `finish()` writes the trailers back on the item's thread.
final class TranscodeOutputs {
  /// The MP4's file name in the item folder.
  static let mp4Name = "video.mp4"

  let videoEncoders: [Encoder]
  let audioEncoder: Encoder?
  let hls: [OutputContainer]
  let mp4: OutputContainer
  /// What each rendition is, for the master playlist.
  let renditions: [RenditionOutput]

  /// Opens every encoder and writes every muxer's header.
  ///
  /// - Parameters:
  ///   - gopLength: pictures per GOP, from the keyframe planner.
  ///   - audioChannels: 1 or 2 when the source has decodable audio, else nil.
  /// - Throws: `MediaIOError` when an encoder cannot open or a muxer cannot
  ///   write (`.output` kind), `MarqueeError.encodeFailed` when an encoder's
  ///   SPS does not give its profile and level.
  init(plan: VideoPlan, request: TranscodeRequest, gopLength: Int, audioChannels: Int?) throws {
    videoEncoders = try plan.renditions.map { r in
      try Encoder(video: VideoEncoderSettings(width: r.width, height: r.height, frameRate: plan.frameRate,
                                              bitRate: r.bitRate, maxRate: r.maxRate, bufferSize: r.bufferSize,
                                              gopLength: gopLength, preset: EncoderEffort.preset, threads: request.encoderThreads,
                                              crf: r.crf(jobCRF: request.crf), initialBufferOccupancy: r.initialBufferOccupancy,
                                              bFrames: EncoderEffort.bFrames, x264Options: EncoderEffort.x264Options))
    }
    audioEncoder = try audioChannels.map { try Encoder(audio: AudioEncoderSettings(channels: $0)) }
    var hls: [OutputContainer] = []
    var renditions: [RenditionOutput] = []
    for (i, r) in plan.renditions.enumerated() {
      hls.append(try Self.hlsMuxer(for: r, in: request.outputDirectory, video: videoEncoders[i], audio: audioEncoder))
      renditions.append(try Self.describe(r, encoder: videoEncoders[i], hasAudio: audioEncoder != nil))
    }
    self.hls = hls
    self.renditions = renditions
    mp4 = try OutputContainer(path: request.outputDirectory.appendingPathComponent(Self.mp4Name).path, format: "mp4")
    _ = try mp4.addStream(from: videoEncoders[plan.mp4Rendition])
    if let a = audioEncoder { _ = try mp4.addStream(from: a) }
    try mp4.writeHeader(options: OutputContainer.startAtZeroOptions(fragmented: false))
  }

  /// Writes every muxer's trailer (the MP4's `moov`, moved to the front).
  func finish() throws(MediaIOError) {
    for m in hls { try m.finish() }
    try mp4.finish()
  }

  /// The rendition's HLS muxer: fMP4 segments in `<name>/`, cut at every
  /// keyframe. The muxer cuts at the first keyframe past each multiple of
  /// `hls_time`, and the IDRs `KeyframePlanner` forces are the only
  /// keyframes, so they alone place the segments.
  private static func hlsMuxer(for r: RenditionPlan, in folder: URL, video: Encoder, audio: Encoder?) throws -> OutputContainer {
    let dir = folder.appendingPathComponent(r.name)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let mux = try OutputContainer(path: dir.appendingPathComponent("index.m3u8").path, format: "hls")
    _ = try mux.addStream(from: video)
    if let a = audio { _ = try mux.addStream(from: a) }
    try mux.writeHeader(options: [
      ("hls_time", "0.001"),
      ("hls_playlist_type", "vod"),
      ("hls_list_size", "0"),
      ("hls_segment_type", "fmp4"),
      ("hls_fmp4_init_filename", "init.mp4"),
      ("hls_segment_filename", dir.appendingPathComponent("segment_%05d.m4s").path),
      ("hls_flags", "independent_segments"),
    ] + OutputContainer.startAtZeroOptions(fragmented: true))
    return mux
  }

  /// The rendition's RFC 6381 codecs string and H.264 profile and level,
  /// read from the SPS libx264 wrote into the encoder's extradata.
  private static func describe(_ r: RenditionPlan, encoder: Encoder, hasAudio: Bool) throws(MarqueeError) -> RenditionOutput {
    guard let pl = encoder.h264ProfileAndLevel else {
      throw MarqueeError(.encodeFailed, "the \(r.name) encoder wrote no readable H.264 SPS (no profile and level for CODECS)")
    }
    return RenditionOutput(
      plan: r, playlistPath: "\(r.name)/index.m3u8",
      codecs: String(format: "avc1.%02X%02X%02X", pl.profile, pl.constraints, pl.level) + (hasAudio ? ",mp4a.40.2" : ""),
      profile: Int(pl.profile), level: Int(pl.level))
  }
}
