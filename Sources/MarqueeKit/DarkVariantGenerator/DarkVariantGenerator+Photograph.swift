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
  func darkenPhotograph(_ image: RGBAImage) -> RGBAImage {
    let k = min(max(options.photoLumaScale, 0.3), 1)
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
}
