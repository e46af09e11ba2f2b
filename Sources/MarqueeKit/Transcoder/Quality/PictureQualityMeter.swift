import Foundation
import MediaIO

/// How an encoded rendition compares with the pictures it was made from.
public struct PictureQuality: Sendable, Equatable {
  /// Mean over the pictures of libavfilter's `ssim` "All" figure (the
  /// SSIM of Y, U and V weighted by their sample counts, 4:1:1 for 4:2:0):
  /// the same number `ffmpeg -lavfi ssim` prints as `All:` for the pair.
  public var ssim: Double
  /// Pictures compared.
  public var pictures: Int
  /// Bytes of the encoded video packets (no container, no audio).
  public var videoBytes: Int
  /// Every encoded picture, in decode order (the order libx264 gave its
  /// packets, the order its VBV buffer is drained in); empty when not
  /// recorded. `QualityCorrection` reads them.
  public var encodedPictures: [EncodedPicture]

  public init(ssim: Double, pictures: Int, videoBytes: Int, encodedPictures: [EncodedPicture] = []) {
    self.ssim = ssim
    self.pictures = pictures
    self.videoBytes = videoBytes
    self.encodedPictures = encodedPictures
  }

  /// Average video bit rate over `duration` seconds, bits per second.
  public func averageBitRate(duration: Double) -> Double {
    duration > 0 ? Double(videoBytes) * 8 / duration : 0
  }
}

/// One picture of an encode, as its encoder and the meter saw it.
public struct EncodedPicture: Sendable, Equatable {
  /// Bytes of its H.264 packet (no container).
  public var bytes: Int
  /// The frame-level QP libx264 coded it at (`Packet.encoderQP`); nil when
  /// the packet carried no report.
  public var qp: Double?
  /// Its SSIM (libavfilter's `ssim` "All") against the picture that was
  /// encoded, 0–1.
  public var ssim: Double

  public init(bytes: Int, qp: Double?, ssim: Double) {
    self.bytes = bytes
    self.qp = qp
    self.ssim = ssim
  }
}

/// Measures one rendition's SSIM while it is encoded, as a player would see
/// it: every packet libx264 produces is decoded again (libavcodec's `h264`
/// decoder, on the rendition's thread) and each decoded picture is compared
/// with the scaled picture that went into the encoder, by libavfilter's
/// `ssim` filter.
///
/// Memory: a reference to each picture is held from the moment it goes into
/// the encoder until its decoded copy comes out, libx264's delay (its
/// lookahead, up to 61 pictures, plus the B-frames) and the decoder's
/// reordering delay: about 65 pictures, 90 MB at 1280x720.
///
/// Used by one thread only (the rendition worker's).
final class PictureQualityMeter {
  private let decoder: Decoder
  private let graph: FilterGraph
  private var references: [Int64: Frame] = [:]
  private let decoded: Frame
  private let compared: Frame
  private var sum = 0.0
  private var count = 0
  private var bytes = 0
  /// Each packet's PTS, size and QP, in decode order.
  private var packets: [(pts: Int64?, bytes: Int, qp: Double?)] = []
  /// Each compared picture's SSIM, by PTS.
  private var pictureSSIM: [Int64: Double] = [:]

  /// The frame metadata key of the `ssim` filter's per-picture figure.
  static let ssimKey = "lavfi.ssim.All"

  /// - Parameters:
  ///   - encoder: the rendition's libx264 encoder (its packets are decoded
  ///     with its own SPS and PPS).
  ///   - width, height: the rendition's picture size.
  /// - Throws: `MediaIOError` when the decoder or the `ssim` graph cannot
  ///   be set up.
  init(encoder: Encoder, width: Int, height: Int) throws(MediaIOError) {
    decoder = try Decoder(decoding: encoder, threads: 1)
    let tb = encoder.timeBase
    let args = "video_size=\(width)x\(height):pix_fmt=yuv420p:time_base=\(tb.num)/\(tb.den):pixel_aspect=1/1"
    // in0: the decoded picture, in1: the picture that was encoded.
    graph = try FilterGraph(description: "[in0][in1]ssim[out0]", inputs: [.videoSource(args), .videoSource(args)],
                            outputs: [.videoSink], threads: 1)
    decoded = try Frame()
    compared = try Frame()
  }

  /// Keeps a reference to `picture` (the encoder's input, with its PTS in
  /// the encoder's time base) until its encoded copy is decoded.
  func reference(_ picture: Frame) throws(MediaIOError) {
    guard let pts = picture.pts else { return }
    references[pts] = try picture.clone()
  }

  /// Decodes one packet from the encoder and compares every picture it
  /// gives back.
  /// - Throws: `MediaIOError` when our own stream does not decode, or
  ///   `MarqueeError.encodeFailed` when a decoded picture has no input
  ///   picture of the same PTS.
  func encoded(_ packet: Packet) throws {
    bytes += packet.size
    packets.append((packet.pts, packet.size, packet.encoderQP))
    while try decoder.send(packet) == .tryAgain {
      try receiveAll()
    }
    try receiveAll()
  }

  /// Drains the decoder and the filter, and gives the figures.
  func finish() throws -> PictureQuality {
    while try decoder.send(nil) == .tryAgain {
      try receiveAll()
    }
    try receiveAll()
    try graph.push(nil, input: 0)
    try graph.push(nil, input: 1)
    try pullAll()
    references.removeAll()
    let pictures = packets.map { p in
      EncodedPicture(bytes: p.bytes, qp: p.qp, ssim: p.pts.flatMap { pictureSSIM[$0] } ?? 0)
    }
    return PictureQuality(ssim: count > 0 ? sum / Double(count) : 0, pictures: count, videoBytes: bytes,
                          encodedPictures: pictures)
  }

  private func receiveAll() throws {
    while try decoder.receive(decoded) == .produced {
      guard let pts = decoded.pts ?? decoded.bestEffortTimestamp, let reference = references.removeValue(forKey: pts) else {
        throw MarqueeError(.encodeFailed, "the quality check decoded a picture (PTS \(decoded.pts.map(String.init) ?? "none")) that was never encoded")
      }
      try graph.push(decoded, input: 0)
      try graph.push(reference, input: 1)
      try pullAll()
    }
  }

  private func pullAll() throws {
    while try graph.pull(compared) == .produced {
      guard let text = compared.metadata(Self.ssimKey), let value = Double(text) else {
        throw MarqueeError(.encodeFailed, "libavfilter's ssim filter gave no \(Self.ssimKey) figure")
      }
      sum += value
      count += 1
      if let pts = compared.pts { pictureSSIM[pts] = value }
    }
  }
}
