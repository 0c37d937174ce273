/// A small seeded generator (SplitMix64): the same seed gives the same cases, in tests and in the benches.
public struct SplitMix: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in [0, 1) from the next 53 bits.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }
}

extension SplitMix {
    /// `count` lists of 0 to `longest` words drawn from `words`, repeats likely: cases for code that drops repeats or
    /// joins lists.
    public mutating func wordLists(_ count: Int, from words: [String], longest: Int) -> [[String]] {
        (0..<count).map { _ in (0..<Int(next() % UInt64(longest + 1))).map { _ in words[Int(next() % UInt64(words.count))] } }
    }
}
