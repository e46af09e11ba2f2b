/// The `profile_tier_level` of an HEVC sequence parameter set (ITU-T H.265
/// 7.3.2.2, 7.3.3), read from Annex B bytes (start codes, as libx265 writes
/// its extradata): what a `CODECS` string needs.
public struct HEVCParameterSets: Sendable, Equatable {
  /// `general_profile_space` (0–3).
  public var profileSpace: Int
  /// `general_tier_flag`: false for the Main tier.
  public var highTier: Bool
  /// `general_profile_idc` (1 = Main).
  public var profile: Int
  /// `general_profile_compatibility_flag[0...31]`, flag j as bit j.
  public var compatibility: UInt32
  /// The 48 bits of constraint flags, as six bytes in stream order.
  public var constraints: [UInt8]
  /// `general_level_idc`: 30 × the level (93 = level 3.1).
  public var level: Int

  /// Reads the first SPS (NAL unit type 33) of `annexB`; nil when there is
  /// none or it is too short.
  public init?(annexB bytes: [UInt8]) {
    var i = 0
    var sps: [UInt8]? = nil
    while i + 3 < bytes.count {
      if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 {
        let start = i + 3
        var end = start
        while end + 2 < bytes.count && !(bytes[end] == 0 && bytes[end + 1] == 0 && (bytes[end + 2] == 1 || bytes[end + 2] == 0)) {
          end += 1
        }
        if end + 2 >= bytes.count { end = bytes.count }
        if (bytes[start] >> 1) & 0x3F == 33 { sps = Array(bytes[start..<end]); break }
        i = end
      } else {
        i += 1
      }
    }
    guard let nal = sps else { return nil }
    // The RBSP: the 2-byte NAL header dropped, emulation prevention
    // bytes (00 00 03) removed.
    var rbsp: [UInt8] = []
    var zeros = 0
    for b in nal.dropFirst(2) {
      if zeros >= 2 && b == 3 { zeros = 0; continue }
      rbsp.append(b)
      zeros = b == 0 ? zeros + 1 : 0
    }
    // 1 byte: vps id, max sub-layers, nesting; then profile_tier_level.
    guard rbsp.count >= 13 else { return nil }
    self.init(profileTierLevel: Array(rbsp[1..<13]))
  }

  /// Reads the general part of a `profile_tier_level` (12 bytes: space,
  /// tier and profile; 4 compatibility; 6 constraint; level), as an SPS
  /// carries it after its first byte and an `hvcC` box at its bytes 1–12
  /// (ISO/IEC 14496-15 §8.3.3.1); nil when fewer than 12 bytes are given.
  public init?(profileTierLevel ptl: [UInt8]) {
    guard ptl.count >= 12 else { return nil }
    profileSpace = Int(ptl[0] >> 6)
    highTier = ptl[0] & 0x20 != 0
    profile = Int(ptl[0] & 0x1F)
    let flags = UInt32(ptl[1]) << 24 | UInt32(ptl[2]) << 16 | UInt32(ptl[3]) << 8 | UInt32(ptl[4])
    // Stream order puts flag 0 first (the most significant bit).
    var reversed: UInt32 = 0
    for j in 0..<32 where flags & (1 << (31 - UInt32(j))) != 0 { reversed |= 1 << UInt32(j) }
    compatibility = reversed
    constraints = Array(ptl[5..<11])
    level = Int(ptl[11])
  }

  /// The RFC 6381 `CODECS` value (`hvc1.1.6.L93.B0`), built as ISO/IEC
  /// 14496-15 Annex E says: the profile space (none, A, B or C) and
  /// `general_profile_idc`; the 32 compatibility flags in reverse bit
  /// order, in hexadecimal; `L` or `H` for the tier and
  /// `general_level_idc`; then the six constraint bytes in hexadecimal,
  /// trailing zero bytes left out (the first one always written).
  public var codecs: String {
    let space = ["", "A", "B", "C"][profileSpace]
    var bytes = constraints
    while bytes.count > 1 && bytes.last == 0 { bytes.removeLast() }
    let constraintText = bytes.map { String($0, radix: 16, uppercase: true) }.joined(separator: ".")
    return "hvc1.\(space)\(profile).\(String(compatibility, radix: 16, uppercase: true)).\(highTier ? "H" : "L")\(level).\(constraintText)"
  }
}
