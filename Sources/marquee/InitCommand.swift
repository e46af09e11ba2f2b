import Foundation
import MarqueeKit

// MARK: - init

/// `marquee init <media-folder> [--name N] [--out FILE]`: prints (or
/// writes) the job `JobTemplate` makes for the folder. stdout carries the
/// job and nothing else; every file left out gets a `note:` line on stderr.
struct InitCommand {
  let arguments: InitArguments

  func run() -> ExitCode {
    let media = URL(fileURLWithPath: arguments.folder)
    let jobFile = arguments.out.map { URL(fileURLWithPath: $0) }
    // The job is for the folder it is saved in: FILE's with --out, the
    // current directory when printed (the help says to save it there).
    let jobFolder = jobFile?.deletingLastPathComponent() ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    do throws(MarqueeError) {
      if let jobFile { try JobTemplate.checkNew(jobFile) }
      var isFolder: ObjCBool = false
      if jobFile != nil, !(FileManager.default.fileExists(atPath: jobFolder.path, isDirectory: &isFolder) && isFolder.boolValue) {
        throw MarqueeError(.usage, "\(jobFolder.relativePath), the folder of --out \(arguments.out ?? ""), does not exist; create it first")
      }
      // Printed into a file of the folder itself (`> media/job.json`), the
      // job file exists, empty, before init runs: leave it out.
      var ignoring: [MediaFolderScanner.FileID: String] = [:]
      if jobFile == nil, let output = MediaFolderScanner.FileID.standardOutput {
        ignoring[output] = "is the job file being written (standard output)"
      }
      // Said in the command line's words here (a missing folder is left to
      // `make`, which says so).
      if FileManager.default.fileExists(atPath: media.path), JobTemplate.sourceFolder(of: media, in: jobFolder) == nil {
        let why = "a job reads its sources only inside its own folder"
        let message = if let jobFile {
          "\(arguments.folder) is not inside the folder of \(jobFile.relativePath) (\(jobFolder.standardizedFileURL.path)): \(why); "
            + "give --out a file in the media folder or a folder above it"
        } else {
          "\(arguments.folder) is not inside the current directory, which a printed job is for: \(why); "
            + "run init from the media folder or a folder above it, or give --out FILE in such a folder"
        }
        throw MarqueeError(.usage, message)
      }
      let template = try JobTemplate.make(mediaFolder: media, jobFolder: jobFolder, name: arguments.name, ignoring: ignoring)
      for note in template.skipped { Console.shared.err("note: \(LogLine.printable(note.file)): skipped: \(LogLine.printable(note.text))\n") }
      for note in template.notes { Console.shared.err("note: \(LogLine.printable(note.file)): \(LogLine.printable(note.text))\n") }
      // Messages about the job name the file it is written to; a printed
      // job has no name yet.
      let document = try template.document(fileName: jobFile?.lastPathComponent ?? "(the printed job)")
      for warning in document.job.warnings { Console.shared.err("warning: \(LogLine.printable(warning))\n") }
      guard let jobFile else {
        Console.shared.out(document.text)
        return .success
      }
      try JobTemplate.write(document.text, to: jobFile)
      let videos = template.banners.filter { $0.kind == .video }.count
      Console.shared.out("Wrote \(jobFile.relativePath): \(template.banners.count) banner(s) (\(videos) video, "
                         + "\(template.banners.count - videos) image), \(template.skipped.count) file(s) skipped\n")
      return .success
    } catch {
      Console.shared.err("error: \(LogLine.printable(error.message))\n")
      return ExitCode(for: error)
    }
  }
}
