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
/// and within the job's limits. Opening a source reads its headers only.
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
      // One descriptor, checked by fstat before anything reads it: a FIFO
      // or a device is refused instead of blocking or reading for ever.
      let source: ReadableFile
      do { source = try ReadableFile.open(path: spec.source.path) } catch {
        problem(error.reason)
        continue
      }
      if case .image(let poster, let text) = spec.cover {
        let posterPath = spec.jsonPath + ".cover.image"
        if let reason = checkPoster(poster, limits: limits, background: s.background) {
          problems.append(JobProblem(file: file, path: posterPath, reason: "\(reason) (\(text))"))
        }
      }
      switch spec.kind {
      case .video:
        do {
          let input = try InputContainer(file: source, path: spec.source.path, allowedFormats: InputContainer.videoFormats, limits: limits)
          if input.bestStream(.video) == nil { problem("has no video stream") }
        } catch {
          problem(error.reason)
        }
      case .image:
        do { _ = try ImageSource.open(file: source, path: spec.source.path, limits: limits) } catch {
          problem(error.reason)
        }
      }
    }
    return problems
  }

  /// Why the poster at `url` cannot be a cover, or `nil`: it must exist, be
  /// a readable regular file, and be a JPEG, PNG, WebP or HEIC still within
  /// the job's limits (`PosterFitter.open`, headers only).
  static func checkPoster(_ url: URL, limits: InputLimits, background: RGBColor) -> String? {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return "poster not found" }
    if isDirectory.boolValue { return "is a folder, not a poster image" }
    guard FileManager.default.isReadableFile(atPath: url.path) else { return "poster cannot be read (permissions)" }
    do { _ = try PosterFitter(limits: limits, background: background).open(url) } catch {
      return "not a usable poster: \(error.reason)"
    }
    return nil
  }
}
