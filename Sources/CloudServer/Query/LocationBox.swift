import CloudModel
import Foundation
import SQLiteDB

/// The box around a `NEAR` circle, as the location index (`record_locations`: zone, record, field, latitude,
/// longitude, kept by triggers on `records` in every store) is searched with it: the latitudes the circle spans and,
/// unless it reaches a pole, its longitudes, in two ranges when it crosses the antimeridian (179.9 and -179.9 are
/// 22 km apart at the equator). The box is exact on the sphere `QueryLocation.meters(to:)` measures on, a hair wider
/// against rounding; the distance itself is checked on the records it lets through.
struct LocationBox: Sendable, Hashable {
    /// The LOCATION field (a checked plain name).
    var field: String
    var latitudes: ClosedRange<Double>
    /// One or two ranges (split at the antimeridian); empty when every longitude is in the circle.
    var longitudes: [ClosedRange<Double>]

    init(field: String, center: QueryLocation, meters: Double) {
        self.field = field
        let degrees = 180 / Double.pi
        let radius = meters / QueryLocation.earthRadius  // the circle's angular radius, in radians
        let dLat = radius * degrees * (1 + 1e-9) + 1e-9
        latitudes = (center.latitude - dLat)...(center.latitude + dLat)
        longitudes = []
        // A circle over a pole reaches every longitude; otherwise its widest is asin(sin r / cos latitude).
        guard abs(center.latitude) + dLat < 90 else { return }
        let dLon = asin(min(1, sin(radius) / cos(center.latitude / degrees))) * degrees * (1 + 1e-9) + 1e-9
        guard dLon < 180 else { return }
        let middle = remainder(center.longitude, 360)  // in -180...180
        let (low, high) = (middle - dLon, middle + dLon)
        if low < -180 {
            longitudes = [(low + 360)...180, -180...high]
        } else if high > 180 {
            longitudes = [low...180, -180...(high - 360)]
        } else {
            longitudes = [low...high]
        }
    }

    /// The box as a condition on a `latitude` and a `longitude` expression; `bind` is given each bound in turn and
    /// answers its placeholder (`?` for SQLite, `$n` for PostgreSQL), keeping the value where its caller binds it.
    func condition(latitude: String, longitude: String, bind: (Double) -> String) -> String {
        var sql = "\(latitude) BETWEEN \(bind(latitudes.lowerBound)) AND \(bind(latitudes.upperBound))"
        if !longitudes.isEmpty {
            sql += " AND (" + longitudes.map { "\(longitude) BETWEEN \(bind($0.lowerBound)) AND \(bind($0.upperBound))" }.joined(separator: " OR ") + ")"
        }
        return sql
    }

    /// The box as a condition on a row's JSON, read record by record: how `NEAR` ran before the index, kept only for
    /// `TODO_NEAR_SCAN=1` (set in the cloud's environment), so a benchmark can measure both ways with one build.
    func fieldCondition() -> (sql: String, arguments: [SQLValue]) {
        let (latitude, longitude) = QueryPlan.coordinates(field)
        return sqliteCondition(latitude: latitude, longitude: longitude)
    }

    /// `condition` with SQLite's `?` placeholders and the bounds as its arguments, in order.
    private func sqliteCondition(latitude: String, longitude: String) -> (sql: String, arguments: [SQLValue]) {
        var arguments: [SQLValue] = []
        let sql = condition(latitude: latitude, longitude: longitude) { value in
            arguments.append(.double(value))
            return "?"
        }
        return (sql, arguments)
    }

    /// Whether `NEAR` reads every record of the type as before the index (`TODO_NEAR_SCAN=1`, for benchmarks).
    static let scansRecords = ProcessInfo.processInfo.environment["TODO_NEAR_SCAN"] == "1"

    /// The SQLite condition on a `records` row: its name is among the index's records of this zone and field in the
    /// box. The subquery is not correlated, so SQLite walks the index's range once and looks the records up by name.
    func recordCondition(zonePK: Int64) -> (sql: String, arguments: [SQLValue]) {
        let box = sqliteCondition(latitude: "latitude", longitude: "longitude")
        return (
            "record_name IN (SELECT record_name FROM record_locations WHERE zone_pk = ? AND field = ? AND \(box.sql))",
            [.int(zonePK), .text(field)] + box.arguments
        )
    }
}

extension QueryPlan {
    /// The conditions of the plan's `NEAR` boxes on `records` rows of a zone, with their arguments.
    func locationConditions(zonePK: Int64) -> (sql: [String], arguments: [SQLValue]) {
        var sql: [String] = []
        var arguments: [SQLValue] = []
        for box in locationBoxes {
            let condition = box.recordCondition(zonePK: zonePK)
            sql.append(condition.sql)
            arguments += condition.arguments
        }
        return (sql, arguments)
    }
}
