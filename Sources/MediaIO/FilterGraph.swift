internal import CFFmpeg
import Foundation

/// A libavfilter graph with named buffer sources and buffer sinks
/// (`AVFilterGraph`, freed with `avfilter_graph_free`).
///
/// The description uses libavfilter's graph syntax; its unconnected inputs
/// are labelled `in0…` and outputs `out0…`, matching `inputs` and `outputs`.
public final class FilterGraph {
  /// What a graph endpoint carries.
  public enum Endpoint: Sendable {
    /// A video source with `buffer` filter arguments.
    case videoSource(String)
    /// An audio source with `abuffer` filter arguments.
    case audioSource(String)
    /// A video sink.
    case videoSink
    /// An audio sink delivering frames of exactly `frameSize` samples per
    /// channel when non-zero (an AAC encoder wants 1024).
    case audioSink(frameSize: Int)
  }

  let graph: UnsafeMutablePointer<AVFilterGraph>
  var sources: [UnsafeMutablePointer<AVFilterContext>] = []
  var sinks: [UnsafeMutablePointer<AVFilterContext>] = []
  let description: String

  /// Builds and configures the graph.
  ///
  /// - Parameters:
  ///   - description: the filter chain, e.g. `[in0]scale=640:-2[out0]`.
  ///   - inputs: one source endpoint per `inN` label.
  ///   - outputs: one sink endpoint per `outN` label.
  ///   - threads: filter threads (0 = libavfilter's choice).
  /// - Throws: `MediaIOError` when the description does not parse or
  ///   formats cannot be negotiated (`avfilter_graph_config`).
  public init(description: String, inputs: [Endpoint], outputs: [Endpoint], threads: Int = 0) throws(MediaIOError) {
    guard let g = avfilter_graph_alloc() else { throw .failure("avfilter_graph_alloc", description, "out of memory") }
    graph = g
    self.description = description
    g.pointee.nb_threads = Int32(threads)

    var outList: UnsafeMutablePointer<AVFilterInOut>? = nil  // sources' outputs feed the graph's inputs
    var inList: UnsafeMutablePointer<AVFilterInOut>? = nil
    defer {
      avfilter_inout_free(&outList)
      avfilter_inout_free(&inList)
    }
    for (i, endpoint) in inputs.enumerated().reversed() {
      let ctx: UnsafeMutablePointer<AVFilterContext>
      switch endpoint {
      case .videoSource(let args): ctx = try FilterGraph.create(g, "buffer", "in\(i)", args)
      case .audioSource(let args): ctx = try FilterGraph.create(g, "abuffer", "in\(i)", args)
      default: throw .failure("avfilter_graph_create_filter", description, "input \(i) is not a source")
      }
      sources.insert(ctx, at: 0)
      outList = try Self.link("in\(i)", ctx, before: outList, description)
    }
    // Sink frame sizes can only be set once the sink's input link exists.
    var frameSizes: [(UnsafeMutablePointer<AVFilterContext>, Int)] = []
    for (i, endpoint) in outputs.enumerated().reversed() {
      let ctx: UnsafeMutablePointer<AVFilterContext>
      switch endpoint {
      case .videoSink: ctx = try FilterGraph.create(g, "buffersink", "out\(i)", nil)
      case .audioSink(let frameSize):
        ctx = try FilterGraph.create(g, "abuffersink", "out\(i)", nil)
        if frameSize > 0 { frameSizes.append((ctx, frameSize)) }
      default: throw .failure("avfilter_graph_create_filter", description, "output \(i) is not a sink")
      }
      sinks.insert(ctx, at: 0)
      inList = try Self.link("out\(i)", ctx, before: inList, description)
    }
    try check(avfilter_graph_parse_ptr(g, description, &inList, &outList, nil), "avfilter_graph_parse_ptr", description)
    try check(avfilter_graph_config(g, nil), "avfilter_graph_config", description)
    for (ctx, size) in frameSizes { av_buffersink_set_frame_size(ctx, UInt32(size)) }
  }

  deinit {
    var g: UnsafeMutablePointer<AVFilterGraph>? = graph
    avfilter_graph_free(&g)
  }

  /// A new `AVFilterInOut` naming pad 0 of `ctx` as `name`, in front of
  /// `next` (the lists `avfilter_graph_parse_ptr` links the graph's labels to).
  private static func link(_ name: String, _ ctx: UnsafeMutablePointer<AVFilterContext>,
                           before next: UnsafeMutablePointer<AVFilterInOut>?, _ description: String)
    throws(MediaIOError) -> UnsafeMutablePointer<AVFilterInOut>
  {
    guard let io = avfilter_inout_alloc() else { throw .failure("avfilter_inout_alloc", description, "out of memory") }
    io.pointee.name = av_strdup(name)
    io.pointee.filter_ctx = ctx
    io.pointee.pad_idx = 0
    io.pointee.next = next
    return io
  }

  private static func create(_ g: UnsafeMutablePointer<AVFilterGraph>, _ filter: String, _ name: String,
                             _ args: String?) throws(MediaIOError) -> UnsafeMutablePointer<AVFilterContext> {
    var ctx: UnsafeMutablePointer<AVFilterContext>? = nil
    guard let f = avfilter_get_by_name(filter) else { throw .failure("avfilter_get_by_name", filter, "filter missing") }
    try check(avfilter_graph_create_filter(&ctx, f, name, args, nil, g), "avfilter_graph_create_filter", "\(filter)=\(args ?? "")")
    guard let c = ctx else { throw .failure("avfilter_graph_create_filter", filter, "no context") }
    return c
  }

  /// Pushes a frame into source `input`, or `nil` to signal its end
  /// (`av_buffersrc_add_frame_flags`). The frame's buffers are moved into
  /// the graph; `frame` is left empty for reuse. Unlike `Encoder.send` it
  /// returns nothing: the buffer source queues every frame it is given
  /// (it has no `AVERROR(EAGAIN)`), so a frame is never "not taken"; any
  /// refusal is an error.
  public func push(_ frame: Frame?, input: Int = 0) throws(MediaIOError) {
    try check(av_buffersrc_add_frame_flags(sources[input], frame?.pointer, 0), "av_buffersrc_add_frame", description)
  }

  /// Ends source `input` at `pts` (ticks of the source's time base), the
  /// time just after the last frame's display ends (`av_buffersrc_close`).
  /// Filters such as `fps` need it to keep the last frame; pushing `nil`
  /// would end the stream at the last frame's *start* and drop it.
  public func close(input: Int = 0, pts: Int64) throws(MediaIOError) {
    try check(av_buffersrc_close(sources[input], pts, UInt32(AV_BUFFERSRC_FLAG_PUSH)), "av_buffersrc_close", description)
  }

  /// Pulls the next frame from sink `output` (`av_buffersink_get_frame`).
  public func pull(_ frame: Frame, output: Int = 0) throws(MediaIOError) -> Step {
    frame.unref()
    return try Step(status: av_buffersink_get_frame(sinks[output], frame.pointer), "av_buffersink_get_frame", description)
  }

  /// The time base of frames pulled from `output` (seconds per tick).
  public func timeBase(output: Int = 0) -> Rational { Rational(av_buffersink_get_time_base(sinks[output])) }
  /// The frame rate declared by `output` (0/1 when variable).
  public func frameRate(output: Int = 0) -> Rational { Rational(av_buffersink_get_frame_rate(sinks[output])) }
  /// Picture size of `output`.
  public func size(output: Int = 0) -> (width: Int, height: Int) {
    (Int(av_buffersink_get_w(sinks[output])), Int(av_buffersink_get_h(sinks[output])))
  }
  /// `buffer` source arguments describing the pictures of video `output`
  /// (size, pixel format, time base, sample aspect ratio, frame rate), so
  /// another graph can take them as its input: how a rendition worker's
  /// own graph is fed from this one's frames. Valid once the graph is
  /// configured (it is after `init`).
  public func bufferSourceArguments(output: Int = 0) -> String {
    let sink = sinks[output]
    let tb = av_buffersink_get_time_base(sink)
    var sar = av_buffersink_get_sample_aspect_ratio(sink)
    if sar.num <= 0 || sar.den <= 0 { sar = AVRational(num: 1, den: 1) }
    let rate = av_buffersink_get_frame_rate(sink)
    var args = "video_size=\(av_buffersink_get_w(sink))x\(av_buffersink_get_h(sink)):pix_fmt=\(av_buffersink_get_format(sink))"
      + ":time_base=\(tb.num)/\(tb.den):pixel_aspect=\(sar.num)/\(sar.den)"
    if rate.num > 0 && rate.den > 0 { args += ":frame_rate=\(rate.num)/\(rate.den)" }
    return args
  }
  /// Sample rate in Hz of audio `output`.
  public func sampleRate(output: Int = 0) -> Int { Int(av_buffersink_get_sample_rate(sinks[output])) }
  /// Channel count of audio `output`.
  public func channels(output: Int = 0) -> Int { Int(av_buffersink_get_channels(sinks[output])) }
}
