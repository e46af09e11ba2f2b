extension DarkVariantGenerator {
  /// The paths of ``DarkVariantGenerator/addShadows(_:to:background:)``,
  /// phase by phase: `seed` starts a path at every backdrop pixel beside a
  /// shadow candidate, `grow` follows the paths inward while they deepen at
  /// a steady pace (the kink rule), `commit` marks the paths that reached a
  /// shadow's core (and their rim) as shadow, `joinEnclaves` adds the
  /// leftover patches that blend into the shadow without an edge.
  ///
  /// Per pixel it keeps: whether a path reached it; the path's length from
  /// the backdrop; the seed's depth; the deepest depth so far; the fastest
  /// pace so far (`Float.infinity` until the path gained `minPaceGain`
  /// levels); the seed; the pace margin on arrival; the visits; the path's
  /// previous pixel. Work is O(pixels).
  struct ShadowTracer {
    typealias T = ShadowTuning
    let w: Int
    let h: Int
    let n: Int
    let scale: Int
    let depths: [UInt8]
    let allowed: [Bool]
    let ceiling: [Int]
    let notCandidate = UInt8.max
    let initialPace: Double

    var reached: [Bool]
    var length: [UInt16]
    var base: [UInt8]
    var deepest: [UInt8]
    var fastest: [Float]
    var seed: [Int32]
    var slack: [Float]
    var visits: [UInt8]
    var parent: [Int32]
    var queue: [Int32] = []

    init(width: Int, height: Int, depths: [UInt8], bounds: (allowed: [Bool], ceiling: [Int])) {
      w = width
      h = height
      n = width * height
      scale = T.scale(width: width, height: height)
      self.depths = depths
      allowed = bounds.allowed
      ceiling = bounds.ceiling
      initialPace = Double(T.maxInitialPace * scale)
      reached = [Bool](repeating: false, count: n)
      length = [UInt16](repeating: 0, count: n)
      base = [UInt8](repeating: 0, count: n)
      deepest = [UInt8](repeating: 0, count: n)
      fastest = [Float](repeating: .infinity, count: n)
      seed = [Int32](repeating: 0, count: n)
      slack = [Float](repeating: 0, count: n)
      visits = [UInt8](repeating: 0, count: n)
      parent = [Int32](repeating: -1, count: n)
    }

    @inline(__always) func isCandidate(_ idx: Int, _ m: UnsafeBufferPointer<UInt8>) -> Bool {
      m[idx] == MaskState.other && depths[idx] != notCandidate && allowed[idx]
    }

    /// The 4-neighbour of `q` in direction `k` (left, right, up, down), or nil at the border.
    @inline(__always) func neighbour(_ q: Int, _ k: Int) -> Int? {
      let qx = q % w
      let qy = q / w
      switch k {
      case 0: return qx > 0 ? q - 1 : nil
      case 1: return qx < w - 1 ? q + 1 : nil
      case 2: return qy > 0 ? q - w : nil
      default: return qy < h - 1 ? q + w : nil
      }
    }

    /// Seeds: backdrop pixels next to a candidate.
    mutating func seed(_ mask: [UInt8]) {
      mask.withUnsafeBufferPointer { m in
        for y in 0..<h {
          for x in 0..<w {
            let idx = y * w + x
            guard m[idx] == MaskState.backdrop else { continue }
            if (x > 0 && isCandidate(idx - 1, m))
              || (x < w - 1 && isCandidate(idx + 1, m))
              || (y > 0 && isCandidate(idx - w, m))
              || (y < h - 1 && isCandidate(idx + w, m))
            {
              reached[idx] = true
              visits[idx] = T.maxVisits
              seed[idx] = Int32(idx)
              base[idx] = depths[idx]
              deepest[idx] = depths[idx]
              queue.append(Int32(idx))
            }
          }
        }
      }
    }

    /// Follows the paths breadth first from the seeds.
    mutating func grow(_ mask: [UInt8]) {
      mask.withUnsafeBufferPointer { m in
        var head = 0
        while head < queue.count {
          let q = Int(queue[head])
          head += 1
          for k in 0..<4 {
            guard let p = neighbour(q, k) else { continue }
            guard isCandidate(p, m), visits[p] < T.maxVisits else { continue }
            step(from: q, to: p)
          }
        }
      }
    }

    /// One step of a path from `q` to its neighbour `p`, taken when the path
    /// keeps to the floor, deepens steadily and beats an earlier arrival.
    private mutating func step(from q: Int, to p: Int) {
      // Cast shadows lie on the floor: entered from below or the side,
      // never from above the subject (the lit rim of a cup is): a path from
      // a seed above the subject's top may drift down by at most half its
      // sideways run.
      let origin = Int(seed[q])
      let down = p / w - origin / w
      guard
        down <= 0 || 2 * down < abs(p % w - origin % w)
          || origin / w > ceiling[origin % w]
      else { return }
      let qDepth = Int(depths[q])
      let pDepth = Int(depths[p])
      let record = max(Int(deepest[q]), pDepth)
      let limit = max(T.stepBase, T.stepPerDepth * Double(record))
      guard Double(abs(pDepth - qDepth)) <= limit else { return }
      // A path only goes deeper (within noise): one that turns back toward
      // the light has crossed the shadow's core, or left the shadow for a
      // light product standing in it.
      guard
        Double(pDepth)
          >= Double(record)
          - max(T.backtrackBase, T.backtrackFraction * Double(record))
      else { return }
      let steps = Int(length[q]) + 1
      let gain = record - Int(base[q])
      // The kink rule.
      var pace = fastest[q]
      if gain >= T.minPaceGain {
        pace = min(pace, Float(Double(steps) / Double(gain - 1)))
      }
      let allowedPace =
        pace.isFinite ? T.kinkRatio * Double(pace) : initialPace
      let margin =
        gain > 0
        ? allowedPace - Double(steps) / Double(gain)
        : initialPace - Double(steps)
      guard margin >= 0 else { return }
      // The first path to arrive is not always the best one (one that
      // crossed the top of a dome is about to die): a path with clearly
      // more margin takes the pixel over.
      if reached[p] {
        guard Double(slack[p]) + T.revisitMargin < margin else { return }
        guard !isAncestor(p, of: q) else { return }
      }
      reached[p] = true
      parent[p] = Int32(q)
      visits[p] += 1
      slack[p] = Float(margin)
      seed[p] = seed[q]
      length[p] = UInt16(min(Int(UInt16.max), steps))
      base[p] = base[q]
      deepest[p] = UInt8(record)
      fastest[p] = pace
      queue.append(Int32(p))
    }

    /// Whether `p` is on `q`'s path (or the path is too long to tell): the
    /// paths must stay a tree, followed back from the core in `commit`.
    private func isAncestor(_ p: Int, of q: Int) -> Bool {
      var ancestor = Int(parent[q])
      var hops = 0
      while ancestor >= 0 && ancestor != p && hops < T.maxAncestorCheck {
        ancestor = Int(parent[ancestor])
        hops += 1
      }
      return ancestor == p || hops >= T.maxAncestorCheck
    }

    /// Commit: pixels whose path reached the core with the paths that led
    /// there, then the reached pixels next to them that are closer to the
    /// backdrop and not deeper (the rest of the rim).
    mutating func commit(_ mask: inout [UInt8]) {
      queue.removeAll(keepingCapacity: true)
      let minLength = UInt16(T.minCoreLength * scale)
      let core = T.coreDepth
      for idx in 0..<n
      where reached[idx] && mask[idx] == MaskState.other
        && Int(deepest[idx]) >= core && length[idx] >= minLength
      {
        // The whole path that led here, up to the backdrop or to a pixel
        // already committed.
        var p = idx
        while p >= 0 && mask[p] == MaskState.other {
          mask[p] = MaskState.shadow
          queue.append(Int32(p))
          p = Int(parent[p])
        }
      }
      var head = 0
      while head < queue.count {
        let p = Int(queue[head])
        head += 1
        for k in 0..<4 {
          guard let q = neighbour(p, k) else { continue }
          guard reached[q], mask[q] == MaskState.other, depths[q] <= depths[p] + 1,
            length[q] < length[p]
          else { continue }
          mask[q] = MaskState.shadow
          queue.append(Int32(q))
        }
      }
    }

    /// Enclaves: leftover patches of candidates enclosed by shadow, backdrop
    /// and non-candidates (the faint tip of a shadow that the paths did not
    /// reach, the rim of a shadow peeking out beside a product's rounded
    /// corner) join the shadow when they blend into it without an edge. A
    /// patch that shares more than a sliver of its border with candidates
    /// the floor rule kept out is part of a light subject and stays; so does
    /// one that meets the shadow at an edge (a white sole above its shadow).
    func joinEnclaves(_ mask: inout [UInt8]) {
      let maxArea = max(16, n / T.enclaveAreaDivisor)
      var visited = [Bool](repeating: false, count: n)
      var patch: [Int32] = []
      mask.withUnsafeMutableBufferPointer { mm in
        let m = UnsafeBufferPointer(mm)
        for start in 0..<n where !visited[start] && isCandidate(start, m) {
          patch.removeAll(keepingCapacity: true)
          patch.append(Int32(start))
          visited[start] = true
          var border = Border()
          var cursor = 0
          while cursor < patch.count {
            let p = Int(patch[cursor])
            cursor += 1
            for k in 0..<4 {
              guard let q = neighbour(p, k) else { continue }
              if !isCandidate(q, m) { border.all += 1 }
              if m[q] == MaskState.shadow {
                border.shadow += 1
                if abs(Int(depths[q]) - Int(depths[p])) <= T.enclaveBorderStep { border.smooth += 1 }
              } else if isCandidate(q, m) {
                if !visited[q] {
                  visited[q] = true
                  patch.append(Int32(q))
                }
              } else if m[q] == MaskState.other && depths[q] != notCandidate {
                border.subject += 1
              }
            }
          }
          guard border.shadow > 0, patch.count <= maxArea,
            Double(border.subject) <= max(2, T.enclaveSubjectBorder * Double(border.all)),
            Double(border.smooth) >= T.enclaveSmoothBorder * Double(border.shadow)
          else { continue }
          for p in patch { mm[Int(p)] = MaskState.shadow }
        }
      }
    }

    /// What a patch's border touches, counted per neighbour.
    private struct Border {
      var shadow = 0
      var smooth = 0
      var subject = 0
      var all = 0
    }
  }
}
