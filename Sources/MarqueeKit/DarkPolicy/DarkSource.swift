import Foundation

/// A banner's dark policy ready for a stage: the designer's picture, when
/// there is one, already read and checked.
///
/// Made once per item, before the stage runs (`load`), so a designer's
/// picture that cannot be used fails the item at once, before a video is
/// transcoded, with an error naming the picture.
public enum DarkSource: Sendable {
  /// The dark-variant stage makes the dark pictures (`DarkVariantGenerator`).
  case generated
  /// Every dark file is written byte-identical to its light file.
  case same
  /// The designer's picture is the dark picture.
  case designer(DesignerDarkPicture)

  /// The name banners.json gives it (`dark_policy`).
  public var kind: DarkPolicyKind {
    switch self {
    case .generated: .generated
    case .same: .same
    case .designer: .designer
    }
  }

  /// Reads the designer's picture of `spec`, when its policy names one.
  ///
  /// - Parameters:
  ///   - spec: the banner (`dark`, and `jsonPath` for the error).
  ///   - settings: `inputLimits` and `darkSurface`.
  /// - Throws: `MarqueeError` (code from the `MediaIOError`'s kind) whose
  ///   `file` is the picture's path as written and whose `field` is its
  ///   JSON path (`banners[2].dark.image`), so the item's failure names the
  ///   picture, not the source.
  public static func load(for spec: BannerSpec, settings: JobSettings) throws(MarqueeError) -> DarkSource {
    switch spec.dark {
    case .generated: return .generated
    case .same: return .same
    case .image(let url, let text):
      let field = JobJSON.path(JobJSON.path(spec.jsonPath, key: "dark"), key: "image")
      var picture: DesignerDarkPicture
      do {
        picture = try DesignerDarkPicture.load(url, text: text, limits: settings.inputLimits,
                                               darkSurface: settings.darkSurface)
      } catch {
        var failure = MarqueeError.decoding(error, file: text)
        failure.message = "the designer's dark picture (dark.image) cannot be used: \(error.reason)"
        failure.field = field
        throw failure
      }
      do {
        if let warning = try DamagedStill.check(picture.damage, file: text, allowed: settings.allowDamagedSources) {
          picture.warnings.append("dark picture \(text): \(warning)")
        }
      } catch {
        var failure = error
        failure.message = "the designer's dark picture (dark.image) cannot be used: \(error.message)"
        failure.field = field
        throw failure
      }
      return .designer(picture)
    }
  }
}
