import Foundation
import SQLiteDB

/// The location index of `NEAR` queries on SQLite (see `LocationBox`).
extension SQLiteCloudStore {
    /// v8: `record_locations`, one row per LOCATION value of a live record (a field whose value has numeric
    /// `latitude` and `longitude`, exactly what a NEAR box compares), under a B-tree on (zone, field, latitude,
    /// longitude): a NEAR query walks the latitude band of its box in one zone and field and checks longitudes in the
    /// index entries, instead of reading every record of the type. Existing records are indexed here, on the first start
    /// of this version. Its triggers kept the index until v9, in which the record writes took that over. The exact
    /// distance is always checked on the record itself.
    static let locationsMigration: (name: String, sql: String) = (
        "v8",
        """
        CREATE TABLE record_locations(
            zone_pk INTEGER NOT NULL, record_name TEXT NOT NULL, field TEXT NOT NULL,
            latitude REAL NOT NULL, longitude REAL NOT NULL,
            PRIMARY KEY(zone_pk, record_name, field)) WITHOUT ROWID;
        CREATE INDEX record_locations_box ON record_locations(zone_pk, field, latitude, longitude);
        CREATE TRIGGER record_locations_insert AFTER INSERT ON records BEGIN
            DELETE FROM record_locations WHERE zone_pk = new.zone_pk AND record_name = new.record_name;
            \(insertLocations(of: "new"))
        END;
        CREATE TRIGGER record_locations_update AFTER UPDATE OF fields, deleted ON records
        WHEN instr(old.fields, '"latitude"') > 0 OR instr(new.fields, '"latitude"') > 0 BEGIN
            DELETE FROM record_locations WHERE zone_pk = old.zone_pk AND record_name = old.record_name;
            \(insertLocations(of: "new"))
        END;
        CREATE TRIGGER record_locations_delete AFTER DELETE ON records
        WHEN instr(old.fields, '"latitude"') > 0 BEGIN
            DELETE FROM record_locations WHERE zone_pk = old.zone_pk AND record_name = old.record_name;
        END;
        INSERT OR REPLACE INTO record_locations
        SELECT r.zone_pk, r.record_name, f.key, json_extract(f.value, '$.value.latitude'), json_extract(f.value, '$.value.longitude')
        FROM records r, json_each(r.fields) f
        WHERE r.deleted = 0 AND instr(r.fields, '"latitude"') > 0 AND \(isLocation("f"));
        """
    )

    /// v9: the record writes keep the index themselves (`SQLiteStoreTransaction.indexLocations`). A trigger ran on
    /// every record written, a location or not: about 1 µs for the trigger alone and 2 µs with v8's body, a sixth of
    /// the cloud's CPU a record in `todo-bench server` (16.3 µs a record before v8, 19.5 after).
    static let locationUpkeepMigration: (name: String, sql: String) = (
        "v9",
        """
        DROP TRIGGER record_locations_insert;
        DROP TRIGGER record_locations_update;
        DROP TRIGGER record_locations_delete;
        """
    )

    /// The prepared statements that keep the index, one set per connection.
    struct LocationStatements {
        /// Whether a zone has any entry.
        let zoneHasAny: Statement
        /// Removes a record's entries.
        let remove: Statement
        /// Indexes the LOCATION values of a record's fields (zone, name, fields' JSON).
        let add: Statement

        init(_ db: SQLiteDatabase) throws {
            zoneHasAny = try db.statement("SELECT 1 FROM record_locations WHERE zone_pk = ?1 LIMIT 1")
            remove = try db.statement("DELETE FROM record_locations WHERE zone_pk = ?1 AND record_name = ?2")
            add = try db.statement(
                """
                INSERT OR REPLACE INTO record_locations
                    SELECT ?1, ?2, f.key, json_extract(f.value, '$.value.latitude'), json_extract(f.value, '$.value.longitude')
                    FROM json_each(CAST(?3 AS TEXT)) f WHERE \(isLocation("f"))
                """)
        }
    }

    /// The statement that indexes the LOCATION values of a trigger's `row` (`new`) when it is live (v8's triggers).
    private static func insertLocations(of row: String) -> String {
        """
        INSERT OR REPLACE INTO record_locations
            SELECT \(row).zone_pk, \(row).record_name, f.key, json_extract(f.value, '$.value.latitude'),
                json_extract(f.value, '$.value.longitude')
            FROM json_each(CASE WHEN \(row).deleted = 0 AND instr(\(row).fields, '"latitude"') > 0 THEN \(row).fields ELSE '{}' END) f
            WHERE \(isLocation("f"));
        """
    }

    /// Whether a field (a `json_each` row of the fields) is a location: an object whose value has numeric latitude
    /// and longitude.
    private static func isLocation(_ field: String) -> String {
        "\(field).type = 'object' AND json_type(\(field).value, '$.value.latitude') IN ('integer', 'real') "
            + "AND json_type(\(field).value, '$.value.longitude') IN ('integer', 'real')"
    }
}

extension SQLiteStoreTransaction {
    /// Keeps the location index of a record just written (replaced, inserted or made a tombstone): its old entries go
    /// where its zone has any, and a live record whose fields mention `"latitude"` has its LOCATION values indexed. A
    /// replace deletes the old row, so this is the one place the old entries are dropped.
    func indexLocations(of record: StoredRecord) throws {
        guard let statements = try locationStatements else { return }
        let located = !record.deleted && ByteSearch.contains(Self.latitudeKey, in: record.fieldsJSON)
        if try located || zoneHasLocations(record.zonePK, statements) {
            try db.run(statements.remove, [.int(record.zonePK), .text(record.recordName)])
        }
        guard located else { return }
        try db.run(statements.add, [.int(record.zonePK), .text(record.recordName), .blob(record.fieldsJSON)])
        if db.changes > 0 { locationZoneCache[record.zonePK] = true }
    }

    /// Drops the entries of a record removed from the table.
    func unindexLocations(zonePK: Int64, name: String) throws {
        guard let statements = try locationStatements, try zoneHasLocations(zonePK, statements) else { return }
        try db.run(statements.remove, [.int(zonePK), .text(name)])
    }

    private static let latitudeKey = Array(#""latitude""#.utf8)

    /// Whether the zone has any entry (asked once a zone, then kept up to date by this connection's writes).
    private func zoneHasLocations(_ zonePK: Int64, _ statements: SQLiteCloudStore.LocationStatements) throws -> Bool {
        if let known = locationZoneCache[zonePK] { return known }
        let has = try db.first(statements.zoneHasAny, [.int(zonePK)]) { _ in true } ?? false
        locationZoneCache[zonePK] = has
        return has
    }
}
