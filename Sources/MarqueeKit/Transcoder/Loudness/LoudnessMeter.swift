import Foundation
import MediaIO

/// Measures a source's sound as a listener will hear it, with libavfilter's
/// `ebur128` (EBU R128: integrated loudness with BS.1770-4 gating, true
/// peak 4× oversampled). A mono output is measured as dual mono
/// (`dualmono`), as a phone plays it on both speakers.
///
/// Two readings, each a pass over the source's audio stream alone (the
/// demuxer discards the video's packets; no picture is decoded):
/// - `measureSource()`: the sound as the AAC encoders will take it:
///   decoded, resampled to 48 kHz and down-mixed to the output layout
///   (`audioFormatFilter`);
/// - `measureEncoded(gain:encoders:)`: the same sound at a gain, encoded
///   by each AAC encoder of the transcode and decoded again, which is what
///   a player plays. The AAC encoder moves both figures: it drops some of
///   the highs (pink noise came out 0.5 LU quieter at 128 kbit/s, 0.8 LU
///   at 56 kbit/s) and its quantisation adds to sharp peaks (2 ms bursts
///   came out 0.6 dB higher at 128 kbit/s and up to 1.1 dB at 56), so
///   the gain is judged on what it encodes to (`LoudnessAdjustment.decide`).
///
/// A linear gain must know the whole sound before its first frame is
/// encoded, which is why the sound is read before the transcode reads it
/// again. Each pass reads at most `limits.maxDuration` seconds of sound; a
/// packet that does not decode is skipped, as the transcode skips it.
struct LoudnessMeter {
  /// Failures in a row of the decoder before the meter gives up.
  static let maxDecodeErrors = SourceReader.maxDecodeErrors

  let file: ReadableFile
  let path: String
  let limits: InputLimits
  /// The audio stream's index in the container (`SourceStreams.audio`).
  let streamIndex: Int
  /// The output's channels (`SourceStreams.audioChannels`): 1 or 2.
  let channels: Int

  /// The sound as the encoders take it, measured.
  ///
  /// - Returns: nil when no audio frame decoded.
  /// - Throws: `MediaIOError` when the file cannot be opened again, the
  ///   filters fail, or the decoder keeps failing.
  func measureSource() throws -> LoudnessMeasurement? {
    var meter: R128Meter? = nil
    try readSound { frame, arguments in
      if meter == nil {
        meter = try R128Meter(source: arguments, prefix: "aresample=osr=48000," + audioFormatFilter(channels: channels) + ",",
                              channels: channels)
      }
      try meter?.push(frame)
    }
    return try meter?.finish()
  }

  /// The sound at `gain` dB, encoded by an AAC encoder of each of
  /// `encoders`' settings and decoded again, measured: what a player of
  /// each variant plays.
  ///
  /// - Returns: one reading per encoder, in order; empty when no audio
  ///   frame decoded.
  /// - Throws: `MediaIOError` as `measureSource`, or when an encoder fails.
  func measureEncoded(gain: Double, encoders settings: [AudioEncoderSettings]) throws -> [LoudnessMeasurement] {
    var chain: FilterGraph? = nil
    let encoders = try settings.map { s throws(MediaIOError) in try Encoder(audio: s) }
    let decoders = try encoders.map { e throws(MediaIOError) in try Decoder(decoding: e) }
    var meters = [R128Meter?](repeating: nil, count: encoders.count)
    let filtered = try Frame(), packet = try Packet(), decoded = try Frame()

    func drain(_ i: Int) throws {
      while try encoders[i].receive(packet) == .produced {
        while try decoders[i].send(packet) == .tryAgain { try receiveDecoded(i) }
        try receiveDecoded(i)
      }
    }
    func receiveDecoded(_ i: Int) throws {
      while try decoders[i].receive(decoded) == .produced {
        if meters[i] == nil {
          meters[i] = try R128Meter(source: decoders[i].bufferSourceArguments(for: decoded), prefix: "", channels: channels)
        }
        try meters[i]?.push(decoded)
      }
    }
    func encode(_ frame: Frame?) throws {
      for i in encoders.indices {
        while try encoders[i].send(frame) == .tryAgain { try drain(i) }
        try drain(i)
      }
    }
    func pullChain() throws {
      guard let g = chain else { return }
      while try g.pull(filtered) == .produced { try encode(filtered) }
    }

    try readSound { frame, arguments in
      if chain == nil {
        chain = try FilterGraph(
          description: "[in0]aresample=osr=48000," + audioFormatFilter(channels: channels)
            + LoudnessAdjustment.volumeFilter(gain: gain) + "[out0]",
          inputs: [.audioSource(arguments)], outputs: [.audioSink(frameSize: encoders.first?.frameSize ?? 0)])
      }
      try chain?.push(frame)
      try pullChain()
    }
    guard let g = chain else { return [] }
    try g.push(nil)
    try pullChain()
    try encode(nil)
    for i in decoders.indices {
      _ = try decoders[i].send(nil)
      try receiveDecoded(i)
    }
    return try meters.compactMap { try $0?.finish() }
  }

  /// Reads the audio stream to its end (or `limits.maxDuration`), handing
  /// each decoded frame to `body` with its `abuffer` arguments.
  private func readSound(_ body: (Frame, String) throws -> Void) throws {
    let input = try InputContainer(file: file, path: path, allowedFormats: InputContainer.videoFormats, limits: limits)
    guard streamIndex < input.streams.count, input.streams[streamIndex].kind == .audio else { return }
    input.keepOnly([streamIndex])
    let decoder = try Decoder(container: input, streamIndex: streamIndex, threads: 1)
    let timeBase = input.streams[streamIndex].timeBase.doubleValue
    let packet = try Packet()
    let decoded = try Frame()
    var firstTime: Double? = nil
    var failures = 0

    func receive() throws {
      while true {
        let step: Step
        do { step = try decoder.receive(decoded) } catch {
          failures += 1
          if failures > Self.maxDecodeErrors { throw error }
          continue
        }
        guard step == .produced else { return }
        failures = 0
        try body(decoded, decoder.bufferSourceArguments(for: decoded))
      }
    }

    while true {
      // A read error ends the sound here, as it ends the transcode's input.
      guard (try? input.read(into: packet)) == true else { break }
      guard packet.streamIndex == streamIndex else { continue }
      if let pts = packet.pts {
        let t = Double(pts) * timeBase
        if firstTime == nil { firstTime = t }
        if let first = firstTime, t - first > limits.maxDuration { break }
      }
      var full = true
      while full {
        // A damaged packet is a gap in the sound, as in the transcode.
        do { full = try decoder.send(packet) == .tryAgain } catch { full = false }
        try receive()
      }
    }
    _ = try? decoder.send(nil)
    try receive()
  }
}

/// One `ebur128` reading: frames in, the figures of everything pushed so
/// far out (`lavfi.r128.I` and `lavfi.r128.true_peak`, which the filter
/// writes on every frame it passes when `metadata=1`).
private final class R128Meter {
  private let graph: FilterGraph
  private let out: Frame
  private var last: LoudnessMeasurement? = nil

  /// - Parameters:
  ///   - source: the `abuffer` arguments of the frames to come.
  ///   - prefix: filters before `ebur128` ("" or a chain ending in ",").
  init(source: String, prefix: String, channels: Int) throws {
    graph = try FilterGraph(
      description: "[in0]" + prefix + "ebur128=peak=true:metadata=1" + (channels == 1 ? ":dualmono=true" : "") + "[out0]",
      inputs: [.audioSource(source)], outputs: [.audioSink(frameSize: 0)])
    out = try Frame()
  }

  func push(_ frame: Frame) throws {
    try graph.push(frame)
    try pull()
  }

  func finish() throws -> LoudnessMeasurement? {
    try graph.push(nil)
    try pull()
    return last
  }

  private func pull() throws {
    while try graph.pull(out) == .produced {
      if let i = out.metadata("lavfi.r128.I").flatMap(Double.init),
         let peak = out.metadata("lavfi.r128.true_peak").flatMap(Double.init) {
        last = LoudnessMeasurement(integrated: i, truePeak: peak > 0 ? 20 * log10(peak) : -.infinity)
      }
    }
  }
}
