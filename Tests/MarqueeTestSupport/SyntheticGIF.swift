import Foundation

/// Writes small GIF89a files with chosen disposal methods: a 256-colour
/// global palette and 9-bit LZW codes that are all literals, with a clear
/// code every 100 codes so the code width never grows.
public enum SyntheticGIF {
  public struct Frame {
    var x = 0, y = 0, width: Int, height: Int
    var indices: [UInt8]
    /// 0 unspecified, 1 keep, 2 restore to background, 3 restore previous.
    var disposal: Int
    var transparentIndex: Int?
    var delayCentiseconds: Int

    public init(x: Int = 0, y: Int = 0, width: Int, height: Int, indices: [UInt8], disposal: Int,
                transparentIndex: Int? = nil, delayCentiseconds: Int) {
      self.x = x
      self.y = y
      self.width = width
      self.height = height
      self.indices = indices
      self.disposal = disposal
      self.transparentIndex = transparentIndex
      self.delayCentiseconds = delayCentiseconds
    }
  }

  public static func make(width: Int, height: Int, palette: [(UInt8, UInt8, UInt8)], frames: [Frame]) -> Data {
    var d = Data("GIF89a".utf8)
    func le16(_ v: Int) { d.append(UInt8(v & 0xFF)); d.append(UInt8(v >> 8)) }
    le16(width); le16(height)
    d.append(0xF7); d.append(0); d.append(0)
    for i in 0..<256 {
      let c = i < palette.count ? palette[i] : (0, 0, 0)
      d.append(c.0); d.append(c.1); d.append(c.2)
    }
    d.append(contentsOf: [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0])
    for f in frames {
      let packed = UInt8((f.disposal & 7) << 2 | (f.transparentIndex == nil ? 0 : 1))
      d.append(contentsOf: [0x21, 0xF9, 4, packed])
      le16(f.delayCentiseconds)
      d.append(UInt8(f.transparentIndex ?? 0)); d.append(0)
      d.append(0x2C); le16(f.x); le16(f.y); le16(f.width); le16(f.height); d.append(0)
      d.append(8)  // LZW minimum code size
      var codes: [Int] = [256]
      for (i, index) in f.indices.enumerated() {
        if i > 0 && i % 100 == 0 { codes.append(256) }
        codes.append(Int(index))
      }
      codes.append(257)
      var bytes: [UInt8] = []
      var acc = 0, bits = 0
      for code in codes {
        acc |= code << bits
        bits += 9
        while bits >= 8 { bytes.append(UInt8(acc & 0xFF)); acc >>= 8; bits -= 8 }
      }
      if bits > 0 { bytes.append(UInt8(acc & 0xFF)) }
      var at = 0
      while at < bytes.count {
        let n = min(255, bytes.count - at)
        d.append(UInt8(n)); d.append(contentsOf: bytes[at..<(at + n)])
        at += n
      }
      d.append(0)
    }
    d.append(0x3B)
    return d
  }
}
