import Foundation

extension ImageRenderer {
  /// Animated GIF/WebP → animated WebP per rung, within the client's caps.
  ///
  /// Order: choose the frames (`AnimationPlan.select`, ≤ `maxAnimationFrames`,
  /// total duration kept); fit every rung to `maxAnimationBytes` for that
  /// many frames (`AnimationPlan.fit`), dropping rungs that collapse onto
  /// the same size; decode only up to the last kept frame, shrinking each
  /// kept canvas to the largest fitted size straight away (so memory stays
  /// at ≈ the output's); then per rung resize, darken, encode.
  func produceAnimation(_ source: ImageSource) throws(MarqueeError) -> ([(String, Data)], RenderedImageSet) {
    let file = source.name
    let header = source.header
    var warnings = header.warnings
    let plan = AnimationPlan.select(durations: header.frameDurations, maxFrames: options.maxAnimationFrames)
    let total = plan.reduce(0) { $0 + $1.duration }
    if plan.count < header.frameCount {
      var text = "animation reduced from \(header.frameCount) to \(plan.count) frames (client cap \(options.maxAnimationFrames)); total duration kept at \(total) ms"
      if header.format == .gif {
        // Each kept frame is shown as long as the frames dropped after it: the motion turns into a slideshow.
        let longest = plan.map(\.duration).max() ?? 0
        text += String(format: ", each frame now shown up to %.1f s; give it as \"type\": \"video\" to keep every frame (a muted looping video)",
                       Double(longest) / 1000)
      }
      warnings.append(text)
    }

    // Sizes: the ladder, then each rung fitted to the memory cap.
    let ladder = WidthLadder.sizes(sourceWidth: header.width, sourceHeight: header.height, widths: options.widths)
    var sizes: [(width: Int, height: Int)] = []
    for rung in ladder {
      let fitted = AnimationPlan.fit(width: rung.width, sourceWidth: header.width, sourceHeight: header.height,
                                     frames: plan.count, maxBytes: options.maxAnimationBytes)
      if fitted.width != rung.width {
        warnings.append("\(rung.width) px rendition downscaled to \(fitted.width)x\(fitted.height) so \(plan.count) decoded frames stay within \(options.maxAnimationBytes) bytes")
      }
      if !sizes.contains(where: { $0.width == fitted.width }) { sizes.append(fitted) }
    }
    sizes.sort { $0.width < $1.width }
    guard let work = sizes.last else {
      throw MarqueeError(.invalidRequest, file: file, message: "no output size")
    }

    // Decode the kept frames, shrunk to the working size as they arrive.
    var kept: [Int: RGBAImage] = [:]
    do {
      let summary = try source.decodeFrames(keeping: Set(plan.map(\.index))) { (index, canvas) throws(MediaIOError) in
        kept[index] = try ImageResampler.resize(canvas, width: work.width, height: work.height)
      }
      warnings += summary.warnings
    } catch {
      throw MarqueeError.decoding(error, file: file)
    }
    // A decoder may deliver fewer frames than the header promised; retime
    // what arrived so the total duration still matches.
    var frames = plan
    if kept.count < plan.count {
      let arrived = plan.map(\.index).filter { kept[$0] != nil }
      guard !arrived.isEmpty else {
        throw MarqueeError(.corruptSource, file: file, message: "no animation frame could be decoded")
      }
      frames = AnimationPlan.retime(arrived, durations: header.frameDurations)
      warnings.append("only \(arrived.count) of the \(plan.count) planned frames could be decoded")
    }
    let canvases = frames.compactMap { kept[$0.index] }
    let durations = frames.map(\.duration)
    let loopCount = header.loopCount

    // Dark frames: one treatment for the whole animation, so frames do not
    // flicker between treatments when the classifier's verdict varies.
    let generator = darkGenerator
    let firstKind = canvases.first.map { generator.classify($0) } ?? .photograph

    var files: [(String, Data)] = []
    var renditions: [RenderedImageSet.Rendition] = []
    for size in sizes {
      var rungFrames: [RGBAImage] = []
      for canvas in canvases {
        do {
          rungFrames.append(try ImageResampler.resize(canvas, width: size.width, height: size.height))
        } catch {
          throw MarqueeError.encoding(error, file: file, output: "the \(size.width)x\(size.height) animation")
        }
      }
      let darkFrames = darkAnimation(rungFrames, kind: firstKind)
      let names = paths(width: size.width)
      do {
        files.append((names.webp, try AnimatedWebPEncoder.encode(frames: rungFrames, durations: durations,
                                                                  loopCount: loopCount, quality: options.webpQuality)))
        files.append((names.jpeg, try JPEGEncoder.encode(flatten(rungFrames[0], onto: options.background),
                                                         quality: options.jpegQuality)))
        files.append((names.darkWebp, try AnimatedWebPEncoder.encode(frames: darkFrames, durations: durations,
                                                                      loopCount: loopCount, quality: options.webpQuality)))
        files.append((names.darkJpeg, try JPEGEncoder.encode(flatten(darkFrames[0], onto: options.darkSurface),
                                                             quality: options.jpegQuality)))
      } catch {
        throw MarqueeError.encoding(error, file: file, output: "the \(size.width)x\(size.height) animation")
      }
      renditions.append(names.rendition(width: size.width, height: size.height))
    }
    let set = RenderedImageSet(
      widths: renditions, isAnimated: true, frameCount: canvases.count, animationDuration: durations.reduce(0, +),
      sourceWidth: header.width, sourceHeight: header.height, sourceSummary: header.summary,
      darkKind: firstKind, warnings: unique(warnings))
    return (files, set)
  }

  /// Darkens every frame with the same treatment: the generator's own
  /// choice when it makes the same one for every frame, otherwise the
  /// first frame's kind (transparent art keeps its alpha treatment, anything
  /// else is dimmed as a photograph, the treatment that never destroys a
  /// subject).
  func darkAnimation(_ frames: [RGBAImage], kind: ImageContentKind) -> [RGBAImage] {
    let generator = darkGenerator
    let variants = frames.map { generator.makeDarkVariant(of: $0) }
    if variants.allSatisfy({ $0.kind == kind }) { return variants.map(\.image) }
    switch kind {
    case .transparent: return frames.map { generator.darkenTransparent($0) }
    case .photograph, .lightBackground: return frames.map { generator.darkenPhotograph($0) }
    }
  }
}
