import Foundation

/// A ThumbHash decoder written for the tests from the specification,
/// independent of the encoder: renders a hash at `w`×`h` (RGBA, 0–255).
func renderThumbHash(_ hash: [UInt8], width w: Int, height h: Int) -> [Double] {
  let header24 = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
  let header16 = Int(hash[3]) | Int(hash[4]) << 8
  let lDC = Double(header24 & 63) / 63
  let pDC = Double((header24 >> 6) & 63) / 31.5 - 1
  let qDC = Double((header24 >> 12) & 63) / 31.5 - 1
  let lScale = Double((header24 >> 18) & 31) / 31
  let hasAlpha = (header24 >> 23) != 0
  let pScale = Double((header16 >> 3) & 63) / 63
  let qScale = Double((header16 >> 9) & 63) / 63
  let isLandscape = (header16 >> 15) != 0
  let lx = max(3, isLandscape ? (hasAlpha ? 5 : 7) : header16 & 7)
  let ly = max(3, isLandscape ? header16 & 7 : (hasAlpha ? 5 : 7))
  let aDC = hasAlpha ? Double(hash[5] & 15) / 15 : 1
  let aScale = hasAlpha ? Double(hash[5] >> 4) / 15 : 0
  var nibble = 0
  let start = hasAlpha ? 6 : 5
  func terms(_ nx: Int, _ ny: Int, _ scale: Double) -> [Double] {
    var out: [Double] = []
    for cy in 0..<ny {
      var cx = cy == 0 ? 1 : 0
      while cx * ny < nx * (ny - cy) {
        let byte = Int(hash[start + nibble / 2])
        let v = Double((byte >> ((nibble % 2) * 4)) & 15)
        out.append((v / 7.5 - 1) * scale)
        nibble += 1
        cx += 1
      }
    }
    return out
  }
  let lAC = terms(lx, ly, lScale), pAC = terms(3, 3, pScale * 1.25), qAC = terms(3, 3, qScale * 1.25)
  let aAC = hasAlpha ? terms(5, 5, aScale) : []
  func value(_ dc: Double, _ ac: [Double], _ nx: Int, _ ny: Int, _ x: Int, _ y: Int) -> Double {
    var v = dc, k = 0
    for cy in 0..<ny {
      var cx = cy == 0 ? 1 : 0
      while cx * ny < nx * (ny - cy) {
        v += ac[k] * cos(Double.pi / Double(w) * (Double(x) + 0.5) * Double(cx))
          * cos(Double.pi / Double(h) * (Double(y) + 0.5) * Double(cy)) * 2
        k += 1
        cx += 1
      }
    }
    return v
  }
  var out: [Double] = []
  for y in 0..<h {
    for x in 0..<w {
      let l = value(lDC, lAC, lx, ly, x, y), p = value(pDC, pAC, 3, 3, x, y), q = value(qDC, qAC, 3, 3, x, y)
      let a = hasAlpha ? value(aDC, aAC, 5, 5, x, y) : 1
      let b = l - 2.0 / 3 * p
      let r = (3 * l - b + q) / 2
      out += [r, r - q, b, a].map { min(1, max(0, $0)) * 255 }
    }
  }
  return out
}
