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
}
