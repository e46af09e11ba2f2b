/// The cover extractor's side of the transcode: measures the top
/// rendition's pictures as the transcoder makes them (`PictureSink`) and
/// lets `CoverSelector` choose among them, keeping at most three picture
/// references whatever the clip's length.
///
/// Made by the cover stage for a video whose cover is a frame (`auto`,
/// `first`, `at`); a poster needs none. `observe` runs on rendition 0's
/// worker thread, `choice()` on the item's thread after the transcoder has
/// joined that worker: the join's lock orders the two, which is what the
/// `@unchecked Sendable` stands for (one thread at a time, never two).
public final class CoverFrameSink: PictureSink, @unchecked Sendable {
  private var selector: CoverSelector<Frame>

  public init(policy: CoverPolicy) {
    selector = CoverSelector<Frame>(policy: policy)
  }

  public var isSatisfied: Bool { selector.isSatisfied }

  /// Measures the picture (`PictureStatistics` of its luma and chroma
  /// thumbnails) and offers it; a reference is taken only when it is kept.
  public func observe(_ picture: Frame, time: Double) throws {
    guard let thumbs = picture.yuvThumbnails() else { return }
    let stats = PictureStatistics(y: thumbs.y, u: thumbs.u, v: thumbs.v)
    try selector.offer(time: time, statistics: stats) { try picture.clone() }
  }

  /// The chosen frame as RGBA sRGB at the top rendition's size, or why none
  /// can be a cover (`MarqueeError.noCover`).
  public func choice() -> Result<CoverPicture, MarqueeError> {
    let chosen: CoverChoice<Frame>
    do throws(MarqueeError) { chosen = try selector.finish() } catch { return .failure(error) }
    do {
      let image = try PixelConverter.rgba(from: chosen.payload)
      return .success(CoverPicture(image: image, time: chosen.time, warning: chosen.warning, basis: chosen.basis))
    } catch {
      return .failure(MarqueeError(.encodeFailed, "the cover frame cannot be converted to RGBA: \(error.reason)", cause: error))
    }
  }
}
