import CFuzzDriver
import Foundation
@testable import MarqueeKit

/// HLS text and segment bytes as `verify` reads them: master playlist
/// attributes, media and I-frame playlists, relative URIs (which must never
/// leave the bundle), and the ISO BMFF box walk (every box inside its
/// parent, no deeper than the reader's limit) with the fragmented-MP4
/// sample search.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data else { return 0 }
  let bytes = Data(bytes: data, count: size)
  let text = String(decoding: bytes, as: UTF8.self)
  let master = MasterPlaylist(text: text)
  for variant in master.variants {
    _ = variant.resolution
    if let path = RelativePath.resolve(variant.uri, against: "videos/a/master.m3u8") {
      precondition(!path.split(separator: "/").contains(".."), "\(variant.uri) resolved to \(path)")
      precondition(!path.hasPrefix("/"))
    }
  }
  let media = MediaPlaylist(text: text)
  _ = media.duration
  for segment in media.segments {
    if let path = RelativePath.resolve(segment.uri, against: "videos/a/720p/index.m3u8") {
      precondition(!path.split(separator: "/").contains(".."), "\(segment.uri) resolved to \(path)")
    }
  }
  let file = ISOBMFF.BoxReader([UInt8](bytes))
  func walk(_ boxes: [ISOBMFF.Box], in parent: Range<Int>) {
    for box in boxes {
      precondition(box.range.lowerBound >= parent.lowerBound && box.range.upperBound <= parent.upperBound,
                   "box \(box.type) at \(box.range) outside \(parent)")
      precondition(box.depth <= ISOBMFF.BoxReader.maximumDepth)
      walk(file.children(of: box), in: box.payload)
    }
  }
  walk(file.topLevelBoxes, in: 0..<bytes.count)
  if let end = file.firstSampleEnd(ofTrack: 1) {
    precondition(end > 0 && end <= bytes.count, "sample end \(end) of \(bytes.count) bytes")
  }
  return 0
}

@_cdecl("FuzzPlaylists_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
  var count = argc
  var arguments = argv
  return LLVMFuzzerRunDriver(&count, &arguments) { testOneInput($0, $1) }
}
