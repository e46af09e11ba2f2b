internal import CHeif
import Foundation

/// `heif_init` once per process (libheif ≥ 1.14 loads its codec plugins
/// there; the call is reference counted and never undone).
private let heifReady: Bool = heif_init(nil).code == heif_error_Ok

/// Reads HEIF/HEIC (and AVIF, when libheif has a decoder for it) with
/// libheif: iPhone photos, including grid-tiled primary images.
///
/// libheif applies the `irot`/`imir`/`clap` transformations by default
/// (`ignore_transformations = 0`), so sizes and pixels are already upright.
/// An EXIF orientation inside a HEIF is *not* applied again: for HEIF the
/// item properties are authoritative (ISO/IEC 23008-12 §6.5.12), and iPhone
/// files carry both.
enum HEIFDecoder {
  /// What the container says about the primary image.
  struct Info {
    var width: Int
    var height: Int
    var hasAlpha: Bool
    var icc: Data?
    var summary: String
    var warnings: [String]
  }

  /// An opened file: `heif_context` + primary image handle, released in
  /// `deinit`. The bytes must outlive it (read without copy).
  final class Container {
    let context: OpaquePointer
    let handle: OpaquePointer

    init(_ b: ByteView, name: String) throws(MediaIOError) {
      guard heifReady else { throw .failure("heif_init", name, "libheif could not be initialised") }
      guard let base = b.bytes.baseAddress else { throw .failure("heif_context_read_from_memory", name, "file is empty") }
      guard let ctx = heif_context_alloc() else { throw .failure("heif_context_alloc", name, "out of memory") }
      let read = heif_context_read_from_memory_without_copy(ctx, base, b.count, nil)
      guard read.code == heif_error_Ok else {
        // The message lives in the context: copy it before freeing that
        // (found by FuzzImageHeaders under AddressSanitizer: use after free).
        let reason = "HEIF cannot be read: \(HEIFDecoder.text(read))"
        heif_context_free(ctx)
        throw .failure("heif_context_read_from_memory", name, reason)
      }
      var h: OpaquePointer? = nil
      let primary = heif_context_get_primary_image_handle(ctx, &h)
      guard primary.code == heif_error_Ok, let handle = h else {
        let reason = "HEIF has no primary image: \(HEIFDecoder.text(primary))"
        heif_context_free(ctx)
        throw .failure("heif_context_get_primary_image_handle", name, reason)
      }
      context = ctx
      self.handle = handle
    }

    deinit {
      heif_image_handle_release(handle)
      heif_context_free(context)
    }
  }

  static func text(_ e: heif_error) -> String {
    e.message.map { String(cString: $0) } ?? "libheif error \(e.code.rawValue)"
  }

  /// Reads the primary image's size (after transformations), alpha and
  /// colour profile without decoding it.
  static func info(_ container: Container) -> Info {
    let h = container.handle
    let width = Int(heif_image_handle_get_width(h))
    let height = Int(heif_image_handle_get_height(h))
    let hasAlpha = heif_image_handle_has_alpha_channel(h) != 0
    var icc: Data?
    var warnings: [String] = []
    var colour = "untagged"
    let type = heif_image_handle_get_color_profile_type(h)
    if type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC {
      let size = heif_image_handle_get_raw_color_profile_size(h)
      if size > 0 {
        var data = Data(count: size)
        let e = data.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(h, $0.baseAddress) }
        if e.code == heif_error_Ok { icc = data } else { warnings.append("the HEIF colour profile cannot be read: \(text(e))") }
      }
      colour = "ICC"
    } else if type == heif_color_profile_type_nclx {
      colour = "nclx"
    }
    return Info(width: width, height: height, hasAlpha: hasAlpha, icc: icc,
                summary: "HEIF\(hasAlpha ? " with alpha" : ""), \(colour) colour", warnings: warnings)
  }

  /// The sRGB conversion an `nclx` colour box asks for, or nil when the
  /// primaries are BT.709/sRGB (nothing to do) or no nclx box exists.
  static func nclxProfile(_ container: Container, warnings: inout [String]) -> ColorManager.Profile? {
    guard heif_image_handle_get_color_profile_type(container.handle) == heif_color_profile_type_nclx else { return nil }
    var nclxPointer: UnsafeMutablePointer<heif_color_profile_nclx>? = nil
    guard heif_image_handle_get_nclx_color_profile(container.handle, &nclxPointer).code == heif_error_Ok,
          let nclx = nclxPointer else { return nil }
    defer { heif_nclx_color_profile_free(nclx) }
    let n = nclx.pointee
    let transfer: ColorManager.Transfer
    switch n.transfer_characteristics {
    case heif_transfer_characteristic_ITU_R_BT_709_5, heif_transfer_characteristic_ITU_R_BT_601_6,
         heif_transfer_characteristic_ITU_R_BT_2020_2_10bit, heif_transfer_characteristic_ITU_R_BT_2020_2_12bit:
      transfer = .bt709
    case heif_transfer_characteristic_ITU_R_BT_470_6_System_M: transfer = .gamma(2.2)
    case heif_transfer_characteristic_ITU_R_BT_470_6_System_B_G: transfer = .gamma(2.8)
    case heif_transfer_characteristic_linear: transfer = .linear
    case heif_transfer_characteristic_ITU_R_BT_2100_0_PQ, heif_transfer_characteristic_ITU_R_BT_2100_0_HLG:
      warnings.append("HDR HEIF (PQ/HLG transfer) is not tone-mapped; colours are approximate")
      transfer = .sRGB
    default: transfer = .sRGB
    }
    switch n.color_primaries {
    case heif_color_primaries_ITU_R_BT_709_5, heif_color_primaries_unspecified:
      if transfer == .sRGB || transfer == .bt709 { return nil }
    default: break
    }
    let p = ColorManager.rgbProfile(
      red: (Double(n.color_primary_red_x), Double(n.color_primary_red_y)),
      green: (Double(n.color_primary_green_x), Double(n.color_primary_green_y)),
      blue: (Double(n.color_primary_blue_x), Double(n.color_primary_blue_y)),
      white: (Double(n.color_primary_white_x), Double(n.color_primary_white_y)),
      transfer: transfer)
    if p == nil { warnings.append("the HEIF nclx colour description cannot be used; treated as sRGB") }
    return p
  }

  /// Decodes the primary image to RGBA (8 bits, HDR reduced to 8 bits by
  /// libheif), converted to sRGB.
  static func decode(_ container: Container, name: String) throws(MediaIOError) -> (RGBAImage, [String]) {
    var warnings: [String] = []
    guard let options = heif_decoding_options_alloc() else {
      throw .failure("heif_decoding_options_alloc", name, "out of memory")
    }
    defer { heif_decoding_options_free(options) }
    options.pointee.ignore_transformations = 0
    options.pointee.convert_hdr_to_8bit = 1
    var imageOpt: OpaquePointer? = nil
    let e = heif_decode_image(container.handle, &imageOpt, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, options)
    guard e.code == heif_error_Ok, let img = imageOpt else {
      throw .failure("heif_decode_image", name, "HEIF cannot be decoded: \(text(e))")
    }
    defer { heif_image_release(img) }
    let width = Int(heif_image_get_width(img, heif_channel_interleaved))
    let height = Int(heif_image_get_height(img, heif_channel_interleaved))
    var stride: Int32 = 0
    guard width > 0, height > 0, let plane = heif_image_get_plane_readonly(img, heif_channel_interleaved, &stride),
          Int(stride) >= width * 4 else {
      throw .failure("heif_image_get_plane_readonly", name, "libheif returned no RGBA picture")
    }
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    pixels.withUnsafeMutableBytes { dst in
      guard let base = dst.baseAddress else { return }
      for y in 0..<height {
        (base + y * width * 4).copyMemory(from: plane + y * Int(stride), byteCount: width * 4)
      }
    }
    var image = RGBAImage(width: width, height: height, pixels: pixels)
    if heif_image_handle_is_premultiplied_alpha(container.handle) != 0 {
      image.unpremultiplyAlpha()
    }
    let info = info(container)
    warnings += info.warnings
    if let icc = info.icc {
      warnings += ColorManager.convertToSRGB(&image, icc: icc)
    } else if let profile = nclxProfile(container, warnings: &warnings) {
      warnings += ColorManager.convertToSRGB(&image, profile: profile)
    }
    return (image, warnings)
  }
}
