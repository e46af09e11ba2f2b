import Foundation

/// Reads and validates a batch job file.
///
/// A job file is a JSON object:
///
/// ```
/// {
///   "name": "home",
///   "base_url": "https://cdn.example.com/home/",
///   "settings": { "segment_duration": 2 },
///   "banners": [
///     {"id": "spring", "type": "video", "source": "media/spring.mov",
///      "autoplay": true, "muted": true, "link": "https://example.com/spring"},
///     {"id": "sale", "type": "image", "source": "media/sale.jpg"}
///   ]
/// }
/// ```
///
/// Validation is strict: unknown keys (anywhere), repeated keys, wrong types
/// and out-of-range values are errors, each reported with the JSON path of
/// the offending value, because a typo must not pass silently. The reader
/// checks the document only; it does not open the source media (the stages
/// report missing or unplayable sources).
///
/// Both methods use typed throws and throw nothing but `JobError`.
public struct JobReader: Sendable {
  /// Job files larger than this are refused before reading: a job file is a
  /// small document, and a big file is most likely a media file passed by
  /// mistake. 16 MiB.
  public static let maxJobFileSize = 16 * 1_048_576

  /// Creates a reader.
  public init() {}

  // MARK: - API

  /// Reads, parses and validates the job file at `url`.
  ///
  /// - Parameter url: A file URL; relative file URLs resolve against the
  ///   current directory. Messages name it by its `relativePath`.
  /// - Returns: The validated job.
  /// - Throws: `JobError` with path `""` when the file is missing, a folder,
  ///   not a regular file (a FIFO, a device), larger than `maxJobFileSize`
  ///   (checked with `fstat` on the opened file, so also behind a symbolic
  ///   link) or unreadable; otherwise whatever `parse(_:jobFileURL:)`
  ///   throws.
  public func read(contentsOf url: URL) throws(JobError) -> Job {
    let file = Self.displayName(of: url)
    guard url.isFileURL else {
      throw JobError(file: file, path: "", reason: "only local job files can be read, not a \(url.scheme ?? "remote") URL")
    }
    // One descriptor, checked by fstat: the size and type are those of the
    // file read (a symbolic link, as Kubernetes mounts a ConfigMap, is
    // followed and its target checked), a FIFO is refused instead of
    // blocking, and no more than the cap is ever read.
    let handle: ReadableFile
    do { handle = try ReadableFile.open(path: url.path) } catch {
      throw JobError(file: file, path: "", reason: Self.openFailureText(error))
    }
    if handle.size > Int64(Self.maxJobFileSize) {
      throw JobError(
        file: file, path: "",
        reason: "is \(handle.size / 1_048_576) MiB; a job file is a small JSON document (was a media file passed instead?)")
    }
    let data: Data
    do {
      data = try handle.readAll(limit: Int64(Self.maxJobFileSize))
    } catch {
      throw JobError(file: file, path: "", reason: "cannot read the file: \(error.reason)")
    }
    return try parse(data, jobFileURL: url)
  }

  /// Parses and validates job file contents.
  ///
  /// - Parameters:
  ///   - data: The job file's bytes (UTF-8 JSON; a byte order mark is fine).
  ///   - jobFileURL: Where the file lives: relative `source` paths resolve
  ///     against its folder, and messages name it by its `relativePath`.
  /// - Returns: The validated job, with defaults filled in and any warnings.
  /// - Throws: `JobError` naming the JSON path of the first problem.
  public func parse(_ data: Data, jobFileURL: URL) throws(JobError) -> Job {
    let file = Self.displayName(of: jobFileURL)
    let isBlank = data.allSatisfy { byte in
      byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
    }
    if isBlank {
      throw JobError(file: file, path: "", reason: "the job file is empty (expected a JSON object)")
    }
    let root: Any
    do {
      root = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    } catch {
      throw JobError(file: file, path: "", reason: JobJSON.describeSyntaxError(error, in: data))
    }
    switch JobJSONStrictScanner.firstProblem(in: data) {
    case .duplicate(let duplicate):
      throw JobError(
        file: file, path: duplicate.path,
        reason: "key \(JobJSON.quoted(duplicate.key)) appears twice in the same object (only one value would be used)")
    case .trailingComma(let path, let line, let column):
      throw JobError(
        file: file, path: path,
        reason: "invalid JSON: trailing comma at line \(line), column \(column) (JSON allows none before } or ]; jq and editors would reject the file)")
    case nil:
      break
    }
    let validator = JobDocumentValidator(file: file, jobFileURL: jobFileURL)
    return try validator.job(from: root)
  }

  // MARK: - Helpers

  /// How messages name a job file: the path as given for file URLs.
  static func displayName(of url: URL) -> String {
    url.isFileURL ? url.relativePath : url.absoluteString
  }

  /// `validate`'s words for a job file that cannot be opened.
  private static func openFailureText(_ error: MediaIOError) -> String {
    switch error.reason {
    case "file not found": return "no such file"
    case "is a folder, not a media file": return "is a folder, not a job file"
    case "file cannot be read (permissions)": return "cannot read the file: permission denied"
    default: return error.reason
    }
  }
}

// MARK: - Validation

/// Checks a parsed job document and builds the `Job`. One instance per
/// document; every method throws the first problem as a `JobError`.
struct JobDocumentValidator {
  /// The job file as messages name it.
  let file: String
  /// The job file; sources resolve against its folder.
  let jobFileURL: URL
  /// `settings.allow_outside_sources`: sources may be absolute paths or
  /// lead out of the job file's folder.
  var allowsOutsideSources = false

  /// `$schema` is for editors (a path or URL of `Pipelines/job.schema.json`)
  /// and is otherwise ignored.
  static let rootKeys = ["$schema", "name", "base_url", "settings", "banners"]
  static let maxNameLength = 64
  /// The client keeps at most about this many items.
  static let recommendedMaxBanners = 10

  /// Validates the whole document. Every part is checked even after one
  /// fails (the root keys, `name`, `base_url`, `settings`, each banner),
  /// so one run lists a problem per part; the first problem in document
  /// order is thrown, carrying the others in `JobError.more`.
  func job(from root: Any) throws(JobError) -> Job {
    let object = try self.object(root, at: "")
    var problems: [JobError] = []
    func collect<T>(_ body: () throws(JobError) -> T) -> T? {
      do { return try body() } catch {
        problems.append(error)
        return nil
      }
    }
    _ = collect { () throws(JobError) in
      try checkKeys(of: object, allowed: Self.rootKeys, at: "") { key in
        if JobDocumentValidator.settingsKeys.contains(key) {
          return "\(JobJSON.quoted(key)) is a setting: move it into \"settings\""
        }
        if JobDocumentValidator.bannerKeys.contains(key) {
          return "\(JobJSON.quoted(key)) belongs inside a banner in \"banners\""
        }
        return nil
      }
    }
    if let schema = object["$schema"] {
      _ = collect { () throws(JobError) in try string(schema, at: JobJSON.path("", key: "$schema")) }
    }
    let name = collect { () throws(JobError) in try self.name(object["name"]) }
    let baseURL = collect { () throws(JobError) in try self.baseURL(object["base_url"]) }
    var settings = JobSettings.default
    if let value = object["settings"], let parsed = collect({ () throws(JobError) in try self.settings(value) }) {
      settings = parsed
    }
    var warnings: [String] = []
    var reader = self
    reader.allowsOutsideSources = collect { () throws(JobError) in try allowsOutsideSources(object["settings"]) } ?? false
    let banners = collect { () throws(JobError) in
      try reader.banners(object["banners"], settings: settings, warnings: &warnings)
    }
    // A part may itself carry further problems (`banners` carries one per
    // bad banner): flatten, so none is dropped when the first is thrown.
    let all = problems.flatMap(\.all)
    if var first = all.first {
      first.more = Array(all.dropFirst())
      throw first
    }
    guard let name, let baseURL, let banners else {
      throw JobError(file: file, path: "", reason: "the job could not be read")
    }
    return Job(
      name: name, baseURL: baseURL, settings: settings, banners: banners,
      jobFileURL: jobFileURL, warnings: warnings)
  }

  private func name(_ value: Any?) throws(JobError) -> String {
    let path = "name"
    guard let value else { throw fail(path, "missing; every job needs a \"name\" (the bundle folder name)") }
    let name = try string(value, at: path)
    if let problem = Self.nameProblem(name) { throw fail(path, problem) }
    return name
  }

  /// Why `name` cannot be a job's `name`, or `nil`: 1 to `maxNameLength`
  /// characters from a-z, 0-9, `_` and `-` (it names the bundle folder).
  /// The one rule the reader and `marquee init --name` use.
  static func nameProblem(_ name: String) -> String? {
    let allowed = name.unicodeScalars.allSatisfy { scalar in
      switch scalar {
      case "a"..."z", "0"..."9", "_", "-": return true
      default: return false
      }
    }
    guard !name.isEmpty, allowed else {
      return "must be 1 to \(maxNameLength) characters from a-z, 0-9, '_' and '-' (it names the bundle folder), found \(JobJSON.quoted(name))"
    }
    guard name.count <= maxNameLength else {
      return "must be at most \(maxNameLength) characters, found \(name.count)"
    }
    return nil
  }

  private func baseURL(_ value: Any?) throws(JobError) -> String? {
    let path = "base_url"
    guard let value else { return nil }
    var text = try string(value, at: path)
    if let problem = HTTPURLRule.problem(with: text) {
      throw fail(path, problem)
    }
    if let components = URLComponents(string: text), components.query != nil || components.fragment != nil {
      throw fail(path, "must not have a query or fragment: file paths are appended to it")
    }
    if !text.hasSuffix("/") { text += "/" }
    return text
  }

  // MARK: - Primitive checks

  func fail(_ path: String, _ reason: String) -> JobError {
    JobError(file: file, path: path, reason: reason)
  }

  /// "expected \(what), found a number" (with the value where it is short).
  func mismatch(_ what: String, found value: Any, at path: String) -> JobError {
    let type = JobJSONType(of: value)
    var found = type.phrase
    switch type {
    case .number, .boolean, .string: found += " (\(JobJSON.render(value)))"
    case .null: found = "null (leave the key out to use the default)"
    case .array, .object: break
    }
    return fail(path, "expected \(what), found \(found)")
  }

  func object(_ value: Any, at path: String) throws(JobError) -> [String: Any] {
    guard let object = value as? [String: Any] else { throw mismatch("an object", found: value, at: path) }
    return object
  }

  func string(_ value: Any, at path: String) throws(JobError) -> String {
    guard let string = value as? String else { throw mismatch("a string", found: value, at: path) }
    return string
  }

  func bool(_ value: Any, at path: String) throws(JobError) -> Bool {
    guard let bool = JobJSON.bool(value) else {
      throw mismatch("a boolean (true or false)", found: value, at: path)
    }
    return bool
  }

  func number(_ value: Any, at path: String) throws(JobError) -> Double {
    guard let number = JobJSON.number(value) else { throw mismatch("a number", found: value, at: path) }
    guard number.isFinite else { throw fail(path, "expected a finite number") }
    return number
  }

  /// A whole number in `range` (720 and 720.0 both count as whole).
  func integer(_ value: Any, at path: String, in range: ClosedRange<Int>, unit: String = "") throws(JobError) -> Int {
    let number = try self.number(value, at: path)
    guard number == number.rounded() else {
      throw fail(path, "expected a whole number, found \(JobJSON.render(value))")
    }
    guard let integer = Int(exactly: number), range.contains(integer) else {
      throw fail(path, "must be from \(range.lowerBound) to \(range.upperBound)\(unit), found \(JobJSON.render(value))")
    }
    return integer
  }

  /// Rejects keys outside `allowed`, naming the first unknown key (in sorted
  /// order, so the message is stable) with a "did you mean" hint.
  func checkKeys(
    of object: [String: Any], allowed: [String], at path: String,
    hint: (String) -> String? = { _ in nil }
  ) throws(JobError) {
    guard let unknown = object.keys.filter({ !allowed.contains($0) }).sorted().first else { return }
    var reason = "unknown key \(JobJSON.quoted(unknown))"
    if let suggestion = JobJSON.suggestion(for: unknown, among: allowed) {
      reason += " (did you mean \(JobJSON.quoted(suggestion))?)"
    } else if let hint = hint(unknown) {
      reason += " (\(hint))"
    } else {
      reason += "; known keys: " + allowed.joined(separator: ", ")
    }
    throw fail(JobJSON.path(path, key: unknown), reason)
  }
}
