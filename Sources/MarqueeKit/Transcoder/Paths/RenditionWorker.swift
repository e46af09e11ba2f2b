import Foundation

/// Makes one rendition on its own thread: takes the item's pictures (and
/// the shared audio packets) from a bounded queue, scales and rotates them
/// with the rendition's own filter graph, runs libx264 and writes the
/// packets to the rendition's HLS muxer (and the MP4 muxer when this
/// rendition is the MP4's).
///
/// Why the scaling is here: the item's thread decodes and filters for
/// every rendition; when it also scaled every rendition (one graph with a
/// `split`), it was the longest chain of the video and the renditions
/// waited for it (a 4K source kept 1.41 of 2 cores busy, BENCHMARKS.md).
/// Now it hands each worker a reference to the shared picture (after
/// deinterlacing, constant rate and tone mapping) and each worker scales
/// its own; the pixels are the same (the same filters in the same order,
/// `VideoFilterDescription.tailText`), so are the bytes. The shared picture
/// is only read: libavfilter's filters write into new frames (or copy a
/// frame whose buffer has other references, `av_frame_make_writable`).
///
/// Why a thread per rendition: libx264 output depends on its thread count,
/// and its frame threads make rate control timing-dependent (measured: the
/// same job gave different bytes run to run with two x264 threads). So each
/// encoder runs single-threaded, which is byte-for-byte repeatable, and the
/// renditions run side by side instead: a single video keeps every core
/// busy and still encodes to the same bytes.
///
/// An HEVC twin (`RenditionPlanner.hevcTwin(of:)`) is the same size as its
/// H.264 rendition, so it does not scale: the H.264 worker hands it a
/// reference to each picture it scaled, and every AAC packet and the end
/// in the order it took them (`feeds`), so the twin's encoder and muxer
/// see what they saw when the twin scaled for itself, and its bytes are
/// the same; the scaling is done once per size (`RenditionFanOut`).
///
/// CPU budget: the worker holds one of the build's permits (`CPUBudget`)
/// while its queue has work (encoding pictures, muxing packets) and none
/// while it waits for more; a producer blocked on a full queue, or waiting
/// in `join()`, hands its own permit back while it waits.
///
/// Ownership: the encoder and muxers are used only by this worker's thread
/// between `start()` and `join()`; the creating thread sets them up before
/// and finishes the muxers after. Items move through a `HandOffQueue` of
/// 8 (`sending`: the producer cannot touch one again).
// Safe: only its thread uses its state from `start()` to `join()`; `failure` is set before `queue` closes.
final class RenditionWorker: @unchecked Sendable {
  enum Item {
    /// The graph that scales `.source` pictures into this rendition; it
    /// comes before the first of them and the worker owns it from then on.
    case filter(FilterGraph)
    /// A picture to scale with the `.filter` graph, then encode (a
    /// reference shared with the other workers: read, never written).
    case source(Frame)
    /// A picture already scaled to this rendition's size by the worker
    /// that feeds this one, to encode (a reference: read, never written).
    case scaled(Frame)
    /// An encoded AAC packet for this rendition's muxers (a reference).
    case audio(Packet)
    /// End of input: drain the encoder and stop.
    case finish

    var isFinish: Bool {
      if case .finish = self { return true }
      return false
    }
  }

  private let encoder: Encoder
  private let hls: OutputContainer
  private let mp4: OutputContainer?
  private let audioStream: Int
  private let budget: CPUBudget
  /// IDR decisions for pictures scaled here (`.source`).
  private var planner: KeyframePlanner
  private var tail: FilterGraph?
  /// Called with each scaled picture before it is encoded, on this thread
  /// (the transcoder's cover selector, for rendition 0).
  private let observe: ((Frame) throws -> Void)?
  /// The twin this worker feeds (its scaled pictures, its AAC packets and
  /// the end, in order); its one producer.
  private let feeds: RenditionWorker?
  /// Whether `feeds` has been sent its `.finish`.
  private var fedFinish = false
  /// Measures the encode's SSIM (`PictureQualityMeter`), when asked.
  private let meter: PictureQualityMeter?
  /// What `meter` measured; set on this thread before `join()` returns.
  private(set) var quality: PictureQuality?
  /// The items from the producer; closed when the worker fails.
  private let queue = HandOffQueue<Item>(capacity: 8)
  /// The worker's first error: set on its thread before `queue` closes,
  /// read by the producer once it finds the queue closed, or after `join()`.
  private var failure: Error?
  /// The worker's thread, from `start()`.
  private var thread: WorkerThread?
  #if DEBUG
  /// The scaled pictures written out for a benchmark (`TestHooks.RenditionDump`).
  private var dump: TestHooks.RenditionDump? = nil
  private var dumpChecked = false
  #endif

  init(encoder: Encoder, hls: OutputContainer, mp4: OutputContainer?, audioStream: Int, budget: CPUBudget,
       planner: KeyframePlanner, observe: ((Frame) throws -> Void)? = nil, feeds: RenditionWorker? = nil,
       meter: PictureQualityMeter? = nil) {
    self.encoder = encoder
    self.feeds = feeds
    self.meter = meter
    self.planner = planner
    self.observe = observe
    self.budget = budget
    self.hls = hls
    self.mp4 = mp4
    self.audioStream = audioStream
  }

  /// Starts the worker's thread. The thread's closure holds the worker
  /// until `run()` returns, and the worker holds only the `WorkerThread`
  /// handle, not the thread: a stored `Thread` made a cycle (worker →
  /// thread → closure → worker), so no worker, and none of its libx264
  /// encoder, muxers and graph, was ever freed (LeakSanitizer: 367 MB of
  /// libx264's memory left behind by one 1280x720 item with three
  /// renditions).
  func start() {
    thread = Worker.start(name: "marquee.rendition", stackSize: 4 << 20) { [self] in self.run() }
  }

  /// Queues an item, waiting while the queue is full (with the caller's
  /// CPU permit handed back). Throws the worker's error, if it has failed
  /// (the item is then dropped, except `.finish`, which always reaches the
  /// worker so that `join()` returns). One producer per worker.
  func push(_ item: sending Item) throws {
    // A failed worker still needs `.finish` to stop, or `join()` would
    // wait for ever (seen: a disk filling up mid-encode hung the build).
    let force = item.isFinish
    if !queue.push(item, force: force, aroundWait: { budget.waiting($0) }) {
      throw failure ?? MarqueeError(.encodeFailed, "a rendition worker stopped without saying why")
    }
  }

  /// Waits until the worker has drained its encoder (after `.finish`),
  /// with the caller's CPU permit handed back meanwhile.
  /// - Throws: the first error the worker met.
  func join() throws {
    guard let thread else { return }
    budget.waiting { thread.join() }
    if let e = failure { throw e }
  }

  /// The next item, and whether the worker has already failed. Waits
  /// while the queue is empty, with this worker's CPU permit (if `holding`)
  /// handed back for the wait; `holding` tells afterwards whether it holds
  /// one (a permit is taken only for work, by the caller).
  private func pop(holding: inout Bool) -> (Item, Bool) {
    let item = queue.pop {
      // Out of work: give the permit to a thread that has some.
      guard holding else { return }
      budget.release()
      holding = false
    }
    // Only this thread closes the queue.
    return (item, queue.isClosed)
  }

  private func run() {
    let packet: Packet
    let scaled: Frame
    do {
      packet = try Packet()
      scaled = try Frame()
    } catch {
      fail(error)
      return
    }
    // A permit is held from the first item taken until the queue runs
    // dry, not taken again for every picture.
    var holding = false
    var draining = false
    while !draining {
      let (item, failed) = pop(holding: &holding)
      if failed {
        if case .finish = item { break }
        continue
      }
      if !holding {
        budget.acquire()
        holding = true
      }
      do {
        switch item {
        case .filter(let graph):
          tail = graph
        case .source(let frame):
          guard let graph = tail else { throw MarqueeError(.encodeFailed, "a rendition worker got a picture to scale before its filter graph") }
          try graph.push(frame)
          try encodeScaled(graph, scaled, packet)
        case .scaled(let frame):
          try TestHooks.failIfAsked(.fedPicture)
          try encodePicture(frame, packet)
        case .audio(let p):
          if let feeds { try feeds.push(.audio(try p.clone())) }
          if let m = mp4 { try m.write(try p.clone(), stream: audioStream) }
          try hls.write(p, stream: audioStream)
        case .finish:
          // The loop ends here even when the flush fails: nothing else
          // would ever arrive, and `join()` waits for the end.
          draining = true
          try TestHooks.failIfAsked(.renditionFlush)
          if let graph = tail {
            try graph.push(nil)
            try encodeScaled(graph, scaled, packet)
          }
          // The twin drains beside this encoder.
          finishFed()
          try encode(nil, packet)
          quality = try meter?.finish()
        }
      } catch {
        fail(error)
      }
    }
    // A twin fed by this worker stops too, whatever stopped this one.
    finishFed()
    // Nothing more is taken: a push from now on is refused, so a producer
    // cannot wait for room in a queue nobody empties.
    queue.close { $0.isFinish }
    if holding { budget.release() }
  }

  /// Sends the fed twin its `.finish`, once (forced: it arrives even when
  /// the twin failed).
  private func finishFed() {
    guard let feeds, !fedFinish else { return }
    fedFinish = true
    try? feeds.push(.finish)
  }

  /// Encodes every picture the scaling graph has ready (handing the fed
  /// twin a reference to each first).
  private func encodeScaled(_ graph: FilterGraph, _ frame: Frame, _ packet: Packet) throws {
    while try graph.pull(frame) == .produced {
      try observe?(frame)
      if let feeds { try feeds.push(.scaled(try frame.clone())) }
      try encodePicture(frame, packet)
    }
  }

  /// Encodes one picture at this rendition's size, IDRs forced at segment
  /// boundaries (`KeyframePlanner`, on the output frame index).
  private func encodePicture(_ frame: Frame, _ packet: Packet) throws {
    #if DEBUG
    if !dumpChecked {
      dumpChecked = true
      dump = TestHooks.RenditionDump.ifAsked(width: frame.width, height: frame.height,
                                             frameRate: Rational(encoder.timeBase.den, encoder.timeBase.num))
    }
    dump?.write(frame)
    #endif
    frame.forcesKeyframe = planner.isIDR(frame: frame.pts ?? 0)
    try meter?.reference(frame)
    try encode(frame, packet)
  }

  /// Sends `frame` (nil: the end) to the encoder, writing out its packets
  /// whenever it is full, until it takes it; then writes what it made.
  private func encode(_ frame: Frame?, _ packet: Packet) throws {
    while try encoder.send(frame) == .tryAgain { try drain(packet) }
    try drain(packet)
  }

  private func drain(_ packet: Packet) throws {
    while try encoder.receive(packet) == .produced {
      try meter?.encoded(packet)
      if let m = mp4 { try m.write(try packet.clone(), stream: 0) }
      try hls.write(try packet.clone(), stream: 0)
    }
  }

  private func fail(_ error: Error) {
    if failure == nil { failure = error }
    // Queued pictures are dropped; a queued `.finish` stays, to stop the loop.
    queue.close { $0.isFinish }
  }
}
