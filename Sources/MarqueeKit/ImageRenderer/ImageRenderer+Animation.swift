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
  ///
  /// The dark files follow `dark`: darkened frames (`generated`); the light
  /// files' bytes (`same`); or the designer's still at the rung's size, as
  /// a still WebP and its JPEG, with a warning that dark mode shows it
  /// still (`designer`).
  func produceAnimation(_ source: ImageSource, dark: DarkSource = .generated) throws(MarqueeError) -> ([(String, Data)], RenderedImageSet) {
    let file = source.name
    let header = source.header
    var warnings = header.warnings
    // A file cut short inside a frame (`ImageHeader.damage`) fails here,
    // before decoding, unless damage is allowed (`DamagedStill`).
    if let damage = try DamagedStill.check(header.damage, file: file, allowed: options.allowsDamagedSource) {
      warnings.append(damage)
    }
    var damages = header.damage.map { [$0] } ?? []
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
      // Frames the header promised that do not decode are damage too.
      let missing = "only \(arrived.count) of the \(plan.count) planned frames could be decoded"
      if let warning = try DamagedStill.check(missing, file: file, allowed: options.allowsDamagedSource) {
        warnings.append(warning)
      }
      damages.append(missing)
    }
    let canvases = frames.compactMap { kept[$0.index] }
    let durations = frames.map(\.duration)
    let loopCount = header.loopCount

    // Dark frames: one treatment for the whole animation, so frames do not
    // flicker between treatments when the classifier's verdict varies.
    // The method is chosen and judged on the widest rung's first frame and
    // applied to its every frame; narrower rungs resize those dark frames.
    var chosen: DarkVariant?
    var widestDarkFrames: [RGBAImage]?
    let prepared = try prepare(dark, lightWidth: header.width, lightHeight: header.height,
                               widest: sizes.map(\.width).max() ?? header.width, warnings: &warnings)
    if case .designer(let picture) = dark {
      warnings.append("dark picture \(picture.text) is a still: dark mode shows it still, not the \(canvases.count)-frame animation")
    }

    var files: [(String, Data)] = []
    var renditions: [RenderedImageSet.Rendition] = []
    for size in sizes.reversed() {
      var rungFrames: [RGBAImage] = []
      for canvas in canvases {
        do {
          rungFrames.append(try ImageResampler.resize(canvas, width: size.width, height: size.height))
        } catch {
          throw MarqueeError.encoding(error, file: file, output: "the \(size.width)x\(size.height) animation")
        }
      }
      let names = paths(width: size.width)
      let rungDark: AnimationDark
      switch prepared {
      case .generated:
        if let widest = widestDarkFrames {
          // Narrower rungs: the widest rung's dark frames, resized.
          var resized: [RGBAImage] = []
          for frame in widest {
            do {
              resized.append(try ImageResampler.resize(frame, width: size.width, height: size.height))
            } catch {
              throw MarqueeError.encoding(error, file: file, output: "the \(size.width)x\(size.height) dark animation")
            }
          }
          rungDark = .frames(resized)
        } else {
          if let first = rungFrames.first { chosen = darkGenerator.makeDarkVariant(of: first) }
          let frames = darkAnimation(rungFrames, method: chosen?.method ?? .dimmed)
          widestDarkFrames = frames
          rungDark = .frames(frames)
        }
      case .same: rungDark = .sameAsLight
      case .designer(let matched): rungDark = .still(try scaled(matched, width: size.width, height: size.height, file: file))
      }
      do {
        let webp = try AnimatedWebPEncoder.encode(frames: rungFrames, durations: durations,
                                                  loopCount: loopCount, quality: options.webpQuality)
        let jpeg = try JPEGEncoder.encode(flatten(rungFrames[0], onto: options.background), quality: options.jpegQuality)
        files.append((names.webp, webp))
        files.append((names.jpeg, jpeg))
        switch rungDark {
        case .frames(let darkFrames):
          files.append((names.darkWebp, try AnimatedWebPEncoder.encode(frames: darkFrames, durations: durations,
                                                                        loopCount: loopCount, quality: options.webpQuality)))
          files.append((names.darkJpeg, try JPEGEncoder.encode(flatten(darkFrames[0], onto: options.darkSurface),
                                                               quality: options.jpegQuality)))
        case .sameAsLight:
          files.append((names.darkWebp, webp))
          files.append((names.darkJpeg, jpeg))
        case .still(let still):
          // Opaque already (flattened onto dark_surface when it was read).
          files.append((names.darkWebp, try WebPEncoder.encode(still, quality: options.webpQuality)))
          files.append((names.darkJpeg, try JPEGEncoder.encode(still, quality: options.jpegQuality)))
        }
      } catch {
        throw MarqueeError.encoding(error, file: file, output: "the \(size.width)x\(size.height) animation")
      }
      renditions.insert(names.rendition(width: size.width, height: size.height), at: 0)
    }
    warnings += Self.darkWarnings(chosen)
    var set = RenderedImageSet(
      widths: renditions, isAnimated: true, frameCount: canvases.count, animationDuration: durations.reduce(0, +),
      sourceWidth: header.width, sourceHeight: header.height, sourceSummary: header.summary,
      darkKind: chosen?.kind ?? .photograph, warnings: unique(warnings), darkPolicy: dark.kind)
    set.darkMethod = chosen?.method ?? .dimmed
    set.health = damages.isEmpty ? nil : SourceHealth(damagedStill: damages.joined(separator: "; "))
    return (files, set)
  }

  /// What an animated rung's dark files are made of.
  enum AnimationDark {
    /// Darkened frames, encoded as the light ones are.
    case frames([RGBAImage])
    /// The light files' bytes (`"dark": "same"`).
    case sameAsLight
    /// The designer's still at the rung's size: a still WebP and its JPEG.
    case still(RGBAImage)
  }

  /// Darkens every frame with the same method, the one chosen for the
  /// first frame of the widest rung, so frames do not flicker between
  /// treatments.
  func darkAnimation(_ frames: [RGBAImage], method: DarkMethod) -> [RGBAImage] {
    let generator = darkGenerator
    return frames.map { generator.makeDarkVariant(of: $0, using: method).image }
  }
}
