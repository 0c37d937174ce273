import CloudModel
import Foundation
import NIOCore
import Testing

@testable import CloudServer

/// The reader of PostgreSQL's binary composite form (`record_send`) that the PostgreSQL store reads every record
/// with: what it accepts, and that anything malformed is an error, never a crash. (The store's conformance suite
/// reads the same cells from a real PostgreSQL.)
@Suite("Composite cells")
struct CompositeCellsTests {
    /// A column of a composite: its type OID and bytes (nil: NULL).
    typealias Column = (oid: UInt32, bytes: [UInt8]?)

    static func composite(_ columns: [Column], count: Int32? = nil) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(count ?? Int32(columns.count))
        for column in columns {
            buffer.writeInteger(column.oid)
            if let bytes = column.bytes {
                buffer.writeInteger(Int32(bytes.count))
                buffer.writeBytes(bytes)
            } else {
                buffer.writeInteger(Int32(-1))
            }
        }
        return buffer
    }

    static func int8(_ value: Int64) -> Column {
        var buffer = ByteBuffer()
        buffer.writeInteger(value)
        return (20, Array(buffer.readableBytesView))
    }

    static func text(_ value: String?) -> Column { (25, value.map { Array($0.utf8) }) }

    /// A record's row as `PostgresStoreTransaction.recordSelect` reads it: the records table's 15 columns in order.
    static func recordColumns(fields: [UInt8] = Array(#"{"title":{"value":"x"}}"#.utf8)) -> [Column] {
        [
            int8(7), text("todo-1"), int8(42), text("Todo"), text("2s"), (16, [0]), int8(1_700_000_000_000), text("_alice"),
            text(nil), int8(1_700_000_000_001), text("_alice"), text("device-b"), text(nil), (17, fields), text("list-1"),
        ]
    }

    static func read(_ columns: [Column], count: Int32? = nil) throws -> StoredRecord {
        var recent = RecentStrings()
        return try PostgresStoreTransaction.recordRow(composite(columns, count: count), reusing: &recent).record
    }

    @Test func aWholeRecordReadsColumnByColumn() throws {
        let record = try Self.read(Self.recordColumns())
        #expect(record.zonePK == 7)
        #expect(record.recordName == "todo-1")
        #expect(record.recordType == "Todo")
        #expect(record.changeTag == "2s")
        #expect(record.seq == 42)
        #expect(record.deleted == false)
        #expect(record.created.timestamp == 1_700_000_000_000)
        #expect(record.created.deviceID == nil)
        #expect(record.modified.userRecordName == "_alice")
        #expect(record.modified.deviceID == "device-b")
        #expect(record.parent == nil)
        #expect(String(decoding: record.fieldsJSON, as: UTF8.self) == #"{"title":{"value":"x"}}"#)
        var recent = RecentStrings()
        #expect(try PostgresStoreTransaction.recordRow(Self.composite(Self.recordColumns()), reusing: &recent).root == "list-1")
    }

    @Test func repeatedTextIsSharedAndStillRight() throws {
        var recent = RecentStrings()
        let buffer = Self.composite(Self.recordColumns())
        let first = try PostgresStoreTransaction.recordRow(buffer, reusing: &recent).record
        var columns = Self.recordColumns()
        columns[10] = Self.text("_bob")
        let second = try PostgresStoreTransaction.recordRow(Self.composite(columns), reusing: &recent).record
        #expect(first.created.userRecordName == "_alice")
        #expect(second.created.userRecordName == "_alice")
        #expect(second.modified.userRecordName == "_bob")
    }

    @Test func invalidUTF8InTextIsRepairedNotTrusted() throws {
        var columns = Self.recordColumns()
        columns[1] = (25, [0x74, 0xFF, 0xFE, 0x78])
        let record = try Self.read(columns)
        #expect(record.recordName == "t\u{FFFD}\u{FFFD}x")
    }

    @Test func malformedCompositesAreErrors() throws {
        var wrongType = Self.recordColumns()
        wrongType[2] = Self.text("42")
        var nullRequired = Self.recordColumns()
        nullRequired[3] = Self.text(nil)
        var shortInteger = Self.recordColumns()
        shortInteger[0] = (20, [0, 0, 7])
        var longBoolean = Self.recordColumns()
        longBoolean[5] = (16, [0, 1])
        let cases: [(String, ByteBuffer)] = [
            ("too few columns", Self.composite(Array(Self.recordColumns().dropLast()))),
            ("too many columns", Self.composite(Self.recordColumns() + [Self.text("extra")])),
            ("a count that lies", Self.composite(Self.recordColumns(), count: 14)),
            ("a column of another type", Self.composite(wrongType)),
            ("NULL where a value belongs", Self.composite(nullRequired)),
            ("a bigint of three bytes", Self.composite(shortInteger)),
            ("a boolean of two bytes", Self.composite(longBoolean)),
            ("nothing at all", ByteBuffer()),
        ]
        for (name, buffer) in cases {
            var recent = RecentStrings()
            #expect(throws: ServerError.self, "\(name)") { try PostgresStoreTransaction.recordRow(buffer, reusing: &recent) }
        }
    }

    @Test func truncatedAndOversizedLengthsAreErrorsAtEveryCut() throws {
        let whole = Self.composite(Self.recordColumns())
        // Every prefix of a valid composite is refused (none reads past its end).
        for length in 0..<whole.readableBytes {
            var recent = RecentStrings()
            let cut = whole.getSlice(at: whole.readerIndex, length: length)!
            #expect(throws: ServerError.self) { try PostgresStoreTransaction.recordRow(cut, reusing: &recent) }
        }
        // A length far beyond the row, and a negative one other than -1 for a value that must be there.
        var huge = ByteBuffer()
        huge.writeInteger(Int32(14))
        huge.writeInteger(UInt32(20))
        huge.writeInteger(Int32.max)
        var recent = RecentStrings()
        #expect(throws: ServerError.self) { try PostgresStoreTransaction.recordRow(huge, reusing: &recent) }
        var negative = ByteBuffer()
        negative.writeInteger(Int32(14))
        negative.writeInteger(UInt32(20))
        negative.writeInteger(Int32(-7))
        #expect(throws: ServerError.self) { try PostgresStoreTransaction.recordRow(negative, reusing: &recent) }
        #expect(throws: ServerError.self) { try PostgresStoreTransaction.recordRow(nil, reusing: &recent) }
    }

    @Test func aZoneRowIsThreeBigints() throws {
        let zone = try CompositeCells.read(Self.composite([Self.int8(3), Self.int8(0), Self.int8(99)]), columns: 3) { cells in
            [try cells.int64(), try cells.int64(), try cells.int64()]
        }
        #expect(zone == [3, 0, 99])
        #expect(throws: ServerError.self) {
            try CompositeCells.read(Self.composite([Self.int8(3)]), columns: 3) { try $0.int64() }
        }
        // A body that leaves a column unread is refused too.
        #expect(throws: ServerError.self) {
            try CompositeCells.read(Self.composite([Self.int8(3), Self.int8(0), Self.int8(99)]), columns: 3) { try $0.int64() }
        }
    }
}
