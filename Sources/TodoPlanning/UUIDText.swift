/// The canonical text of a UUID (8-4-4-4-12 lowercase hexadecimal digits) and back, as 128 bits in two words: the
/// form this app's devices name records in (`RecordNames`), and the one the app's rows hold packed (`PackedUUID`).
public enum UUIDText {
    /// The canonical text of the UUID whose first 64 bits are `high` and last 64 `low`.
    public static func format(high: UInt64, low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            var at = 0
            for digit in 0..<32 {
                if digit == 8 || digit == 12 || digit == 16 || digit == 20 {
                    buffer[at] = UInt8(ascii: "-")
                    at += 1
                }
                let word = digit < 16 ? high : low
                let value = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * (digit % 16)) & 0xF)
                buffer[at] = value < 10 ? UInt8(ascii: "0") &+ value : UInt8(ascii: "a") &+ value &- 10
                at += 1
            }
            return at
        }
    }

    /// The two words `text` spells when it is exactly a canonical UUID (lowercase, dashes in their places), else nil.
    public static func parse(_ text: String) -> (high: UInt64, low: UInt64)? {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count == 36 else { return nil }
            var high: UInt64 = 0
            var low: UInt64 = 0
            var digits = 0
            for (offset, byte) in bytes.enumerated() {
                if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                    guard byte == UInt8(ascii: "-") else { return nil }
                    continue
                }
                let value: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte &- UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte &- UInt8(ascii: "a") &+ 10
                default: return nil
                }
                if digits < 16 { high = high << 4 | UInt64(value) } else { low = low << 4 | UInt64(value) }
                digits += 1
            }
            return (high, low)
        }
    }
}
