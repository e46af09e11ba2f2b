import Foundation

/// The CPU instruction sets libx264 may use, as an `x264-params` option.
///
/// Why not libx264's own choice: on a CPU with AVX-512, libx264 (core 164,
/// Debian 12) picks `mbtree_propagate_list_avx512`, which handles 8
/// macroblocks per step with no masked tail. On a lookahead row whose width
/// in macroblocks is not a multiple of 8 (60 for a 960x540 rendition) it
/// also takes the up to 7 entries past the row's end (costs and motion
/// vectors) and adds their propagated costs wherever those motion vectors
/// point. Past the last row those entries lie beyond what libx264 wrote,
/// in memory it took from `malloc`: they are whatever the heap held, so
/// the rendition's quantisers, and its bytes, changed with the order in
/// which threads had freed memory before:
/// measured, the same 960x540 encode with `MALLOC_PERTURB_` 0, 85 and 170
/// gave three different streams, and the same job built twice under load
/// gave different 540p segments. With mbtree off, or below AVX-512, the
/// bytes no longer depend on the heap; the 1280x720 and 640x360 rungs
/// (80 and 40 macroblocks wide) were identical with and without AVX-512.
///
/// So libx264 is given every capability it detects except AVX-512. The
/// value is libx264's numeric `asm` option (its `x264_param_parse` takes a
/// number as the flag set itself), built from its own detection
/// (`x264_cpu_detect`) and its table of names (`x264_cpu_names`), both
/// exported by libx264 and looked up in the loaded library.
public enum X264Capabilities {
  /// `asm=<flags>` without AVX-512, or nil when libx264 would not use
  /// AVX-512 here (or its detection cannot be found), in which case its
  /// own choice stands.
  public static let parameter: String? = {
    guard let flags = detectedFlags(), let avx512 = avx512Flag(), flags & avx512 != 0 else { return nil }
    return "asm=\(flags & ~avx512)"
  }()

  /// What `x264_cpu_detect()` reports: libx264's `X264_CPU_*` bits.
  static func detectedFlags() -> UInt32? {
    guard let symbol = dlsym(nil, "x264_cpu_detect") else { return nil }
    typealias Detect = @convention(c) () -> UInt32
    return unsafeBitCast(symbol, to: Detect.self)()
  }

  /// The bit AVX-512 adds in libx264's flags: the `AVX512` entry of
  /// `x264_cpu_names` less its `AVX2` entry (each entry lists every flag
  /// the name implies). The table is `{ const char *name; uint32_t flags; }`
  /// records (`x264_cpu_name_t`), ended by one whose flags are 0.
  static func avx512Flag() -> UInt32? {
    guard let table = dlsym(nil, "x264_cpu_names") else { return nil }
    var named: [String: UInt32] = [:]
    // A pointer, then the flags padded to the pointer's alignment: 16 bytes on x86-64.
    let pointerSize = MemoryLayout<UnsafePointer<CChar>>.stride
    let stride = 2 * pointerSize
    for i in 0..<128 {
      let entry = table + i * stride
      let flags = entry.load(fromByteOffset: pointerSize, as: UInt32.self)
      if flags == 0 { break }
      if let name = entry.load(as: UnsafePointer<CChar>?.self) { named[String(cString: name)] = flags }
    }
    guard let avx512 = named["AVX512"], let avx2 = named["AVX2"], avx512 & ~avx2 != 0 else { return nil }
    return avx512 & ~avx2
  }
}
