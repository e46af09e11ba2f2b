import Foundation

/// A decoded still picture, upright and in sRGB.
public struct DecodedPicture: Sendable {
  /// RGBA8, sRGB, straight alpha, EXIF orientation applied.
  public var image: RGBAImage
  /// Problems that did not stop decoding and leave every pixel as the file
  /// says (an unusable profile, a bad EXIF value, padding after the image
  /// data).
  public var warnings: [String]
  /// What is wrong with the picture when its decoder could not decode part
  /// of the image data and concealed it (libjpeg fills what it cannot
  /// decode and carries on: a bad Huffman code, garbage inside the
  /// entropy-coded data, a lost restart marker), or when the file is cut
  /// short inside a GIF frame (`ImageHeader.damage`); nil when the picture
  /// is whole. libavcodec's PNG decoder and libheif refuse such data
  /// instead (a `MediaIOError`).
  public var damage: String? = nil

  public init(image: RGBAImage, warnings: [String], damage: String? = nil) {
    self.image = image
    self.warnings = warnings
    self.damage = damage
  }
}

/// An image file opened for decoding: its bytes (memory-mapped) and the
/// header facts read from them, with every limit already checked.
///
/// One linear pass, in the order sharp's pipeline uses: read the header and
/// refuse what is too big; decode (JPEG shrink-on-load when a smaller size
/// is all that is needed); convert colour to sRGB with the embedded profile;
/// apply the EXIF orientation. Resizing and encoding are the caller's.
///
/// ```swift
/// let source = try ImageSource.open(path: "/in/photo.jpg", limits: InputLimits())
/// let picture = try source.decodeStill(minimumWidth: 1170)
/// ```
public struct ImageSource: Sendable {
  /// Default cap on frames × pixels per frame for animations (250 MP: a
  /// minute of 640×360 at 15 fps fits, a 4K GIF of 30 frames does not).
  public static let defaultMaxAnimationPixels = 250_000_000

  /// The file path.
  public let path: String
  /// The file name, used in messages.
  public let name: String
  /// What the headers say.
  public let header: ImageHeader
  let data: Data

  /// Opens `path`, recognises its format from its magic bytes and reads its
  /// header, refusing it before any decoding when a limit is exceeded.
  ///
  /// - Parameters:
  ///   - path: a local file (`ReadableFile.open(path:)`: a regular file,
  ///     a symbolic link followed).
  ///   - limits: `maxFileSize` (bytes, checked with `fstat` on the opened
  ///     file before reading) and `maxPixels` (width × height of one
  ///     picture or animation canvas, checked from the header).
  ///   - maxAnimationPixels: cap on frame count × canvas pixels.
  /// - Throws: `MediaIOError`; limit errors have `kind == .limit` and a
  ///   reason naming the limit and the value.
  public static func open(path: String, limits: InputLimits,
                          maxAnimationPixels: Int = defaultMaxAnimationPixels) throws(MediaIOError) -> ImageSource {
    let file = try limits.openSourceFile(atPath: path)
    return try open(file: file, path: path, limits: limits, maxAnimationPixels: maxAnimationPixels)
  }

  /// Like `open(path:…)`, for a file already opened (for example with
  /// `ReadableFile.open(_:beneath:)`). The file is read into memory whole.
  public static func open(file: ReadableFile, path: String, limits: InputLimits,
                          maxAnimationPixels: Int = defaultMaxAnimationPixels) throws(MediaIOError) -> ImageSource {
    try limits.check(file)
    let data = try file.readAll()
    return try open(data: data, path: path, limits: limits, maxAnimationPixels: maxAnimationPixels)
  }

  /// Like `open(path:…)`, for bytes in memory; `path` names them in
  /// messages. Every parser reads through bounds-checked views, so any
  /// bytes give a header or a `MediaIOError`.
  public static func open(data: Data, path: String, limits: InputLimits,
                          maxAnimationPixels: Int = defaultMaxAnimationPixels) throws(MediaIOError) -> ImageSource {
    let name = (path as NSString).lastPathComponent
    guard !data.isEmpty else { throw .failure("stat", name, "file is empty") }
    guard Int64(data.count) <= limits.maxFileSize else {
      throw .limit(name, "file is \(data.count) bytes, over the max_file_size limit of \(limits.maxFileSize) bytes")
    }
    let header = try data.withByteView { (b) throws(MediaIOError) -> ImageHeader in
      guard let format = ImageFormat.sniff(b) else {
        throw .failure("probe", name, "not a supported image (expected JPEG, PNG, GIF, WebP or HEIF by content)", kind: .unsupported)
      }
      switch format {
      case .jpeg: return try JPEGMarkers.header(b, name: name)
      case .png: return try PNGHeader.header(b, name: name)
      case .gif: return try GIFHeader.header(b, name: name)
      case .webp: return try WebPHeader.header(b, name: name)
      case .heif:
        let container = try HEIFDecoder.Container(b, name: name)
        let info = HEIFDecoder.info(container)
        return ImageHeader(format: .heif, storedWidth: info.width, storedHeight: info.height,
                           iccProfile: info.icc, summary: info.summary, warnings: info.warnings)
      case .other:
        return try FFmpegImageFrames.header(data: data, format: .other, limits: limits, name: name)
      }
    }
    try checkLimits(header, limits: limits, maxAnimationPixels: maxAnimationPixels, name: name)
    return ImageSource(path: path, name: name, header: header, data: data)
  }

  static func checkLimits(_ h: ImageHeader, limits: InputLimits, maxAnimationPixels: Int, name: String) throws(MediaIOError) {
    guard h.storedWidth > 0, h.storedHeight > 0 else {
      throw .failure("probe", name, "picture size \(h.storedWidth)x\(h.storedHeight) is invalid", kind: .invalidData)
    }
    let (pixels, overflow) = h.storedWidth.multipliedReportingOverflow(by: h.storedHeight)
    if overflow || pixels > limits.maxPixels {
      throw .limit(name, "picture is \(h.storedWidth)x\(h.storedHeight) = \(overflow ? "too many" : String(pixels)) pixels, over the max_pixels limit of \(limits.maxPixels)")
    }
    if h.frameCount > 1 {
      let (total, overflow2) = pixels.multipliedReportingOverflow(by: h.frameCount)
      if overflow2 || total > maxAnimationPixels {
        throw .limit(name, "animation is \(h.frameCount) frames of \(h.storedWidth)x\(h.storedHeight) = \(overflow2 ? "too many" : String(total)) pixels in all, over the animation limit of \(maxAnimationPixels) pixels (frames × pixels)")
      }
    }
  }

  // MARK: - Decoding

  /// Decodes the (first) picture, upright and in sRGB.
  ///
  /// - Parameter minimumWidth: the widest upright width the caller needs; a
  ///   JPEG may then be decoded at 1/2, 1/4 or 1/8 scale in the DCT domain,
  ///   never below this width. `nil` decodes at full size.
  /// - Returns: the picture (at full size, or at a JPEG scale ≥
  ///   `minimumWidth`) and warnings.
  /// - Throws: `MediaIOError` for corrupt or truncated data.
  public func decodeStill(minimumWidth: Int? = nil) throws(MediaIOError) -> DecodedPicture {
    var warnings = header.warnings
    let name = self.name
    let header = self.header
    switch header.format {
    case .jpeg:
      let out = try data.withByteView { (b) throws(MediaIOError) -> JPEGDecoder.Output in
        let denominator = JPEGDecoder.scaleDenominator(side: header.width, minimum: minimumWidth)
        return try JPEGDecoder.decode(b, name: name, scaleDenominator: denominator, icc: header.iccProfile)
      }
      warnings += out.warnings
      return DecodedPicture(image: out.image.applying(header.orientation), warnings: warnings, damage: out.damage)
    case .heif:
      let (image, more) = try data.withByteView { (b) throws(MediaIOError) -> (RGBAImage, [String]) in
        let container = try HEIFDecoder.Container(b, name: name)
        return try HEIFDecoder.decode(container, name: name)
      }
      return DecodedPicture(image: image, warnings: warnings + more.filter { !warnings.contains($0) })
    case .png, .gif, .webp, .other:
      var first: RGBAImage?
      let summary = try decodeFrames(keeping: [0]) { (_, image) throws(MediaIOError) in first = image }
      guard let image = first else { throw .failure("decode", name, "no picture could be decoded") }
      return DecodedPicture(image: image, warnings: warnings + summary.warnings, damage: header.damage)
    }
  }

  /// Decodes the (first) picture as `decodeStill` does and drops it: the
  /// one rule that says whether a still is whole. `marquee build` decodes
  /// with `decodeStill` and fails the item on its error; `marquee validate`
  /// calls this, so both refuse the same files with the same reason.
  ///
  /// A JPEG is decoded at its smallest DCT scale (1/8): libjpeg still reads
  /// every entropy-coded segment, so a file cut short ends before the last
  /// row exactly as at full size (its premature-end warning,
  /// `JWRN_JPEG_EOF`). PNG and GIF go through libavcodec's decoder, WebP
  /// through libwebp, HEIC through libheif, as in `decodeStill`.
  ///
  /// - Returns: what the decoder concealed (`DecodedPicture.damage`), nil
  ///   when the still is whole. libjpeg conceals the same damage at 1/8
  ///   scale: it reads every entropy-coded segment at any scale.
  /// - Throws: `MediaIOError` for corrupt or truncated data: the error
  ///   `decodeStill` throws for the same bytes.
  @discardableResult
  public func checkDecodes() throws(MediaIOError) -> String? {
    try decodeStill(minimumWidth: 1).damage
  }

  /// What `decodeFrames` did.
  public struct FrameDecodeSummary: Sendable {
    /// Frames decoded (up to the last one asked for).
    public var decodedCount: Int
    /// Decoding and colour warnings.
    public var warnings: [String]
  }

  /// Decodes an animation's frames as full composited canvases in sRGB,
  /// handing `body` each frame whose 0-based index is in `indices`, in
  /// order. Decoding stops after the last wanted frame.
  ///
  /// GIF frames come from libavcodec's GIF decoder (disposal and
  /// transparency applied), WebP frames from libwebp's `WebPAnimDecoder`
  /// (blend and dispose applied). Frames not wanted are decoded (later
  /// frames depend on them) but not converted or copied.
  ///
  /// - Throws: `MediaIOError` for corrupt data, or whatever `body` throws.
  public func decodeFrames(keeping indices: Set<Int>,
                           _ body: (Int, RGBAImage) throws(MediaIOError) -> Void) throws(MediaIOError) -> FrameDecodeSummary {
    guard let last = indices.max() else { return FrameDecodeSummary(decodedCount: 0, warnings: []) }
    let name = self.name
    var warnings: [String] = []
    switch header.format {
    case .webp:
      let icc = header.iccProfile
      var conversion = CachedConversion()
      let count = try data.withByteView { (b) throws(MediaIOError) -> Int in
        try WebPFrameDecoder.decode(b, name: name) { (i, canvas) throws(MediaIOError) -> Bool in
          if indices.contains(i) {
            var image = canvas
            warnings += conversion.apply(to: &image, icc: icc, gamma: nil)
            try body(i, image)
          }
          return i < last
        }
      }
      return FrameDecodeSummary(decodedCount: count, warnings: warnings)
    case .png, .gif, .other:
      var conversion = CachedConversion()
      let count = try FFmpegImageFrames.decode(data: data, format: header.format, limits: InputLimits(maxFileSize: .max, maxPixels: .max, maxDuration: .infinity),
                                               name: name) { (i, frame) throws(MediaIOError) -> Bool in
        if indices.contains(i) {
          let (image, more) = try FFmpegImageFrames.rgba(frame, name: name, conversion: &conversion)
          warnings += more
          try body(i, image)
        }
        return i < last
      }
      return FrameDecodeSummary(decodedCount: count, warnings: warnings)
    case .jpeg, .heif:
      let picture = try decodeStill()
      try body(0, picture.image)
      return FrameDecodeSummary(decodedCount: 1, warnings: picture.warnings)
    }
  }
}
