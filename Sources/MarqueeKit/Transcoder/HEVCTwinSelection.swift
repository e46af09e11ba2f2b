import Foundation

/// Which HEVC twins are worth publishing: a twin is there to cost a phone
/// that decodes HEVC fewer bytes than its H.264 rendition, so a twin whose
/// measured average bit rate (`MeasuredBandwidth`, `AVERAGE-BANDWIDTH`) is
/// not under its H.264 rendition's is left out of the bundle. libx265 at
/// one CRF point above libx264 took more bytes than libx264 on some
/// synthetic test patterns (a 30 s 1080p `testsrc2`: 1.17x at 720p), where
/// listing the twin would only make those phones download more.
public enum HEVCTwinSelection {
  /// One rendition as the rule sees it.
  public struct Rendition: Sendable, Equatable {
    public var name: String
    public var codec: VideoCodec
    /// Measured average bit rate, bits per second.
    public var averageBitRate: Int

    public init(name: String, codec: VideoCodec, averageBitRate: Int) {
      self.name = name
      self.codec = codec
      self.averageBitRate = averageBitRate
    }
  }

  /// A twin left out, and why, for the log.
  public struct Dropped: Sendable, Equatable {
    /// Index into the renditions given.
    public var index: Int
    public var reason: String
  }

  /// The twins to leave out: each HEVC rendition (named `<name>-hevc`)
  /// whose average is at least its H.264 rendition's.
  public static func unhelpful(_ renditions: [Rendition]) -> [Dropped] {
    renditions.indices.compactMap { i in
      let twin = renditions[i]
      guard twin.codec == .hevc, twin.name.hasSuffix(RenditionPlanner.hevcNameSuffix) else { return nil }
      let base = String(twin.name.dropLast(RenditionPlanner.hevcNameSuffix.count))
      guard let h264 = renditions.first(where: { $0.codec == .h264 && $0.name == base }),
            twin.averageBitRate >= h264.averageBitRate else { return nil }
      return Dropped(index: i, reason: String(format: "HEVC twin of %@ left out: %.0f kbit/s, not under H.264's %.0f",
                                              base, Double(twin.averageBitRate) / 1000, Double(h264.averageBitRate) / 1000))
    }
  }
}
