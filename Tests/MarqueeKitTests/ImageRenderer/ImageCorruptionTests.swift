import Foundation
import MarqueeTestSupport
import MediaIO
import Testing

@testable import MarqueeKit

// Damaged inputs must end in a thrown error or a picture, never a crash or a
// hang: each corpus image is cut short at several points and has bytes
// overwritten at others (positions from a seeded generator, so every run
// tries the same files), then opened and decoded.

@Suite("Damaged images", .serialized, .imageCorpus)
struct ImageCorruptionTests {
  static let files = [
    "image-jpeg-cmyk-ycck-swop-icc.jpg",
    "image-jpeg-grayscale-1ch-gray-gamma22-icc.jpg",
    "image-jpeg-exif-orientation-6.jpg",
    "image-png-16bit-rgb-trns-32x32.png",
    "image-png-palette-2bit-trns-semitransparent-900x600.png",
    "image-png-displayp3-icc-8x8.png",
    "image-gif-animated-30f-transparent-disposal2.gif",
    "image-webp-lossy-alpha-icon-192.webp",
    "image-webp-lossless-vp8l-alpha-tux-386x395.webp",
    "image-webp-animated-lossless-alpha-42f.webp",
    "image-heic-iphone11promax-displayp3-grid-2566x3313.heic",
  ]

  /// Opens and fully decodes `data`; returns normally or throws MediaIOError.
  func exercise(_ data: Data, name: String, in folder: URL) {
    let url = folder.appendingPathComponent(name)
    do {
      try data.write(to: url)
      let source = try ImageSource.open(path: url.path, limits: InputLimits())
      if source.header.isAnimated {
        _ = try source.decodeFrames(keeping: Set(0..<source.header.frameCount)) { (_, _) throws(MediaIOError) in }
      } else {
        _ = try source.decodeStill(minimumWidth: 100)
      }
    } catch let error as MediaIOError {
      #expect(!error.reason.isEmpty)
    } catch {
      Issue.record("unexpected error type for \(name): \(error)")
    }
  }

  @Test("truncated and overwritten files fail cleanly", arguments: files)
  func damaged(file: String) throws {
    let original = try Data(contentsOf: Corpus.url(file))
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    var rng = SplitMix64(seed: UInt64(truncatingIfNeeded: file.utf8.reduce(0) { $0 &* 31 &+ Int($1) }))
    let ext = (file as NSString).pathExtension
    let cuts = [1, 2, 8, 16, 30, 64, 200] + (0..<6).map { _ in Int.random(in: 1..<original.count, using: &rng) }
    for cut in cuts where cut < original.count {
      exercise(original.prefix(cut), name: "cut-\(cut).\(ext)", in: folder)
    }
    // MARQUEE_FUZZ_ROUNDS raises the number of overwrite rounds for a longer local run.
    let rounds = ProcessInfo.processInfo.environment["MARQUEE_FUZZ_ROUNDS"].flatMap { Int($0) } ?? 12
    for round in 0..<rounds {
      var copy = original
      // Damage the headers more often than the bulk data.
      let span = round % 2 == 0 ? min(original.count, 2048) : original.count
      for _ in 0..<4 {
        let at = Int.random(in: 0..<span, using: &rng)
        copy[copy.startIndex + at] = UInt8.random(in: 0...255, using: &rng)
      }
      exercise(copy, name: "flip-\(round).\(ext)", in: folder)
    }
  }
}
