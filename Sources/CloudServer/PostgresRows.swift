import CloudModel
import Foundation
import NIOCore
import PostgresNIO

/// How the PostgreSQL store reads a record row: its columns, and its cells decoded in order.
extension PostgresStoreTransaction {
    /// The columns a record row is read with, in `storedRecord`'s order.
    static let recordColumns = "zone_pk, " + zoneRecordColumns

    /// `recordColumns` but the zone's key, for rows read with their zone (a page of its feed).
    static let zoneRecordColumns = """
        record_name, record_type, change_tag, seq, deleted, created_ts, created_user, created_device,
        modified_ts, modified_user, modified_device, parent, fields
        """

    /// A row in `recordColumns` order, its cells decoded in one pass (no random-access copy of the row: a page of
    /// changes decodes hundreds of these).
    static func storedRecord(_ row: PostgresRow) throws -> StoredRecord {
        var cells = RowCells(row)
        return try storedRecord(&cells)
    }

    /// The next cells of a row, in `recordColumns` order, as a record.
    static func storedRecord(_ cells: inout RowCells) throws -> StoredRecord {
        var recent = RecentStrings()
        return try storedRecord(&cells, reusing: &recent)
    }

    /// As above; the type, user and device columns, which repeat from row to row of a page, are taken from `recent`
    /// when their bytes match (no String made for them). Given `zonePK`, the row is in `zoneRecordColumns` order (the
    /// zone's key not among its cells).
    static func storedRecord(_ cells: inout RowCells, reusing recent: inout RecentStrings, zonePK: Int64? = nil) throws -> StoredRecord {
        StoredRecord(
            zonePK: try zonePK ?? cells.next(Int64.self), recordName: try cells.next(String.self), recordType: try cells.nextText(reusing: &recent),
            changeTag: try cells.next(String.self), seq: try cells.next(Int64.self), deleted: try cells.next(Bool.self),
            created: RecordStamp(
                timestamp: try cells.next(Int64.self), userRecordName: try cells.nextText(reusing: &recent),
                deviceID: try cells.nextOptionalText(reusing: &recent)),
            modified: RecordStamp(
                timestamp: try cells.next(Int64.self), userRecordName: try cells.nextText(reusing: &recent),
                deviceID: try cells.nextOptionalText(reusing: &recent)),
            parent: try cells.next(String?.self), fieldsJSON: try cells.next(Data.self))
    }
}

/// A row's cells taken in order, each decoded as it comes.
struct RowCells {
    private var iterator: PostgresRow.Iterator

    init(_ row: PostgresRow) { iterator = row.makeIterator() }

    /// Whether the next cell is NULL (or there is none), without taking it.
    var nextIsNull: Bool {
        var ahead = iterator
        return ahead.next()?.bytes == nil
    }

    /// The next cell, text, as a String: one of `recent` when its bytes are that string's (no String made).
    mutating func nextText(reusing recent: inout RecentStrings) throws -> String {
        guard let text = try nextOptionalText(reusing: &recent) else {
            throw ServerError(.internalError, "a row of the cloud's database has NULL where text belongs")
        }
        return text
    }

    /// As `nextText`, NULL as nil.
    mutating func nextOptionalText(reusing recent: inout RecentStrings) throws -> String? {
        guard let cell = iterator.next() else { throw ServerError(.internalError, "a row of the cloud's database has too few columns") }
        guard let bytes = cell.bytes else { return nil }
        guard cell.dataType == .text || cell.dataType == .varchar, cell.format == .binary else { return try cell.decode(String.self) }
        if let known = recent.match(bytes) { return known }
        let text = String(buffer: bytes)
        recent.add(text)
        return text
    }

    /// Passes over `count` cells.
    mutating func skip(_ count: Int) {
        for _ in 0..<count { _ = iterator.next() }
    }

    /// The next cell as `type`; a row with fewer cells than asked for is refused.
    mutating func next<T: PostgresDecodable>(_ type: T.Type) throws -> T {
        guard let cell = iterator.next() else { throw ServerError(.internalError, "a row of the cloud's database has too few columns") }
        return try cell.decode(T.self)
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
