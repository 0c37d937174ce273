/// A row id in 16 bytes when it is a record name in the canonical UUID form (8-4-4-4-12 lowercase hex digits),
/// which is what this app's devices name records: 100,000 rows then hold no string for their ids (80 bytes each).
/// Any other id (a zone-prefixed shared or public id, another client's name) is kept as its text (`RowKey.text`).
struct PackedUUID: Hashable, Sendable {
    /// The first 16 hex digits.
    let high: UInt64
    /// The last 16.
    let low: UInt64

    /// Not a UUID: the id is text. The nil UUID packs to these bits too, so it is kept as text as well.
    static let none = PackedUUID(high: 0, low: 0)

    /// Whether the id is held as text instead.
    var isNone: Bool { high == 0 && low == 0 }

    private init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The UUID `id` spells, or `.none` when it is not exactly a canonical lowercase UUID.
    init(_ id: String) {
        var id = id
        self = id.withUTF8 { PackedUUID.parse($0) } ?? .none
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> PackedUUID? {
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
        let packed = PackedUUID(high: high, low: low)
        return packed.isNone ? nil : packed
    }

    /// The canonical text of the UUID.
    var text: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            var at = 0
            for digit in 0..<32 {
                if digit == 8 || digit == 12 || digit == 16 || digit == 20 {
                    buffer[at] = UInt8(ascii: "-")
                    at += 1
                }
                let word = digit < 16 ? high : low
                let shift = UInt64(60 - 4 * (digit % 16))
                let value = UInt8(truncatingIfNeeded: word >> shift & 0xF)
                buffer[at] = value < 10 ? UInt8(ascii: "0") &+ value : UInt8(ascii: "a") &+ value &- 10
                at += 1
            }
            return at
        }
    }

    /// Canonical UUID texts sort as their bits do (digits before letters, dashes in the same places).
    static func < (lhs: PackedUUID, rhs: PackedUUID) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }
}

/// A row's id as rows are compared and looked up by it: the packed UUID, or the text of any other id. Comparing
/// or hashing one makes no string, so looking a record up among 100,000 rows reads 16 bytes a row.
enum RowKey: Hashable, Sendable {
    /// A canonical UUID.
    case uuid(PackedUUID)
    /// Any other id.
    case text(String)

    /// The key of the row id `id`.
    init(_ id: String) {
        let packed = PackedUUID(id)
        self = packed.isNone ? .text(id) : .uuid(packed)
    }
}
