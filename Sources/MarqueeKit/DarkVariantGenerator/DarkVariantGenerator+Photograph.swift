extension DarkVariantGenerator {
  /// Dims and slightly desaturates a `.photograph`; never inverts.
  ///
  /// With luma `Y`, saturation kept `s = 1 − photoDesaturation` and luma
  /// factor `k = photoLumaScale`, each channel becomes
  /// `k · (Y + s · (c − Y))`, i.e. `k·s·c + k·(1 − s)·Y`. Desaturating
  /// toward `Y` leaves luma unchanged (the BT.709 weights sum to 1), so the
  /// output luma is exactly `k · Y` before rounding: every pixel keeps its
  /// place in the luma order, and mean luma drops by `1 − k` (28 % by
  /// default). The result never exceeds `k · 255`, so no clamping and no hue
  /// shift. Fixed-point arithmetic (24 fractional bits), alpha unchanged.
  ///
  /// - Parameter lumaScale: `k`; ``Options/photoLumaScale`` when `nil`.
  func darkenPhotograph(_ image: RGBAImage, lumaScale: Double? = nil) -> RGBAImage {
    let k = min(max(lumaScale ?? options.photoLumaScale, 0.3), 1)
    let s = 1 - min(max(options.photoDesaturation, 0), 0.5)
    // Weights in 1/65536; channels and luma both in 1/256 units, so the sum
    // is in 1/2^24 units.
    let channelWeight = Int((k * s * 65536).rounded()) << 8
    let lumaWeight = Int((k * (1 - s) * 65536).rounded())
    let shift = 24
    let rounding = 1 << (shift - 1)
    var out = image.pixels
    out.withUnsafeMutableBufferPointer { p in
      var i = 0
      let end = p.count
      while i < end {
        let base = lumaWeight * Luma.scaled(p[i], p[i + 1], p[i + 2]) + rounding
        p[i] = UInt8(min(255, (channelWeight * Int(p[i]) + base) >> shift))
        p[i + 1] = UInt8(
          min(255, (channelWeight * Int(p[i + 1]) + base) >> shift))
        p[i + 2] = UInt8(
          min(255, (channelWeight * Int(p[i + 2]) + base) >> shift))
        i += 4
      }
    }
    return RGBAImage(width: image.width, height: image.height, pixels: out)
  }

  /// The luma factor that dims a photograph of mean luma `meanLuma`
  /// (0–255): ``Options/photoLumaScale``, or less for a bright photo, so
  /// that its mean comes to at most ``photoMaxMeanLuma``. A fixed 28 % dim
  /// takes an overexposed photo (a hazy sky, a white studio, mean luma
  /// about 230) only to about 165, a light grey slab that glares beside
  /// dark UI; a typical daylight photo (mean 130 or less) keeps the fixed
  /// factor. Continuous in the mean, so the frames of an animation that
  /// brightens dim smoothly, like an exposure control. At least 0.3.
  func photoLumaScale(meanLuma: Double) -> Double {
    let k = min(max(options.photoLumaScale, 0.3), 1)
    guard meanLuma > 0 else { return k }
    return max(0.3, min(k, Self.photoMaxMeanLuma / meanLuma))
  }

  /// The brightest mean luma a dimmed photograph keeps (0–255): the
  /// default factor 0.72 applied to a mean of about 153, a bright but
  /// not overexposed photo.
  static let photoMaxMeanLuma = 110.0
}
