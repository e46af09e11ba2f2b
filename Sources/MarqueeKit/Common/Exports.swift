// The pixel and media value types (`RGBAImage`, `Rational`, `DisplayTransform`, …)
// are part of MarqueeKit's public vocabulary.
@_exported import MediaIO
