import Foundation

/// A command-line usage error: exit code 2 with the usage text.
struct UsageError: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}

/// The parsed command line.
enum Command {
  case help(topic: String?)
  case version
  case build(job: String, out: String?, jobs: Int?, allowPartial: Bool, quiet: Bool, verbose: Bool)
  case demoSources(directory: String)
}

enum ArgumentParser {
  /// Parses `arguments` (without the program name).
  static func parse(_ arguments: [String]) throws -> Command {
    guard let first = arguments.first else { return .help(topic: nil) }
    var rest = Array(arguments.dropFirst())
    switch first {
    case "-h", "--help", "help": return .help(topic: rest.first)
    case "--version", "version": return .version
    case "build":
      var job: String? = nil, out: String? = nil, jobs: Int? = nil
      var allowPartial = false, quiet = false, verbose = false
      while !rest.isEmpty {
        let arg = rest.removeFirst()
        switch arg {
        case "-h", "--help": return .help(topic: "build")
        case "--out", "-o":
          guard !rest.isEmpty else { throw UsageError(message: "--out needs a folder") }
          out = rest.removeFirst()
        case "--jobs", "-j":
          guard !rest.isEmpty, let n = Int(rest.removeFirst()), n >= 1 else {
            throw UsageError(message: "--jobs needs a whole number of at least 1")
          }
          jobs = n
        case "--allow-partial": allowPartial = true
        case "--quiet", "-q": quiet = true
        case "--verbose", "-v": verbose = true
        default:
          if arg.hasPrefix("-") { throw UsageError(message: "unknown option '\(arg)' for build") }
          guard job == nil else { throw UsageError(message: "build takes one job file; got '\(job!)' and '\(arg)'") }
          job = arg
        }
      }
      guard let j = job else { throw UsageError(message: "build needs a job file, e.g. marquee build Pipelines/demo.json") }
      return .build(job: j, out: out, jobs: jobs, allowPartial: allowPartial, quiet: quiet, verbose: verbose)
    case "demo-sources":
      if rest.first == "--help" || rest.first == "-h" { return .help(topic: "demo-sources") }
      guard rest.count == 1 else { throw UsageError(message: "demo-sources takes one folder") }
      return .demoSources(directory: rest[0])
    default:
      throw UsageError(message: "unknown command '\(first)'")
    }
  }
}

enum HelpText {
  static let version = "marquee 0.1.0"
  static let main = """
    marquee: turns a batch job file into a carousel-ready banner bundle
    (H.264/AAC HLS + MP4 with fixed keyframes, covers, dark variants,
    WebP/JPEG images and banners.json).

    Usage:
      marquee build <job.json> [--out DIR] [--jobs N] [--allow-partial] [--quiet] [--verbose]
      marquee demo-sources <folder>
      marquee --help | --version

    Commands:
      build          Build the job into <out>/<job name>/ (default out: ./Output).
      demo-sources   Generate the built-in demo's source media into <folder>.

    Exit codes:
      0  every item was built and the bundle published
      1  some items failed (the bundle is not replaced unless --allow-partial)
      2  usage error, or the job file is invalid
      4  I/O error writing the output

    """
  static let build = """
    Usage: marquee build <job.json> [--out DIR] [--jobs N] [--allow-partial] [--quiet] [--verbose]

    Builds every banner of the job into a staging folder, writes banners.json
    from what was produced, and switches the bundle <out>/<name>/ into place.

    Options:
      -o, --out DIR      Output root (default: ./Output). Nothing is written outside it.
      -j, --jobs N       Items built at once (default: number of cores).
      --allow-partial    Publish the good items when some fail (default: keep the old bundle).
      -q, --quiet        Print errors only.
      -v, --verbose      Print FFmpeg's underlying error for failures.

    Exit codes: 0 all built; 1 some items failed; 2 usage or job error; 4 I/O error.

    """
  static let demoSources = """
    Usage: marquee demo-sources <folder>

    Writes the demo's sources, generated with libavfilter's test sources:
    a 16:9 clip with audio, a portrait phone clip with a 90° rotation in its
    display matrix, a photo-like JPEG and a product-on-white PNG.

    """
}
