import CloudModel
import Foundation
import NIOCore
import PostgresNIO

/// How the PostgreSQL store reads a record row: as the table's own row type, one composite cell decoded by
/// `CompositeCells`. postgres-nio makes a `PostgresCell` (a column description, a name, a retain and a release) for
/// each cell it hands over; a page of changes is 200 rows of 14 columns, and that made up a quarter of the cloud's
/// CPU on a read. The whole row costs PostgreSQL a copy of the stored tuple (142 ms to send 100,000 rows in binary,
/// against 109 ms as 13 columns and 240 ms as an anonymous `ROW(...)` of them, which it builds afresh).
extension PostgresStoreTransaction {
    /// The columns a record is written with (INSERT).
    static let recordColumns = """
        zone_pk, record_name, record_type, change_tag, seq, deleted, created_ts, created_user, created_device,
        modified_ts, modified_user, modified_device, parent, fields
        """

    /// What a SELECT from `records` reads a record as: the whole row, one composite cell (`recordRow` reads it).
    static let recordSelect = "records"

    /// The records table's columns in the order of its row type (its CREATE TABLE; no migration added or dropped
    /// one): what `recordRow` reads. A migration that changes them changes this reader, or every read fails loudly.
    static let recordRowColumns: Int32 = 15

    /// A row whose first cell is `recordSelect`.
    static func storedRecord(_ row: PostgresRow) throws -> StoredRecord {
        try recordRow(row).record
    }

    /// A row whose first cell is `recordSelect`, as a record and its computed root.
    static func recordRow(_ row: PostgresRow) throws -> (record: StoredRecord, root: String?) {
        var recent = RecentStrings()
        return try recordRow(row.first?.bytes, reusing: &recent)
    }

    /// A composite cell of `recordSelect` as a record and its computed root. The type, user and device columns,
    /// which repeat from row to row of a page, are taken from `recent` when their bytes match (no String made).
    static func recordRow(_ cell: ByteBuffer?, reusing recent: inout RecentStrings) throws -> (record: StoredRecord, root: String?) {
        guard let cell else { throw CompositeCells.malformed("a record row is NULL") }
        return try CompositeCells.read(cell, columns: recordRowColumns) { cells in
            let zonePK = try cells.int64(), recordName = try cells.text(), seq = try cells.int64()
            let record = StoredRecord(
                zonePK: zonePK, recordName: recordName, recordType: try cells.text(reusing: &recent),
                changeTag: try cells.text(), seq: seq, deleted: try cells.bool(),
                created: RecordStamp(
                    timestamp: try cells.int64(), userRecordName: try cells.text(reusing: &recent),
                    deviceID: try cells.optionalText(reusing: &recent)),
                modified: RecordStamp(
                    timestamp: try cells.int64(), userRecordName: try cells.text(reusing: &recent),
                    deviceID: try cells.optionalText(reusing: &recent)),
                parent: try cells.optionalText(), fieldsJSON: try cells.data())
            return (record, try cells.optionalText())
        }
    }
}

/// The columns of a composite value in PostgreSQL's binary form (`record_send`): a column count, then for each
/// column its type's OID, its length (-1 for NULL) and that many bytes. Each column is read in order, in place (no
/// slice retained per column), its type and length checked; anything short, long or of another type is an error,
/// never a crash or a read outside the cell.
struct CompositeCells {
    private let row: UnsafeRawBufferPointer
    private var offset = 0
    private var remaining: Int32

    /// The type OIDs this reader takes.
    enum TypeOID: UInt32 {
        case bool = 16, bytea = 17, int8 = 20, text = 25, varchar = 1043
    }

    static func malformed(_ what: String) -> ServerError {
        ServerError(.internalError, "the cloud's database sent a malformed row: \(what)")
    }

    /// Runs `body` over the columns of the composite `buffer`, which must hold exactly `columns` columns, every one
    /// of them read by `body`.
    static func read<T>(_ buffer: ByteBuffer, columns: Int32, _ body: (inout CompositeCells) throws -> T) throws -> T {
        try buffer.withUnsafeReadableBytes { raw in
            var cells = try CompositeCells(raw, columns: columns)
            let value = try body(&cells)
            guard cells.remaining == 0, cells.offset == raw.count else { throw Self.malformed("too many columns") }
            return value
        }
    }

    private init(_ row: UnsafeRawBufferPointer, columns: Int32) throws {
        self.row = row
        guard row.count >= 4 else { throw Self.malformed("no column count") }
        let count = Int32(bigEndian: row.loadUnaligned(as: Int32.self))
        guard count == columns else { throw Self.malformed("\(count) columns where \(columns) belong") }
        remaining = count
        offset = 4
    }

    /// The next column's bytes (nil for NULL), its type `type` (or `other`).
    private mutating func next(_ type: TypeOID, or other: TypeOID? = nil) throws -> UnsafeRawBufferPointer? {
        guard remaining > 0 else { throw Self.malformed("too few columns") }
        remaining -= 1
        guard row.count - offset >= 8 else { throw Self.malformed("a column cut short") }
        let oid = UInt32(bigEndian: row.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        let length = Int(Int32(bigEndian: row.loadUnaligned(fromByteOffset: offset + 4, as: Int32.self)))
        offset += 8
        guard oid == type.rawValue || oid == other?.rawValue else { throw Self.malformed("a column of type \(oid)") }
        if length == -1 { return nil }
        guard length >= 0 else { throw Self.malformed("a column of length \(length)") }
        guard row.count - offset >= length else { throw Self.malformed("a column longer than its row") }
        defer { offset += length }
        return UnsafeRawBufferPointer(rebasing: row[offset..<offset + length])
    }

    private mutating func required(_ type: TypeOID, or other: TypeOID? = nil) throws -> UnsafeRawBufferPointer {
        guard let bytes = try next(type, or: other) else { throw Self.malformed("NULL where a value belongs") }
        return bytes
    }

    mutating func int64() throws -> Int64 {
        let bytes = try required(.int8)
        guard bytes.count == 8 else { throw Self.malformed("a bigint of the wrong size") }
        return Int64(bigEndian: bytes.loadUnaligned(as: Int64.self))
    }

    mutating func bool() throws -> Bool {
        let bytes = try required(.bool)
        guard bytes.count == 1 else { throw Self.malformed("a boolean of the wrong size") }
        return bytes[0] != 0
    }

    /// Text (invalid UTF-8 repaired, never trusted).
    mutating func text() throws -> String {
        String(decoding: try required(.text, or: .varchar), as: UTF8.self)
    }

    mutating func optionalText() throws -> String? {
        try next(.text, or: .varchar).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Text one of `recent` when its bytes are that string's (no String made).
    mutating func text(reusing recent: inout RecentStrings) throws -> String {
        guard let text = try optionalText(reusing: &recent) else { throw Self.malformed("NULL where text belongs") }
        return text
    }

    mutating func optionalText(reusing recent: inout RecentStrings) throws -> String? {
        guard let bytes = try next(.text, or: .varchar) else { return nil }
        if let known = recent.match(bytes) { return known }
        let text = String(decoding: bytes, as: UTF8.self)
        recent.add(text)
        return text
    }

    /// A bytea column's bytes.
    mutating func data() throws -> Data {
        Data(try required(.bytea))
    }
}

/// The last few distinct strings a page's rows held in columns that repeat (users, devices, record types).
struct RecentStrings {
    private var strings: [String] = []
    private var next = 0
    static let capacity = 6

    /// The kept string whose UTF-8 is `raw`, if any.
    func match(_ raw: UnsafeRawBufferPointer) -> String? {
        for string in strings {
            var candidate = string
            let equal = candidate.withUTF8 { utf8 in
                utf8.count == raw.count && (utf8.isEmpty || memcmp(utf8.baseAddress!, raw.baseAddress!, raw.count) == 0)
            }
            if equal { return string }
        }
        return nil
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
