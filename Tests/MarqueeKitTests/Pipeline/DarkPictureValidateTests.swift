import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

/// `marquee validate` and the designer's dark picture (`dark.image`): it
/// must exist, be readable and be an accepted still within the job's
/// limits, and each problem names the JSON path.
@Suite("Validate: the designer's dark picture")
struct DarkPictureValidateTests {
  @Test("missing, unreadable, a folder, not an image, animated or too large: each named by banners[i].dark.image")
  func problemsNameTheJSONPath() throws {
    let fixture = try BatchFixture("dark-validate")
    defer { fixture.remove() }
    func file(_ name: String) -> URL { fixture.dir.appendingPathComponent(name) }
    try fixture.png("light.png")
    try fixture.clip("clip.mp4")
    try Data("plain text, not a picture".utf8).write(to: file("text-dark.png"))
    try DarkArt.write(DarkArt.picture(width: 400, height: 250), to: file("big-dark.png"))
    try DarkArt.write(DarkArt.picture(width: 20, height: 10), to: file("fine-dark.png"))
    // An animated WebP of two frames (Debian's ffmpeg writes a WebP's first frame only).
    try AnimatedWebPEncoder.encode(frames: [DarkArt.picture(width: 16, height: 9), DarkArt.glaring(width: 16, height: 9)],
                                   durations: [100, 100], loopCount: 0, quality: 80).write(to: file("moving.webp"))
    try FileManager.default.createDirectory(at: file("folder-dark.png"), withIntermediateDirectories: true)
    // A FIFO: would block a reader for ever; refused before reading.
    #expect(mkfifo(file("fifo-dark.png").path, 0o644) == 0)
    try fixture.job([
      ["id": "a", "type": "image", "source": "light.png", "dark": ["image": "missing-dark.png"]],
      ["id": "b", "type": "video", "source": "clip.mp4", "dark": ["image": "text-dark.png"]],
      ["id": "c", "type": "image", "source": "light.png", "dark": ["image": "big-dark.png"]],
      ["id": "d", "type": "image", "source": "light.png", "dark": ["image": "folder-dark.png"]],
      ["id": "e", "type": "image", "source": "light.png", "dark": ["image": "fifo-dark.png"]],
      ["id": "f", "type": "image", "source": "light.png", "dark": ["image": "moving.webp"]],
      ["id": "g", "type": "image", "source": "light.png", "dark": ["image": "fine-dark.png"]],
      ["id": "h", "type": "image", "source": "gone.png", "dark": ["image": "also-gone.png"]],
    ], settings: ["max_pixels": 80_000])
    let (job, problems) = JobValidator.validate(jobAt: file("job.json"))
    #expect(job != nil)
    let lines = problems.map(\.description)
    func expect(_ path: String, _ reason: String) {
      #expect(problems.contains { $0.path == path && $0.reason.contains(reason) }, "\(path): \(reason) not in \(lines)")
    }
    expect("banners[0].dark.image", "not found (missing-dark.png)")
    expect("banners[1].dark.image", "not a usable dark picture: not a supported image")
    expect("banners[2].dark.image", "not a usable dark picture: picture is 400x250 = 100000 pixels, over the max_pixels limit of 80000 (big-dark.png)")
    expect("banners[3].dark.image", "is a folder, not an image (folder-dark.png)")
    expect("banners[4].dark.image", "not a regular file (a FIFO)")
    expect("banners[5].dark.image", "is an animation; a dark picture is a still")
    // A missing source does not hide its dark picture's problem.
    expect("banners[7].source", "gone.png")
    expect("banners[7].dark.image", "not found (also-gone.png)")
    #expect(!problems.contains { $0.path.hasPrefix("banners[6]") }, "\(lines)")
    #expect(problems.count == 8, "\(lines)")
    // The light sources (240x180, 320x240) are within the limit.
    #expect(!problems.contains { $0.path.hasSuffix(".source") && !$0.path.hasPrefix("banners[7]") }, "\(lines)")
    #expect(lines.contains("\(file("job.json").relativePath): banners[0].dark.image: not found (missing-dark.png)"), "\(lines)")

    // The command line prints the same lines and exits 2.
    let cli = try MarqueeCLI.run(["validate", "job.json", "--log-format", "plain"], in: fixture.dir)
    #expect(cli.status == 2)
    #expect((cli.stdoutText + cli.stderr).contains("job.json: banners[0].dark.image: not found (missing-dark.png)"), "\(cli.stderr)")
  }

  @Test("a picture the user may not read is named too", .enabled(if: getuid() != 0, "root reads any file"))
  func unreadablePicture() throws {
    let fixture = try BatchFixture("dark-validate-perm")
    defer { fixture.remove() }
    try fixture.png("light.png")
    let locked = fixture.dir.appendingPathComponent("locked-dark.png")
    try DarkArt.write(DarkArt.picture(width: 20, height: 10), to: locked)
    #expect(chmod(locked.path, 0o000) == 0)
    try fixture.job([["id": "a", "type": "image", "source": "light.png", "dark": ["image": "locked-dark.png"]]])
    let (_, problems) = JobValidator.validate(jobAt: fixture.dir.appendingPathComponent("job.json"))
    #expect(problems.map(\.description) == ["\(fixture.dir.appendingPathComponent("job.json").relativePath): banners[0].dark.image: cannot be read (permissions) (locked-dark.png)"])
  }
}
