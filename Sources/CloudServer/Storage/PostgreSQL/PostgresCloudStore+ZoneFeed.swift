import CloudModel
import Foundation
import NIOCore
import PostgresNIO

/// A page of a zone's change feed read together with the zone, in one statement (see `StoreTransaction.zoneFeed`).
extension PostgresStoreTransaction {
    /// One statement (`ZoneFeedStatement`): the zone's row joined to its page of changes (a zone without changes
    /// there gives one row whose record cell is NULL).
    func zoneFeed(_ database: DatabaseKey, name: String, after seq: Int64, limit: Int, includeTombstones: Bool) async throws -> ZoneFeedRead? {
        var read: ZoneFeedRead?
        var ordered = true
        var recent = RecentStrings()
        let statement = ZoneFeedStatement(database: database, name: name, after: seq, limit: limit, includeTombstones: includeTombstones)
        let rows: AsyncThrowingMapSequence<PostgresRowSequence, PostgresRow> =
            statement.isPrepared
            ? try await connection.execute(statement, logger: logger)
            : try await connection.query(try statement.unprepared, logger: logger).map { $0 }
        for try await row in rows {
            // The record's row (NULL when the zone has no changes after `seq`), then the zone's three columns, read
            // from the first row only.
            var cells = row.makeIterator()
            let recordCell = cells.next()?.bytes
            if read == nil {
                func zoneColumn() throws -> Int64 {
                    guard let cell = cells.next() else { throw CompositeCells.malformed("a zone row cut short") }
                    return try cell.decode(Int64.self)
                }
                let (pk, compacted, head) = (try zoneColumn(), try zoneColumn(), try zoneColumn())
                // (A feed this transaction advanced has its own head: see `latestSequence`.)
                read = ZoneFeedRead(
                    zone: StoredZone(pk: pk, database: database, name: name, compactedSeq: compacted),
                    head: max(head, ownHead(zonePK: pk)), rows: [])
                read?.rows.reserveCapacity(limit)
            }
            guard let recordCell else { continue }
            let record = try Self.recordRow(recordCell, reusing: &recent).record
            if let last = read?.rows.last, last.seq > record.seq { ordered = false }
            read?.rows.append(record)
        }
        // Whatever the driver does when the task is cancelled, a short page must never pass for the zone's last one.
        try Task.checkCancellation()
        // The join hands the page over in its subquery's order; were a plan ever to change that, order it here.
        if !ordered { read?.rows.sort { $0.seq < $1.seq } }
        return read
    }
}

/// `zoneFeed`'s statement, prepared once per connection: PostgreSQL parses it once and, after its first runs, plans
/// it once (a page is then one Bind/Execute round trip). No outer ORDER BY: the lateral subquery's order is the
/// join's, and `zoneFeed` checks it.
struct ZoneFeedStatement: PostgresPreparedStatement {
    /// The page a device asks for (a full page and one more, to tell whether more come): the only limit prepared.
    /// Written into the text, not bound: with `LIMIT $n` PostgreSQL costs the generic plan for a tenth of the zone
    /// and so plans every execution afresh.
    static let preparedLimit = CloudLimits.maxResultsPerPage + 1

    static let sql = text(limit: "\(preparedLimit)")

    /// The statement with `limit` (a literal, or `$6` for the unprepared form).
    static func text(limit: String) -> String {
        """
        SELECT r.record, z.pk, z.compacted_seq, z.seq FROM zones z
        LEFT JOIN LATERAL (
            SELECT \(PostgresStoreTransaction.recordSelect) AS record FROM records
            WHERE zone_pk = z.pk AND seq > $5 AND ($7 OR NOT deleted) ORDER BY seq LIMIT \(limit)
        ) r ON true
        WHERE z.container = $1 AND z.scope = $2 AND z.owner = $3 AND z.name = $4
        """
    }

    typealias Row = PostgresRow

    /// The statement's name on each connection (postgres-nio's default spells the type out by reflection on every
    /// execution).
    static let name = "zone_feed"

    var database: DatabaseKey
    var name: String
    var after: Int64
    var limit: Int
    var includeTombstones: Bool

    /// Whether this page's limit is the prepared one; other limits run as `unprepared`.
    var isPrepared: Bool { limit == Self.preparedLimit }

    /// The same statement for any other limit, as an unnamed one (parsed and planned for this execution).
    var unprepared: PostgresQuery {
        get throws { PostgresQuery(unsafeSQL: Self.text(limit: "$6"), binds: try makeBindings()) }
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(database.container)
        bindings.append(database.scope.rawValue)
        bindings.append(database.owner)
        bindings.append(name)
        bindings.append(after)
        bindings.append(Int64(limit))  // $6: referred to by the unprepared text only
        bindings.append(includeTombstones)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}
