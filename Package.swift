// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "Marquee",
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "marquee", targets: ["marquee"]),
    .library(name: "MarqueeKit", targets: ["MarqueeKit"]),
    // `swift package marquee …` in a package that depends on Marquee
    // (README, "Build-time generation").
    .plugin(name: "MarqueeCommand", targets: ["MarqueeCommand"]),
  ],
  targets: [
    // MARK: - C libraries (Debian 12: FFmpeg 5.1, libwebp 1.2, libavif 0.11)
    .systemLibrary(
      name: "CFFmpeg",
      pkgConfig: "libavformat",
      providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavfilter-dev",
                        "libswscale-dev", "libswresample-dev", "libavutil-dev"])]
    ),
    .systemLibrary(
      name: "CWebP",
      pkgConfig: "libwebp",
      providers: [.apt(["libwebp-dev"])]
    ),
    .systemLibrary(
      name: "CLCMS2",
      pkgConfig: "lcms2",
      providers: [.apt(["liblcms2-dev"])]
    ),
    .systemLibrary(
      name: "CHeif",
      pkgConfig: "libheif",
      providers: [.apt(["libheif-dev"])]
    ),
    .systemLibrary(
      name: "CAVIF",
      pkgConfig: "libavif",
      providers: [.apt(["libavif-dev"])]
    ),
    .systemLibrary(
      name: "CJPEG",
      pkgConfig: "libjpeg",
      providers: [.apt(["libjpeg62-turbo-dev"])]
    ),

    // A few lines of C for file-system calls Swift's Glibc module hides.
    .target(name: "CFileSystem"),

    // MARK: - Core
    // The only module that imports the C libraries: every FFmpeg status code
    // becomes a typed `MediaIOError` here.
    .target(name: "MediaIO", dependencies: ["CFFmpeg", "CWebP", "CLCMS2", "CHeif", "CJPEG", "CAVIF", "CFileSystem"]),
    // The pipeline stages: job reader, transcoder, cover extractor, dark
    // variant generator, image renderer, manifest emitter.
    .target(name: "MarqueeKit", dependencies: ["MediaIO", "CFileSystem"]),

    // MARK: - Tools
    .executableTarget(name: "marquee", dependencies: ["MarqueeKit"]),
    // The command plugin: runs this package's own `marquee` with the
    // arguments passed through, from the package's folder.
    .plugin(
      name: "MarqueeCommand",
      capability: .command(
        intent: .custom(verb: "marquee", description: "Run Marquee (build, check, verify, …) on the package's job files"),
        permissions: [.writeToPackageDirectory(reason: "Marquee writes the banner bundle under the --out folder")]),
      dependencies: ["marquee"]),

    // MARK: - Tests
    .target(name: "MarqueeTestSupport", dependencies: ["MarqueeKit"], path: "Tests/MarqueeTestSupport"),
    // Tests mirror the modules: MediaIO's readers and codecs, MarqueeKit's
    // stages (one folder each), and the command line run as a process.
    .testTarget(name: "MediaIOTests", dependencies: ["MediaIO", "MarqueeKit", "MarqueeTestSupport"]),
    .testTarget(name: "MarqueeKitTests", dependencies: ["MarqueeKit", "MediaIO", "MarqueeTestSupport"]),
    .testTarget(name: "marqueeTests", dependencies: ["MarqueeKit", "MarqueeTestSupport"]),
  ]
)

// MARK: - Fuzz targets (libFuzzer, `make fuzz`; see Fuzz/README.md)
// Only with MARQUEE_FUZZ=1: they link against libFuzzer, which only
// `-sanitize=fuzzer` brings, so a normal build leaves them out.
if Context.environment["MARQUEE_FUZZ"] == "1" {
  package.targets.append(.target(name: "CFuzzDriver", path: "Fuzz/CFuzzDriver"))
  for name in ["FuzzJobReader", "FuzzImageHeaders", "FuzzPlaylists", "FuzzManifest"] {
    package.targets.append(.executableTarget(
      name: name, dependencies: ["MarqueeKit", "MediaIO", "CFuzzDriver"], path: "Fuzz/\(name)",
      swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
  }
}
