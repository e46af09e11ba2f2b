import Foundation
import MediaIO

private typealias Luma = DarkVariantGenerator.Luma

/// What a carousel slot paints before its picture arrives: the banners.json
/// keys `thumbhash`, `dark_thumbhash`, `color` and `dark_color` of one item.
///
/// "What the carousel shows first" is the item's published `url` WebP for
/// an image (its first frame for an animation) and its `cover_url` for a
/// video; the dark keys are made from `dark_url` / `cover_dark_url`. Both
/// the build and `verify` read them from the published files, so the
/// placeholder describes the bytes a client downloads.
public struct Placeholder: Sendable, Equatable, Codable {
  /// The light picture's ThumbHash (`ThumbHash.encode` of a thumbnail at
  /// most 100 px on its longer side), standard base64 with padding: at most
  /// 40 characters for an opaque picture (25 bytes at most).
  public var thumbHash: String
  /// The dark picture's ThumbHash.
  public var darkThumbHash: String
  /// The light picture's average colour as shown, `#RRGGBB`: its alpha
  /// composited on `background` (sRGB-encoded values, as a browser blends),
  /// averaged over the thumbnail.
  public var colour: String
  /// The dark picture's, composited on `dark_surface`.
  public var darkColour: String

  public init(thumbHash: String, darkThumbHash: String, colour: String, darkColour: String) {
    self.thumbHash = thumbHash
    self.darkThumbHash = darkThumbHash
    self.colour = colour
    self.darkColour = darkColour
  }

  /// The placeholder of a light and a dark picture.
  ///
  /// - Parameters:
  ///   - light, dark: the pictures as published (RGBA, straight alpha).
  ///   - surfaces: `background` and `dark_surface`.
  /// - Throws: `MediaIOError` when the thumbnail cannot be made (libswscale).
  public static func make(light: RGBAImage, dark: RGBAImage, surfaces: PictureLook.Surfaces) throws(MediaIOError) -> Placeholder {
    make(light: try Thumbnail(light), dark: try Thumbnail(dark), surfaces: surfaces)
  }

  /// ``make(light:dark:surfaces:)`` from the two pictures' thumbnails.
  static func make(light l: Thumbnail, dark d: Thumbnail, surfaces: PictureLook.Surfaces) -> Placeholder {
    Placeholder(thumbHash: Data(ThumbHash.encode(l.image)).base64EncodedString(),
                darkThumbHash: Data(ThumbHash.encode(d.image)).base64EncodedString(),
                colour: l.averageShown(on: surfaces.light).hex, darkColour: d.averageShown(on: surfaces.dark).hex)
  }

  /// The placeholder of the published pictures `light` and `dark`,
  /// decoded as a client decodes them (the first frame of an animation).
  ///
  /// - Parameter decoded: pictures already decoded from files the build
  ///   wrote (``DecodedFiles``): a file with exactly those bytes takes its
  ///   picture instead of being decoded again.
  /// - Throws: `MarqueeError` (`encodeFailed`) naming the file that does
  ///   not open or decode, or the thumbnail that cannot be made.
  public static func read(light: URL, dark: URL, surfaces: PictureLook.Surfaces,
                          limits: InputLimits) throws(MarqueeError) -> Placeholder {
    var none = DecodedFiles()
    return try read(light: light, dark: dark, surfaces: surfaces, limits: limits, decoded: &none)
  }

  /// ``read(light:dark:surfaces:limits:)`` for a build: a file whose bytes
  /// `decoded` holds a picture of takes it instead of being decoded again,
  /// and its thumbnail is recorded in `decoded` under the same digest, for
  /// the build's own check of the placeholder. With `decoded` empty nothing
  /// is hashed.
  static func read(light: URL, dark: URL, surfaces: PictureLook.Surfaces, limits: InputLimits,
                   decoded known: inout DecodedFiles) throws(MarqueeError) -> Placeholder {
    let hashing = !known.isEmpty
    func read(_ url: URL) throws(MarqueeError) -> (digest: SHA256.Digest?, picture: RGBAImage) {
      do {
        let file = try limits.openSourceFile(atPath: url.path)
        try limits.check(file)
        let data = try file.readAll()
        let digest = hashing ? SHA256.hash(data) : nil
        if let digest, let picture = known.picture(for: digest) { return (digest, picture) }
        return (digest, try ImageSource.open(data: data, path: url.path, limits: limits).decodeStill().image)
      } catch {
        throw MarqueeError.encoding(error, file: url.lastPathComponent, output: "the placeholder")
      }
    }
    let (lightFile, darkFile) = (try read(light), try read(dark))
    do {
      let l = try Thumbnail(lightFile.picture), d = try Thumbnail(darkFile.picture)
      if let digest = lightFile.digest { known.record(digest, thumbnail: l) }
      if let digest = darkFile.digest { known.record(digest, thumbnail: d) }
      return make(light: l, dark: d, surfaces: surfaces)
    } catch {
      throw MarqueeError.encoding(error, file: light.lastPathComponent, output: "the placeholder")
    }
  }

  /// Per channel, the most a hash's or a `color` key's average colour may
  /// differ from the picture's (0–255): `verify`'s tolerance.
  public static let colourTolerance = 12

  /// What is wrong with this placeholder for `light` and `dark`, in words
  /// naming the key; empty when every key matches.
  ///
  /// Each hash must decode (its headers), keep the picture's average colour
  /// (the specification's alpha-weighted average, within
  /// ``colourTolerance`` per channel) and its aspect ratio: ThumbHash keeps
  /// the ratio only as `lx:ly`, whole numbers up to 7 (a 3:1 banner reads
  /// 7:2, 17 % off), so the hash's `lx` and `ly` must be the ones the
  /// picture's size gives, which puts its ratio as near the picture's as
  /// the format can. Each `color` must be the average as shown within
  /// ``colourTolerance``.
  ///
  /// - Parameter thumbnails: the pictures' thumbnails when the caller has
  ///   them (a build recorded them making the placeholder from the same
  ///   files); made here otherwise.
  public func problems(light: RGBAImage, dark: RGBAImage, surfaces: PictureLook.Surfaces) -> [String] {
    problems(light: light, dark: dark, surfaces: surfaces, thumbnails: (nil, nil))
  }

  func problems(light: RGBAImage, dark: RGBAImage, surfaces: PictureLook.Surfaces,
                thumbnails: (light: Thumbnail?, dark: Thumbnail?)) -> [String] {
    var problems: [String] = []
    for (key, hash, colourKey, colour, picture, known, surface) in [
      ("thumbhash", thumbHash, "color", self.colour, light, thumbnails.light, surfaces.light),
      ("dark_thumbhash", darkThumbHash, "dark_color", darkColour, dark, thumbnails.dark, surfaces.dark),
    ] {
      guard let thumbnail = known ?? (try? Thumbnail(picture)) else {
        problems.append("\(key): the picture could not be scaled to check it")
        continue
      }
      if let problem = Self.hashProblem(hash, thumbnail: thumbnail) { problems.append("\(key): \(problem)") }
      let shown = thumbnail.averageShown(on: surface)
      if let stated = RGBColor(hex: colour) {
        let d = Self.distance(stated, shown)
        if d > Self.colourTolerance {
          problems.append("\(colourKey): \(colour) is \(d) levels off the picture's average as shown, \(shown.hex)")
        }
      } else {
        problems.append("\(colourKey): \(JobJSON.quoted(colour)) is no #RRGGBB colour")
      }
    }
    return problems
  }

  private static func hashProblem(_ text: String, thumbnail: Thumbnail) -> String? {
    guard let data = Data(base64Encoded: text), let header = ThumbHash.Header([UInt8](data)) else {
      return "\(JobJSON.quoted(text)) is no ThumbHash"
    }
    let expected = thumbnail.average
    let decoded = RGBColor(r: Luma.byte(header.red * 255), g: Luma.byte(header.green * 255), b: Luma.byte(header.blue * 255))
    let d = distance(decoded, expected)
    if d > colourTolerance {
      return "its average colour \(decoded.hex) is \(d) levels off the picture's, \(expected.hex)"
    }
    let (lx, ly) = ThumbHash.lSize(width: thumbnail.image.width, height: thumbnail.image.height,
                                   hasAlpha: header.hasAlpha)
    if header.lx != lx || header.ly != ly {
      return String(format: "its aspect ratio %d:%d (%.2f) is not the picture's (%dx%d: %d:%d)", header.lx, header.ly,
                    header.approximateAspectRatio, thumbnail.image.width, thumbnail.image.height, lx, ly)
    }
    return nil
  }

  private static func distance(_ a: RGBColor, _ b: RGBColor) -> Int {
    max(abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)))
  }

  /// A picture's ThumbHash thumbnail and its averages.
  struct Thumbnail: Sendable, Equatable {
    let image: RGBAImage

    init(_ picture: RGBAImage) throws(MediaIOError) {
      let size = ThumbHash.thumbnailSize(width: picture.width, height: picture.height)
      image = try ImageResampler.resize(picture, width: size.width, height: size.height)
    }

    /// The average colour weighted by alpha (ThumbHash's DC terms); the
    /// colour of a fully transparent picture is black.
    var average: RGBColor {
      var sum = (0.0, 0.0, 0.0), weight = 0.0
      let p = image.pixels
      for i in stride(from: 0, to: p.count, by: 4) {
        let a = Double(p[i + 3])
        sum.0 += a * Double(p[i]); sum.1 += a * Double(p[i + 1]); sum.2 += a * Double(p[i + 2])
        weight += a
      }
      guard weight > 0 else { return RGBColor(r: 0, g: 0, b: 0) }
      return RGBColor(r: Luma.byte(sum.0 / weight), g: Luma.byte(sum.1 / weight), b: Luma.byte(sum.2 / weight))
    }

    /// The average colour of the picture composited on `surface`.
    func averageShown(on surface: RGBColor) -> RGBColor {
      var sum = (0.0, 0.0, 0.0)
      let p = image.pixels
      let s = (Double(surface.r), Double(surface.g), Double(surface.b))
      for i in stride(from: 0, to: p.count, by: 4) {
        let a = Double(p[i + 3]) / 255
        sum.0 += a * Double(p[i]) + (1 - a) * s.0
        sum.1 += a * Double(p[i + 1]) + (1 - a) * s.1
        sum.2 += a * Double(p[i + 2]) + (1 - a) * s.2
      }
      let n = Double(image.width * image.height)
      return RGBColor(r: Luma.byte(sum.0 / n), g: Luma.byte(sum.1 / n), b: Luma.byte(sum.2 / n))
    }
  }
}
