/// One of the eight ways to orient a picture by quarter turns and mirrors
/// (the dihedral group of the square): what a video's display matrix or a
/// JPEG's EXIF `Orientation` tag asks a viewer to do to the stored pixels.
public enum DisplayTransform: Sendable, Equatable, CaseIterable {
  /// Stored pixels are already upright (EXIF 1).
  case identity
  /// Mirror left-right (EXIF 2).
  case mirrorHorizontal
  /// Turn 180° (EXIF 3).
  case rotate180
  /// Mirror top-bottom (EXIF 4).
  case mirrorVertical
  /// Swap rows and columns: the top-left corner stays (EXIF 5).
  case transpose
  /// Turn 90° clockwise (EXIF 6; a phone held upright, ffprobe `rotation=-90`).
  case rotate90
  /// Swap along the other diagonal: the top-left corner goes bottom-right (EXIF 7).
  case transverse
  /// Turn 90° counter-clockwise, i.e. 270° clockwise (EXIF 8, ffprobe `rotation=90`).
  case rotate270

  /// Whether displayed width and height are the stored height and width.
  public var swapsDimensions: Bool {
    switch self {
    case .transpose, .rotate90, .transverse, .rotate270: return true
    default: return false
    }
  }

  /// The transform for an EXIF `Orientation` value 1–8 (TIFF 6.0 / Exif 2.32
  /// tag 0x0112); nil for any other value.
  public init?(exifOrientation: Int) {
    switch exifOrientation {
    case 1: self = .identity
    case 2: self = .mirrorHorizontal
    case 3: self = .rotate180
    case 4: self = .mirrorVertical
    case 5: self = .transpose
    case 6: self = .rotate90
    case 7: self = .transverse
    case 8: self = .rotate270
    default: return nil
    }
  }

  /// Classifies the 2×2 part of a display matrix, given as its elements
  /// `(a, b, c, d)` = matrix[0], [1], [3], [4] in the ISO BMFF / FFmpeg layout
  /// where a stored point (x, y) is shown at (a·x + c·y, b·x + d·y) with y
  /// pointing down. Matrices that are not quarter turns snap to the nearest.
  public init(matrix: (Int32, Int32, Int32, Int32)) {
    let (a, b, c, d) = (Int64(matrix.0), Int64(matrix.1), Int64(matrix.2), Int64(matrix.3))
    func sign(_ v: Int64) -> Int { v > 0 ? 1 : (v < 0 ? -1 : 0) }
    if abs(a) + abs(d) >= abs(b) + abs(c) {
      switch (sign(a) >= 0, sign(d) >= 0) {
      case (true, true): self = .identity
      case (false, false): self = .rotate180
      case (false, true): self = .mirrorHorizontal
      case (true, false): self = .mirrorVertical
      }
    } else {
      switch (sign(b) >= 0, sign(c) >= 0) {
      case (true, false): self = .rotate90   // (x, y) → (−y, x)
      case (false, true): self = .rotate270  // (x, y) → (y, −x)
      case (true, true): self = .transpose   // (x, y) → (y, x)
      case (false, false): self = .transverse // (x, y) → (−y, −x)
      }
    }
  }

  /// libavfilter filters that apply this transform to pixels, in order
  /// (`transpose`, `hflip`, `vflip`); empty for `.identity`.
  ///
  /// The `transpose` filter's directions: `cclock_flip` is the plain
  /// transpose, `clock` turns clockwise, `cclock` counter-clockwise,
  /// `clock_flip` is the transverse.
  public var filterChain: [String] {
    switch self {
    case .identity: return []
    case .mirrorHorizontal: return ["hflip"]
    case .rotate180: return ["hflip", "vflip"]
    case .mirrorVertical: return ["vflip"]
    case .transpose: return ["transpose=dir=cclock_flip"]
    case .rotate90: return ["transpose=dir=clock"]
    case .transverse: return ["transpose=dir=clock_flip"]
    case .rotate270: return ["transpose=dir=cclock"]
    }
  }
}
