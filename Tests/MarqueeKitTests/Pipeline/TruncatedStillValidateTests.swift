import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// `marquee validate` and stills cut short: a PNG and a JPEG cut at 60 %
/// given as an image source, a video's poster and a designer's dark
/// picture are refused by validate with the reason build fails them with
/// (one rule, `ImageSource.checkDecodes`), each named by its JSON path.
@Suite("Validate: truncated stills")
struct TruncatedStillValidateTests {
  @Test("a PNG and a JPEG cut at 60 % fail validate as source, cover.image and dark.image, with build's reason; the whole files pass")
  func truncatedStills() throws {
    let fixture = try BatchFixture("truncated-stills")
    defer { fixture.remove() }
    func file(_ name: String) -> URL { fixture.dir.appendingPathComponent(name) }
    // Busy pictures (libavfilter's testsrc2), so the cut falls in the image data.
    for name in ["whole.png", "whole.jpg"] {
      try Oracle.generate(["-f", "lavfi", "-i", "testsrc2=size=640x360", "-frames:v", "1"], to: file(name))
    }
    try fixture.clip("clip.mp4")
    try DamagedMedia.truncate(file("whole.png"), to: file("cut.png"), keeping: 0.6)
    try DamagedMedia.truncate(file("whole.jpg"), to: file("cut.jpg"), keeping: 0.6)
    // The oracle: ffmpeg's own decoders report an error for the cut files only.
    for (name, broken) in [("whole.png", false), ("whole.jpg", false), ("cut.png", true), ("cut.jpg", true)] {
      let run = try Run.process("ffmpeg", ["-v", "error", "-i", file(name).path, "-f", "null", "-"])
      #expect(run.stderr.isEmpty != broken, "\(name): \(run.stderr)")
    }
    try fixture.job([
      ["id": "png", "type": "image", "source": "cut.png"],
      ["id": "jpg", "type": "image", "source": "cut.jpg"],
      ["id": "poster", "type": "video", "source": "clip.mp4", "cover": ["image": "cut.jpg"]],
      ["id": "dark", "type": "image", "source": "whole.png", "dark": ["image": "cut.png"]],
      ["id": "dark-jpg", "type": "image", "source": "whole.jpg", "dark": ["image": "cut.jpg"]],
      ["id": "fine", "type": "image", "source": "whole.jpg", "dark": ["image": "whole.png"]],
    ])
    let (job, problems) = JobValidator.validate(jobAt: file("job.json"))
    #expect(job != nil)
    let lines = problems.map(\.description)
    #expect(problems.map(\.path) == ["banners[0].source", "banners[1].source", "banners[2].cover.image",
                                     "banners[3].dark.image", "banners[4].dark.image"], "\(lines)")

    // Build fails the same items; each validate reason carries build's.
    let built = try MarqueeCLI.run(["build", "job.json", "--out", "out"], in: fixture.dir)
    #expect(built.status == 1, "\(built.stderr)")
    let pairs: [(id: String, path: String, file: String)] = [
      ("png", "banners[0].source", "cut.png"), ("jpg", "banners[1].source", "cut.jpg"),
      ("poster", "banners[2].cover.image", "cut.jpg"), ("dark", "banners[3].dark.image", "cut.png"),
      ("dark-jpg", "banners[4].dark.image", "cut.jpg"),
    ]
    for (id, path, name) in pairs {
      let problem = try #require(problems.first { $0.path == path }, "\(path) not in \(lines)")
      #expect(problem.reason.hasSuffix("(\(name))"), "\(problem)")
      let line = try #require(built.stderr.split(separator: "\n").first { $0.contains("error: \(id):") }, "\(built.stderr)")
      // Build's reason: the decoder's words after the file name (and after
      // "cannot be used: " for a poster or a dark picture).
      var reason = String(try #require(line.range(of: "\(name): ").map { line[$0.upperBound...] }, "\(line)"))
      if let r = reason.range(of: "cannot be used: ") { reason = String(reason[r.upperBound...]) }
      #expect(!reason.isEmpty && problem.reason.contains(reason), "build: \(line); validate: \(problem)")
      if name.hasSuffix(".jpg") { #expect(reason.hasPrefix("JPEG is truncated: the image data ends before the last row"), "\(line)") }
    }
    #expect(!built.stderr.contains("error: fine:"), "\(built.stderr)")

    // The command line prints the path and exits 2.
    let cli = try MarqueeCLI.run(["validate", "job.json", "--log-format", "plain"], in: fixture.dir)
    #expect(cli.status == 2)
    #expect((cli.stdoutText + cli.stderr).contains("job.json: banners[4].dark.image: not a usable dark picture: JPEG is truncated: "),
            "\(cli.stderr)")
  }
}
