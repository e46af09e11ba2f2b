import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory marquee <command> [arguments]`:
/// runs the `marquee` executable of the Marquee package this package depends
/// on (built by SwiftPM for the host, `PluginContext.tool(named:)`), with the
/// arguments passed through unchanged and the package's own folder as the
/// working directory, so `Banners/job.json --out Banners/Output` are read
/// relative to the package.
///
/// `marquee`'s output goes straight to the terminal, and its exit code
/// becomes the plugin's (0 built, 1 some items failed or over budget, 2
/// usage or invalid job, 3 locked, 4 I/O; README, "Exit codes"); a signal
/// that ends `marquee` ends the plugin with 128 + the signal. SwiftPM
/// itself then exits 1 for any failure and prints "Plugin ended with exit
/// code N" (it does not pass a command plugin's code on:
/// swift-package-manager issue 7380), so a CI step sees 0 or 1.
@main
struct MarqueeCommand: CommandPlugin {
  func performCommand(context: PluginContext, arguments: [String]) async throws {
    let tool = try context.tool(named: "marquee")
    let process = Process()
    process.executableURL = tool.url
    process.arguments = arguments
    process.currentDirectoryURL = context.package.directoryURL
    try process.run()
    process.waitUntilExit()
    let status = process.terminationStatus
    switch process.terminationReason {
    case .exit where status == 0: return
    case .exit: exit(status)
    case .uncaughtSignal: exit(128 + status)
    @unknown default: exit(1)
    }
  }
}
