// Writing the answers that list records: `records/modify` and `records/lookup` results, `records/query` pages.

/// Writes `{"records":[…]}` item by item: the `records/modify` and `records/lookup` answers (`RecordsResponse`), and
/// with a continuation marker a `records/query` page (`QueryResponse`).
public struct RecordsResponseWriter: Sendable {
    private var writer: JSONWriter
    private var count = 0
    private var cache = RecordJSONCache()

    /// An answer with room for `capacity` bytes.
    public init(reserving capacity: Int = 1024) {
        writer = JSONWriter(reserving: capacity)
        writer.raw("{\"records\":[")
    }

    /// The bytes written so far.
    public var byteCount: Int { writer.bytes.count }

    /// Appends a record whose `fields` member `fields` gives.
    public mutating func record(_ system: RecordSystemFields, fields: RecordFields) {
        writer.separator(count)
        count += 1
        writer.record(system, fields: fields, cache: &cache)
    }

    /// Appends a record value.
    public mutating func record(_ record: Record) {
        writer.separator(count)
        count += 1
        writer.record(record, cache: &cache)
    }

    /// Appends a per-item error.
    public mutating func failure(_ error: ServerError) throws {
        writer.separator(count)
        count += 1
        try writer.encodable(error)
    }

    /// The answer, its list closed, with a `continuationMarker` when one is given (a query page with more to come).
    public consuming func finish(continuationMarker: String? = nil) -> [UInt8] {
        writer.raw("]")
        if let continuationMarker {
            writer.raw(",\"continuationMarker\":")
            writer.string(continuationMarker)
        }
        writer.raw("}")
        return writer.bytes
    }
}
