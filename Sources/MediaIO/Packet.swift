internal import CFFmpeg

/// An owned `AVPacket`: one compressed frame (or audio access unit).
///
/// Ownership, stated in the API (as for `Frame`):
/// - A `Packet` is a slot its owner fills again and again:
///   `InputContainer.read(into:)` and `Encoder.receive` drop what it held
///   and fill it; `OutputContainer.write` moves its payload into the muxer
///   and leaves it empty.
/// - `clone()` returns a new packet referencing the same payload
///   (`av_packet_ref`), `sending`: the caller's alone, so it can be handed
///   to another thread or to a second muxer.
/// - Not `Sendable`: a packet crosses threads only as a `sending` value
///   (`HandOffQueue.push`), never to be used by the sender again.
///
/// Freed with `av_packet_free` in `deinit`.
public final class Packet {
  let pointer: UnsafeMutablePointer<AVPacket>

  /// - Throws: `MediaIOError` when `av_packet_alloc` fails (out of memory).
  public init() throws(MediaIOError) {
    guard let p = av_packet_alloc() else {
      throw .failure("av_packet_alloc", "", "out of memory")
    }
    pointer = p
  }

  deinit {
    var p: UnsafeMutablePointer<AVPacket>? = pointer
    av_packet_free(&p)
  }

  /// Drops the payload so the packet can be filled again.
  public func unref() { av_packet_unref(pointer) }

  /// The index of the stream this packet belongs to, in its container.
  public var streamIndex: Int {
    get { Int(pointer.pointee.stream_index) }
    set { pointer.pointee.stream_index = Int32(newValue) }
  }
  /// Presentation timestamp in the packet's time base ticks, nil if unknown.
  public var pts: Int64? {
    get { pointer.pointee.pts == Status.noPTS ? nil : pointer.pointee.pts }
    set { pointer.pointee.pts = newValue ?? Status.noPTS }
  }
  /// Decoding timestamp in time base ticks, nil if unknown.
  public var dts: Int64? {
    get { pointer.pointee.dts == Status.noPTS ? nil : pointer.pointee.dts }
    set { pointer.pointee.dts = newValue ?? Status.noPTS }
  }
  /// Duration in time base ticks (0 if unknown).
  public var duration: Int64 {
    get { pointer.pointee.duration }
    set { pointer.pointee.duration = newValue }
  }
  /// Payload size in bytes.
  public var size: Int { Int(pointer.pointee.size) }
  /// Byte position of the packet in its file (`AVPacket.pos`); nil when unknown.
  public var position: Int64? { pointer.pointee.pos < 0 ? nil : pointer.pointee.pos }
  /// Whether the packet holds a keyframe (`AV_PKT_FLAG_KEY`); for H.264
  /// from our encoder with closed GOPs this is an IDR picture.
  public var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
  /// Whether the demuxer found the packet damaged or cut short
  /// (`AV_PKT_FLAG_CORRUPT`: libavformat sets it on a packet whose data
  /// ended before its declared size, such as the last packet of a file cut
  /// mid-way, and on MPEG-TS packets whose PES length does not match).
  public var isCorrupt: Bool { pointer.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 }
  /// The time base the timestamps are in, when the producer set one.
  public var timeBase: Rational {
    get { Rational(pointer.pointee.time_base) }
    set { pointer.pointee.time_base = newValue.av }
  }

  /// Rescales pts, dts and duration between time bases (`av_packet_rescale_ts`).
  public func rescaleTimestamps(from: Rational, to: Rational) {
    av_packet_rescale_ts(pointer, from.av, to.av)
    pointer.pointee.time_base = to.av
  }

  /// A new packet referencing the same payload (`av_packet_ref`), owned by
  /// the caller alone: for handing one encoded packet to several muxers or
  /// threads.
  /// - Throws: `MediaIOError` when out of memory.
  public func clone() throws(MediaIOError) -> sending Packet {
    // New and referenced by nothing else: `av_packet_ref` only sees the raw
    // pointers (which tie it to `self` for region checking) and keeps none.
    nonisolated(unsafe) let copy = try Packet()
    try check(av_packet_ref(copy.pointer, pointer), "av_packet_ref", "")
    return copy
  }
}

/// A packet is handed between threads only as a `sending` value (see `Packet`).
@available(*, unavailable)
extension Packet: Sendable {}

// MARK: - Encoder statistics

extension Packet {
  /// The quantiser its encoder coded the picture at, as the encoder
  /// reported it; nil when the packet carries no such report.
  ///
  /// Read from the packet's `AV_PKT_DATA_QUALITY_STATS` side data, whose
  /// first 4 bytes are the picture's quality in lambda units (little
  /// endian). libavcodec's libx264 wrapper attaches it to every packet it
  /// returns, from the `i_qpplus1` libx264 gives for the picture (its
  /// frame-level QP, after rate control and the VBV) times
  /// `FF_QP2LAMBDA` (118), so the value here is that QP (0–69 for 8-bit
  /// H.264).
  public var encoderQP: Double? {
    var size: Int = 0
    guard let data = av_packet_get_side_data(pointer, AV_PKT_DATA_QUALITY_STATS, &size), size >= 4 else { return nil }
    let quality = UInt32(data[0]) | UInt32(data[1]) << 8 | UInt32(data[2]) << 16 | UInt32(data[3]) << 24
    return Double(Int32(bitPattern: quality)) / Double(FF_QP2LAMBDA)
  }
}
