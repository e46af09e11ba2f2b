import CFuzzDriver
import Foundation
@testable import MarqueeKit

/// A job file's bytes: JSON syntax, the strict scanner, settings, banners
/// and source paths. Any input must give a job or a `JobError`, never a
/// trap; a job must list its banners in order with valid ids.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data else { return 0 }
  let bytes = Data(bytes: data, count: size)
  do {
    let job = try JobReader().parse(bytes, jobFileURL: URL(fileURLWithPath: "/fuzz/jobs/job.json"))
    precondition(!job.banners.isEmpty, "a job without banners was accepted")
    for banner in job.banners {
      precondition(banner.source.isFileURL && !banner.id.isEmpty)
      if JobDocumentValidator.outsideProblem(banner.sourceText, jobFolder: URL(fileURLWithPath: "/fuzz/jobs")) != nil {
        precondition(job.settings.maxFileSize > 0)  // accepted only with allow_outside_sources
      }
    }
  } catch {
    precondition(!error.all.isEmpty && !error.description.isEmpty)
  }
  _ = JobJSONStrictScanner.firstProblem(in: bytes)
  return 0
}

@_cdecl("FuzzJobReader_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
  var count = argc
  var arguments = argv
  return LLVMFuzzerRunDriver(&count, &arguments) { testOneInput($0, $1) }
}
