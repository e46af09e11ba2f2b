import MarqueeTestSupport
import Testing

@Suite("SplitMix64: the seeded generator every test shares")
struct SplitMix64Tests {
  @Test("seed 1234567 gives the reference sequence of Vigna's splitmix64.c")
  func referenceSequence() {
    var rng = SplitMix64(seed: 1_234_567)
    #expect((0..<5).map { _ in rng.next() } == [
      6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423,
      4_593_380_528_125_082_431, 16_408_922_859_458_223_821,
    ])
  }
}
