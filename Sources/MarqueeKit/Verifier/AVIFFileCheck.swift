import Foundation
import MediaIO

/// Checks one AVIF file of a bundle (an image width's or a cover's twin of
/// its WebP): present and not empty, an AVIF libavif parses, the size its
/// WebP has, and (when decoding) its AV1 data decodes whole with dav1d.
///
/// AVIF files are read with libavif, never with the image-source readers,
/// which take AVIF only where libheif has an AV1 decoder.
enum AVIFFileCheck {
  /// What was read of a file that passed.
  struct Read {
    var width: Int
    var height: Int
    /// The decoded picture, when decoding was asked for.
    var picture: RGBAImage?
  }

  /// Whether `path` names an AVIF file (by its extension, as nginx serves it).
  static func isAVIF(_ path: String) -> Bool {
    (path as NSString).pathExtension.lowercased() == "avif"
  }

  /// Reads and checks the AVIF at `path`.
  ///
  /// - Parameters:
  ///   - size: the size banners.json states for it (its WebP's), in
  ///     pixels, when known.
  ///   - decode: decode the AV1 data, not only parse the container.
  /// - Returns: what was read, or the problem in words (without the key).
  static func read(_ path: String, files: AssetFiles, size: (width: Int, height: Int)?,
                   decode: Bool) -> Result<Read, Problem> {
    guard (files.size(path) ?? 0) > 0 else { return .failure(Problem("AVIF is missing or empty")) }
    let limits = ImageAssetVerifier.openLimits
    let data: Data
    do {
      let file = try files.open(path)
      try limits.check(file)
      data = try file.readAll()
    } catch {
      return .failure(Problem("not a readable AVIF: \(error.reason)"))
    }
    let parsed: (width: Int, height: Int)
    do { parsed = try AVIFDecoder.size(of: data, maxPixels: limits.maxPixels) } catch {
      return .failure(Problem("not a readable AVIF: \(error.reason)"))
    }
    if let size, parsed.width != size.width || parsed.height != size.height {
      return .failure(Problem("AVIF is \(parsed.width)x\(parsed.height) but its WebP is \(size.width)x\(size.height)"))
    }
    guard decode else { return .success(Read(width: parsed.width, height: parsed.height)) }
    do {
      let picture = try AVIFDecoder.decode(data, maxPixels: limits.maxPixels)
      guard picture.width == parsed.width, picture.height == parsed.height else {
        return .failure(Problem("AVIF decodes to \(picture.width)x\(picture.height), its header says \(parsed.width)x\(parsed.height)"))
      }
      return .success(Read(width: parsed.width, height: parsed.height, picture: picture))
    } catch {
      return .failure(Problem("AVIF does not decode: \(error.reason)"))
    }
  }

  /// A problem in words.
  struct Problem: Error {
    var text: String
    init(_ text: String) { self.text = text }
  }
}
