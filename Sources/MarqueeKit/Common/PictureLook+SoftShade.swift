/// *Soft shade*: a drop shadow, a glow, a blurred vignette: tone that leaves
/// a ground by a smooth ramp, wide enough to be a blur rather than an edge.
///
/// A viewer reads text and line art by their edges: a stroke steps from its
/// ground within a pixel or two. A card's drop shadow deepens a few levels
/// a pixel over tens of pixels; it is not a mark, and dark themes draw it
/// darker than its ground (or drop it), never as an inverted light glow.
/// One definition serves the generator, which maps such shade onto the dark
/// surface in proportion (`DarkVariantGenerator.dropShadows`), and the
/// legibility rule, which does not count it as marks.
///
/// A pixel is soft shade when a path reaches it from a ground pixel through
/// candidate pixels, each step changing luma by at most
/// `max(softStepBase, softStepPerDepth · depth)` levels, where depth is the
/// pixel's distance in luma from the ground pixel the path started at;
/// each no darker than `softShadeMinFraction` of that ground's luma (a
/// shadow lets some light through; a solid shape's blurred edge leads into
/// the shape itself); each off every edge: no lighter neighbour (ground or
/// candidate, up to `softStepBase` over the path's ground) lies more than a
/// step and more than `softEdgeStep` levels above it, since a ramp is smooth
/// across, not only along the path (the anti-aliased rim of a large letter
/// set in a grey tint changes a few levels a pixel *along* a shallow curve,
/// and a path could creep along it into the letter, but each rim pixel lies
/// tens of levels under its outer neighbour); and
/// when the connected set of such pixels reaches at least
/// `softShadeThickness · scale` pixels from the ground. An anti-aliased
/// letter edge drops tens of levels within a pixel and ends every path; the
/// JPEG ringing or soft anti-aliasing around a letter is a few pixels thick.
extension PictureLook {
  /// Largest luma step (levels) along a soft path near its ground…
  public static let softStepBase = 5.0
  /// …and as a fraction of the depth reached (a deep shadow's core is
  /// steeper: a 90-level shadow blurred by 6 px steps up to 6 levels a
  /// pixel).
  public static let softStepPerDepth = 0.25
  /// Pixels a set of soft pixels reaches from its ground (times the
  /// caller's scale): a drop shadow blurred by 6 px or more does; a
  /// letter's anti-aliasing (1–2 px) and a JPEG's ringing (about 4 px at
  /// quality 60) do not.
  public static let softShadeThickness = 8
  /// A lighter neighbour more than this many levels over a pixel (and more
  /// than a soft step) puts it on an edge: the rim of a letter set in a
  /// grey tint (black at 30 % on white: 68 levels) steps by tens of levels
  /// across; a card's short, light drop shadow (14 levels over 2 px) by
  /// less.
  public static let softEdgeStep = 12
  /// The darkest soft shade, as a fraction of its ground's luma: a drop
  /// shadow keeps more than half of it (`DarkVariantGenerator`'s product
  /// shadows use the same bound); a red or navy shape on white is far
  /// darker.
  public static let softShadeMinFraction = 0.55
  /// A flat light pixel (the legibility rule's ground for soft shade) has
  /// a 3x3 neighbourhood within this many luma levels: paper and a card
  /// are flat; a shadow's ramp, a letter's edge and coding ringing beside
  /// it are not.
  public static let softGroundRange = 2

  /// What each pixel is to ``softShade(_:width:height:scale:)``.
  enum SoftShadeInput {
    /// A ground pixel: paths start here, at this luma.
    static func ground(_ luma: Int) -> Int16 { Int16(-1 - luma) }
    /// Neither ground nor a possible shade pixel (a coloured shape, a
    /// see-through pixel).
    static let excluded = Int16.min
  }

  /// The soft shade of a picture.
  ///
  /// - Parameters:
  ///   - input: per pixel, row by row: its luma (0–255) for a pixel that
  ///     may be shade, `SoftShadeInput.ground(luma)` (−1 − luma) for a
  ///     ground pixel, `SoftShadeInput.excluded` otherwise.
  ///   - scale: multiplies ``softShadeThickness`` (1 up to a 1125 px
  ///     shorter side).
  /// - Returns: one flag per pixel, `true` for soft shade; `nil` when there
  ///   is none. O(pixels).
  static func softShade(_ input: [Int16], width w: Int, height h: Int, scale: Int) -> [Bool]? {
    let n = w * h
    precondition(input.count == n, "softShade: size")
    // Distance along smooth paths from the ground (breadth first), with
    // the ground luma each path started at; 0 for pixels not reached.
    var distance = [Int32](repeating: 0, count: n)
    var origin = [Int16](repeating: 0, count: n)
    var frontier: [Int] = []
    var next: [Int] = []
    let base = softStepBase, perDepth = softStepPerDepth, floor = softShadeMinFraction
    @inline(__always) func smooth(_ from: Int16, _ to: Int16, origin: Int16) -> Bool {
      let depth = Double(abs(Int(to) - Int(origin)))
      return Double(to) >= floor * Double(origin) && Double(abs(Int(to) - Int(from))) <= max(base, perDepth * depth)
    }
    input.withUnsafeBufferPointer { input in
      distance.withUnsafeMutableBufferPointer { distance in
        origin.withUnsafeMutableBufferPointer { origin in
          // Seeds: candidates beside a ground pixel they step smoothly from
          // (left, right, up, down: the first that does).
          @inline(__always) func groundLuma(_ q: Int) -> Int16? {
            let v = input[q]
            return v < 0 && v != SoftShadeInput.excluded ? Int16(-1 - Int(v)) : nil
          }
          // Whether a lighter neighbour steps to `q` by more than a soft
          // step: `q` is on an edge. The neighbour, ground or candidate, is
          // no lighter than the path's ground (give or take a soft step):
          // what is lighter (a white card beside the grey page its shadow
          // falls on, the card's own anti-aliased rim) is another surface,
          // whose edge a shadow may touch.
          @inline(__always) func isEdge(_ q: Int, _ l: Int16, origin o: Int16) -> Bool {
            let x = q % w
            @inline(__always) func steep(_ m: Int) -> Bool {
              let v = input[m]
              guard v != SoftShadeInput.excluded else { return false }
              let lighter = v < 0 ? Int16(-1 - Int(v)) : v
              guard Int(lighter) - Int(l) > softEdgeStep, Double(lighter) <= Double(o) + base else { return false }
              return !smooth(lighter, l, origin: o)
            }
            return (x > 0 && steep(q - 1)) || (x < w - 1 && steep(q + 1)) || (q >= w && steep(q - w))
              || (q + w < n && steep(q + w))
          }
          for idx in 0..<n where input[idx] >= 0 {
            let x = idx % w, l = input[idx]
            var from: Int16?
            if x > 0, let g = groundLuma(idx - 1), smooth(g, l, origin: g) { from = g }
            else if x < w - 1, let g = groundLuma(idx + 1), smooth(g, l, origin: g) { from = g }
            else if idx >= w, let g = groundLuma(idx - w), smooth(g, l, origin: g) { from = g }
            else if idx + w < n, let g = groundLuma(idx + w), smooth(g, l, origin: g) { from = g }
            guard let g = from, !isEdge(idx, l, origin: g) else { continue }
            distance[idx] = 1
            origin[idx] = g
            frontier.append(idx)
          }
          var d: Int32 = 1
          while !frontier.isEmpty {
            d += 1
            next.removeAll(keepingCapacity: true)
            for idx in frontier {
              let x = idx % w, from = input[idx], o = origin[idx]
              @inline(__always) func step(_ q: Int) {
                let l = input[q]
                guard l >= 0, distance[q] == 0, smooth(from, l, origin: o), !isEdge(q, l, origin: o) else { return }
                distance[q] = d
                origin[q] = o
                next.append(q)
              }
              if x > 0 { step(idx - 1) }
              if x < w - 1 { step(idx + 1) }
              if idx >= w { step(idx - w) }
              if idx + w < n { step(idx + w) }
            }
            swap(&frontier, &next)
          }
        }
      }
    }
    // Connected sets of reached pixels, kept when thick enough.
    let thickness = Int32(softShadeThickness * max(1, scale))
    var shade = [Bool](repeating: false, count: n)
    var any = false
    var seen = [Bool](repeating: false, count: n)
    var members: [Int] = []
    var stack: [Int] = []
    distance.withUnsafeBufferPointer { distance in
      seen.withUnsafeMutableBufferPointer { seen in
        shade.withUnsafeMutableBufferPointer { shade in
          for start in 0..<n where distance[start] > 0 && !seen[start] {
            members.removeAll(keepingCapacity: true)
            seen[start] = true
            stack.append(start)
            var deepest: Int32 = 0
            while let idx = stack.popLast() {
              members.append(idx)
              deepest = max(deepest, distance[idx])
              let x = idx % w
              @inline(__always) func visit(_ q: Int) {
                if distance[q] > 0 && !seen[q] { seen[q] = true; stack.append(q) }
              }
              if x > 0 { visit(idx - 1) }
              if x < w - 1 { visit(idx + 1) }
              if idx >= w { visit(idx - w) }
              if idx + w < n { visit(idx + w) }
            }
            guard deepest >= thickness else { continue }
            any = true
            for idx in members { shade[idx] = true }
          }
        }
      }
    }
    return any ? shade : nil
  }
}
