import Foundation

/// The image file formats the image stage reads, recognised by their magic
/// bytes (never by the file name).
public enum ImageFormat: String, Sendable, Equatable, CaseIterable {
  /// JPEG/JFIF/Exif (`FF D8 FF`), decoded with libjpeg-turbo.
  case jpeg
  /// PNG (`89 50 4E 47 0D 0A 1A 0A`), decoded with libavcodec.
  case png
  /// GIF87a/GIF89a, decoded with libavcodec (frames composited).
  case gif
  /// WebP (`RIFF….WEBP`), still or animated, decoded with libwebp.
  case webp
  /// HEIF/HEIC/AVIF (an ISO BMFF `ftyp` with a HEIF brand), decoded with libheif.
  case heif
  /// BMP or TIFF, decoded with libavcodec (no header parse of our own;
  /// libavformat's probe gives the size before decoding).
  case other

  /// How many leading bytes `recognize(_:)` reads at most: enough for
  /// every signature, a HEIF `ftyp` box's brands included.
  public static let signatureLength = 64

  /// Recognises an image format from the first bytes of a file, by content
  /// alone (the name plays no part): the same rule `ImageSource.open` uses.
  ///
  /// - Parameter head: the file's first bytes, ideally `signatureLength` of
  ///   them (fewer for a shorter file; only the first `signatureLength` are
  ///   read).
  /// - Returns: the format, or `nil` when the bytes start no image format
  ///   Marquee reads (a video container, text, anything else).
  public static func recognize(_ head: Data) -> ImageFormat? {
    let bytes = head.prefix(signatureLength)
    return try? bytes.withByteView { (b) throws(MediaIOError) -> ImageFormat? in sniff(b) }
  }

  /// Recognises a format from the first bytes of a file.
  static func sniff(_ b: ByteView) -> ImageFormat? {
    if b.u8(0) == 0xFF && b.u8(1) == 0xD8 && b.u8(2) == 0xFF { return .jpeg }
    if b.u8(0) == 0x89 && b.matches(1, "PNG\r\n\u{1A}\n") { return .png }
    if b.matches(0, "GIF87a") || b.matches(0, "GIF89a") { return .gif }
    if b.matches(0, "RIFF") && b.matches(8, "WEBP") { return .webp }
    if b.matches(4, "ftyp") {
      let brands = ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1", "avif", "avis"]
      // The major brand, then compatible brands after the minor version.
      let boxSize = b.be32(0) ?? 0
      var at = 8
      let end = min(max(boxSize, 16), 64, b.count)
      while at + 4 <= end {
        if brands.contains(where: { b.matches(at, $0) }) { return .heif }
        at += at == 8 ? 8 : 4
      }
      return nil
    }
    if b.matches(0, "BM") || b.matches(0, "II*\0") || b.matches(0, "MM\0*") { return .other }
    return nil
  }
}

/// What an image file says about itself, read from its headers before any
/// pixel is decoded.
public struct ImageHeader: Sendable, Equatable {
  /// The file format.
  public var format: ImageFormat
  /// Picture (or animation canvas) width and height in pixels as stored,
  /// before `orientation` is applied.
  public var storedWidth: Int
  public var storedHeight: Int
  /// What the decoder still has to do to show the picture upright: a JPEG's
  /// EXIF `Orientation`. `.identity` for every other format (HEIF `irot`/
  /// `imir` are applied by libheif and already reflected in the size).
  public var orientation: DisplayTransform
  /// Number of frames: 1 for a still picture.
  public var frameCount: Int
  /// Display time of each frame in milliseconds (animations; empty for
  /// stills). GIF and WebP delays of 10 ms or less are read as 100 ms, as
  /// browsers and iOS image libraries do.
  public var frameDurations: [Int]
  /// How many times an animation plays: 0 = forever.
  public var loopCount: Int
  /// The embedded ICC profile when the header carries it (JPEG APP2, WebP
  /// ICCP, HEIF `colr`); PNG's compressed `iCCP` is read from the decoded
  /// frame instead.
  public var iccProfile: Data?
  /// Short description for messages, such as `JPEG progressive, 3 components`.
  public var summary: String
  /// Things worth telling the user that do not stop decoding.
  public var warnings: [String]
  /// What the header walk found cut short, nil when the file is whole: a
  /// GIF whose file ends inside its last frame's image data (no trailer).
  /// libavcodec decodes what is there; `DecodedPicture.damage` carries it.
  public var damage: String? = nil

  /// Upright width: `storedHeight` when the orientation swaps sides.
  public var width: Int { orientation.swapsDimensions ? storedHeight : storedWidth }
  /// Upright height.
  public var height: Int { orientation.swapsDimensions ? storedWidth : storedHeight }
  /// Whether there is more than one frame.
  public var isAnimated: Bool { frameCount > 1 }

  public init(format: ImageFormat, storedWidth: Int, storedHeight: Int, orientation: DisplayTransform = .identity,
              frameCount: Int = 1, frameDurations: [Int] = [], loopCount: Int = 0, iccProfile: Data? = nil,
              summary: String, warnings: [String] = []) {
    self.format = format
    self.storedWidth = storedWidth
    self.storedHeight = storedHeight
    self.orientation = orientation
    self.frameCount = frameCount
    self.frameDurations = frameDurations
    self.loopCount = loopCount
    self.iccProfile = iccProfile
    self.summary = summary
    self.warnings = warnings
  }

  /// Browsers and iOS image libraries show frames of 10 ms or less for
  /// 100 ms (a GIF delay of 0 or 1 centisecond means "as fast as possible",
  /// which they throttle); the output keeps the timing people saw.
  static func effectiveDuration(milliseconds: Int) -> Int {
    milliseconds <= 10 ? 100 : milliseconds
  }
}

// MARK: - JPEG

/// The JPEG marker segments before the first scan: size from the frame
/// header (SOF), EXIF, ICC profile chunks, the Adobe APP14 transform.
struct JPEGMarkers {
  var width = 0
  var height = 0
  var components = 0
  var process = "baseline"
  var exif: Data?
  var icc: Data?
  var adobeTransform: Int?
  var warnings: [String] = []

  /// Walks the marker segments up to the first SOS.
  ///
  /// - Throws: `MediaIOError` when a segment runs past the end of the file,
  ///   a length is invalid, or there is no frame header before the scan.
  static func parse(_ b: ByteView, name: String) throws(MediaIOError) -> JPEGMarkers {
    var m = JPEGMarkers()
    var sawSOF = false
    var iccChunks: [Int: Data] = [:]
    var iccCount = 0
    var pos = 2
    scan: while pos < b.count {
      guard b.u8(pos) == 0xFF else {
        // Garbage between segments: libjpeg skips it with a warning.
        pos += 1
        continue
      }
      var markerAt = pos
      while b.u8(markerAt + 1) == 0xFF { markerAt += 1 }  // fill bytes
      guard let marker = b.u8(markerAt + 1) else { break }
      pos = markerAt + 2
      switch marker {
      case 0x00, 0x01, 0xD0...0xD8:
        continue  // stuffed byte, TEM, RSTn, SOI: no length
      case 0xD9:
        break scan  // EOI before any scan
      default:
        break
      }
      guard let length = b.be16(pos) else {
        throw .failure("jpeg_read_header", name, "JPEG is truncated: marker 0x\(hex(marker)) at byte \(markerAt) has no length")
      }
      guard length >= 2 else {
        throw .failure("jpeg_read_header", name, "JPEG is corrupt: marker 0x\(hex(marker)) at byte \(markerAt) has length \(length)")
      }
      let payload = (pos + 2)..<(pos + length)
      guard payload.upperBound <= b.count else {
        throw .failure("jpeg_read_header", name,
                       "JPEG is truncated: the \(markerName(marker)) segment at byte \(markerAt) declares \(length) bytes but the file ends \(b.count - pos) bytes later")
      }
      let seg = b.view(payload)
      switch marker {
      case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
        if !sawSOF {
          guard let h = seg.be16(1), let w = seg.be16(3), let n = seg.u8(5) else {
            throw .failure("jpeg_read_header", name, "JPEG frame header (SOF) is too short")
          }
          guard w > 0 else { throw .failure("jpeg_read_header", name, "JPEG frame header gives width 0") }
          guard h > 0 else {
            throw .failure("jpeg_read_header", name, "JPEG frame header gives height 0 (DNL-defined height is not supported)")
          }
          m.width = w
          m.height = h
          m.components = Int(n)
          switch marker {
          case 0xC0: m.process = "baseline"
          case 0xC1: m.process = "extended"
          case 0xC2: m.process = "progressive"
          case 0xC3: m.process = "lossless"
          case 0xC9, 0xCA: m.process = "arithmetic"
          default: m.process = "hierarchical"
          }
          sawSOF = true
        }
      case 0xE1:
        if m.exif == nil, seg.matches(0, "Exif\0\0") {
          m.exif = seg.copy(6..<seg.count)
        }
      case 0xE2:
        if seg.matches(0, "ICC_PROFILE\0"), let seq = seg.u8(12), let total = seg.u8(13) {
          iccCount = max(iccCount, Int(total))
          if iccChunks[Int(seq)] == nil, let chunk = seg.copy(14..<seg.count) { iccChunks[Int(seq)] = chunk }
        }
      case 0xEE:
        if seg.matches(0, "Adobe"), let t = seg.u8(11) { m.adobeTransform = Int(t) }
      case 0xDA:
        break scan
      default:
        break
      }
      pos = payload.upperBound
    }
    guard sawSOF else {
      throw .failure("jpeg_read_header", name, "JPEG has no frame header (SOF): the file holds no picture data")
    }
    if iccCount > 0 {
      var profile = Data()
      var complete = true
      for seq in 1...iccCount {
        guard let chunk = iccChunks[seq] else { complete = false; break }
        profile.append(chunk)
      }
      if complete {
        m.icc = profile
      } else {
        m.warnings.append("the embedded ICC profile is incomplete (\(iccChunks.count) of \(iccCount) APP2 chunks); treated as sRGB")
      }
    }
    return m
  }

  static func hex(_ v: UInt8) -> String { String(v, radix: 16, uppercase: true) }

  static func markerName(_ m: UInt8) -> String {
    switch m {
    case 0xE0...0xEF: return "APP\(m - 0xE0)"
    case 0xC0...0xCF where m != 0xC4 && m != 0xC8 && m != 0xCC: return "SOF\(m - 0xC0)"
    case 0xC4: return "DHT"
    case 0xDB: return "DQT"
    case 0xDA: return "SOS"
    case 0xDD: return "DRI"
    case 0xFE: return "COM"
    default: return "0x\(hex(m))"
    }
  }

  /// The header for a JPEG file, including its EXIF orientation.
  static func header(_ b: ByteView, name: String) throws(MediaIOError) -> ImageHeader {
    let m = try parse(b, name: name)
    var warnings = m.warnings
    var orientation = DisplayTransform.identity
    if let exif = m.exif {
      if let value = ExifReader.orientation(tiff: exif) {
        if let t = DisplayTransform(exifOrientation: value) {
          orientation = t
        } else {
          warnings.append("EXIF orientation \(value) is not 1–8; the picture is used as stored")
        }
      }
    }
    let kind: String
    switch m.components {
    case 1: kind = "grayscale"
    case 3: kind = "colour"
    case 4: kind = m.adobeTransform == 2 ? "YCCK" : "CMYK"
    default: kind = "\(m.components) components"
    }
    return ImageHeader(format: .jpeg, storedWidth: m.width, storedHeight: m.height, orientation: orientation,
                       iccProfile: m.icc, summary: "JPEG \(m.process), \(kind)", warnings: warnings)
  }
}

// MARK: - PNG

enum PNGHeader {
  /// Reads IHDR (which must be the first chunk) and looks for `acTL`
  /// (animated PNG) before the first `IDAT`.
  static func header(_ b: ByteView, name: String) throws(MediaIOError) -> ImageHeader {
    guard b.be32(8) == 13, b.matches(12, "IHDR"), let w = b.be32(16), let h = b.be32(20),
          let depth = b.u8(24), let type = b.u8(25) else {
      throw .failure("png_read_info", name, "PNG is truncated or corrupt: no valid IHDR chunk")
    }
    guard w > 0, h > 0, w <= Int(Int32.max), h <= Int(Int32.max) else {
      throw .failure("png_read_info", name, "PNG header gives an invalid size \(w)x\(h)")
    }
    var warnings: [String] = []
    var pos = 8
    while let length = b.be32(pos), b.count >= pos + 12 + length {
      if b.matches(pos + 4, "IDAT") { break }
      if b.matches(pos + 4, "acTL") {
        warnings.append("animated PNG: only the default image is used")
        break
      }
      pos += 12 + length
    }
    let kinds: [UInt8: String] = [0: "gray", 2: "RGB", 3: "palette", 4: "gray+alpha", 6: "RGBA"]
    return ImageHeader(format: .png, storedWidth: w, storedHeight: h,
                       summary: "PNG \(kinds[type] ?? "type \(type)") \(depth)-bit", warnings: warnings)
  }
}

// MARK: - GIF

enum GIFHeader {
  /// Walks the GIF blocks (logical screen, extensions, image descriptors)
  /// without decompressing anything, to count frames and read their delays
  /// and the NETSCAPE2.0 loop count.
  ///
  /// A stream that stops early or has trailing garbage ends the walk once at
  /// least one frame was seen (browsers do the same).
  static func header(_ b: ByteView, name: String) throws(MediaIOError) -> ImageHeader {
    guard let w = b.le16(6), let h = b.le16(8), let flags = b.u8(10) else {
      throw .failure("gif_read_header", name, "GIF is truncated: no logical screen descriptor")
    }
    guard w > 0, h > 0 else { throw .failure("gif_read_header", name, "GIF gives an invalid size \(w)x\(h)") }
    var pos = 13
    if flags & 0x80 != 0 { pos += 3 << (Int(flags & 7) + 1) }
    var delays: [Int] = []
    var pendingDelay = 0
    var loopCount = 1
    let warnings: [String] = []
    var damage: String?
    func skipSubBlocks(_ start: Int) -> Int? {
      var at = start
      while let n = b.u8(at) {
        at += 1
        if n == 0 { return at }
        at += Int(n)
      }
      return nil
    }
    walk: while let label = b.u8(pos) {
      switch label {
      case 0x21:
        guard let kind = b.u8(pos + 1) else { break walk }
        if kind == 0xF9, b.u8(pos + 2) == 4, let delay = b.le16(pos + 4) {
          pendingDelay = delay * 10
        } else if kind == 0xFF, b.u8(pos + 2) == 11, b.matches(pos + 3, "NETSCAPE2.0") || b.matches(pos + 3, "ANIMEXTS1.0"),
                  b.u8(pos + 14) == 3, b.u8(pos + 15) == 1, let loops = b.le16(pos + 16) {
          loopCount = loops
        }
        guard let next = skipSubBlocks(pos + 2) else { break walk }
        pos = next
      case 0x2C:
        guard let localFlags = b.u8(pos + 9) else { break walk }
        var at = pos + 10
        if localFlags & 0x80 != 0 { at += 3 << (Int(localFlags & 7) + 1) }
        at += 1  // LZW minimum code size
        guard let next = skipSubBlocks(at) else {
          // The last frame's data is cut short; libavcodec decodes what is there.
          delays.append(pendingDelay)
          damage = "the GIF is cut short: the file ends inside the image data of frame \(delays.count)"
          break walk
        }
        delays.append(pendingDelay)
        pendingDelay = 0
        pos = next
      case 0x3B:
        break walk
      default:
        if delays.isEmpty { throw .failure("gif_read_header", name, "GIF is corrupt: unknown block 0x\(JPEGMarkers.hex(label)) at byte \(pos)") }
        break walk  // trailing bytes after the last frame
      }
    }
    guard !delays.isEmpty else { throw .failure("gif_read_header", name, "GIF holds no frame") }
    let frames = delays.count
    var header = ImageHeader(format: .gif, storedWidth: w, storedHeight: h, frameCount: frames,
                             frameDurations: frames > 1 ? delays.map(ImageHeader.effectiveDuration) : [],
                             loopCount: loopCount, summary: frames > 1 ? "GIF, \(frames) frames" : "GIF",
                             warnings: warnings)
    header.damage = damage
    return header
  }
}
