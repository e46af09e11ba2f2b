internal import CFFmpeg

extension Frame {
  /// Whether the decoder marked this picture as a keyframe
  /// (`AVFrame.key_frame` in FFmpeg 5.1; an IDR or other intra picture a
  /// decoder can start from).
  public var isKeyframe: Bool { pointer.pointee.key_frame != 0 }

  /// The picture type letter the decoder reported (`av_get_picture_type_char`
  /// of `AVFrame.pict_type`): `I`, `P`, `B`, or `?`.
  public var pictureTypeLetter: Character {
    Character(Unicode.Scalar(UInt8(bitPattern: av_get_picture_type_char(pointer.pointee.pict_type))))
  }

  /// Whether the decoder flagged this picture as damaged: the frame's
  /// `AV_FRAME_FLAG_CORRUPT` flag or any `decode_error_flags` (errors it
  /// concealed, missing references). Always false for clean streams.
  public var isCorrupt: Bool {
    pointer.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0 || pointer.pointee.decode_error_flags != 0
  }

  /// The byte position in the file of the packet this picture was decoded
  /// from (`AVFrame.pkt_pos`, set when the decoder allocates the picture),
  /// nil when unknown. Packets lie in the file in decode order, so this
  /// orders pictures as they were decoded, where their timestamps give the
  /// order they are shown in. (`pkt_dts` cannot: libavcodec sets it to the
  /// packet being decoded when the picture came out.)
  public var packetPosition: Int64? {
    pointer.pointee.pkt_pos < 0 ? nil : pointer.pointee.pkt_pos
  }

  /// The decoder's number for this picture in bitstream order
  /// (`AVFrame.coded_picture_number`): libavcodec's h264 and MPEG-video
  /// decoders count every picture they start, including one the h264
  /// decoder makes in place of a lost reference (a `frame_num` gap), which
  /// is never handed over. Decoders that do not count leave it 0.
  public var codedPictureNumber: Int { Int(pointer.pointee.coded_picture_number) }

  /// Marks the picture damaged (sets `AV_FRAME_FLAG_CORRUPT`): for a
  /// picture the decoder did not flag itself but that is predicted from a
  /// damaged one. libavfilter copies the flag to every picture a filter
  /// makes from this one (`av_frame_copy_props`), so whoever sees the
  /// scaled pictures (the cover extractor) can tell `isCorrupt` too.
  public func markCorrupt() {
    pointer.pointee.flags |= AV_FRAME_FLAG_CORRUPT
  }
}
