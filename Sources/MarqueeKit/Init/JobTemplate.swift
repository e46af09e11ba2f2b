import Foundation

/// The job `marquee init` writes for a media folder: one banner per video
/// and image of the folder, every setting at its default, and the files
/// left out with the reason for each.
///
/// ```swift
/// let template = try JobTemplate.make(mediaFolder: URL(fileURLWithPath: "media"),
///                                     jobFolder: URL(fileURLWithPath: "."))
/// let document = try template.document()   // the job file's text, checked
/// ```
///
/// Built by small parts, one job each: `MediaFolderScanner` lists the
/// folder (no link followed, hidden entries and subfolders left out),
/// `MediaClassifier` decides each file's type from its content,
/// `BannerIDSlugger` turns the file names into unique ids, and
/// `document()` writes the JSON (`JobTemplate+JSON`). The same folder gives
/// the same bytes on every run.
public struct JobTemplate: Sendable, Equatable {
  /// One banner of the job.
  public struct Banner: Sendable, Equatable {
    /// The banner's id (`BannerIDSlugger`).
    public var id: String
    /// The banner type, from the content (`MediaClassification.kind`).
    public var kind: BannerKind
    /// What the file holds.
    public var content: MediaContent
    /// The `source` as the job writes it: relative to the job file's
    /// folder, `/`-separated (`media/clip.mp4`; `./` first when the path
    /// would otherwise read as a URL scheme, as `./clip:1.mov`).
    public var source: String
    /// The file's name in the media folder.
    public var fileName: String
  }

  /// A file of the folder and what to say about it.
  public struct FileNote: Sendable, Equatable, CustomStringConvertible {
    /// The file as the user named the folder (`media/notes.txt`).
    public var file: String
    /// What to say (`is a symbolic link (not followed)`).
    public var text: String
    /// `file: text`.
    public var description: String { "\(file): \(text)" }
  }

  /// The job's name: the bundle folder (`--name`, or the slug of the media
  /// folder's name).
  public var name: String
  /// The settings written out (`JobSettings.default`).
  public var settings: JobSettings
  /// The banners, in the order of their file names' UTF-8 bytes.
  public var banners: [Banner]
  /// The files left out and why, in the same order: not media (with the
  /// reason the classifier gave), hidden, links, subfolders, other kinds
  /// of file.
  public var skipped: [FileNote]
  /// Listed files whose type needs a word (an animated GIF listed as a
  /// video).
  public var notes: [FileNote]
  /// The media folder, as given.
  public var mediaFolder: URL
  /// The folder the job file is for: every `source` is relative to it.
  public var jobFolder: URL

  /// The job name used when the media folder's name has no slug.
  public static let fallbackName = "banners"

  // MARK: - Making

  /// Lists `mediaFolder` as a job to be saved in `jobFolder`.
  ///
  /// - Parameters:
  ///   - mediaFolder: the folder of media; its own entries are listed (not
  ///     its subfolders'). Notes name files through it as given
  ///     (`relativePath`).
  ///   - jobFolder: the folder the job file will be saved in. The job
  ///     reader reads sources only inside its job file's folder (unless
  ///     `allow_outside_sources`), so `mediaFolder` must be `jobFolder` or
  ///     inside it (compared as written and, failing that, with symbolic
  ///     links resolved).
  ///   - name: the job's name; nil takes the slug of the media folder's
  ///     name (`Spring Promo` → `spring-promo`), or `fallbackName`.
  ///   - settings: the settings the files are judged under and written
  ///     out (default: the defaults).
  ///   - ignoring: files to leave out whatever they hold, with the reason
  ///     (the job file being written, when it is in the folder).
  /// - Returns: the template; it may have no banner (`document()` then
  ///   throws).
  /// - Throws: `MarqueeError` with code `.usage` when `name` breaks the job
  ///   name rule, the media folder is missing, not a folder, cannot be
  ///   listed, or is not inside `jobFolder`.
  public static func make(mediaFolder: URL, jobFolder: URL, name: String? = nil, settings: JobSettings = .default,
                          ignoring: [MediaFolderScanner.FileID: String] = [:]) throws(MarqueeError) -> JobTemplate {
    let jobName: String
    if let name {
      if let problem = JobDocumentValidator.nameProblem(name) {
        let suggestion = BannerIDSlugger.slug(name, maxLength: JobDocumentValidator.maxNameLength)
        let hint = suggestion.isEmpty || suggestion == name ? "" : " (try \(JobJSON.quoted(suggestion)))"
        throw MarqueeError(.usage, "the job name \(problem)\(hint)")
      }
      jobName = name
    } else {
      jobName = defaultName(for: mediaFolder)
    }
    let entries = try MediaFolderScanner(ignoring: ignoring).entries(of: mediaFolder)
    guard let folder = sourceFolder(of: mediaFolder, in: jobFolder) else {
      throw MarqueeError(.usage, outsideMessage(mediaFolder: mediaFolder, jobFolder: jobFolder))
    }
    let classifier = MediaClassifier(settings: settings)
    var slugger = BannerIDSlugger()
    var template = JobTemplate(name: jobName, settings: settings, banners: [], skipped: [], notes: [],
                               mediaFolder: mediaFolder, jobFolder: jobFolder.absoluteURL.standardizedFileURL)
    for entry in entries {
      let shown = shownPath(entry.name, in: mediaFolder)
      switch entry {
      case .skipped(_, let reason):
        template.skipped.append(FileNote(file: shown, text: reason))
      case .file(let fileName):
        switch classifier.classify(atPath: mediaFolder.appendingPathComponent(fileName).path) {
        case .notMedia(let reason):
          template.skipped.append(FileNote(file: shown, text: reason))
        case .media(let found):
          let id = slugger.uniqueID(forFileName: fileName, fallback: found.kind.rawValue)
          template.banners.append(Banner(id: id, kind: found.kind, content: found.content,
                                         source: sourceText(fileName, in: folder), fileName: fileName))
          if let note = found.note { template.notes.append(FileNote(file: shown, text: note)) }
        }
      }
    }
    return template
  }

  /// The default job name for a media folder: the slug of its name (of the
  /// absolute, standardized path, so `.` is named by the folder it is), or
  /// `fallbackName` when that is empty.
  public static func defaultName(for mediaFolder: URL) -> String {
    let last = mediaFolder.absoluteURL.standardizedFileURL.lastPathComponent
    let slug = BannerIDSlugger.slug(last, maxLength: JobDocumentValidator.maxNameLength)
    return slug.isEmpty ? fallbackName : slug
  }

  /// Where `mediaFolder` lies inside `jobFolder`, as `/`-separated
  /// components (`""` when they are the same folder, `media/spring` two
  /// levels down), or nil when it is not inside. Compared as written
  /// (absolute and standardized), and failing that with symbolic links
  /// resolved in both (a job folder reached through a link).
  public static func sourceFolder(of mediaFolder: URL, in jobFolder: URL) -> String? {
    func components(_ url: URL) -> [String] { url.absoluteURL.standardizedFileURL.pathComponents }
    func inside(_ media: [String], _ job: [String]) -> String? {
      guard media.count >= job.count, Array(media.prefix(job.count)) == job else { return nil }
      return media.dropFirst(job.count).joined(separator: "/")
    }
    if let relative = inside(components(mediaFolder), components(jobFolder)) { return relative }
    return inside(components(mediaFolder.absoluteURL.resolvingSymlinksInPath()),
                  components(jobFolder.absoluteURL.resolvingSymlinksInPath()))
  }

  /// Why a media folder outside the job file's folder cannot be listed.
  static func outsideMessage(mediaFolder: URL, jobFolder: URL) -> String {
    "\(mediaFolder.relativePath) is not inside \(jobFolder.absoluteURL.standardizedFileURL.path), the job file's folder: "
      + "a job reads its sources only inside its own folder; save the job file in the media folder or a folder above it"
  }

  /// The `source` of `fileName` in the folder at `folder` (relative to the
  /// job file's folder): `./` first when the text would read as a URL
  /// scheme (`clip:1.mov`), which the job reader refuses.
  static func sourceText(_ fileName: String, in folder: String) -> String {
    let text = folder.isEmpty ? fileName : folder + "/" + fileName
    return HTTPURLRule.scheme(of: text) == nil ? text : "./" + text
  }

  /// A file of the media folder as the user named the folder.
  static func shownPath(_ name: String, in mediaFolder: URL) -> String {
    var folder = mediaFolder.relativePath
    if folder == "." { return name }
    while folder.count > 1 && folder.hasSuffix("/") { folder.removeLast() }
    return folder == "/" ? "/" + name : folder + "/" + name
  }
}
