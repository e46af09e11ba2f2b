/// An opaque sRGB colour with 8 bits per channel.
public struct RGBColor: Sendable, Equatable, Hashable, CustomStringConvertible {
  /// Red, 0...255.
  public var r: UInt8
  /// Green, 0...255.
  public var g: UInt8
  /// Blue, 0...255.
  public var b: UInt8

  /// Creates a colour from its channels.
  public init(r: UInt8, g: UInt8, b: UInt8) {
    self.r = r
    self.g = g
    self.b = b
  }

  /// Parses `"#RRGGBB"` (hex digits in either case); `nil` for anything else.
  ///
  /// - Parameter hex: The text, including the leading `#`.
  public init?(hex: String) {
    let scalars = Array(hex.unicodeScalars)
    guard scalars.count == 7, scalars[0] == "#" else { return nil }
    var channels: [UInt8] = []
    for i in stride(from: 1, to: 7, by: 2) {
      guard let hi = Self.hexValue(scalars[i]), let lo = Self.hexValue(scalars[i + 1]) else {
        return nil
      }
      channels.append(hi << 4 | lo)
    }
    self.init(r: channels[0], g: channels[1], b: channels[2])
  }

  /// `"#RRGGBB"` with upper-case digits.
  public var hex: String {
    let digits = Array("0123456789ABCDEF")
    var text = "#"
    for channel in [r, g, b] {
      text.append(digits[Int(channel >> 4)])
      text.append(digits[Int(channel & 0x0F)])
    }
    return text
  }

  /// Same as `hex`.
  public var description: String { hex }

  private static func hexValue(_ scalar: Unicode.Scalar) -> UInt8? {
    switch scalar {
    case "0"..."9": return UInt8(scalar.value - 48)
    case "a"..."f": return UInt8(scalar.value - 97 + 10)
    case "A"..."F": return UInt8(scalar.value - 65 + 10)
    default: return nil
    }
  }
}

extension RGBColor {
  /// `#1C1C1E`, the grey UIKit uses for `secondarySystemBackground` (and
  /// elevated `systemBackground`) in dark mode: the colour carousel cards
  /// usually sit on, and the default `dark_surface`.
  public static let standard = RGBColor(r: 0x1C, g: 0x1C, b: 0x1E)
}
