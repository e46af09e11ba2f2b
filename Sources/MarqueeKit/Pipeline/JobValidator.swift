import Foundation

/// One problem `marquee validate` found, named by JSON path.
public struct JobProblem: Sendable, Equatable, CustomStringConvertible {
  /// The job file as the user gave it.
  public var file: String
  /// The JSON path, e.g. `banners[2].source`; `""` for the document.
  public var path: String
  public var reason: String

  public init(file: String, path: String, reason: String) {
    self.file = file
    self.path = path
    self.reason = reason
  }

  /// `Pipelines/home.json: banners[2].source: file not found (media/x.mov)`.
  public var description: String { path.isEmpty ? "\(file): \(reason)" : "\(file): \(path): \(reason)" }
}

/// Checks a job without building it (`marquee validate`): the document
/// (`JobReader`: schema, types, ranges, unknown keys) and then every
/// source: present, readable, a container or image format Marquee accepts,
/// and within the job's limits. A video source is opened (headers and
/// stream probing only); a still (an image source that is not an
/// animation, a poster, a designer's dark picture) is decoded as build
/// decodes it (`ImageSource.checkDecodes`), so a truncated or corrupt
/// still fails here with build's reason.
public enum JobValidator {
  /// The job (when the document is valid) and every problem, in job order.
  public static func validate(jobAt url: URL) -> (job: Job?, problems: [JobProblem]) {
    let job: Job
    do { job = try JobReader().read(contentsOf: url) } catch {
      return (nil, error.all.map { JobProblem(file: $0.file, path: $0.path, reason: $0.reason) })
    }
    return (job, checkSources(of: job, file: url.relativePath))
  }

  /// Opens every source the way its stage will, without decoding.
  public static func checkSources(of job: Job, file: String) -> [JobProblem] {
    let s = job.settings
    let limits = s.inputLimits
    var problems: [JobProblem] = []
    for spec in job.banners {
      let path = spec.jsonPath + ".source"
      func problem(_ reason: String) { problems.append(JobProblem(file: file, path: path, reason: "\(reason) (\(spec.sourceText))")) }
      // The stills the job supplies besides the source, checked whatever
      // the source's state (after it, in document order).
      defer {
        problems += checkSuppliedStills(of: spec, limits: limits, background: s.background,
                                        allowsDamage: s.allowDamagedSources, file: file)
      }
      // One descriptor, checked by fstat before anything reads it: a FIFO
      // or a device is refused instead of blocking or reading for ever.
      let source: ReadableFile
      do { source = try ReadableFile.open(path: spec.source.path) } catch {
        problem(error.reason)
        continue
      }
      switch spec.kind {
      case .video:
        do {
          let input = try InputContainer(file: source, path: spec.source.path, allowedFormats: InputContainer.videoFormats, limits: limits)
          if let reason = videoProblem(input) { problem(reason) }
        } catch {
          problem(error.reason)
        }
      case .image:
        do {
          let image = try ImageSource.open(file: source, path: spec.source.path, limits: limits)
          if let reason = try imageProblem(image, allowsDamage: s.allowDamagedSources) { problem(reason) }
        } catch {
          problem(error.reason)
        }
      }
    }
    return problems
  }

  /// Why an opened video source cannot be built, or `nil`: it must have a
  /// video stream (an attached picture does not count). The one rule
  /// `validate` and `marquee init` (`MediaClassifier`) share.
  static func videoProblem(_ input: InputContainer) -> String? {
    input.bestStream(.video) == nil ? "has no video stream" : nil
  }

  /// Why an opened image source cannot be built, or `nil`. A still is
  /// decoded under the rule build uses (`ImageSource.checkDecodes`), so a
  /// file cut short is found here; an animation's frames are checked by
  /// build only, but a file cut short inside a frame is known from its
  /// header walk. Damage is refused unless `allowsDamage`
  /// (`allow_damaged_sources`, `DamagedStill`).
  ///
  /// - Throws: `MediaIOError` when the still does not decode.
  static func imageProblem(_ image: ImageSource, allowsDamage: Bool) throws(MediaIOError) -> String? {
    let damage = image.header.isAnimated ? image.header.damage : try image.checkDecodes()
    return damageProblem(damage, allowed: allowsDamage)
  }

  /// The poster (`cover.image`) and the designer's dark picture
  /// (`dark.image`) of `spec`, each checked like a poster (`checkStill`).
  static func checkSuppliedStills(of spec: BannerSpec, limits: InputLimits, background: RGBColor,
                                  allowsDamage: Bool = false, file: String) -> [JobProblem] {
    var problems: [JobProblem] = []
    if case .image(let poster, let text) = spec.cover,
       let reason = checkPoster(poster, limits: limits, background: background, allowsDamage: allowsDamage) {
      problems.append(JobProblem(file: file, path: spec.jsonPath + ".cover.image", reason: "\(reason) (\(text))"))
    }
    if case .image(let picture, let text) = spec.dark,
       let reason = checkDarkPicture(picture, limits: limits, allowsDamage: allowsDamage) {
      problems.append(JobProblem(file: file, path: spec.jsonPath + ".dark.image", reason: "\(reason) (\(text))"))
    }
    return problems
  }

  /// Why the poster at `url` cannot be a cover, or `nil`: it must exist, be
  /// a readable regular file, and be a JPEG, PNG, WebP or HEIC still within
  /// the job's limits that decodes whole (`checkStill`).
  static func checkPoster(_ url: URL, limits: InputLimits, background: RGBColor, allowsDamage: Bool = false) -> String? {
    checkStill(url, limits: limits, allowsDamage: allowsDamage, what: "poster",
               missing: "poster not found", folder: "is a folder, not a poster image",
               unreadable: "poster cannot be read (permissions)")
  }

  /// Why the designer's dark picture at `url` cannot be used, or `nil`:
  /// the poster's rules (`banners[2].dark.image: not found
  /// (media/sale-dark.png)`).
  static func checkDarkPicture(_ url: URL, limits: InputLimits, allowsDamage: Bool = false) -> String? {
    checkStill(url, limits: limits, allowsDamage: allowsDamage, what: "dark picture",
               missing: "not found", folder: "is a folder, not an image", unreadable: "cannot be read (permissions)")
  }

  /// Why a still the job supplies cannot be used, or `nil`: it must exist,
  /// be a readable regular file, be a JPEG, PNG, WebP or HEIC still within
  /// the job's limits (`PosterFitter.openStill`), and decode whole, as
  /// build decodes it (`ImageSource.checkDecodes`), with no concealed
  /// damage unless `allowsDamage` (`DamagedStill`); the other arguments are
  /// the words for each case.
  private static func checkStill(_ url: URL, limits: InputLimits, allowsDamage: Bool, what: String, missing: String,
                                 folder: String, unreadable: String) -> String? {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return missing }
    if isDirectory.boolValue { return folder }
    guard FileManager.default.isReadableFile(atPath: url.path) else { return unreadable }
    do {
      let damage = try PosterFitter.openStill(url, limits: limits, what: what).checkDecodes()
      if let reason = damageProblem(damage, allowed: allowsDamage) { return "not a usable \(what): \(reason)" }
    } catch {
      return "not a usable \(what): \(error.reason)"
    }
    return nil
  }

  /// Why build would fail a still whose decoder concealed `damage`
  /// (`DamagedStill`, build's own rule), or nil.
  private static func damageProblem(_ damage: String?, allowed: Bool) -> String? {
    do {
      _ = try DamagedStill.check(damage, file: "", allowed: allowed)
      return nil
    } catch {
      return error.message
    }
  }
}
