import Foundation

/// What a media file holds, as its bytes say.
public enum MediaContent: Sendable, Equatable {
  /// A container (an allowed libavformat demuxer) with a video stream.
  case video
  /// A still picture: JPEG, PNG, WebP, HEIF, BMP or TIFF (or a GIF of one
  /// frame).
  case still
  /// An animated GIF or WebP of this many frames (2 or more).
  case animation(frames: Int)
}

/// A file `MediaClassifier` found to be a source Marquee builds.
public struct MediaClassification: Sendable, Equatable {
  /// What the bytes hold.
  public var content: MediaContent
  /// The format found in the bytes: libavformat's demuxer name for a video
  /// (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, `gif`), the image format
  /// otherwise (`jpeg`, `png`, `gif`, `webp`, `heif`, `other`).
  public var format: String
  /// The banner type the job lists it as: `.video` for a video and for an
  /// animated GIF of more frames than the client keeps in an animated
  /// image (`MediaClassifier.maxAnimationFrames`), `.image` otherwise.
  public var kind: BannerKind
  /// Why the type is not the obvious one, for a note (an animated GIF
  /// listed as a video); nil normally.
  public var note: String?

  /// Creates a classification.
  public init(content: MediaContent, format: String, kind: BannerKind, note: String? = nil) {
    self.content = content
    self.format = format
    self.kind = kind
    self.note = note
  }
}

/// Decides from a file's content, never its name, whether it is a video, a
/// still, an animated image or not a source Marquee builds (`marquee
/// init`).
///
/// The file is opened as `validate` and `build` open sources, and judged by
/// the same rules (`JobValidator.videoProblem`, `.imageProblem`), so what it
/// calls media passes `marquee validate` under the same settings:
/// - the first bytes are matched against the image signatures
///   (`ImageFormat.recognize`); an image is opened with `ImageSource`
///   (header, limits) and a still is decoded whole (`checkDecodes`), so a
///   picture cut short is not media;
/// - anything else is probed by libavformat through `InputContainer`:
///   local bytes only, the video demuxers of `InputContainer.videoFormats`
///   only (no playlist, concat or image-sequence demuxer), under the
///   settings' limits, and must have a video stream. A `.jpg` that is an MP4
///   is a video; a `.mp4` that is text is not media.
public struct MediaClassifier: Sendable {
  /// The settings whose limits (`max_file_size_mb`, `max_pixels`,
  /// `max_duration`) and damage rule (`allow_damaged_sources`) apply.
  public var settings: JobSettings
  /// The most frames an animated image keeps on the client (the image
  /// renderer's cap, 20 by default): an animated GIF of more is listed as
  /// a video, which keeps every frame.
  public var maxAnimationFrames: Int

  /// The verdict on one file.
  public enum Verdict: Sendable, Equatable {
    /// A source the job can list.
    case media(MediaClassification)
    /// Not a source Marquee builds, and why (a sentence fragment starting
    /// lower-case, such as `has no video stream` or `file is empty`).
    case notMedia(reason: String)
  }

  /// Creates a classifier for a job with `settings` (default: the defaults).
  public init(settings: JobSettings = .default) {
    self.settings = settings
    maxAnimationFrames = ImageRenderer.Options(settings: settings).maxAnimationFrames
  }

  /// Classifies the file at `path`, opened without following a symbolic
  /// link at its last component (`ReadableFile.open(path:followLinks:)`).
  ///
  /// - Returns: `.notMedia` with the reason when the file is missing, a
  ///   link, not a regular file, unreadable, empty, over a limit, damaged
  ///   or not a video or image Marquee accepts; `.media` otherwise.
  public func classify(atPath path: String) -> Verdict {
    let file: ReadableFile
    do { file = try ReadableFile.open(path: path, followLinks: false) } catch {
      return .notMedia(reason: error.reason)
    }
    return classify(file, path: path)
  }

  /// Classifies an opened file; `path` names it in messages.
  public func classify(_ file: ReadableFile, path: String) -> Verdict {
    let limits = settings.inputLimits
    do { try limits.check(file) } catch { return .notMedia(reason: error.reason) }
    var head = Data(count: ImageFormat.signatureLength)
    let count = head.withUnsafeMutableBytes { file.read(at: 0, into: $0) }
    head = head.prefix(max(0, count))
    if let format = ImageFormat.recognize(head) {
      return image(file, path: path, format: format)
    }
    do {
      let input = try InputContainer(file: file, path: path, allowedFormats: InputContainer.videoFormats, limits: limits)
      if let reason = JobValidator.videoProblem(input) { return .notMedia(reason: reason) }
      return .media(MediaClassification(content: .video, format: input.formatName, kind: .video))
    } catch {
      return .notMedia(reason: error.reason)
    }
  }

  /// A file whose first bytes are an image signature.
  private func image(_ file: ReadableFile, path: String, format: ImageFormat) -> Verdict {
    let image: ImageSource
    do {
      image = try ImageSource.open(file: file, path: path, limits: settings.inputLimits)
      if let reason = try JobValidator.imageProblem(image, allowsDamage: settings.allowDamagedSources) {
        return .notMedia(reason: reason)
      }
    } catch {
      return .notMedia(reason: error.reason)
    }
    let header = image.header
    guard header.isAnimated else {
      return .media(MediaClassification(content: .still, format: header.format.rawValue, kind: .image))
    }
    let animation = MediaContent.animation(frames: header.frameCount)
    // The image renderer would keep `maxAnimationFrames` of a longer GIF and
    // warn, suggesting a video; libavformat's gif demuxer reads it as one.
    if header.format == .gif, header.frameCount > maxAnimationFrames, opensAsVideo(file, path: path) {
      let note = "an animated GIF of \(header.frameCount) frames, more than the \(maxAnimationFrames) an animated image keeps: listed as a video, which keeps every frame"
      return .media(MediaClassification(content: animation, format: header.format.rawValue, kind: .video, note: note))
    }
    return .media(MediaClassification(content: animation, format: header.format.rawValue, kind: .image))
  }

  /// Whether `validate` would take the file as a video source.
  private func opensAsVideo(_ file: ReadableFile, path: String) -> Bool {
    guard let input = try? InputContainer(file: file, path: path, allowedFormats: InputContainer.videoFormats,
                                          limits: settings.inputLimits) else { return false }
    return JobValidator.videoProblem(input) == nil
  }
}
