@testable import CloudServer
import CloudModel
import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import TestSupport
import Testing

/// Fresh planner statistics for `records` as a PostgreSQL cloud grows (see `PostgresStatistics`).
@Suite("PostgreSQL statistics of the records table")
struct PostgresStatisticsTests {
    @Test func analyzeIsDueAfterTwoThousandRecordsThenAfterTwiceAsManyEachTime() {
        let statistics = PostgresStatistics()
        #expect(!statistics.noteWritten(1_999))
        #expect(statistics.noteWritten(1))
        // One at a time: while it runs, more writes do not ask for another.
        #expect(!statistics.noteWritten(10_000))
        statistics.analyzed()
        #expect(!statistics.noteWritten(3_999))
        #expect(statistics.noteWritten(1))
        statistics.analyzed()
        var thresholds: [Int] = []
        for _ in 0..<10 {
            var written = 0
            while !statistics.noteWritten(1_000) { written += 1_000 }
            thresholds.append(written + 1_000)
            statistics.analyzed()
        }
        #expect(thresholds == [8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 256_000, 256_000, 256_000, 256_000])
        #expect(!statistics.noteWritten(0))
    }

    @Test func aCloudThatWroteTwoThousandRecordsHasThemAnalyzed() async throws {
        try await PostgresTestDatabase.with { database in
            try await withCloud(storage: .postgres(database.url)) { cloud in
                let alice = try await cloud.signIn("alice")
                try await cloud.createTodosZone(alice)
                for batch in 0..<10 {
                    _ = try await cloud.modify(alice, (0..<200).map { RecordOperation(.create, todo("s\(batch)-\($0)", "T")) })
                }
                let logger = Logger(label: "statistics-test")
                let connection = try await PostgresConnection.connect(configuration: try database.url.connectionConfiguration(), id: 1, logger: logger)
                let analyzed = try await eventually {
                    let rows = try await connection.query(
                        "SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables WHERE relname = 'records'", logger: logger)
                    var done = false
                    for try await row in rows.decode(Bool.self) { done = row }
                    return done
                }
                try await connection.close()
                #expect(analyzed, "records was not analyzed after 2,000 writes")
            }
        }
    }
}
