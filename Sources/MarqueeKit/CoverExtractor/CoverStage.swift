import Foundation

/// The cover stage of a video banner: takes the frame the cover selector
/// chose while the transcoder streamed past (`CoverSelector`), or fits the
/// job's poster to the video (`PosterFitter`); judges the picture exactly
/// as `marquee verify` judges the written cover (`PictureStatistics` of the
/// RGBA picture, `PictureLook`); and writes it with its dark variant
/// (`CoverExtractor`).
///
/// A black cover is never written: the item fails with the fix in the
/// reason (a poster, or a pinned lit frame). A flat one is written with a
/// warning: the user asked for it (`at`, a poster), or it was the last resort.
public struct CoverStage: Sendable {
  public var settings: JobSettings
  public var darkVariants: DarkVariantGenerator

  public init(settings: JobSettings, darkVariants: DarkVariantGenerator) {
    self.settings = settings
    self.darkVariants = darkVariants
  }

  /// What the stage wrote.
  public struct Output: Sendable {
    public var files: CoverFiles
    /// The frame's time in seconds, `nil` for a poster.
    public var time: Double?
    public var warnings: [String]
    /// `cover at 1.20 s (the best-scoring well-exposed, detailed frame)` or
    /// `poster media/poster.jpg`, for the summary.
    public var origin: String
  }

  /// The sink that watches the transcoder's pictures for a frame cover
  /// (`auto`, `first`, `at`); nil for a poster, where no frame is chosen.
  public func frameSink(for policy: CoverPolicy) -> CoverFrameSink? {
    policy.posterSource == nil ? CoverFrameSink(policy: policy) : nil
  }

  /// Runs the stage.
  ///
  /// - Parameters:
  ///   - policy: the banner's `cover`.
  ///   - frame: the frame `frameSink(for:)` chose (`nil` for a poster).
  ///   - width, height: the video's output size in pixels (the top
  ///     rendition); the cover gets exactly this size.
  ///   - itemFolder: where to write, as `CoverExtractor.write`; the
  ///     files' paths are relative to it.
  /// - Throws: `MarqueeError.noCover` when no frame is lit, the pinned frame or the
  ///   poster is black, or the poster cannot be read (the error's `source`
  ///   is then the poster); `MediaIOError` or a file-system error when
  ///   writing.
  public func run(policy: CoverPolicy, frame: Result<CoverPicture, MarqueeError>?, width: Int, height: Int,
                  itemFolder: URL) throws -> Output {
    var warnings: [String] = []
    let picture: RGBAImage
    let time: Double?
    let origin: String
    if case .image(let url, let text) = policy {
      let limits = settings.inputLimits
      do {
        let fitted = try PosterFitter(limits: limits, background: settings.background).fit(url, width: width, height: height)
        picture = fitted.image
        warnings += fitted.warnings.map { "poster \(text): \($0)" }
        do {
          if let warning = try DamagedStill.check(fitted.damage, file: text, allowed: settings.allowDamagedSources) {
            warnings.append("poster \(text): \(warning)")
          }
        } catch {
          throw MarqueeError.noCover("the poster (cover.image) cannot be used: \(error.message)", source: text)
        }
      } catch let error as MediaIOError {
        throw MarqueeError.noCover("the poster (cover.image) cannot be used: \(error.reason)", source: text)
      }
      time = nil
      origin = "poster \(text)"
      let statistics = PictureStatistics(image: picture)
      switch PictureLook.verdict(statistics) {
      case .black:
        throw MarqueeError.noCover("the poster (cover.image) is black: \(PictureLook.describeBlack(statistics)); supply a poster with something lit in it",
                         source: text)
      case .flat:
        warnings.append("the poster \(text) is \(PictureLook.describeFlat(statistics)); used as given")
      case .picture: break
      }
    } else {
      guard let frame else { throw MarqueeError.noCover("no picture reached the cover extractor") }
      let chosen = try frame.get()
      picture = chosen.image
      time = chosen.time
      origin = String(format: "cover at %.2f s", chosen.time) + (chosen.basis.isEmpty ? "" : " (\(chosen.basis))")
      if let w = chosen.warning { warnings.append(w) }
      // The same judgement verify makes of the written file.
      let statistics = PictureStatistics(image: picture)
      if PictureLook.isBlack(statistics) {
        throw MarqueeError.noCover(String(format: "the cover frame at %.3f s is black: %@; ", chosen.time, PictureLook.describeBlack(statistics))
                         + MarqueeError.coverFix)
      }
    }
    let files = try CoverExtractor(webpQuality: settings.webpQuality, jpegQuality: settings.jpegQuality,
                                   darkVariants: darkVariants, makesAVIF: settings.makesAVIF)
      .write(picture, into: itemFolder)
    warnings += files.darkProblems.map { "dark cover (\(files.darkMethod.rawValue)): \($0)" }
    return Output(files: files, time: time, warnings: warnings, origin: origin)
  }
}
