import Foundation

/// Composes the contact sheet: one row per banner, its light picture on
/// white and its dark picture on the dark surface, each scaled to the same
/// height. Pictures are decoded with ``ImageDecoder`` and scaled with
/// ``PixelConverter/resize(_:width:height:)``; a picture that is missing
/// or cannot be decoded leaves a grey placeholder and a warning.
struct ContactSheet {
  /// Height of every picture, pixels.
  var tileHeight: Int
  /// The dark column's background, `#RRGGBB`.
  var darkSurface: String

  /// Gap around and between pictures.
  static let margin = 12
  /// A picture is never wider than this many times its height on the
  /// sheet (a 10:1 panorama is squeezed rather than making the sheet huge).
  static let maxAspect = 4
  /// Light tiles' backdrop.
  static let light: (UInt8, UInt8, UInt8) = (255, 255, 255)
  /// The sheet's own background and the placeholder colour.
  static let sheet: (UInt8, UInt8, UInt8) = (128, 128, 132)
  static let placeholder: (UInt8, UInt8, UInt8) = (190, 190, 196)

  func compose(_ banners: [PreviewBanner], bundle: URL, warnings: inout [String]) -> RGBAImage {
    let dark = Self.parseHex(darkSurface) ?? (0x1C, 0x1C, 0x1E)
    var rows: [(RGBAImage?, RGBAImage?)] = []
    for banner in banners {
      let light = picture(banner.lightPicture, banner: banner, bundle: bundle, warnings: &warnings)
      let darkPicture = picture(banner.darkPicture, banner: banner, bundle: bundle, warnings: &warnings)
      rows.append((light, darkPicture))
    }
    let m = Self.margin
    let placeholderWidth = tileHeight * 16 / 9
    func width(_ image: RGBAImage?) -> Int { image?.width ?? placeholderWidth }
    let sheetWidth = max(64, rows.map { m + width($0.0) + m + width($0.1) + m }.max() ?? 0)
    let sheetHeight = max(64, m + rows.count * (tileHeight + m))
    var canvas = RGBAImage(
      width: sheetWidth, height: sheetHeight,
      fill: (Self.sheet.0, Self.sheet.1, Self.sheet.2, 255))
    for (index, row) in rows.enumerated() {
      let y = m + index * (tileHeight + m)
      let leftWidth = width(row.0)
      Self.fill(&canvas, x: m, y: y, width: leftWidth, height: tileHeight, colour: row.0 == nil ? Self.placeholder : Self.light)
      if let picture = row.0 { Self.blend(picture, onto: &canvas, x: m, y: y) }
      let darkX = m + leftWidth + m
      Self.fill(&canvas, x: darkX, y: y, width: width(row.1), height: tileHeight, colour: row.1 == nil ? Self.placeholder : dark)
      if let picture = row.1 { Self.blend(picture, onto: &canvas, x: darkX, y: y) }
    }
    return canvas
  }

  /// Decodes and scales one picture, or records why it cannot be shown.
  private func picture(
    _ path: String?, banner: PreviewBanner, bundle: URL, warnings: inout [String]
  ) -> RGBAImage? {
    guard let path else { return nil }
    do {
      // No link inside the bundle is followed, and the default decode
      // limits apply: a bundle's files are as untrusted as any source.
      let file = try ReadableFile.open(path, beneath: bundle.path)
      let decoded = try ImageDecoder.decodeFirstFrame(file: file, path: path, limits: InputLimits()).image
      let height = tileHeight
      let width = max(1, min(Self.maxAspect * height, (decoded.width * height + decoded.height / 2) / decoded.height))
      return try PixelConverter.resize(decoded, width: width, height: height)
    } catch {
      warnings.append("\(banner.id): cannot show \(path) on the contact sheet: \(error)")
      return nil
    }
  }

  private static func fill(
    _ canvas: inout RGBAImage, x: Int, y: Int, width: Int, height: Int, colour: (UInt8, UInt8, UInt8)
  ) {
    let x1 = min(canvas.width, x + width)
    let y1 = min(canvas.height, y + height)
    guard x < x1, y < y1 else { return }
    for row in y..<y1 {
      for column in x..<x1 {
        let o = canvas.offset(x: column, y: row)
        canvas.pixels[o] = colour.0
        canvas.pixels[o + 1] = colour.1
        canvas.pixels[o + 2] = colour.2
        canvas.pixels[o + 3] = 255
      }
    }
  }

  /// Draws `picture` (straight alpha) over the canvas at (x, y).
  private static func blend(_ picture: RGBAImage, onto canvas: inout RGBAImage, x: Int, y: Int) {
    for row in 0..<picture.height where y + row < canvas.height {
      for column in 0..<picture.width where x + column < canvas.width {
        let s = picture.offset(x: column, y: row)
        let d = canvas.offset(x: x + column, y: y + row)
        let a = Int(picture.pixels[s + 3])
        for c in 0..<3 {
          let top = Int(picture.pixels[s + c])
          let bottom = Int(canvas.pixels[d + c])
          canvas.pixels[d + c] = UInt8((top * a + bottom * (255 - a) + 127) / 255)
        }
        canvas.pixels[d + 3] = 255
      }
    }
  }

  /// `#RRGGBB` to components.
  static func parseHex(_ text: String) -> (UInt8, UInt8, UInt8)? {
    var hex = Substring(text)
    if hex.hasPrefix("#") { hex = hex.dropFirst() }
    guard hex.count == 6, let value = UInt32(hex, radix: 16) else { return nil }
    return (UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF))
  }
}
