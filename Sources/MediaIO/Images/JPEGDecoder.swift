internal import CJPEG
import Foundation

/// Decodes JPEG files with libjpeg-turbo.
///
/// libjpeg-turbo rather than libavcodec's `mjpeg` decoder, because FFmpeg
/// 5.1 gets CMYK wrong: it reports an Adobe YCCK JPEG as `yuva444p` with
/// the K channel as alpha, so colours and transparency come out wrong.
/// libjpeg-turbo (the reference decoder every browser and photo viewer
/// uses) converts YCCK to CMYK itself and reports the Adobe marker that
/// says the CMYK is stored inverted. It also reports truncated data as a
/// warning we can turn into an error, where FFmpeg silently returns a
/// partly grey picture, and it can downscale in the DCT domain while
/// decoding ("shrink on load"), so a 12 MP photo for a 1170 px banner is
/// decoded at a quarter of the memory.
enum JPEGDecoder {
  /// A decoded JPEG in its stored orientation.
  struct Output {
    /// RGBA (gray and CMYK converted to sRGB).
    var image: RGBAImage
    var warnings: [String]
    /// What libjpeg could not decode and concealed, when it had to
    /// (`marquee_jpeg_is_damage`): `DecodedPicture.damage`.
    var damage: String? = nil
  }

  /// libjpeg's working memory cap: enough for a 40 MP progressive JPEG's
  /// coefficient buffers (2 bytes × 64 coefficients per 8×8 block per
  /// component ≈ 6 bytes/pixel for 3 components).
  static let maxWorkingMemory = 1 << 30

  /// The largest scale denominator (1, 2, 4, 8) that keeps the decoded
  /// side `side` at least `minimum` pixels.
  static func scaleDenominator(side: Int, minimum: Int?) -> Int {
    guard let minimum, minimum > 0 else { return 1 }
    var denominator = 1
    for d in [2, 4, 8] where (side + d - 1) / d >= minimum {
      denominator = d
    }
    return denominator
  }

  /// Decodes `bytes` (a whole JPEG file).
  ///
  /// - Parameters:
  ///   - scaleDenominator: 1, 2, 4 or 8 (DCT-domain downscale).
  ///   - icc: the profile from the APP2 markers, if any.
  /// - Throws: `MediaIOError` for corrupt or truncated data.
  static func decode(_ b: ByteView, name: String, scaleDenominator: Int, icc: Data?) throws(MediaIOError) -> Output {
    guard let base = b.bytes.baseAddress else { throw .failure("jpeg_read_header", name, "file is empty") }
    var result = marquee_jpeg_image()
    var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
    let status = marquee_jpeg_decode(base.assumingMemoryBound(to: UInt8.self), UInt(b.count), UInt32(scaleDenominator),
                                     maxWorkingMemory, &result, &message)
    guard status == 0, let pixels = result.pixels else {
      let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw .failure("jpeg_decompress", name, "JPEG cannot be decoded: \(text.isEmpty ? "unknown libjpeg error" : text)")
    }
    defer { marquee_jpeg_free(pixels) }
    let width = Int(result.width), height = Int(result.height), components = Int(result.components)
    if result.premature_end != 0 {
      throw .failure("jpeg_read_scanlines", name, "JPEG is truncated: the image data ends before the last row (\(b.count) bytes)")
    }
    var warnings: [String] = []
    if result.warnings > 0 {
      let first = withUnsafeBytes(of: result.warning) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      warnings.append("libjpeg reported \(result.warnings) problem(s) in the data that leave the picture whole, first: \(first)")
    }
    let damage: String? = result.damage_warnings == 0 ? nil : withUnsafeBytes(of: result.damage) { raw in
      let first = String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      return "part of its image data cannot be decoded (libjpeg concealed it, \(result.damage_warnings) time(s); first: \(first))"
    }
    let raw = UnsafeRawBufferPointer(start: pixels, count: width * height * components)

    if result.is_cmyk != 0 {
      let inverted = result.saw_adobe_marker != 0
      if let icc, let profile = ColorManager.Profile(icc: icc) {
        switch ColorManager.Conversion.make(from: profile, input: .cmyk(inverted: inverted)) {
        case .success(let conversion):
          return Output(image: conversion.apply(raw, width: width, height: height), warnings: warnings, damage: damage)
        case .failure(let w):
          warnings.append(w.reason)
        }
      } else if icc != nil {
        warnings.append("the embedded CMYK ICC profile cannot be read")
      }
      warnings.append("CMYK JPEG without a usable ICC profile: converted with the naive CMYK formula, colours are approximate")
      return Output(image: naiveCMYK(raw, width: width, height: height, inverted: inverted), warnings: warnings, damage: damage)
    }

    if components == 1 {
      if let icc, let profile = ColorManager.Profile(icc: icc) {
        switch ColorManager.Conversion.make(from: profile, input: .gray) {
        case .success(let conversion):
          return Output(image: conversion.apply(raw, width: width, height: height), warnings: warnings, damage: damage)
        case .failure(let w):
          warnings.append(w.reason)
        }
      } else if icc != nil {
        warnings.append("the embedded ICC profile cannot be read; treated as sRGB")
      }
      return Output(image: expandGray(raw, width: width, height: height), warnings: warnings, damage: damage)
    }

    var image = RGBAImage(width: width, height: height, pixels: Array(raw.bindMemory(to: UInt8.self)))
    if let icc {
      warnings += ColorManager.convertToSRGB(&image, icc: icc)
    }
    return Output(image: image, warnings: warnings, damage: damage)
  }

  /// Gray bytes → opaque RGBA.
  static func expandGray(_ gray: UnsafeRawBufferPointer, width: Int, height: Int) -> RGBAImage {
    let count = width * height
    var out = [UInt8](repeating: 255, count: count * 4)
    out.withUnsafeMutableBufferPointer { p in
      for i in 0..<count {
        let v = gray[i]
        p[i * 4] = v
        p[i * 4 + 1] = v
        p[i * 4 + 2] = v
      }
    }
    return RGBAImage(width: width, height: height, pixels: out)
  }

  /// CMYK → RGB without a profile: R = (1 − C)(1 − K) and so on, the
  /// fallback browsers use for untagged CMYK.
  static func naiveCMYK(_ cmyk: UnsafeRawBufferPointer, width: Int, height: Int, inverted: Bool) -> RGBAImage {
    let count = width * height
    var out = [UInt8](repeating: 255, count: count * 4)
    out.withUnsafeMutableBufferPointer { p in
      for i in 0..<count {
        // "Remaining" = 255 − ink; inverted data already stores that.
        var c = Int(cmyk[i * 4]), m = Int(cmyk[i * 4 + 1]), y = Int(cmyk[i * 4 + 2]), k = Int(cmyk[i * 4 + 3])
        if !inverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
        p[i * 4] = UInt8((c * k + 127) / 255)
        p[i * 4 + 1] = UInt8((m * k + 127) / 255)
        p[i * 4 + 2] = UInt8((y * k + 127) / 255)
      }
    }
    return RGBAImage(width: width, height: height, pixels: out)
  }
}
