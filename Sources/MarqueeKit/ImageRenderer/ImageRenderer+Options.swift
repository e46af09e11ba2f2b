import Foundation

extension ImageRenderer {
  /// Everything the image stage can be told, with the product defaults.
  public struct Options: Sendable {
    /// The default ladder: @2x and @3x of a 390 pt wide phone.
    public static let defaultWidths = [780, 1170]

    /// Output widths in pixels; widths above the source's are dropped.
    public var widths: [Int]
    /// WebP quality 1–100 (default 80).
    public var webpQuality: Int
    /// JPEG quality 1–100 (default 85).
    public var jpegQuality: Int
    /// What transparent images are flattened onto in the normal JPEG
    /// (default white).
    public var background: RGBColor
    /// The dark-mode surface: dark variants move light backgrounds toward
    /// it, and the dark JPEG is flattened onto it (default `#1C1C1E`).
    public var darkSurface: RGBColor
    /// File size and pixels-per-picture limits, checked before decoding.
    public var limits: InputLimits
    /// The client's cap on frames per animation (default 20).
    public var maxAnimationFrames: Int
    /// The client's cap on decoded animation memory, `frames × width ×
    /// height × 4` bytes at the output size (default 10 MiB).
    public var maxAnimationBytes: Int
    /// Cap on source frames × canvas pixels, checked from the header
    /// before decoding an animation (default 250 MP).
    public var maxAnimationPixels: Int
    /// Whether a still whose decoder concealed damage is built, with a
    /// warning (`allow_damaged_sources`, `DamagedStill`); when false
    /// (default) it fails with `MarqueeError.Code.damagedSource`.
    public var allowsDamagedSource = false
    /// Whether each still width gets an AVIF twin with its dark variant
    /// (`image_formats` holding `avif`, the default); animations never do.
    public var makesAVIF = true

    public init(
      widths: [Int] = Options.defaultWidths,
      webpQuality: Int = 80,
      jpegQuality: Int = 85,
      background: RGBColor = RGBColor(r: 0xFF, g: 0xFF, b: 0xFF),
      darkSurface: RGBColor = .standard,
      limits: InputLimits = InputLimits(),
      maxAnimationFrames: Int = 20,
      maxAnimationBytes: Int = 10 << 20,
      maxAnimationPixels: Int = ImageSource.defaultMaxAnimationPixels
    ) {
      self.widths = widths
      self.webpQuality = webpQuality
      self.jpegQuality = jpegQuality
      self.background = background
      self.darkSurface = darkSurface
      self.limits = limits
      self.maxAnimationFrames = maxAnimationFrames
      self.maxAnimationBytes = maxAnimationBytes
      self.maxAnimationPixels = maxAnimationPixels
    }

    /// The options a job's settings ask for: the ladder is `image_widths`
    /// when given, else `image_width` and two thirds of it (@2x and @3x:
    /// 780 and 1170 for the default 1170), plus the qualities, colours and
    /// limits.
    public init(settings: JobSettings) {
      let top = settings.imageWidth
      let twoThirds = Int((Double(top) * 2 / 3).rounded())
      let ladder = settings.imageWidths ?? (twoThirds >= 1 && twoThirds < top ? [twoThirds, top] : [top])
      self.init(
        widths: ladder,
        webpQuality: settings.webpQuality,
        jpegQuality: settings.jpegQuality,
        background: settings.background,
        darkSurface: settings.darkSurface,
        limits: settings.inputLimits)
      allowsDamagedSource = settings.allowDamagedSources
      makesAVIF = settings.makesAVIF
    }

    /// Why these options cannot be used, or nil.
    var problem: String? {
      if widths.isEmpty { return "no output widths given" }
      if let w = widths.first(where: { $0 < 1 || $0 > WebPEncoder.maxDimension }) {
        return "output width \(w) is outside 1...\(WebPEncoder.maxDimension)"
      }
      if !(1...100).contains(webpQuality) { return "webp_quality \(webpQuality) is outside 1...100" }
      if !(1...100).contains(jpegQuality) { return "jpeg_quality \(jpegQuality) is outside 1...100" }
      if maxAnimationFrames < 1 { return "the animation frame cap \(maxAnimationFrames) is below 1" }
      if maxAnimationBytes < 4 { return "the animation memory cap \(maxAnimationBytes) bytes is too small" }
      return nil
    }
  }
}
