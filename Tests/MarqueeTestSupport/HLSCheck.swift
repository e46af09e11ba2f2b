import Foundation

/// Reads an HLS master playlist and its media playlists from disk and checks
/// them with ffprobe: the oracle for "every segment starts with a keyframe".
public struct HLSVariant: Sendable {
  public var uri: String
  public var attributes: [String: String]
  public var playlist: URL
  public var targetDuration: Int?
  public var segments: [(duration: Double, url: URL)]
  public var mapURL: URL?
  public var lines: [String]
}

public enum HLSCheck {
  /// Parses `#EXT-X-STREAM-INF` attributes (quoted values may hold commas).
  public static func attributes(_ text: Substring) -> [String: String] {
    var result: [String: String] = [:]
    var key = "", value = "", inKey = true, quoted = false
    for ch in text {
      if inKey {
        if ch == "=" { inKey = false } else if ch != "," { key.append(ch) }
      } else if ch == "\"" {
        quoted.toggle()
      } else if ch == "," && !quoted {
        result[key] = value; key = ""; value = ""; inKey = true
      } else {
        value.append(ch)
      }
    }
    if !key.isEmpty { result[key] = value }
    return result
  }

  /// The variants of a master playlist, with their media playlists read.
  public static func variants(master: URL) throws -> (lines: [String], variants: [HLSVariant]) {
    let text = try String(contentsOf: master, encoding: .utf8)
    let lines = text.split(whereSeparator: \.isNewline).map(String.init)
    var out: [HLSVariant] = []
    var pending: [String: String]? = nil
    for line in lines {
      if line.hasPrefix("#EXT-X-STREAM-INF:") {
        pending = attributes(line.dropFirst("#EXT-X-STREAM-INF:".count))
      } else if !line.hasPrefix("#"), let attrs = pending {
        let url = master.deletingLastPathComponent().appendingPathComponent(line)
        let media = try String(contentsOf: url, encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init)
        var segs: [(Double, URL)] = []
        var dur: Double? = nil
        var target: Int? = nil
        var map: URL? = nil
        for m in media {
          if m.hasPrefix("#EXTINF:") {
            dur = Double(m.dropFirst(8).split(separator: ",").first ?? "")
          } else if m.hasPrefix("#EXT-X-TARGETDURATION:") {
            target = Int(m.dropFirst("#EXT-X-TARGETDURATION:".count))
          } else if m.hasPrefix("#EXT-X-MAP:"), let r = m.range(of: "URI=\"") {
            let name = m[r.upperBound...].prefix { $0 != "\"" }
            map = url.deletingLastPathComponent().appendingPathComponent(String(name))
          } else if !m.hasPrefix("#"), let d = dur {
            segs.append((d, url.deletingLastPathComponent().appendingPathComponent(m)))
            dur = nil
          }
        }
        out.append(HLSVariant(uri: line, attributes: attrs, playlist: url, targetDuration: target,
                              segments: segs, mapURL: map, lines: media))
        pending = nil
      }
    }
    return (lines, out)
  }

  /// Joins the initialization section and one segment into a temporary file
  /// a decoder can open on its own, as a player starting at that segment does.
  public static func standaloneSegment(map: URL?, segment: URL) throws -> URL {
    var data = Data()
    if let m = map { data.append(try Data(contentsOf: m)) }
    data.append(try Data(contentsOf: segment))
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("marquee-seg-\(UUID().uuidString).mp4")
    try data.write(to: url)
    return url
  }
}
