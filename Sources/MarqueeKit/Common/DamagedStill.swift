import Foundation
import MediaIO

/// The rule for a still whose decoder could not decode part of its image
/// data and concealed it (`DecodedPicture.damage`: libjpeg fills what it
/// cannot decode, so a JPEG with garbage in its entropy-coded data decodes
/// to a picture with grey or smeared blocks). A viewer would see the
/// damage, so, like a video's damaged pictures (`SourceHealth`), it is never
/// published silently: by default the item fails
/// (`MarqueeError.Code.damagedSource`, stage decode, naming the file and
/// the fixes), and `settings.allow_damaged_sources` builds it with a
/// warning. One rule for an image banner's source, a video's poster, a
/// designer's dark picture, and `marquee validate`.
enum DamagedStill {
  /// Applies the rule to one decoded still.
  ///
  /// - Parameters:
  ///   - damage: `DecodedPicture.damage` (nil: the still is whole).
  ///   - file: the file's path as written in the job, for the error.
  ///   - allowed: `settings.allow_damaged_sources`.
  /// - Returns: the warning to report when the still is damaged and
  ///   damage is allowed; nil when it is whole.
  /// - Throws: `MarqueeError.Code.damagedSource` when it is damaged and
  ///   damage is not allowed.
  static func check(_ damage: String?, file: String, allowed: Bool) throws(MarqueeError) -> String? {
    guard let damage else { return nil }
    let health = SourceHealth(damagedStill: damage)
    guard allowed else { throw MarqueeError(.damagedSource, health.failureReason ?? damage, file: file) }
    return health.warnings.first
  }
}
