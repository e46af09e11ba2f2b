import Foundation
import MediaIO

/// Chooses the AVIF quantizer of a still so that its AVIF looks as good as
/// its WebP: the AVIF's SSIM against the picture both were encoded from
/// must be at least the WebP's minus ``allowedShortfall``, and of the
/// quantizers that reach it the highest (fewest bytes) is taken.
///
/// SSIM is ``StillSSIM`` (libavfilter's `ssim`, `All`, on YUV 4:4:4), of
/// each file as decoded (the WebP by libwebp, the AVIF by libavif with
/// dav1d) against the encoded picture, all three shown on the colour
/// they are shown on (`show`: transparent pictures composited onto
/// `background`), so an alpha error counts as the viewer sees it.
///
/// The search is a bisection over ``searchRange`` (about 6 encodes),
/// assuming SSIM falls as the quantizer rises; it runs once per item, on
/// the widest light rendition, and the quantizer is reused for the other
/// widths and the dark variants (the same quality setting, as the WebP
/// keeps one `webp_quality` for all of them).
///
/// An AVIF that is not smaller than its WebP is not served (``notSmaller``):
/// a client that prefers AVIF would download more bytes for a picture no
/// better. That happens on tiny pictures and on flat or striped ones, where
/// the AVIF container's fixed cost (about 300 bytes of `meta` boxes)
/// outweighs the coding gain: an 8x8 still's WebP is 158 bytes, its AVIF
/// 329. The light and dark AVIFs of a width go together (`?theme=dark`
/// serves the dark sibling of the light file), so either one failing
/// leaves the width's pair out.
struct AVIFQualityMatch {
  /// How far the AVIF's SSIM may fall below the WebP's.
  static let allowedShortfall = 0.003
  /// Quantizers searched (libaom's 0–63): below 10 the files grow past
  /// the WebP's for no visible gain; above 50 they band.
  static let searchRange = 10...50

  /// The alpha plane's quantizer for a colour quantizer `q`: alpha edges
  /// (type and cut-outs on a transparent page) show coding error more
  /// than colour does, so alpha is coded finer (libavif's default of 0,
  /// lossless, made a transparent logo's AVIF larger than its WebP).
  static func alphaQuantizer(for q: Int) -> Int { max(0, q - 12) }

  /// What the search found.
  struct Choice: Sendable, Equatable {
    /// The chosen colour quantizer, 0–63.
    var quantizer: Int
    /// The AVIF at that quantizer.
    var avif: Data
    /// SSIM of the AVIF and of the WebP against the encoded picture.
    var avifSSIM: Double
    var webpSSIM: Double
    /// Encodes the search made.
    var encodes: Int
    /// The WebP's size in bytes.
    var webpBytes: Int

    /// Whether the chosen AVIF is smaller than the WebP.
    var isSmallerThanWebP: Bool { avif.count < webpBytes }
  }

  /// The AVIFs of `pair` that are not smaller than their WebPs in `files`
  /// (`webpFor` maps an AVIF's name to its WebP's), with both sizes.
  static func notSmaller(_ pair: [(String, Data)], than files: [(String, Data)],
                         webpFor: [String: String]) -> [(avif: String, avifBytes: Int, webpBytes: Int)] {
    pair.compactMap { name, data in
      guard let webpName = webpFor[name], let webp = files.first(where: { $0.0 == webpName })?.1 else { return nil }
      return data.count < webp.count ? nil : (name, data.count, webp.count)
    }
  }

  /// How a picture is shown for the comparison (opaque pictures as they
  /// are; transparent ones flattened onto the light background).
  let show: (RGBAImage) -> RGBAImage

  /// - Parameters:
  ///   - picture: the picture the WebP was encoded from.
  ///   - webp: the WebP's bytes.
  /// - Throws: `MediaIOError` when a file does not decode or an encode fails.
  func choose(for picture: RGBAImage, webp: Data) throws(MediaIOError) -> Choice {
    let reference = show(picture)
    let webpPicture = try ImageSource.open(data: webp, path: "webp", limits: InputLimits(maxDuration: .infinity))
      .decodeStill().image
    let webpSSIM = try StillSSIM.compare(show(webpPicture), reference)
    let target = webpSSIM - Self.allowedShortfall
    var tried: [Int: (data: Data, ssim: Double)] = [:]
    func attempt(_ q: Int) throws(MediaIOError) -> (data: Data, ssim: Double) {
      if let known = tried[q] { return known }
      let data = try AVIFEncoder.encode(picture, quantizer: q, alphaQuantizer: Self.alphaQuantizer(for: q))
      let ssim = try StillSSIM.compare(show(try AVIFDecoder.decode(data)), reference)
      tried[q] = (data, ssim)
      return (data, ssim)
    }
    // Highest q in the range whose SSIM reaches the target; the lowest q
    // when none does.
    var low = Self.searchRange.lowerBound, high = Self.searchRange.upperBound
    var best: Int? = nil
    while low <= high {
      let mid = (low + high) / 2
      if try attempt(mid).ssim >= target {
        best = mid
        low = mid + 1
      } else {
        high = mid - 1
      }
    }
    let q = best ?? Self.searchRange.lowerBound
    let chosen = try attempt(q)
    return Choice(quantizer: q, avif: chosen.data, avifSSIM: chosen.ssim, webpSSIM: webpSSIM, encodes: tried.count,
                  webpBytes: webp.count)
  }
}
