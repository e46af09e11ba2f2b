import Foundation

extension Decoder {
  /// What a failed read or send does to ``Decoder/decodePictures(from:packet:frame:damage:onPacket:_:)``.
  public enum DamagePolicy: Sendable {
    /// Every failure is thrown as it is.
    case fails
    /// Before the first picture a failed read is thrown as "the file is
    /// corrupt" (`av_read_frame`) and a failed send as "the picture data is
    /// corrupt" (`avcodec_send_packet`), both naming `name`; after it, the
    /// stream ends there and what decoded is kept (an animation damaged
    /// part way).
    case endsStream(name: String)
  }

  /// Decodes this decoder's stream from `input`, picture by picture, under
  /// libavcodec's send/receive contract: a packet the decoder refuses
  /// (`EAGAIN`, ``SendResult/tryAgain``) is sent again after the next
  /// receive, the end is sent once as a null packet, and packets of other
  /// streams are skipped.
  ///
  /// - Parameters:
  ///   - packet, frame: buffers to reuse; when this returns, `frame` holds
  ///     the last picture `body` took.
  ///   - damage: what a failed read or send does (``DamagePolicy``).
  ///   - onPacket: sees each of the stream's packets before it is sent.
  ///   - body: takes each picture with its index from 0, and returns
  ///     whether to go on.
  /// - Returns: how many pictures `body` took: 0 when none decoded.
  /// - Throws: `MediaIOError` from reading, sending (as `damage` says),
  ///   receiving, or `body`.
  public func decodePictures(from input: InputContainer, packet: Packet, frame: Frame, damage: DamagePolicy = .fails,
                             onPacket: (Packet) -> Void = { _ in },
                             _ body: (Int, Frame) throws(MediaIOError) -> Bool) throws(MediaIOError) -> Int {
    var produced = 0
    var draining = false
    // The decoder was full and did not take the last input (`packet`, or
    // the end when draining): it is sent again when the decoder asks.
    var refused = false
    while true {
      switch try receive(frame) {
      case .produced:
        produced += 1
        if try !body(produced - 1, frame) { return produced }
      case .endOfStream:
        return produced
      case .needsInput:
        if refused {
          refused = try send(draining ? nil : packet) == .tryAgain
          continue
        }
        if draining { return produced }
        let more: Bool
        do {
          more = try input.read(into: packet)
        } catch {
          guard case .endsStream(let name) = damage else { throw error }
          if produced == 0 { throw .failure("av_read_frame", name, "the file is corrupt: \(error.reason)") }
          more = false
        }
        guard more else {
          draining = true
          refused = try send(nil) == .tryAgain
          continue
        }
        guard packet.streamIndex == stream.index else { continue }
        onPacket(packet)
        do {
          refused = try send(packet) == .tryAgain
        } catch {
          guard case .endsStream(let name) = damage else { throw error }
          if produced == 0 { throw .failure("avcodec_send_packet", name, "the picture data is corrupt: \(error.reason)") }
          draining = true
          // What decoded before the damage is kept; a failed end is taken
          // as the end.
          refused = (try? send(nil)) == .tryAgain
        }
      }
    }
  }
}
