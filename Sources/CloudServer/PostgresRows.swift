import CloudModel
import Foundation
import NIOCore
import PostgresNIO

/// How the PostgreSQL store reads a record row: one composite cell (`ROW(...)`) holding its columns, decoded by
/// `CompositeCells`. postgres-nio makes a `PostgresCell` (a column description, a name, a retain and a release) for
/// each cell it hands over; a page of changes is 200 rows of 14 columns, and that made up a quarter of the cloud's
/// CPU on a read. One cell per row leaves the columns to a plain reader.
extension PostgresStoreTransaction {
    /// The columns a record is written with (INSERT), in `storedRecord`'s order.
    static let recordColumns = "zone_pk, " + zoneRecordColumns

    /// What a SELECT reads a record as: `recordColumns` in one composite cell.
    static let recordSelect = "ROW(\(recordColumns))"

    /// `recordSelect` but the zone's key, for rows read with their zone (a page of its feed).
    static let zoneRecordSelect = "ROW(\(zoneRecordColumns))"

    /// The record's columns after its zone's key.
    static let zoneRecordColumns = """
        record_name, record_type, change_tag, seq, deleted, created_ts, created_user, created_device,
        modified_ts, modified_user, modified_device, parent, fields
        """

    /// A row whose first cell is `recordSelect`.
    static func storedRecord(_ row: PostgresRow) throws -> StoredRecord {
        var recent = RecentStrings()
        return try storedRecord(row.first?.bytes, reusing: &recent)
    }

    /// A composite cell of `recordSelect` as a record; given `zonePK`, the cell is `zoneRecordSelect` (the zone's
    /// key not among its columns). The type, user and device columns, which repeat from row to row of a page, are
    /// taken from `recent` when their bytes match (no String made for them).
    static func storedRecord(_ cell: ByteBuffer?, reusing recent: inout RecentStrings, zonePK: Int64? = nil) throws -> StoredRecord {
        guard let cell else { throw CompositeCells.malformed("a record row is NULL") }
        var cells = try CompositeCells(cell, columns: zonePK == nil ? 14 : 13)
        let record = StoredRecord(
            zonePK: try zonePK ?? cells.int64(), recordName: try cells.text(), recordType: try cells.text(reusing: &recent),
            changeTag: try cells.text(), seq: try cells.int64(), deleted: try cells.bool(),
            created: RecordStamp(
                timestamp: try cells.int64(), userRecordName: try cells.text(reusing: &recent),
                deviceID: try cells.optionalText(reusing: &recent)),
            modified: RecordStamp(
                timestamp: try cells.int64(), userRecordName: try cells.text(reusing: &recent),
                deviceID: try cells.optionalText(reusing: &recent)),
            parent: try cells.optionalText(), fieldsJSON: try cells.bytes())
        try cells.finish()
        return record
    }
}

/// The columns of a composite value in PostgreSQL's binary form (`record_send`): a column count, then for each
/// column its type's OID, its length (-1 for NULL) and that many bytes. Each column is read in order and its type
/// checked; anything short, long or of another type is an error, never a crash.
struct CompositeCells {
    private var buffer: ByteBuffer
    private var remaining: Int32

    /// The type OIDs this reader takes.
    enum TypeOID: UInt32 {
        case bool = 16, bytea = 17, int8 = 20, text = 25, varchar = 1043
    }

    static func malformed(_ what: String) -> ServerError {
        ServerError(.internalError, "the cloud's database sent a malformed row: \(what)")
    }

    /// The composite `buffer`, which must hold exactly `columns` columns.
    init(_ buffer: ByteBuffer, columns: Int32) throws {
        self.buffer = buffer
        guard let count = self.buffer.readInteger(as: Int32.self) else { throw Self.malformed("no column count") }
        guard count == columns else { throw Self.malformed("\(count) columns where \(columns) belong") }
        remaining = count
    }

    /// The next column's bytes (nil for NULL), its type `type` (or `other`).
    private mutating func next(_ type: TypeOID, or other: TypeOID? = nil) throws -> ByteBuffer? {
        guard remaining > 0 else { throw Self.malformed("too few columns") }
        remaining -= 1
        guard let oid = buffer.readInteger(as: UInt32.self), let length = buffer.readInteger(as: Int32.self) else {
            throw Self.malformed("a column cut short")
        }
        guard oid == type.rawValue || oid == other?.rawValue else { throw Self.malformed("a column of type \(oid)") }
        if length == -1 { return nil }
        guard length >= 0 else { throw Self.malformed("a column of length \(length)") }
        guard let bytes = buffer.readSlice(length: Int(length)) else { throw Self.malformed("a column longer than its row") }
        return bytes
    }

    private mutating func required(_ type: TypeOID, or other: TypeOID? = nil) throws -> ByteBuffer {
        guard let bytes = try next(type, or: other) else {
            throw Self.malformed("NULL where a value belongs")
        }
        return bytes
    }

    mutating func int64() throws -> Int64 {
        var bytes = try required(.int8)
        guard bytes.readableBytes == 8, let value = bytes.readInteger(as: Int64.self) else { throw Self.malformed("a bigint of the wrong size") }
        return value
    }

    mutating func bool() throws -> Bool {
        let bytes = try required(.bool)
        guard bytes.readableBytes == 1, let value = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) else {
            throw Self.malformed("a boolean of the wrong size")
        }
        return value != 0
    }

    mutating func text() throws -> String {
        String(buffer: try required(.text, or: .varchar))
    }

    mutating func optionalText() throws -> String? {
        try next(.text, or: .varchar).map { String(buffer: $0) }
    }

    /// Text one of `recent` when its bytes are that string's (no String made).
    mutating func text(reusing recent: inout RecentStrings) throws -> String {
        guard let text = try optionalText(reusing: &recent) else { throw Self.malformed("NULL where text belongs") }
        return text
    }

    mutating func optionalText(reusing recent: inout RecentStrings) throws -> String? {
        guard let bytes = try next(.text, or: .varchar) else { return nil }
        if let known = recent.match(bytes) { return known }
        let text = String(buffer: bytes)
        recent.add(text)
        return text
    }

    mutating func bytes() throws -> Data {
        let bytes = try required(.bytea)
        return bytes.withUnsafeReadableBytes { Data($0) }
    }

    /// Checks that every column was read.
    func finish() throws {
        guard remaining == 0, buffer.readableBytes == 0 else { throw Self.malformed("too many columns") }
    }
}

/// The last few distinct strings a page's rows held in columns that repeat (users, devices, record types).
struct RecentStrings {
    private var strings: [String] = []
    private var next = 0
    static let capacity = 6

    /// The kept string whose UTF-8 is `bytes`, if any.
    func match(_ bytes: ByteBuffer) -> String? {
        bytes.withUnsafeReadableBytes { raw in
            for string in strings {
                var candidate = string
                let equal = candidate.withUTF8 { utf8 in
                    utf8.count == raw.count && (utf8.isEmpty || memcmp(utf8.baseAddress!, raw.baseAddress!, raw.count) == 0)
                }
                if equal { return string }
            }
            return nil
        }
    }

    /// Keeps `string`, in place of the oldest once full.
    mutating func add(_ string: String) {
        if strings.count < Self.capacity {
            strings.append(string)
        } else {
            strings[next] = string
            next = (next + 1) % Self.capacity
        }
    }
}

extension PostgresBindings {
    /// Binds `value` as the next parameter; its placeholder (`$n`) for the statement text.
    mutating func placeholder(_ value: some PostgresThrowingDynamicTypeEncodable) throws -> String {
        try append(value)
        return "$\(count)"
    }
}
