import PostgresNIO
import SQLiteDB

/// The location index of `NEAR` queries on PostgreSQL: the table and B-tree the SQLite store has (see
/// `SQLiteCloudStore.locationsMigration`), kept by row triggers in PL/pgSQL (part of every PostgreSQL; no extension).
extension PostgresSchema {
    /// Whether a trigger's row (`NEW` or `OLD`) may hold a location: the bytes `"latitude"` in its fields.
    private static func mayLocate(_ row: String) -> String { #"position('"latitude"'::bytea in \#(row).fields) > 0"# }

    /// pg3: `record_locations` and its triggers; existing records are indexed on the first start of this version.
    /// The fields are read as `jsonb` with every `\u0000` escape made `\u0001` first: PostgreSQL refuses to read a
    /// `\u0000` (a string a record may hold in any field), and the change keeps the text valid JSON and the numbers as
    /// they were.
    static let locations: [String] = [
        """
        CREATE TABLE record_locations(
            zone_pk bigint NOT NULL, record_name text NOT NULL, field text NOT NULL,
            latitude double precision NOT NULL, longitude double precision NOT NULL,
            PRIMARY KEY(zone_pk, record_name, field))
        """,
        "CREATE INDEX record_locations_box ON record_locations(zone_pk, field, latitude, longitude)",
        """
        CREATE FUNCTION record_locations_sync() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP <> 'INSERT' THEN
                DELETE FROM record_locations WHERE zone_pk = OLD.zone_pk AND record_name = OLD.record_name;
            END IF;
            IF TG_OP <> 'DELETE' AND NOT NEW.deleted AND \(mayLocate("NEW")) THEN
                INSERT INTO record_locations
                SELECT NEW.zone_pk, NEW.record_name, f.key, (f.value->'value'->>'latitude')::float8,
                    (f.value->'value'->>'longitude')::float8
                FROM jsonb_each(\(readable("NEW"))) f
                WHERE \(isLocation("f.value"))
                ON CONFLICT (zone_pk, record_name, field) DO UPDATE SET latitude = excluded.latitude, longitude = excluded.longitude;
            END IF;
            RETURN NULL;
        END $$
        """,
        """
        CREATE TRIGGER record_locations_insert AFTER INSERT ON records FOR EACH ROW
        WHEN (NOT NEW.deleted AND \(mayLocate("NEW"))) EXECUTE FUNCTION record_locations_sync()
        """,
        """
        CREATE TRIGGER record_locations_update AFTER UPDATE OF fields, deleted ON records FOR EACH ROW
        WHEN (\(mayLocate("OLD")) OR \(mayLocate("NEW"))) EXECUTE FUNCTION record_locations_sync()
        """,
        """
        CREATE TRIGGER record_locations_delete AFTER DELETE ON records FOR EACH ROW
        WHEN (\(mayLocate("OLD"))) EXECUTE FUNCTION record_locations_sync()
        """,
        """
        INSERT INTO record_locations
        SELECT r.zone_pk, r.record_name, f.key, (f.value->'value'->>'latitude')::float8, (f.value->'value'->>'longitude')::float8
        FROM records r, jsonb_each(\(readable("r"))) f
        WHERE NOT r.deleted AND \(mayLocate("r")) AND \(isLocation("f.value"))
        """,
    ]

    /// Whether a field's JSON is a location: an object whose value has numeric latitude and longitude.
    private static func isLocation(_ field: String) -> String {
        "jsonb_typeof(\(field)) = 'object' AND jsonb_typeof(\(field)->'value') = 'object' "
            + "AND jsonb_typeof(\(field)->'value'->'latitude') = 'number' AND jsonb_typeof(\(field)->'value'->'longitude') = 'number'"
    }

    /// A row's fields as `jsonb` PostgreSQL can read.
    private static func readable(_ row: String) -> String {
        #"replace(convert_from(\#(row).fields, 'UTF8'), '\u0000', '\u0001')::jsonb"#
    }
}

extension PostgresStoreTransaction {
    /// The statement reading a query's candidates: the live records of a type in a zone (under `roots`, for a
    /// participant), narrowed by the location index to the boxes of the plan's `NEAR` filters.
    static func candidatesQuery(zonePK: Int64, recordType: String, plan: QueryPlan, roots: Set<String>?) -> PostgresQuery {
        var bindings = PostgresBindings()
        bindings.append(zonePK)
        bindings.append(recordType)
        var sql = "SELECT \(recordSelect) FROM records WHERE zone_pk = $1 AND record_type = $2 AND NOT deleted"
        if let roots {
            bindings.append(Array(roots))
            sql += " AND root = ANY($\(bindings.count))"
        }
        for box in plan.locationBoxes {
            bindings.append(box.field)
            let field = "$\(bindings.count)"
            let inner = box.condition(latitude: "latitude", longitude: "longitude") { value in
                bindings.append(value)
                return "$\(bindings.count)"
            }
            sql += " AND record_name IN (SELECT record_name FROM record_locations WHERE zone_pk = $1 AND field = \(field) AND \(inner))"
        }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }
}
