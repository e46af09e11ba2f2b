import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

// `CodedAlike` lets a JPEG pair take the WebP pair's dark-variant
// judgement. The pictures here are coded by the ffmpeg CLI (libwebp and
// mjpeg), not by Marquee, and decoded by it too.
@Suite("Two codings of one picture")
struct CodedAlikeTests {
  private func coded(_ filter: String, _ fixture: BatchFixture, name: String, args: [String]) throws -> RGBAImage {
    let url = fixture.dir.appendingPathComponent(name)
    try Oracle.generate(["-f", "lavfi", "-i", filter, "-frames:v", "1"] + args, to: url)
    return try FFmpegOracle.decode(url)
  }

  @Test("a WebP and a JPEG of one banner are alike; a changed or shifted one is not")
  func codingsOfOnePicture() throws {
    let fixture = try BatchFixture("coded-alike")
    defer { fixture.remove() }
    let banner = "testsrc2=s=640x360,drawbox=x=0:y=280:w=640:h=80:color=white:t=fill"
    let webp = try coded(banner, fixture, name: "a.webp", args: ["-c:v", "libwebp", "-quality", "80"])
    let jpeg = try coded(banner, fixture, name: "a.jpg", args: ["-q:v", "4"])
    #expect(CodedAlike.same(webp, jpeg))
    #expect(CodedAlike.same(jpeg, jpeg))
    // The white bar turned dark in one of them: a different picture.
    let changed = try coded(banner + ",drawbox=x=0:y=280:w=640:h=80:color=0x1C1C1E:t=fill", fixture, name: "b.jpg",
                            args: ["-q:v", "4"])
    #expect(!CodedAlike.same(webp, changed))
    // Every level 8 darker: a mean difference over the bound.
    let darker = try coded(banner + ",lutrgb=r='max(val-8,0)':g='max(val-8,0)':b='max(val-8,0)'", fixture,
                           name: "c.jpg", args: ["-q:v", "4"])
    #expect(!CodedAlike.same(webp, darker))
    // Another size is never alike.
    let smaller = try coded("testsrc2=s=320x180", fixture, name: "d.jpg", args: ["-q:v", "4"])
    #expect(!CodedAlike.same(webp, smaller))
  }
}
