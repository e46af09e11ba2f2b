import Foundation
import MediaIO
import Testing

@testable import MarqueeKit

/// The one error type at a stage edge: what a foreign error becomes, what
/// `--verbose` prints of it, and the item failure that keeps it.
@Suite("MarqueeError: wrapping, detail, item failures")
struct MarqueeErrorTests {
  static let noSpace = MediaIOError(kind: .output(errno: ENOSPC), status: -ENOSPC, function: "write",
                                    context: "360p/segment_00001.m4s", reason: "No space left on device")

  @Test("a MediaIOError is wrapped with its description as the message and itself as the cause")
  func wrapsMediaIOErrors() {
    let full = MarqueeError.wrapping(Self.noSpace)
    #expect(full.code == .writeFailed && full.isOutputIOError)
    #expect(full.message == "360p/segment_00001.m4s: No space left on device (write)")
    #expect(full.cause == Self.noSpace)
    let corrupt = MediaIOError(kind: .invalidData, function: "avcodec_send_frame", context: "", reason: "bad")
    #expect(MarqueeError.wrapping(corrupt).code == .encodeFailed)
    #expect(!MarqueeError.wrapping(corrupt).isOutputIOError)
  }

  @Test("a MarqueeError passes unchanged, where it was raised included")
  func passesMarqueeErrors() {
    let original = MarqueeError(.noCover, "every frame is black", file: "clip.mp4")
    let wrapped = MarqueeError.wrapping(original)
    #expect(wrapped == original && wrapped.location == original.location)
  }

  @Test("a Foundation file error is described by its errno; an output errno makes it a write failure")
  func wrapsFileErrors() {
    let readOnly = NSError(domain: NSPOSIXErrorDomain, code: Int(EROFS))
    let error = MarqueeError.wrapping(readOnly)
    #expect(error.code == .writeFailed && error.cause == nil)
    #expect(error.message == String(cString: strerror(EROFS)), "\(error.message)")
    let missing = NSError(domain: NSPOSIXErrorDomain, code: Int(ENOENT))
    #expect(MarqueeError.wrapping(missing).code == .encodeFailed)
  }

  @Test("the detailed description: the description, then code, cause and location, one indented line each")
  func detailedDescription() {
    let line = #line + 1
    let error = MarqueeError(.writeFailed, "cannot produce 360p: No space left on device", file: "clip.mp4", cause: Self.noSpace)
    #expect(error.detailedDescription.split(separator: "\n") == [
      "clip.mp4: cannot produce 360p: No space left on device",
      "  code: write failed",
      "  cause: write status -\(ENOSPC): 360p/segment_00001.m4s: No space left on device",
      "  at: MarqueeKitTests/MarqueeErrorTests.swift:\(line)",
    ])
    let bare = MarqueeError(.noCover, "black")
    #expect(bare.detailedDescription.split(separator: "\n").map { $0.hasPrefix("  at: ") } == [false, false, true])
  }

  @Test("an item failure keeps the error: its message is the reason, its code and output fault are the error's")
  func itemFailureKeepsTheError() {
    let spec = BannerSpec(id: "spring", kind: .video, source: URL(fileURLWithPath: "/media/spring.mp4"),
                          sourceText: "media/spring.mp4", link: nil, autoplay: true, muted: true, cover: .auto,
                          dark: .generated, jsonPath: "banners[0]")
    let full = ItemFailure.classify(.wrapping(Self.noSpace), spec: spec)
    #expect(full.description == "spring: media/spring.mp4: 360p/segment_00001.m4s: No space left on device (write)")
    #expect(full.isOutputIOError && full.error.code == .writeFailed && full.stage == .encode)
    let black = ItemFailure.classify(.noCover("every frame is black"), spec: spec)
    #expect(black.stage == .cover && black.error.code == .noCover && black.reason == "every frame is black")
    let poster = ItemFailure.classify(.noCover("the poster is black", source: "media/poster.png"), spec: spec)
    #expect(poster.source == "media/poster.png")
    let damaged = ItemFailure.classify(MarqueeError(.damagedSource, "the source is damaged"), spec: spec)
    #expect(damaged.stage == .decode && !damaged.isOutputIOError)
  }

  @Test("a file folded into the message keeps code, cause and location")
  func fileInMessage() {
    let error = MarqueeError(.unreadableSource, "file not found", file: "poster.jpg", cause: Self.noSpace)
    let folded = error.withFileInMessage(after: "the poster (cover.image): ")
    #expect(folded.message == "the poster (cover.image): poster.jpg: file not found" && folded.file == nil)
    #expect(folded.code == error.code && folded.cause == error.cause && folded.location == error.location)
  }
}
