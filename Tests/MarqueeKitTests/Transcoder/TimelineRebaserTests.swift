import Foundation
import Testing

@testable import MarqueeKit

/// The transcoder's timeline on its own: pure arithmetic, no media.
@Suite("Timeline rebaser: first picture at 0")
struct TimelineRebaserTests {
  /// 25 fps in a 1/12800 time base (libavformat's MP4 default for 25 fps).
  private func rebaser(maxDuration: Double = 600) -> TimelineRebaser {
    TimelineRebaser(videoTimeBase: Rational(1, 12800), frameRate: Rational(25, 1), maxDuration: maxDuration)
  }

  @Test("the first picture's time is the origin; the others keep their spacing; the end is the last picture's end")
  func rebasesOnTheFirstPicture() throws {
    var timeline = rebaser()
    #expect(try timeline.rebaseVideo(ticks: 6400, duration: 512) == 0)  // 0.5 s into the source
    #expect(try timeline.rebaseVideo(ticks: 6912, duration: 512) == 512)
    #expect(timeline.origin == 0.5)
    #expect(timeline.videoEnd == Timestamp(ticks: 1024, timeBase: Rational(1, 12800)))
  }

  @Test("a picture without a timestamp follows the previous one by a frame; one before any is dropped")
  func missingTimestamps() throws {
    var timeline = rebaser()
    #expect(try timeline.rebaseVideo(ticks: nil, duration: 0) == nil)
    #expect(timeline.origin == nil)
    #expect(try timeline.rebaseVideo(ticks: 0, duration: 0) == 0)
    #expect(try timeline.rebaseVideo(ticks: nil, duration: 0) == 512)
    // Unknown durations last one nominal frame.
    #expect(timeline.videoEnd.ticks == 1024)
  }

  @Test("B-frame order: the end is the largest PTS plus its duration, not the last decoded")
  func endIsTheLatestPicture() throws {
    var timeline = rebaser()
    for pts: Int64 in [0, 1536, 512, 1024] { _ = try timeline.rebaseVideo(ticks: pts, duration: 512) }
    #expect(timeline.videoEnd.ticks == 2048)
  }

  @Test("a picture past max_duration from the origin is refused as a limit, naming the limit")
  func durationLimit() throws {
    var timeline = rebaser(maxDuration: 10)
    _ = try timeline.rebaseVideo(ticks: 12800, duration: 512)
    #expect(try timeline.rebaseVideo(ticks: 12800 * 11, duration: 512) == 128_000)
    let error = #expect(throws: MarqueeError.self) { try timeline.rebaseVideo(ticks: 12800 * 12, duration: 512) }
    #expect(error?.code == .limitExceeded)
    #expect(error?.message.contains("max_duration limit of 10 s") == true)
  }

  @Test("audio is rebased on the video's origin, in its own time base, keeping the A/V offset")
  func audioOnTheVideoOrigin() throws {
    var timeline = rebaser()
    #expect(timeline.rebaseAudio(ticks: 4800, timeBase: Rational(1, 48000)) == 4800)  // no origin yet
    _ = try timeline.rebaseVideo(ticks: 6400, duration: 512)
    #expect(timeline.rebaseAudio(ticks: 24000, timeBase: Rational(1, 48000)) == 0)
    #expect(timeline.rebaseAudio(ticks: 23000, timeBase: Rational(1, 48000)) == -1000)
    #expect(timeline.rebaseAudio(ticks: nil, timeBase: Rational(1, 48000)) == nil)
  }
}
