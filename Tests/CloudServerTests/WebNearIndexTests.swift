import CloudModel
@testable import CloudServer
import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import SQLiteDB
import Testing

/// `NEAR` reads the location index (`record_locations`), not every record of the type: both stores' plans name its
/// B-tree, the record writes (SQLite) and triggers (PostgreSQL) keep it, and records written before it existed are indexed when the
/// store is first opened by this version.
@Suite("Web clients: NEAR through the location index")
struct WebNearIndexTests {
    /// 50 km around a point beside the antimeridian.
    static var nearQuery: Query {
        get throws {
            try JSONDecoder().decode(
                Query.self,
                from: Data(
                    #"{"recordType":"Place","filterBy":[{"comparator":"NEAR","fieldName":"loc","fieldValue":{"value":{"latitude":0,"longitude":179.95},"type":"LOCATION"},"distance":50000}]}"#
                        .utf8))
        }
    }

    private static func place(_ name: String, seq: Int64, _ latitude: Double, _ longitude: Double, deleted: Bool = false) -> StoredRecord {
        let stamp = RecordStamp(timestamp: 1, userRecordName: "_alice")
        let fields = deleted ? "{}" : #"{"loc":{"type":"LOCATION","value":{"latitude":\#(latitude),"longitude":\#(longitude)}},"n":{"value":"x"}}"#
        return StoredRecord(
            zonePK: 1, recordName: name, recordType: "Place", changeTag: "t\(seq)", seq: seq, deleted: deleted, created: stamp, modified: stamp,
            parent: nil, fieldsJSON: Data(fields.utf8))
    }

    private static func indexed(_ db: SQLiteDatabase) throws -> [String] {
        try db.query("SELECT record_name || ':' || field FROM record_locations ORDER BY 1") { $0.text(0) }
    }

    @Test func sqliteNearSearchesTheLocationIndexAndRecordWritesKeepIt() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        // Records written by the version before the index: the migration indexes the live ones.
        try db.migrate(Array(SQLiteCloudStore.migrations.prefix(7)))
        for record in [Self.place("old", seq: 1, 0, 179.9), Self.place("gone", seq: 2, 0, 0, deleted: true)] {
            try db.run(
                "INSERT INTO records(\(SQLiteStoreTransaction.recordColumns)) VALUES (1, ?1, 'Place', 't', ?2, ?3, 1, '_alice', NULL, 1, '_alice', NULL, NULL, ?4)",
                [.text(record.recordName), .int(record.seq), .int(record.deleted ? 1 : 0), .blob(record.fieldsJSON)])
        }
        try db.migrate(SQLiteCloudStore.migrations)
        #expect(try Self.indexed(db) == ["old:loc"])
        #expect(try db.first("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'") { $0.int(0) } == 0, "no trigger runs on every write")

        let tx = try SQLiteStoreTransaction(db)
        try tx.putRecord(Self.place("east", seq: 3, 0, 179.9))
        try tx.putRecord(Self.place("west", seq: 4, 0, -179.9))
        try tx.putRecord(Self.place("moved", seq: 5, 10, 10))
        try tx.putRecord(Self.place("moved", seq: 6, 20, 20))  // a replace re-indexes
        try tx.putRecord(Self.place("old", seq: 7, 0, 0, deleted: true))  // a tombstone leaves the index
        try tx.removeRecord(zonePK: 1, name: "west")
        #expect(try tx.insertRecord(Self.place("new", seq: 8, 1, 1)))
        #expect(try !tx.insertRecord(Self.place("new", seq: 9, 5, 5)))  // not written: its entry stays
        var unplaced = Self.place("unplaced", seq: 10, 2, 2)
        try tx.putRecord(unplaced)
        unplaced.fieldsJSON = Data(#"{"n":{"value":"no place now"}}"#.utf8)
        try tx.putRecord(unplaced)  // a replace without a location leaves the index
        #expect(try Self.indexed(db) == ["east:loc", "moved:loc", "new:loc"])
        #expect(try db.first("SELECT latitude FROM record_locations WHERE record_name = 'moved'") { $0.double(0) } == 20)
        #expect(try db.first("SELECT latitude FROM record_locations WHERE record_name = 'new'") { $0.double(0) } == 1)

        let plan = try QueryPlan(try Self.nearQuery)
        #expect(plan.locationBoxes.count == 1 && plan.locationBoxes[0].longitudes.count == 2, "the box crosses the antimeridian")
        let (sql, arguments) = try tx.querySQL(zonePK: 1, recordType: "Place", plan: plan, after: nil, roots: nil, limit: 100)
        let steps = try db.query("EXPLAIN QUERY PLAN " + sql, arguments) { $0.text(3) }
        #expect(steps.contains { $0.contains("record_locations_box") }, "\(steps)")
        #expect(!steps.contains { $0.hasPrefix("SCAN records") }, "\(steps)")
        let found = try tx.queryRecords(zonePK: 1, recordType: "Place", plan: plan, after: nil, roots: nil, limit: 100)
        #expect(found.compactMap(\.record?.recordName) == ["east"])
        // A deleted zone takes its entries with it, and so does a removed account.
        try tx.deleteZone(StoredZone(pk: 1, database: Conformance.alice, name: "Places", compactedSeq: 0), purged: false)
        #expect(try Self.indexed(db).isEmpty)
        try tx.insertUser(UserRow(userRecordName: "_alice", account: "alice", passwordHash: "h"), now: 1)
        let zone = try tx.createZone(Conformance.alice, name: "Places")
        var placed = Self.place("kept-until-removed", seq: 11, 3, 3)
        placed.zonePK = zone.pk
        try tx.putRecord(placed)
        #expect(try Self.indexed(db) == ["kept-until-removed:loc"])
        try tx.deleteUser("_alice")
        #expect(try Self.indexed(db).isEmpty)
    }

    @Test func postgresNearSearchesTheLocationIndexAndTriggersKeepIt() async throws {
        try await PostgresTestDatabase.with { database in
            let logger = Logger(label: "near-index-test")
            let connection = try await PostgresConnection.connect(configuration: try database.url.connectionConfiguration(), id: 1, logger: logger)
            defer { Task { try? await connection.close() } }
            func names(_ sql: String) async throws -> [String] {
                var names: [String] = []
                for try await name in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(String.self) { names.append(name) }
                return names
            }
            func insert(_ name: String, seq: Int, _ fields: String, deleted: Bool = false) async throws {
                try await connection.query(
                    """
                    INSERT INTO records(zone_pk, record_name, seq, record_type, change_tag, deleted, created_ts, created_user, modified_ts, modified_user, fields)
                    VALUES (1, \(name), \(seq), 'Place', 't', \(deleted), 1, '_alice', 1, '_alice', convert_to(\(fields), 'UTF8'))
                    """, logger: logger)
            }
            func location(_ latitude: Double, _ longitude: Double) -> String {
                #"{"loc":{"type":"LOCATION","value":{"latitude":\#(latitude),"longitude":\#(longitude)}},"n":{"value":"a\u0000b"}}"#
            }
            try await PostgresSchema.migrate(connection, logger: logger, migrations: Array(PostgresSchema.migrations.prefix(2)))
            try await insert("old", seq: 1, location(0, 179.9))
            try await insert("gone", seq: 2, "{}", deleted: true)
            try await PostgresSchema.migrate(connection, logger: logger)
            #expect(try await names("SELECT record_name || ':' || field FROM record_locations ORDER BY 1") == ["old:loc"])

            try await insert("east", seq: 3, location(0, 179.9))
            try await insert("west", seq: 4, location(0, -179.9))
            try await connection.query("UPDATE records SET fields = convert_to(\(location(20, 20)), 'UTF8') WHERE record_name = 'west'", logger: logger)
            try await connection.query("UPDATE records SET deleted = true, fields = '\\x7b7d' WHERE record_name = 'old'", logger: logger)
            try await insert("plain", seq: 5, #"{"n":{"value":"no place"}}"#)
            try await connection.query("DELETE FROM records WHERE record_name = 'plain'", logger: logger)
            #expect(try await names("SELECT record_name || ':' || latitude FROM record_locations ORDER BY 1") == ["east:0", "west:20"])

            // Enough rows elsewhere that the planner's statistics favour the index, as in a cloud with many places.
            try await connection.query(
                """
                INSERT INTO record_locations SELECT 2 + g % 50, 'p' || g, 'loc', (g % 17999) / 100.0 - 89.99, (g % 35999) / 100.0 - 179.99
                FROM generate_series(1, 20000) g
                """, logger: logger)
            try await connection.query("ANALYZE record_locations", logger: logger)
            try await connection.query("ANALYZE records", logger: logger)
            let query = PostgresStoreTransaction.candidatesQuery(zonePK: 1, recordType: "Place", plan: try QueryPlan(try Self.nearQuery), roots: nil)
            var plan: [String] = []
            for try await line in try await connection.query(PostgresQuery(unsafeSQL: "EXPLAIN " + query.sql, binds: query.binds), logger: logger)
                .decode(String.self)
            {
                plan.append(line)
            }
            #expect(plan.contains { $0.contains("record_locations_box") || $0.contains("record_locations_pkey") }, "\(plan.joined(separator: "\n"))")
            #expect(!plan.contains { $0.contains("Seq Scan on record_locations") }, "\(plan.joined(separator: "\n"))")
            var found: [String] = []
            for try await row in try await connection.query(query, logger: logger) {
                found.append(try PostgresStoreTransaction.recordRow(row).record.recordName)
            }
            #expect(found == ["east"])
        }
    }
}
