import TodoPlanning

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
        self = UUIDText.parse(id).map { PackedUUID(high: $0.high, low: $0.low) } ?? .none
    }

    /// The canonical text of the UUID.
    var text: String { UUIDText.format(high: high, low: low) }

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
