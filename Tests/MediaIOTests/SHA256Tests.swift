import Foundation
import MarqueeTestSupport
import MediaIO
import Testing

/// SHA-256 on libavutil's `av_sha`: the digest the content-addressed store
/// keys items by.
@Suite("SHA-256 (av_sha)")
struct SHA256Tests {

  @Test("SHA-256 (libavutil av_sha) matches the FIPS 180-4 test vectors")
  func sha256Vectors() {
    #expect(SHA256.hash("").hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(SHA256.hash("abc").hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(SHA256.hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").hex
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    let million = SHA256()
    let chunk = Data(repeating: UInt8(ascii: "a"), count: 1000)
    for _ in 0..<1000 { million.update(chunk) }
    #expect(million.finalize().hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  @Test("SHA-256 of files agrees with sha256sum, for every length around the block size")
  func sha256AgainstSha256sum() throws {
    let fixture = try BatchFixture("sha")
    defer { fixture.remove() }
    var rng = SystemRandomNumberGenerator()
    for length in [0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 1000, 1 << 20, (1 << 20) + 13] {
      let url = fixture.dir.appendingPathComponent("f\(length)")
      try Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }).write(to: url)
      let oracle = try Run.process("sha256sum", [url.path])
      let expected = String(oracle.stdoutText.prefix(64))
      #expect(try SHA256.hash(file: ReadableFile.open(path: url.path)).hex == expected, "length \(length)")
      // Fed in uneven pieces, the digest is the same.
      let h = SHA256()
      let data = try Data(contentsOf: url)
      var i = 0
      var step = 1
      while i < data.count {
        h.update(data[i..<min(data.count, i + step)])
        i += step
        step = step * 3 % 97 + 1
      }
      #expect(h.finalize().hex == expected, "pieces, length \(length)")
    }
  }

}
