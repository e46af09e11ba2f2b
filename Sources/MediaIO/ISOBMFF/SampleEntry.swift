extension ISOBMFF {
  /// The sample entry types of an initialization section's tracks
  /// (`moov/trak/mdia/minf/stbl/stsd`, ISO/IEC 14496-12 §8.5.2), in track
  /// order: `avc1`, `hvc1`, `hev1`, `mp4a`, … What a player reads to learn
  /// the codec; Apple's players need `hvc1` for HEVC (the parameter sets in
  /// the sample entry, not in the samples).
  ///
  /// - Parameter bytes: the whole init section (a few kilobytes).
  /// - Returns: the first entry of each track's `stsd`; a track whose
  ///   boxes are missing or malformed is left out.
  public static func sampleEntries(initSection bytes: [UInt8]) -> [BoxType] {
    let reader = BoxReader(bytes)
    guard let moov = reader.topLevelBox("moov") else { return [] }
    var found: [BoxType] = []
    for trak in reader.children(of: moov) where trak.type == "trak" {
      guard let mdia = reader.child("mdia", of: trak), let minf = reader.child("minf", of: mdia),
            let stbl = reader.child("stbl", of: minf), let stsd = reader.child("stsd", of: stbl) else { continue }
      // A full box (version and flags, 4 bytes) with an entry count (4
      // bytes); the first entry's type follows its 4-byte size.
      guard let count = reader.uint32(stsd, at: 4), count > 0, let type = reader.fourCC(stsd, at: 12) else { continue }
      found.append(type)
    }
    return found
  }
}
