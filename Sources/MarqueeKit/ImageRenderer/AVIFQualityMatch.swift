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
/// The search (``choose(for:webp:)``) assumes SSIM falls as the
/// quantizer rises, and finds the highest quantizer in ``searchRange``
/// whose file, encoded at libaom's file speed (`AVIFEncoder.speed`),
/// reaches the target. A file encode costs about a second on a 1280x720
/// picture, so most of the search is made of probes: encodes at
/// `AVIFEncoder.probeSpeed`, 8–40x faster and never written, whose SSIM
/// is lower than the file speed's at the same quantizer (measured on
/// covers and photos, BENCHMARKS.md "AVIF"):
/// 1. a bisection of probes finds the highest quantizer whose probe
///    reaches the target;
/// 2. the file speed at that quantizer measures how much of the probe's
///    error (1 - SSIM) it leaves; when it does not reach the target after
///    all, the file speed is searched below it;
/// 3. a second bisection of probes, their error scaled by that share,
///    predicts the highest quantizer the file speed reaches;
/// 4. the prediction's file narrows the interval between the highest
///    quantizer known to reach the target and the lowest known not to,
///    the share is measured again at a new highest, and so on until the
///    two are neighbours.
/// So a search makes three or four file encodes where a bisection at file
/// speed alone made five or six, and under the assumption it finds the
/// same quantizer. Where the assumption fails (smooth gradients and faint
/// noise, whose SSIM rises and falls from one quantizer to the next), both
/// searches find a quantizer that reaches the target, but not always the
/// same one, nor the highest (BENCHMARKS.md, issue 26). It runs once per item, on the widest light rendition, and
/// the quantizer is reused for the other widths and the dark variants
/// (the same quality setting, as the WebP keeps one `webp_quality` for
/// all of them).
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
    /// File-speed encodes the search made (the chosen file among them).
    var encodes: Int
    /// Probe encodes (`AVIFEncoder.probeSpeed`) the search made.
    var probes: Int
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
    let range = Self.searchRange
    var files: [Int: (data: Data, ssim: Double)] = [:]
    var probes: [Int: Double] = [:]
    /// The file at `q` and its SSIM.
    func attempt(_ q: Int) throws(MediaIOError) -> (data: Data, ssim: Double) {
      if let known = files[q] { return known }
      let data = try AVIFEncoder.encode(picture, quantizer: q, alphaQuantizer: Self.alphaQuantizer(for: q))
      let measured = (data, try ssim(of: data))
      files[q] = measured
      return measured
    }
    /// A probe's SSIM at `q`.
    func probe(_ q: Int) throws(MediaIOError) -> Double {
      if let known = probes[q] { return known }
      let data = try AVIFEncoder.encode(picture, quantizer: q, alphaQuantizer: Self.alphaQuantizer(for: q),
                                        speed: AVIFEncoder.probeSpeed)
      let measured = try ssim(of: data)
      probes[q] = measured
      return measured
    }
    func ssim(of avif: Data) throws(MediaIOError) -> Double {
      try StillSSIM.compare(show(try AVIFDecoder.decode(avif)), reference)
    }

    let q: Int
    // 1. The highest quantizer whose probe reaches the target; the lowest
    //    when none does.
    let start = try Self.highest(in: range) { (q) throws(MediaIOError) in try probe(q) >= target } ?? range.lowerBound
    let first = try attempt(start)
    if first.ssim < target {
      // 2. The file speed is short of the probe here: search below.
      q = try Self.highest(in: range.lowerBound...start) { (q) throws(MediaIOError) in
        try attempt(q).ssim >= target
      } ?? range.lowerBound
    } else {
      // 3–4. Between the highest quantizer known to reach the target
      //    (`reaches`) and the lowest known not to (`misses`), encode the
      //    file the probes predict: their error (1 - SSIM) scaled by the
      //    share of it the file speed left at `reaches` (a share that
      //    falls as the quantizer rises, so it is measured again at each
      //    new `reaches`). Past three predictions, bisect.
      var reaches = start, misses = range.upperBound + 1
      var predictions = 0
      while misses - reaches > 1 {
        let next: Int
        if predictions < 3 {
          let probeError = 1 - (try probe(reaches))
          let share = probeError > 0 ? (1 - (try attempt(reaches).ssim)) / probeError : 1
          next = try Self.highest(in: (reaches + 1)...(misses - 1)) { (q) throws(MediaIOError) in
            try 1 - (1 - probe(q)) * share >= target
          } ?? reaches + 1
          predictions += 1
        } else {
          next = (reaches + misses) / 2
        }
        if try attempt(next).ssim >= target { reaches = next } else { misses = next }
      }
      q = reaches
    }
    let chosen = try attempt(q)
    return Choice(quantizer: q, avif: chosen.data, avifSSIM: chosen.ssim, webpSSIM: webpSSIM, encodes: files.count,
                  probes: probes.count, webpBytes: webp.count)
  }

  /// The highest value of `range` that `passes`, by bisection (so
  /// assuming that what passes is a lower part of the range); nil when
  /// none does.
  static func highest(in range: ClosedRange<Int>,
                      _ passes: (Int) throws(MediaIOError) -> Bool) throws(MediaIOError) -> Int? {
    var low = range.lowerBound, high = range.upperBound
    var best: Int? = nil
    while low <= high {
      let mid = (low + high) / 2
      if try passes(mid) {
        best = mid
        low = mid + 1
      } else {
        high = mid - 1
      }
    }
    return best
  }
}
