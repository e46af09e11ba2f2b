/// Receives the top rendition's pictures as they are made, before they are
/// encoded: the cover extractor's way in (`CoverFrameSink`).
///
/// Called on rendition 0's worker thread, picture after picture in output
/// order, with `time` in seconds on the output timeline. A sink that keeps a
/// picture keeps a reference (`Frame.clone()`), never the frame itself,
/// which is reused for the next picture. The transcoder's `join()` orders
/// these calls before anything the item's thread does next.
public protocol PictureSink: AnyObject, Sendable {
  /// Whether the sink needs no more pictures (they are then not measured).
  var isSatisfied: Bool { get }
  /// One picture of the top rendition.
  func observe(_ picture: Frame, time: Double) throws
}

/// The rendition workers of one transcode, started together and stopped
/// together: the item's thread hands each shared picture and each AAC packet
/// to every worker that scales for itself, and `join()` waits for them all.
/// An HEVC twin of the same size and sound as an H.264 rendition is fed by
/// that rendition's worker instead (`RenditionWorker`'s `feeds`): it gets
/// no graph, no picture and no packet from the item's thread, and its end
/// comes from its feeder, so each size is scaled once.
///
/// On an error path (`deinit` before `join()`), every worker is still told
/// to finish and joined, so none uses an encoder or muxer after it is freed.
final class RenditionFanOut {
  private let workers: [RenditionWorker]
  /// Per worker, whether another worker feeds it (an HEVC twin).
  private let isFed: [Bool]
  /// Per worker, which AAC encoder's packets its muxers take
  /// (`TranscodeOutputs.audioSources`).
  private let audioSources: [Int?]
  private var joined = false

  /// - Parameters:
  ///   - sink: sees rendition 0's pictures, on its worker thread.
  ///   - measured: the renditions whose SSIM is measured (`qualities`).
  /// - Throws: `MediaIOError` when the SSIM measurement cannot be set up.
  init(outputs: TranscodeOutputs, plan: VideoPlan, planners: [KeyframePlanner], budget: CPUBudget,
       sink: PictureSink?, frameDuration: Double, measured: [Int] = []) throws {
    // The audio stream is the second stream of every muxer.
    let audioStreamIndex = 1
    let observer: ((Frame) throws -> Void)? = sink.map { sink in
      { picture in
        guard !sink.isSatisfied else { return }
        try sink.observe(picture, time: Double(picture.pts ?? 0) * frameDuration)
      }
    }
    var meters: [Int: PictureQualityMeter] = [:]
    for i in measured where plan.renditions.indices.contains(i) {
      let r = plan.renditions[i]
      meters[i] = try PictureQualityMeter(encoder: outputs.videoEncoders[i], width: r.width, height: r.height)
    }
    audioSources = outputs.audioSources
    let feeders = Self.feeders(plan: plan, audioSources: outputs.audioSources)
    let fed = plan.renditions.indices.map { feeders.values.contains($0) }
    isFed = fed
    // Twins first, so that their feeders can hold them.
    var made: [Int: RenditionWorker] = [:]
    for i in plan.renditions.indices.sorted(by: { fed[$0] && !fed[$1] }) {
      made[i] = RenditionWorker(encoder: outputs.videoEncoders[i], hls: outputs.hls[i],
                                mp4: i == plan.mp4Rendition ? outputs.mp4 : nil,
                                audioStream: audioStreamIndex, budget: budget, planner: planners[i],
                                observe: i == 0 ? observer : nil, feeds: feeders[i].flatMap { made[$0] },
                                meter: meters[i])
    }
    workers = plan.renditions.indices.map { made[$0]! }
  }

  /// Which worker feeds which: the index of each H.264 rendition's HEVC
  /// twin (same size, frame rate and IDRs, `RenditionPlanner.hevcTwin(of:)`,
  /// and the same AAC), keyed by the H.264 rendition's index.
  static func feeders(plan: VideoPlan, audioSources: [Int?]) -> [Int: Int] {
    var pairs: [Int: Int] = [:]
    for (i, r) in plan.renditions.enumerated() where r.codec == .h264 {
      if let twin = plan.renditions.indices.first(where: { j in
        let t = plan.renditions[j]
        return t.codec == .hevc && t.width == r.width && t.height == r.height && audioSources[j] == audioSources[i]
          && !pairs.values.contains(j)
      }) {
        pairs[i] = twin
      }
    }
    return pairs
  }

  deinit { stop() }

  /// On an error path: tells every worker to finish and waits for them
  /// all, their errors ignored, so none writes to a muxer afterwards
  /// (`TranscodeOutputs.abandon()` follows). Does nothing after `finish()`.
  func stop() {
    guard !joined else { return }
    joined = true
    for w in workers { try? w.push(.finish) }
    for w in workers { try? w.join() }
  }

  /// The SSIM of each rendition in `measured`, by index, after `finish()`.
  var qualities: [Int: PictureQuality] {
    var found: [Int: PictureQuality] = [:]
    for (i, w) in workers.enumerated() { if let q = w.quality { found[i] = q } }
    return found
  }

  func start() {
    for w in workers { w.start() }
  }

  /// Each worker's scaling graph, before the first picture.
  func setFilters(_ make: (Int) throws -> FilterGraph) throws {
    for (i, w) in workers.enumerated() where !isFed[i] { try w.push(.filter(try make(i))) }
  }

  /// A picture every rendition scales from (a reference each).
  func push(picture: Frame) throws {
    for (i, w) in workers.enumerated() where !isFed[i] { try w.push(.source(try picture.clone())) }
  }

  /// An encoded AAC packet of the encoder `source` for the muxers of every
  /// rendition that carries it (a reference each).
  func push(audio packet: Packet, source: Int) throws {
    for (i, w) in workers.enumerated() where !isFed[i] && audioSources[i] == source { try w.push(.audio(try packet.clone())) }
  }

  /// Tells every worker to drain its encoder and waits for them all.
  /// - Throws: the first error a worker met.
  func finish() throws {
    for (i, w) in workers.enumerated() where !isFed[i] { try w.push(.finish) }
    joined = true
    var first: Error? = nil
    for w in workers {
      do { try w.join() } catch { first = first ?? error }
    }
    if let first { throw first }
  }
}
