import Foundation
import MarqueeTestSupport
import Testing

/// `marquee init` run as a process, on a folder of mixed media.
@Suite("CLI: marquee init")
struct InitCommandTests {
  @Test("prints a job on stdout only, a note per skipped file on stderr; saved where the help says, it validates")
  func prints() throws {
    let folder = try MixedMediaFolder("cli-init-print")
    defer { folder.remove() }
    let result = try MarqueeCLI.run(["init", "media"], in: folder.root)
    #expect(result.status == 0, "\(result.stderr)")

    // stdout is the job: JSON, the banners by content.
    let job = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    #expect(job["name"] as? String == "media")
    let banners = try #require(job["banners"] as? [[String: Any]])
    #expect(banners.map { $0["id"] as? String } == MixedMediaFolder.listed.map(\.id))
    #expect(banners.map { $0["type"] as? String } == MixedMediaFolder.listed.map(\.type))
    #expect(banners.map { $0["source"] as? String } == MixedMediaFolder.listed.map { "media/" + $0.file })
    for banner in banners where banner["type"] as? String == "video" {
      #expect(banner["autoplay"] as? Bool == true && banner["muted"] as? Bool == true, "\(banner)")
    }

    // stderr: one note a skipped file, naming it and the reason.
    let notes = result.stderr.split(separator: "\n").map(String.init)
    #expect(notes.count == MixedMediaFolder.skipped.count, "\(result.stderr)")
    for (line, skipped) in zip(notes, MixedMediaFolder.skipped) {
      #expect(line.hasPrefix("note: media/\(skipped.file): skipped: "), "\(line)")
      #expect(line.contains(skipped.reason), "\(line)")
    }

    // Saved in the current directory, it passes `marquee validate`.
    try result.stdout.write(to: folder.root.appendingPathComponent("job.json"))
    let validate = try MarqueeCLI.run(["validate", "job.json", "--log-format", "plain"], in: folder.root)
    #expect(validate.status == 0, "\(validate.stderr)")
    #expect(validate.stdoutText.contains("job.json is valid: 6 banner(s) (2 video, 4 image)"), "\(validate.stdoutText)")

    // The same folder, the same bytes.
    #expect(try MarqueeCLI.run(["init", "media"], in: folder.root).stdout == result.stdout)
  }

  @Test("printed into a file of the media folder itself, that file is skipped and the job validates there")
  func printedIntoTheFolder() throws {
    let folder = try MixedMediaFolder("cli-init-redirect")
    defer { folder.remove() }
    let result = try Run.process("/bin/sh", ["-c", "exec \"$0\" init . > job.json", MarqueeCLI.executable.path],
                                 currentDirectory: folder.media, environment: MarqueeCLI.environment())
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("note: job.json: skipped: is the job file being written (standard output)"), "\(result.stderr)")
    let validate = try MarqueeCLI.run(["validate", "job.json"], in: folder.media)
    #expect(validate.status == 0, "\(validate.stderr)")
  }

  @Test("--out writes the job file and refuses to overwrite one, leaving it byte for byte")
  func out() throws {
    let folder = try MixedMediaFolder("cli-init-out")
    defer { folder.remove() }
    let written = try MarqueeCLI.run(["init", "media", "--out", "job.json", "--name", "spring"], in: folder.root)
    #expect(written.status == 0, "\(written.stderr)")
    #expect(written.stdoutText == "Wrote job.json: 6 banner(s) (2 video, 4 image), 5 file(s) skipped\n")
    let jobFile = folder.root.appendingPathComponent("job.json")
    let bytes = try Data(contentsOf: jobFile)
    #expect(String(decoding: bytes, as: UTF8.self).contains("\"name\": \"spring\""))
    #expect(try MarqueeCLI.run(["validate", "job.json"], in: folder.root).status == 0)

    let again = try MarqueeCLI.run(["init", "media", "--out", "job.json"], in: folder.root)
    #expect(again.status == 2)
    #expect(again.stderr == "error: job.json already exists; init never overwrites a file (remove it, or give another --out)\n")
    #expect(again.stdout.isEmpty)
    #expect(try Data(contentsOf: jobFile) == bytes)

    // Any file, not only a job: left alone.
    let notes = folder.root.appendingPathComponent("notes.txt")
    let precious = Data("precious\n".utf8)
    try precious.write(to: notes)
    #expect(try MarqueeCLI.run(["init", "media", "-o", "notes.txt"], in: folder.root).status == 2)
    #expect(try Data(contentsOf: notes) == precious)

    // --out inside the media folder: sources are the bare names.
    let inside = try MarqueeCLI.run(["init", "media", "--out", "media/job.json"], in: folder.root)
    #expect(inside.status == 0, "\(inside.stderr)")
    #expect(String(decoding: try Data(contentsOf: folder.media.appendingPathComponent("job.json")), as: UTF8.self)
              .contains("\"source\": \"Launch Clip.mp4\""))
    #expect(try MarqueeCLI.run(["validate", "media/job.json"], in: folder.root).status == 0)
  }

  @Test("errors exit 2 with one line: no media, no folder, outside the job's folder, a bad name; 4 when FILE cannot be written")
  func errors() throws {
    let folder = try MixedMediaFolder("cli-init-errors")
    defer { folder.remove() }
    let empty = folder.root.appendingPathComponent("empty")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    let cases: [(arguments: [String], directory: URL, code: Int32, message: String)] = [
      (["init", "empty"], folder.root, 2, "error: no video or image Marquee can build in empty (it is empty)"),
      (["init", "missing"], folder.root, 2, "error: missing: no such folder"),
      (["init", "../media"], empty, 2, "error: ../media is not inside the current directory"),
      (["init", "media", "--out", "empty/job.json"], folder.root, 2, "error: media is not inside the folder of empty/job.json"),
      (["init", "media", "--name", "Spring Promo"], folder.root, 2, "error: the job name must be 1 to 64 characters"),
      (["init", "media", "--out", "media/nodir/job.json"], folder.root, 2,
       "error: media/nodir, the folder of --out media/nodir/job.json, does not exist; create it first"),
    ]
    for c in cases {
      let result = try MarqueeCLI.run(c.arguments, in: c.directory)
      #expect(result.status == c.code, "\(c.arguments): \(result.stderr)")
      #expect(result.stdout.isEmpty, "\(c.arguments)")
      let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error: ") }
      #expect(errors.count == 1 && errors[0].hasPrefix(c.message), "\(c.arguments): \(result.stderr)")
    }
    #expect(!FileManager.default.fileExists(atPath: empty.appendingPathComponent("job.json").path))

    // A file system that takes no more (ulimit -f 1: 512 bytes): exit 4,
    // and neither the job file nor its temporary file is left.
    let full = try MarqueeCLI.runWithFileSizeLimit(blocks: 1, ["init", "media", "--out", "job.json"], in: folder.root)
    #expect(full.status == 4, "\(full.stderr)")
    #expect(full.stderr.contains("\nerror: cannot write job.json: "), "\(full.stderr)")
    let left = try FileManager.default.contentsOfDirectory(atPath: folder.root.path)
    #expect(left.sorted() == ["empty", "media"], "\(left)")
  }

  @Test("usage errors exit 2 with init's usage lines", arguments: [
    (["init"], "init needs a media folder"),
    (["init", "a", "b"], "init takes one media folder"),
    (["init", "media", "--name"], "--name needs a job name"),
    (["init", "media", "--frobnicate"], "unknown option '--frobnicate' for init"),
  ])
  func usage(_ arguments: [String], _ message: String) throws {
    let result = try MarqueeCLI.run(arguments)
    #expect(result.status == 2)
    #expect(result.stderr.hasPrefix("error: \(message)"), "\(result.stderr)")
    #expect(result.stderr.contains("Usage: marquee init <media-folder>"))
  }

  @Test("init on a folder of mixed media gives a job that validates, builds and verifies")
  func builds() throws {
    let folder = try MixedMediaFolder("cli-init-build")
    defer { folder.remove() }
    #expect(try MarqueeCLI.run(["init", "media", "--out", "job.json"], in: folder.root).status == 0)
    #expect(try MarqueeCLI.run(["validate", "job.json"], in: folder.root).status == 0)
    let build = try MarqueeCLI.run(["build", "job.json", "--out", "out", "--log-format", "plain"], in: folder.root)
    #expect(build.status == 0, "\(build.stdoutText)\n\(build.stderr)")
    let bundle = folder.root.appendingPathComponent("out/media")
    let verify = try MarqueeCLI.run(["verify", bundle.path, "--log-format", "plain"])
    #expect(verify.status == 0, "\(verify.stdoutText)\n\(verify.stderr)")

    let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: bundle.appendingPathComponent("banners.json"))) as? [String: Any])
    let items = try #require(manifest["banners"] as? [[String: Any]])
    #expect(items.map { $0["id"] as? String } == MixedMediaFolder.listed.map(\.id))
    #expect(items.map { $0["type"] as? String } == MixedMediaFolder.listed.map(\.type))
  }
}
