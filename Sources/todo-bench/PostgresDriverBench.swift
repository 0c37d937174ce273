import CloudServer
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// `todo-bench postgres-driver URL`: postgres-nio on the work `Resources/bench/libpq-driver-bench.c` does through
/// libpq (200-row batch inserts, each one statement in its own transaction; then single-row lookups by key, one
/// after another on one connection), so the two drivers can be compared on one server in one run.
enum PostgresDriverBench {
    static let batchSize = 200
    static let fields = Data(
        #"{"title":{"value":"Buy oat milk and the good coffee","type":"STRING"},"isCompleted":{"value":0,"type":"INT64"},"priority":{"value":1,"type":"INT64"}}"#
            .utf8)

    /// The lookup as a named prepared statement: parsed once per connection.
    struct Lookup: PostgresPreparedStatement {
        static let sql = "SELECT seq, fields FROM bench_nio WHERE zone_pk = $1 AND record_name = $2"
        typealias Row = (Int64, ByteBuffer)
        var name: String
        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(Int64(1))
            bindings.append(name)
            return bindings
        }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    static func run(url text: String, batches: Int, lookups: Int) async throws {
        let url = try DatabaseURL(parsing: text)
        let logger = Logger(label: "bench")
        let connection = try await PostgresConnection.connect(configuration: try url.connectionConfiguration(), id: 1, logger: logger)
        defer { Task { try? await connection.close() } }
        try await connection.query("DROP TABLE IF EXISTS bench_nio", logger: logger)
        try await connection.query(
            """
            CREATE TABLE bench_nio(zone_pk int8 NOT NULL, record_name text NOT NULL, seq int8 NOT NULL, fields bytea NOT NULL,
                PRIMARY KEY(zone_pk, record_name))
            """, logger: logger)
        var seq: Int64 = 0
        let fieldsBuffer = ByteBuffer(bytes: fields)
        let started = ContinuousClock.now
        for _ in 0..<batches {
            var zones: [Int64] = [], names: [String] = [], seqs: [Int64] = [], blobs: [ByteBuffer] = []
            for _ in 0..<batchSize {
                seq += 1
                zones.append(1)
                names.append(String(format: "r%08ld", seq))
                seqs.append(seq)
                blobs.append(fieldsBuffer)
            }
            try await connection.query(
                "INSERT INTO bench_nio SELECT * FROM unnest(\(zones)::int8[], \(names)::text[], \(seqs)::int8[], \(blobs)::bytea[])",
                logger: logger)
        }
        let insertSeconds = seconds(ContinuousClock.now - started)

        let name = { (index: Int) in String(format: "r%08ld", Int64(index) * 7919 % seq + 1) }
        var clock = ContinuousClock.now
        for index in 0..<lookups {
            var found = 0
            for try await _ in try await connection.query(
                "SELECT seq, fields FROM bench_nio WHERE zone_pk = \(Int64(1)) AND record_name = \(name(index))", logger: logger)
            {
                found += 1
            }
            guard found == 1 else { throw DriverBenchFailure("lookup \(name(index)) found \(found) rows") }
        }
        let unnamedSeconds = seconds(ContinuousClock.now - clock)
        clock = ContinuousClock.now
        for index in 0..<lookups {
            var found = 0
            for try await _ in try await connection.execute(Lookup(name: name(index)), logger: logger) { found += 1 }
            guard found == 1 else { throw DriverBenchFailure("lookup \(name(index)) found \(found) rows") }
        }
        let preparedSeconds = seconds(ContinuousClock.now - clock)
        try await connection.query("DROP TABLE bench_nio", logger: logger)
        let rate = Double(batches * batchSize) / insertSeconds
        print(
            String(
                format: "postgres-nio batch insert: %8.0f records/s (%d x %d rows)   lookup: %6.1f us each (%d), prepared: %6.1f us",
                rate, batches, batchSize, unnamedSeconds / Double(lookups) * 1e6, lookups, preparedSeconds / Double(lookups) * 1e6))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// A benchmark's own check failed.
struct DriverBenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
