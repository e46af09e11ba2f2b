/// The audio of one transcode: decoded frames → `aresample`/`aformat` and
/// the loudness gain (`audioFilterDescription`) → held until the pictures have passed →
/// cut where the pictures end → AAC-LC once per bit rate → the muxers of
/// the renditions that carry it (`TranscodeOutputs.audioSources`: the
/// weak-network rung has its own lower-rate encoder). Every encoder is fed
/// the same frames, so the sound of every variant starts and ends alike.
///
/// **Where the audio ends.** It is cut where the pictures end, less the
/// encoder delay (the priming, `Encoder.encoderDelay`) and the sample by
/// which the HLS sound starts after the pictures (`AudioDecodeDelay`): a
/// player that honours the audio edit (AVPlayer, FFmpeg, Chromium) ends the
/// sound up to that much (21.3 ms) before the last picture ends, and one that plays the
/// priming too ends it with the last picture (plus the last AAC frame's
/// padding). So no player's media outlasts the `#EXTINF` sum or the MP4's
/// video track, and a source whose audio runs on past its pictures does not
/// make the MP4 longer than the HLS. Filtered audio waits here until the
/// pictures (output time) have passed its end; only the data decides where
/// it is cut, so the bytes stay repeatable.
final class AudioPath {
  private let decoder: Decoder
  /// The AAC-LC encoders (`TranscodeOutputs.audioEncoders`), one frame
  /// size and one priming: they differ only in bit rate.
  private let encoders: [Encoder]
  /// The first encoder: its frame size, priming and time base are all of theirs.
  private var encoder: Encoder { encoders[0] }
  private let channels: Int
  /// The loudness gain in dB (`LoudnessAdjustment.gain`; 0: none).
  private let gain: Double
  private let fanOut: RenditionFanOut
  private var graph: FilterGraph?
  private let filtered: Frame
  private let encoded: Packet
  private var pending: [Frame] = []
  /// End of the pictures so far, in samples of the encoder's time base.
  private var videoEndSamples: Int64 = 0

  /// - Parameter encoders: at least one; all of one frame size and priming.
  /// - Parameter gain: decibels (`LoudnessAdjustment.gain`), 0 for none.
  init(decoder: Decoder, encoders: [Encoder], channels: Int, gain: Double = 0, fanOut: RenditionFanOut) throws {
    precondition(!encoders.isEmpty && encoders.allSatisfy {
      $0.frameSize == encoders[0].frameSize && $0.encoderDelay == encoders[0].encoderDelay
    })
    self.decoder = decoder
    self.encoders = encoders
    self.channels = channels
    self.gain = gain
    self.fanOut = fanOut
    filtered = try Frame()
    encoded = try Packet()
  }

  /// Whether any audio reached the encoder's graph (a stream whose every
  /// packet failed to decode leaves the output silent, without a track).
  var producedAudio: Bool { graph != nil }

  /// A picture handed to the renditions ends at `end` (exclusive) on the
  /// output timeline.
  func pictureEnds(at end: Timestamp) {
    videoEndSamples = max(videoEndSamples, Rational.rescale(end.ticks, from: end.timeBase, to: encoder.timeBase))
  }

  /// Encodes the held audio that the pictures have now passed; called after
  /// each decoded picture.
  func releasePassed() throws {
    if !pending.isEmpty { try release(final: false) }
  }

  /// A decoded audio frame, already rebased on the video's origin.
  func push(_ frame: Frame) throws {
    if graph == nil {
      graph = try FilterGraph(description: audioFilterDescription(channels: channels, gain: gain),
                              inputs: [.audioSource(decoder.bufferSourceArguments(for: frame))],
                              outputs: [.audioSink(frameSize: encoder.frameSize)])
    }
    try graph?.push(frame)
    try pull()
  }

  /// After the last picture and the last audio packet: flushes the graph,
  /// cuts and encodes what is left, drains the encoder.
  func finish() throws {
    if let g = graph {
      try g.push(nil)
      try pull()
    }
    try release(final: true)
    try encode(nil)
  }

  private func pull() throws {
    guard let g = graph else { return }
    while try g.pull(filtered) == .produced {
      pending.append(try filtered.clone())
    }
    try release(final: false)
  }

  /// The last sample the audio may reach: the pictures' end less the
  /// priming, unless that leaves less than one AAC frame.
  private var limit: Int64 {
    let delay = Int64(encoder.encoderDelay) + AudioDecodeDelay.ticks
    let frameSize = Int64(max(1, encoder.frameSize))
    return videoEndSamples - delay >= frameSize ? videoEndSamples - delay : videoEndSamples
  }

  /// Encodes the held frames that end before `limit`; with `final`, the
  /// one that crosses it is cut and the rest dropped.
  private func release(final: Bool) throws {
    let limit = self.limit
    while let f = pending.first {
      let start = f.pts ?? 0
      if start + Int64(f.sampleCount) > limit {
        guard final else { break }
        guard start < limit else {
          pending.removeAll()
          break
        }
        f.truncateSamples(to: Int(limit - start))
      }
      pending.removeFirst()
      try encode(f)
    }
  }

  /// Sends `frame` (nil: the end) to every encoder (each takes its own
  /// reference), handing on its packets whenever it is full, until it takes
  /// it; then hands on what it made.
  private func encode(_ frame: Frame?) throws {
    for index in encoders.indices {
      while try encoders[index].send(frame) == .tryAgain { try drainEncoder(index) }
      try drainEncoder(index)
    }
  }

  private func drainEncoder(_ index: Int) throws {
    while try encoders[index].receive(encoded) == .produced {
      try fanOut.push(audio: encoded, source: index)
    }
  }
}
