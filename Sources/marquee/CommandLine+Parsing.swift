import Foundation
import MarqueeKit

/// A command-line usage error: exit code 2 with the command's usage text.
struct UsageError: Error, CustomStringConvertible {
  var message: String
  /// The command whose usage to show, `nil` for the main help.
  var command: String?
  var description: String { message }
}

/// How a command reports: live progress on a terminal, plain lines
/// otherwise, or JSON lines.
enum LogFormat: String, CaseIterable {
  /// Live progress on a terminal, plain lines when not on one (default).
  case text
  /// Plain lines, even on a terminal.
  case plain
  /// One JSON object per line on stdout.
  case json
}

/// Options every command that reports shares.
struct OutputOptions {
  var quiet = false
  var verbose = false
  var logFormat = LogFormat.text
}

/// `marquee build` and `marquee merge`.
struct BuildArguments {
  var job: String
  var out: String?
  var jobs: Int?
  var allowPartial = false
  var shard: ShardSpec?
  var wait = false
  /// `--rebuild`: encode everything again.
  var rebuild = false
  var output = OutputOptions()
  /// `merge`: publish what the shards stored, encode nothing.
  var merge = false
  /// `--check`: say what a build would change, write nothing.
  var check = false
}

/// `marquee nginx-config`.
struct NginxConfigArguments {
  var bundle: String
  var prefix: String?
  var cors: String?
  var manifestMaxAge = 60
}

/// `marquee init`.
struct InitArguments {
  /// The media folder to list.
  var folder: String
  /// `--name`: the job's name (default: the folder's name, slugged).
  var name: String?
  /// `--out`: the job file to create (default: print the job).
  var out: String?
}

/// The parsed command line.
enum Command {
  case help(topic: String?)
  case version
  case build(BuildArguments)
  case verify(bundle: String, output: OutputOptions)
  case validate(job: String, output: OutputOptions)
  case demoSources(directory: String)
  case preview(bundle: String, out: String?)
  case nginxConfig(NginxConfigArguments)
  case initJob(InitArguments)
  // New commands get a case here, a branch in `ArgumentParser.parse`, a
  // `HelpText` entry and a `Marquee.run` branch.
}

/// Hand-rolled argv parsing: `marquee <command> [options] <argument>`.
enum ArgumentParser {
  /// The commands, in help order.
  static let commands = ["init", "build", "merge", "verify", "validate", "preview", "nginx-config", "demo-sources"]

  /// Parses `arguments` (without the program name).
  ///
  /// - Throws: `UsageError` naming the problem and the command (also when
  ///   there is no command at all).
  static func parse(_ arguments: [String]) throws(UsageError) -> Command {
    guard let first = arguments.first else { throw UsageError(message: "no command given", command: nil) }
    var cursor = Cursor(arguments: Array(arguments.dropFirst()), command: first)
    switch first {
    case "-h", "--help", "help": return .help(topic: cursor.rest.first)
    case "--version", "-V", "version": return .version
    case "build", "merge": return try parseBuild(first, &cursor)
    case "verify", "validate": return try parseCheck(first, &cursor)
    case "demo-sources": return try parseDemoSources(first, &cursor)
    case "preview": return try parsePreview(first, &cursor)
    case "nginx-config": return try parseNginxConfig(first, &cursor)
    case "init": return try parseInit(first, &cursor)
    default:
      let hint = closest(to: first, among: commands).map { " (did you mean '\($0)'?)" } ?? ""
      throw UsageError(message: "unknown command '\(first)'\(hint)", command: nil)
    }
  }

  /// `build` and `merge`: a job file and the build options.
  private static func parseBuild(_ first: String, _ cursor: inout Cursor) throws(UsageError) -> Command {
    var b = BuildArguments(job: "", merge: first == "merge")
    var job: String? = nil
    while let arg = cursor.next() {
      if try cursor.outputOption(arg, into: &b.output) { continue }
      switch arg {
      case "-h", "--help": return .help(topic: first)
      case "--out", "-o": b.out = try cursor.value(for: arg, "a folder")
      case "--jobs", "-j":
        let text = try cursor.value(for: arg, "a whole number")
        guard let n = Int(text), n >= 1 else {
          throw UsageError(message: "--jobs needs a whole number of at least 1, got '\(text)'", command: first)
        }
        b.jobs = n
      case "--shard":
        let text = try cursor.value(for: arg, "i/n")
        guard let s = ShardSpec(parsing: text) else {
          throw UsageError(message: "--shard needs i/n with 0 <= i < n (0-based, like JOB_COMPLETION_INDEX), got '\(text)'", command: first)
        }
        b.shard = s
      case "--allow-partial": b.allowPartial = true
      case "--wait": b.wait = true
      case "--rebuild": b.rebuild = true
      case "--check": b.check = true
      default:
        job = try cursor.positional(arg, existing: job, what: "job file")
      }
    }
    guard let j = job else { throw UsageError(message: "\(first) needs a job file, e.g. marquee \(first) Pipelines/demo.json", command: first) }
    b.job = j
    if b.check {
      if b.merge {
        throw UsageError(message: "--check belongs to build: `marquee build <job> --check` says whether a build would change the bundle", command: first)
      }
      let refused = [("--shard", b.shard != nil), ("--rebuild", b.rebuild), ("--wait", b.wait), ("--allow-partial", b.allowPartial)]
        .filter(\.1).map(\.0)
      if !refused.isEmpty {
        throw UsageError(message: "--check writes nothing and takes no lock: \(refused.joined(separator: ", ")) belong to a build that does", command: first)
      }
    }
    if b.merge && (b.jobs != nil || b.shard != nil || b.rebuild) {
      throw UsageError(message: "merge encodes nothing: --jobs, --shard and --rebuild belong to build", command: first)
    }
    if b.merge && b.out == nil {
      throw UsageError(message: "merge needs --out DIR: the output root the shards built into", command: first)
    }
    if b.shard != nil && b.out == nil {
      throw UsageError(message: "--shard needs --out DIR: the output root every shard and the merge share", command: first)
    }
    return .build(b)
  }

  /// `verify` (a bundle folder) and `validate` (a job file).
  private static func parseCheck(_ first: String, _ cursor: inout Cursor) throws(UsageError) -> Command {
    var output = OutputOptions()
    var target: String? = nil
    while let arg = cursor.next() {
      if try cursor.outputOption(arg, into: &output) { continue }
      switch arg {
      case "-h", "--help": return .help(topic: first)
      default: target = try cursor.positional(arg, existing: target, what: first == "verify" ? "bundle folder" : "job file")
      }
    }
    if first == "verify" {
      guard let t = target else { throw UsageError(message: "verify needs a bundle folder, e.g. marquee verify Output/demo", command: first) }
      return .verify(bundle: t, output: output)
    }
    guard let t = target else { throw UsageError(message: "validate needs a job file, e.g. marquee validate Pipelines/demo.json", command: first) }
    return .validate(job: t, output: output)
  }

  /// `demo-sources <folder>`.
  private static func parseDemoSources(_ first: String, _ cursor: inout Cursor) throws(UsageError) -> Command {
    var folder: String? = nil
    while let arg = cursor.next() {
      switch arg {
      case "-h", "--help": return .help(topic: first)
      default: folder = try cursor.positional(arg, existing: folder, what: "folder")
      }
    }
    guard let f = folder else { throw UsageError(message: "demo-sources needs a folder", command: first) }
    return .demoSources(directory: f)
  }

  /// `preview <bundle> [--out DIR]`.
  private static func parsePreview(_ first: String, _ cursor: inout Cursor) throws(UsageError) -> Command {
    var bundle: String? = nil
    var out: String? = nil
    while let arg = cursor.next() {
      switch arg {
      case "-h", "--help": return .help(topic: first)
      case "--out", "-o": out = try cursor.value(for: arg, "a folder")
      default: bundle = try cursor.positional(arg, existing: bundle, what: "bundle folder")
      }
    }
    guard let b = bundle else {
      throw UsageError(message: "preview needs a bundle folder, e.g. marquee preview Output/demo", command: first)
    }
    return .preview(bundle: b, out: out)
  }

  /// `nginx-config <bundle> [--prefix] [--cors] [--manifest-max-age]`.
  private static func parseNginxConfig(_ first: String, _ cursor: inout Cursor) throws(UsageError) -> Command {
    var n = NginxConfigArguments(bundle: "")
    var bundle: String? = nil
    while let arg = cursor.next() {
      switch arg {
      case "-h", "--help": return .help(topic: first)
      case "--prefix": n.prefix = try cursor.value(for: arg, "a URL path such as /home/")
      case "--cors":
        n.cors = try cursor.value(for: arg, "an origin such as https://app.example.com, or *")
      case "--manifest-max-age":
        let text = try cursor.value(for: arg, "a number of seconds")
        guard let seconds = Int(text), seconds >= 0 else {
          throw UsageError(message: "--manifest-max-age needs a whole number of seconds, got '\(text)'", command: first)
        }
        n.manifestMaxAge = seconds
      default: bundle = try cursor.positional(arg, existing: bundle, what: "bundle folder")
      }
    }
    guard let b = bundle else {
      throw UsageError(message: "nginx-config needs a bundle folder, e.g. marquee nginx-config /srv/cdn/home", command: first)
    }
    n.bundle = b
    return .nginxConfig(n)
  }

  /// `init <media-folder> [--name N] [--out FILE]`.
  private static func parseInit(_ first: String, _ cursor: inout Cursor) throws(UsageError) -> Command {
    var arguments = InitArguments(folder: "")
    var folder: String? = nil
    while let arg = cursor.next() {
      switch arg {
      case "-h", "--help": return .help(topic: first)
      case "--name": arguments.name = try cursor.value(for: arg, "a job name such as spring-promo")
      case "--out", "-o": arguments.out = try cursor.value(for: arg, "a job file to create, such as job.json")
      default: folder = try cursor.positional(arg, existing: folder, what: "media folder")
      }
    }
    guard let f = folder else {
      throw UsageError(message: "init needs a media folder, e.g. marquee init media > job.json", command: first)
    }
    arguments.folder = f
    return .initJob(arguments)
  }

  /// The candidate within edit distance 2 of `word`, if one is.
  static func closest(to word: String, among candidates: [String]) -> String? {
    func distance(_ a: [Character], _ b: [Character]) -> Int {
      var row = Array(0...b.count)
      for (i, ca) in a.enumerated() {
        var previous = row[0]
        row[0] = i + 1
        for (j, cb) in b.enumerated() {
          let current = row[j + 1]
          row[j + 1] = min(row[j + 1] + 1, row[j] + 1, previous + (ca == cb ? 0 : 1))
          previous = current
        }
      }
      return row[b.count]
    }
    let scored = candidates.map { ($0, distance(Array(word), Array($0))) }.filter { $0.1 <= 2 }
    return scored.min { $0.1 < $1.1 }?.0
  }

  /// Walks the arguments of one command.
  struct Cursor {
    var rest: [String]
    let command: String

    /// `--name=value` is read as `--name value` (the GNU long-option
    /// form); the value may hold further `=` signs.
    init(arguments: [String], command: String) {
      rest = arguments.flatMap { arg -> [String] in
        guard arg.hasPrefix("--"), let eq = arg.firstIndex(of: "="), arg.index(arg.startIndex, offsetBy: 2) < eq else { return [arg] }
        return [String(arg[..<eq]), String(arg[arg.index(after: eq)...])]
      }
      self.command = command
    }

    mutating func next() -> String? { rest.isEmpty ? nil : rest.removeFirst() }

    /// The value after an option (`--out DIR`) or in it (`--out=DIR`).
    mutating func value(for option: String, _ what: String) throws(UsageError) -> String {
      guard let v = next(), !v.isEmpty, !v.hasPrefix("-") || v == "-" else {
        throw UsageError(message: "\(option) needs \(what)", command: command)
      }
      return v
    }

    /// Handles `--quiet`, `--verbose`, `--log-format`; false for others.
    mutating func outputOption(_ arg: String, into output: inout OutputOptions) throws(UsageError) -> Bool {
      switch arg {
      case "-q", "--quiet": output.quiet = true
      case "-v", "--verbose": output.verbose = true
      case "--log-format":
        let text = try value(for: arg, "text, plain or json")
        guard let format = LogFormat(rawValue: text) else {
          throw UsageError(message: "--log-format is text, plain or json, got '\(text)'", command: command)
        }
        output.logFormat = format
      default:
        if arg.hasPrefix("--log-format=") {
          let text = String(arg.dropFirst("--log-format=".count))
          guard let format = LogFormat(rawValue: text) else {
            throw UsageError(message: "--log-format is text, plain or json, got '\(text)'", command: command)
          }
          output.logFormat = format
          return true
        }
        return false
      }
      return true
    }

    /// A positional argument; options that are not known end up here too.
    func positional(_ arg: String, existing: String?, what: String) throws(UsageError) -> String {
      if arg.hasPrefix("-") && arg != "-" {
        throw UsageError(message: "unknown option '\(arg)' for \(command)", command: command)
      }
      if let existing {
        throw UsageError(message: "\(command) takes one \(what); got '\(existing)' and '\(arg)'", command: command)
      }
      return arg
    }
  }
}
