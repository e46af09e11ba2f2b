import Foundation

/// Generates the built-in demo's sources with libavfilter's test sources,
/// so the demo needs no media files: a 16:9 clip with audio, a portrait
/// phone-style clip stored landscape with a 90° rotation in its display
/// matrix, a photo-like image and a product shot on white.
public enum DemoSources {
  /// File names written into the folder, as `Pipelines/demo.json` expects.
  public static let files = ["clip-16x9.mp4", "phone-portrait-rot90.mp4", "photo.jpg", "product-on-white.png"]

  /// Writes the demo sources into `directory` (created if missing);
  /// existing files are replaced.
  ///
  /// - Throws: `MediaIOError` from the generators, or a file-system error.
  public static func write(into directory: URL) throws {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    // A clip that fades in from black, so the cover has to skip the leader.
    try SyntheticMedia.writeClip(
      .init(video: "testsrc2=size=1280x720:rate=30,fade=t=in:st=0:d=1", frameRate: Rational(30, 1), duration: 6, toneHz: 440),
      to: directory.appendingPathComponent(files[0]).path)
    // Stored 1280x720 with a display matrix turning it 90° clockwise: shown 720x1280.
    try SyntheticMedia.writeClip(
      .init(video: "testsrc=size=1280x720:rate=30", frameRate: Rational(30, 1), duration: 4, toneHz: 660, rotation: 90),
      to: directory.appendingPathComponent(files[1]).path)
    let photo = try SyntheticMedia.renderStill(SyntheticMedia.photoLikeSource(width: 1600, height: 1000, seed: 11, grain: 10))
    try JPEGEncoder.encode(photo, quality: 92).write(to: directory.appendingPathComponent(files[2]))
    try PNGWriter.encode(productOnWhite(width: 1200, height: 900)).write(to: directory.appendingPathComponent(files[3]))
  }

  /// A product-style picture: a saturated rounded object with a soft
  /// shadow on a pure white background.
  public static func productOnWhite(width: Int, height: Int) -> RGBAImage {
    var img = RGBAImage(width: width, height: height, fill: (255, 255, 255, 255))
    let cx = Double(width) / 2, cy = Double(height) / 2
    let rx = Double(width) * 0.22, ry = Double(height) * 0.3
    for y in 0..<height {
      for x in 0..<width {
        let o = img.offset(x: x, y: y)
        // Shadow: a soft ellipse below the object.
        let sx = (Double(x) - cx) / (rx * 1.1), sy = (Double(y) - (cy + ry * 1.05)) / (ry * 0.18)
        let sd = sx * sx + sy * sy
        if sd < 1.6 {
          let k = max(0, 1 - sd / 1.6) * 0.35
          for c in 0..<3 { img.pixels[o + c] = UInt8(255 * (1 - k)) }
        }
        let dx = (Double(x) - cx) / rx, dy = (Double(y) - cy) / ry
        let d = pow(abs(dx), 4) + pow(abs(dy), 4)
        if d <= 1 {
          let shade = 0.75 + 0.25 * (1 - dy) / 2
          img.pixels[o] = UInt8(220 * shade)
          img.pixels[o + 1] = UInt8(40 * shade)
          img.pixels[o + 2] = UInt8(60 * shade)
        }
      }
    }
    return img
  }
}
