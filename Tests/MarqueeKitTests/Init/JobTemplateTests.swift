import Foundation
import MarqueeTestSupport
import Testing

@testable import MarqueeKit

@Suite("marquee init: the job a media folder gives")
struct JobTemplateTests {
  @Test("a folder of mixed media: every video and image listed by content, the rest skipped with a reason, and the job validates")
  func mixedMedia() throws {
    let folder = try MixedMediaFolder("template-mixed")
    defer { folder.remove() }
    let template = try JobTemplate.make(mediaFolder: folder.media, jobFolder: folder.root)
    #expect(template.name == "media")
    #expect(template.banners.map(\.fileName) == MixedMediaFolder.listed.map(\.file))
    #expect(template.banners.map(\.id) == MixedMediaFolder.listed.map(\.id))
    #expect(template.banners.map(\.kind.rawValue) == MixedMediaFolder.listed.map(\.type))
    #expect(template.banners.map(\.content) == MixedMediaFolder.listed.map(\.content))
    #expect(template.banners.map(\.source) == MixedMediaFolder.listed.map { "media/" + $0.file })
    #expect(Set(template.banners.map(\.id)).count == template.banners.count)

    // One note per skipped file, naming it through the folder as given.
    #expect(template.skipped.map(\.file) == MixedMediaFolder.skipped.map { folder.media.path + "/" + $0.file })
    for (note, expected) in zip(template.skipped, MixedMediaFolder.skipped) {
      #expect(note.text.contains(expected.reason), "\(note)")
    }
    #expect(template.notes.isEmpty)

    // The text reads back as the same banners, with every default.
    let document = try template.document()
    let job = document.job
    #expect(job.name == "media")
    #expect(job.settings == JobSettings.default)
    #expect(job.banners.map(\.id) == template.banners.map(\.id))
    #expect(job.banners.map(\.kind) == template.banners.map(\.kind))
    for banner in job.banners where banner.kind == .video {
      #expect(banner.autoplay && banner.muted && banner.cover == .auto)
    }
    #expect(job.warnings.isEmpty)

    // Saved in the job folder, it passes validate's source checks too.
    let jobFile = folder.root.appendingPathComponent("job.json")
    try JobTemplate.write(document.text, to: jobFile)
    let (validated, problems) = JobValidator.validate(jobAt: jobFile)
    #expect(problems.isEmpty, "\(problems)")
    #expect(validated?.banners.count == MixedMediaFolder.listed.count)
  }

  @Test("the text: pretty JSON in demo.json's style, keys in a fixed order, one banner a line")
  func text() throws {
    let folder = try MixedMediaFolder("template-text")
    defer { folder.remove() }
    let text = try JobTemplate.make(mediaFolder: folder.media, jobFolder: folder.root).document().text
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(lines.first == "{")
    #expect(lines[1] == "  \"name\": \"media\",")
    #expect(lines[2] == "  \"settings\": {")
    #expect(lines[3] == "    \"segment_duration\": \(JobDocumentValidator.format(JobSettings.default.segmentDuration)),")
    #expect(lines.contains("    \"dark_surface\": \"\(JobSettings.default.darkSurface.hex)\","))
    #expect(lines.contains("    \"video_target_ssim\": \(JobSettings.default.videoTargetSSIM),"))
    #expect(lines.contains("    {\"id\": \"launch-clip\", \"type\": \"video\", \"source\": \"media/Launch Clip.mp4\", \"autoplay\": true, \"muted\": true, \"cover\": \"auto\"},"))
    #expect(lines.contains("    {\"id\": \"summer-sale\", \"type\": \"image\", \"source\": \"media/Summer Sale.png\"},"))
    #expect(lines.suffix(4) == ["    {\"id\": \"teaser\", \"type\": \"video\", \"source\": \"media/teaser.jpg\", \"autoplay\": true, \"muted\": true, \"cover\": \"auto\"}",
                                "  ]", "}", ""])
  }

  @Test("every setting is written with its default or left out for a reason; none is forgotten")
  func settingsKeys() throws {
    let folder = try MixedMediaFolder("template-settings")
    defer { folder.remove() }
    let template = try JobTemplate.make(mediaFolder: folder.media, jobFolder: folder.root)
    let written = Set(template.settingsMembers.map(\.key))
    #expect(written.isDisjoint(with: JobTemplate.settingsLeftOut))
    #expect(written.union(JobTemplate.settingsLeftOut) == Set(JobDocumentValidator.settingsKeys))
    #expect(template.settingsMembers.map(\.key) == JobDocumentValidator.settingsKeys.filter(written.contains))
  }

  @Test("the same folder gives the same bytes, whatever order its files were made in")
  func deterministic() throws {
    let folder = try MixedMediaFolder("template-order")
    defer { folder.remove() }
    let first = try JobTemplate.make(mediaFolder: folder.media, jobFolder: folder.root).document().text
    #expect(try JobTemplate.make(mediaFolder: folder.media, jobFolder: folder.root).document().text == first)

    // The media files copied in reverse order into another folder.
    let copy = folder.root.appendingPathComponent("copy/media")
    try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
    for listed in MixedMediaFolder.listed.reversed() {
      try FileManager.default.copyItem(at: folder.media.appendingPathComponent(listed.file),
                                       to: copy.appendingPathComponent(listed.file))
    }
    let again = try JobTemplate.make(mediaFolder: copy, jobFolder: copy.deletingLastPathComponent()).document().text
    #expect(again == first)
  }

  @Test("sources are relative to the job file's folder; a media folder outside it is refused")
  func relativeSources() throws {
    let folder = try MixedMediaFolder("template-relative")
    defer { folder.remove() }
    #expect(JobTemplate.sourceFolder(of: folder.media, in: folder.root) == "media")
    #expect(JobTemplate.sourceFolder(of: folder.media, in: folder.media) == "")
    #expect(JobTemplate.sourceFolder(of: folder.media.appendingPathComponent("../media/./"), in: folder.root) == "media")
    #expect(JobTemplate.sourceFolder(of: folder.root, in: folder.media) == nil)

    // The job inside the media folder: bare file names.
    let inside = try JobTemplate.make(mediaFolder: folder.media, jobFolder: folder.media)
    #expect(inside.banners.first?.source == "Launch Clip.mp4")
    _ = try inside.document()

    // A job folder reached through a symbolic link, the media folder by its real path.
    let link = folder.root.deletingLastPathComponent().appendingPathComponent("link-\(UUID().uuidString)")
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: folder.root.path)
    defer { try? FileManager.default.removeItem(at: link) }
    #expect(JobTemplate.sourceFolder(of: folder.media, in: link) == "media")

    // Outside: refused before any file is read.
    let sibling = folder.root.appendingPathComponent("jobs")
    try FileManager.default.createDirectory(at: sibling, withIntermediateDirectories: true)
    #expect {
      try JobTemplate.make(mediaFolder: folder.media, jobFolder: sibling)
    } throws: { error in
      guard let e = error as? MarqueeError else { return false }
      return e.code == .usage && e.message.contains("is not inside")
    }
  }

  @Test("a file name the reader would take for a URL gets ./; quotes and backslashes are escaped")
  func awkwardNames() throws {
    let fixture = try BatchFixture("template-names")
    defer { fixture.remove() }
    try fixture.png("clip:1.png")
    try fixture.png("quote\"back\\slash.png")
    #expect(JobTemplate.sourceText("clip:1.png", in: "") == "./clip:1.png")
    #expect(JobTemplate.sourceText("clip:1.png", in: "media") == "media/clip:1.png")
    let template = try JobTemplate.make(mediaFolder: fixture.dir, jobFolder: fixture.dir, name: "names")
    let job = try template.document().job
    #expect(job.banners.map(\.sourceText) == ["./clip:1.png", "quote\"back\\slash.png"])
    #expect(job.banners.map(\.id) == ["clip-1", "quote-back-slash"])
    #expect(job.banners.map(\.source.lastPathComponent) == ["clip:1.png", "quote\"back\\slash.png"])
  }

  @Test("a file whose name is not UTF-8 is skipped with that reason (a job file cannot name it)")
  func nonUTF8Name() throws {
    let fixture = try BatchFixture("template-utf8")
    defer { fixture.remove() }
    try fixture.png("good.png")
    let bytes = Array(fixture.dir.path.utf8) + Array("/bad".utf8) + [0xFF] + Array("name.png".utf8) + [0]
    let fd = open(bytes.map { CChar(bitPattern: $0) }, O_CREAT | O_WRONLY, 0o644)
    try #require(fd >= 0)
    close(fd)
    let template = try JobTemplate.make(mediaFolder: fixture.dir, jobFolder: fixture.dir)
    #expect(template.banners.map(\.id) == ["good"])
    #expect(template.skipped.count == 1)
    #expect(template.skipped.first?.text.contains("not valid UTF-8") == true, "\(template.skipped)")
  }

  @Test("more banners than the client keeps: the job reader's warning comes with the document")
  func manyBanners() throws {
    let fixture = try BatchFixture("template-many")
    defer { fixture.remove() }
    let data = try Data(contentsOf: try fixture.png("00.png", width: 32, height: 24))
    for n in 1...JobDocumentValidator.recommendedMaxBanners { try data.write(to: fixture.dir.appendingPathComponent(String(format: "%02d.png", n))) }
    let document = try JobTemplate.make(mediaFolder: fixture.dir, jobFolder: fixture.dir, name: "many").document()
    #expect(document.job.banners.count == JobDocumentValidator.recommendedMaxBanners + 1)
    #expect(document.job.warnings.count == 1 && document.job.warnings[0].hasPrefix("job.json: banners: "), "\(document.job.warnings)")
  }

  @Test("--name: used when valid, refused with a suggestion when not")
  func names() throws {
    let fixture = try BatchFixture("template-name")
    defer { fixture.remove() }
    try fixture.png("a.png")
    #expect(try JobTemplate.make(mediaFolder: fixture.dir, jobFolder: fixture.dir, name: "spring_2025").document().job.name
              == "spring_2025")
    #expect {
      try JobTemplate.make(mediaFolder: fixture.dir, jobFolder: fixture.dir, name: "Spring Promo")
    } throws: { error in
      guard let e = error as? MarqueeError else { return false }
      return e.code == .usage && e.message.contains("(try \"spring-promo\")")
    }
  }

  @Test("a folder with no media, an empty one, a missing one: usage errors")
  func noMedia() throws {
    let fixture = try BatchFixture("template-empty")
    defer { fixture.remove() }
    func isUsage(_ error: any Error) -> Bool { (error as? MarqueeError)?.code == .usage }
    let empty = try JobTemplate.make(mediaFolder: fixture.dir, jobFolder: fixture.dir)
    #expect(empty.banners.isEmpty && empty.skipped.isEmpty)
    #expect(performing: { try empty.document() }, throws: isUsage)

    try Data("hello".utf8).write(to: fixture.dir.appendingPathComponent("readme.txt"))
    let textOnly = try JobTemplate.make(mediaFolder: fixture.dir, jobFolder: fixture.dir)
    #expect(textOnly.skipped.count == 1)
    #expect(performing: { try textOnly.document() }, throws: isUsage)

    let missing = fixture.dir.appendingPathComponent("nope")
    #expect(performing: { try JobTemplate.make(mediaFolder: missing, jobFolder: fixture.dir) }, throws: isUsage)
    let file = fixture.dir.appendingPathComponent("readme.txt")
    #expect(performing: { try JobTemplate.make(mediaFolder: file, jobFolder: fixture.dir) }, throws: isUsage)
  }

  @Test("files to ignore (the job file being printed into the folder) are skipped with their reason")
  func ignoring() throws {
    let fixture = try BatchFixture("template-ignore")
    defer { fixture.remove() }
    try fixture.png("a.png")
    let job = fixture.dir.appendingPathComponent("job.json")
    try Data().write(to: job)
    let attributes = try FileManager.default.attributesOfItem(atPath: job.path)
    let id = MediaFolderScanner.FileID(device: Int64(try #require(attributes[.systemNumber] as? Int)),
                                       inode: Int64(try #require(attributes[.systemFileNumber] as? Int)))
    let template = try JobTemplate.make(mediaFolder: fixture.dir, jobFolder: fixture.dir, ignoring: [id: "is the job file"])
    #expect(template.skipped.map(\.text) == ["is the job file"])
    #expect(template.banners.map(\.id) == ["a"])
  }

  @Test("write: a new file appears whole; an existing one is refused and left byte for byte")
  func write() throws {
    let fixture = try BatchFixture("template-write")
    defer { fixture.remove() }
    let url = fixture.dir.appendingPathComponent("job.json")
    try JobTemplate.checkNew(url)
    try JobTemplate.write("{}\n", to: url)
    #expect(try Data(contentsOf: url) == Data("{}\n".utf8))
    // No temporary file is left beside it.
    #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.dir.path) == ["job.json"])

    let before = Data("precious\u{0}bytes".utf8)
    try before.write(to: url)
    func isUsage(_ error: any Error) -> Bool {
      guard let e = error as? MarqueeError else { return false }
      return e.code == .usage && e.message.contains("already exists")
    }
    #expect(performing: { try JobTemplate.checkNew(url) }, throws: isUsage)
    #expect(performing: { try JobTemplate.write("{\"name\": \"x\"}\n", to: url) }, throws: isUsage)
    #expect(try Data(contentsOf: url) == before)

    // A dangling symbolic link counts as existing: nothing is written through it.
    let dangling = fixture.dir.appendingPathComponent("dangling.json")
    try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: "nowhere.json")
    #expect(performing: { try JobTemplate.write("{}\n", to: dangling) }, throws: isUsage)
    #expect(!FileManager.default.fileExists(atPath: fixture.dir.appendingPathComponent("nowhere.json").path))

    // A missing folder: the output cannot be written (exit 4).
    let nowhere = fixture.dir.appendingPathComponent("no/such/job.json")
    #expect(performing: { try JobTemplate.write("{}\n", to: nowhere) }, throws: { ($0 as? MarqueeError)?.isOutputIOError == true })
    #expect(Set(try FileManager.default.contentsOfDirectory(atPath: fixture.dir.path)) == ["job.json", "dangling.json"])
  }
}
