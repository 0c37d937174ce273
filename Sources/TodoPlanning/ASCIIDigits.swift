/// Reading fixed-width numbers out of date and time texts, byte by byte (no Foundation parsing, no locale).
enum ASCIIDigits {
    /// The number the ASCII digits at `range` of `bytes` spell, nil when any is not a digit (or the range is out of bounds).
    static func number(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count else { return nil }
        var value = 0
        for index in range {
            guard (0x30...0x39).contains(bytes[index]) else { return nil }
            value = value * 10 + Int(bytes[index] - 0x30)
        }
        return value
    }
}
