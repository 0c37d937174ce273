import Foundation

/// The location index of `NEAR` queries on SQLite (see `LocationBox`).
extension SQLiteCloudStore {
    /// v8: `record_locations`, one row per LOCATION value of a live record (a field whose value has numeric
    /// `latitude` and `longitude`, exactly what a NEAR box compares), under a B-tree on (zone, field, latitude,
    /// longitude): a NEAR query walks the latitude band of its box in one zone and field and checks longitudes in the
    /// index entries, instead of reading every record of the type. Triggers keep it in the very statement that writes a
    /// record, so no write path has to know of it. The insert trigger has no `WHEN`: an `INSERT OR REPLACE` (how a
    /// record is changed or becomes a tombstone) deletes the old row without firing delete triggers (recursive triggers
    /// are off), so every insert clears the name's entries (one probe of this small table) and indexes the new fields
    /// only when they hold `"latitude"`. The exact distance is always checked on the record itself. Existing records
    /// are indexed here, on the first start of this version.
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

    /// The statement that indexes the LOCATION values of a trigger's `row` (`new`) when it is live.
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
