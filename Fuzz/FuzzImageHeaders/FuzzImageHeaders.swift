import CFuzzDriver
import Foundation
@testable import MediaIO

/// An image's bytes: format sniffing, the JPEG/PNG/GIF/WebP/HEIF header
/// readers and limit checks (`ImageSource.open(data:…)`), and the EXIF
/// reader on the same bytes. Nothing is decoded: the readers must refuse
/// or describe any input from its headers alone.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data else { return 0 }
  let bytes = Data(bytes: data, count: size)
  let limits = InputLimits(maxFileSize: 1 << 24, maxPixels: 1 << 22, maxDuration: 60)
  if let source = try? ImageSource.open(data: bytes, path: "fuzz.img", limits: limits, maxAnimationPixels: 1 << 24) {
    let h = source.header
    precondition(h.storedWidth > 0 && h.storedHeight > 0 && h.storedWidth * h.storedHeight <= limits.maxPixels)
  }
  if let orientation = ExifReader.orientation(tiff: bytes) {
    // Any SHORT (or LONG) is returned as stored; only 1–8 may become a transform.
    precondition((0...0xFFFF_FFFF).contains(orientation), "EXIF orientation \(orientation)")
    precondition((DisplayTransform(exifOrientation: orientation) != nil) == (1...8).contains(orientation))
  }
  return 0
}

@_cdecl("FuzzImageHeaders_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
  var count = argc
  var arguments = argv
  return LLVMFuzzerRunDriver(&count, &arguments) { testOneInput($0, $1) }
}
