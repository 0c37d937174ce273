import ArgumentParser
import CloudServer
import CommandLineSupport
import Foundation

/// `todo server migrate --from-sqlite DIR --database-url URL`: copies a stopped SQLite cloud into an empty PostgreSQL
/// database, change tokens and sessions still valid, so devices carry on without refetching or signing in again.
struct ServerMigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy a stopped SQLite cloud (--from-sqlite DIR) into an empty PostgreSQL database (--database-url URL).",
        discussion: """
            Copies accounts, devices, sessions, push tokens, zones, records and tombstones, change feeds and their \
            horizons, shares, subscriptions, the schema and assets, in one transaction: on any error the database is \
            left empty. Devices keep their change tokens and sessions. Refuses a database that holds anything and a \
            SQLite cloud that is running; holds its server.lock while copying, so none starts meanwhile.
            """)

    @Option(name: .customLong("from-sqlite"), help: "The SQLite cloud's data directory (the one `todo server --data-dir` used).")
    var fromSQLite: String

    @Flag(help: "No progress line.")
    var quiet = false

    /// `todo server`'s own `--database-url` (an option of that name here would never be set: ArgumentParser gives it
    /// to the `server` command).
    @ParentCommand var server: ServerCommand

    func run() async throws {
        guard case .postgres(let target) = try server.storage else {
            throw ValidationError("name the PostgreSQL database: --database-url \(DatabaseURL.shape) (or $TODO_DATABASE_URL)")
        }
        let progress = ProgressLine(enabled: !quiet)
        let summary = try await SQLiteToPostgres.migrate(
            from: URL(fileURLWithPath: fromSQLite, isDirectory: true), databaseURL: target
        ) { step in
            progress.show("Copying \(step.table): \(step.copied.formatted()) of \(step.total.formatted()) rows")
        }
        progress.clear()
        print(
            "Copied \(summary.count("users")) accounts, \(summary.count("zones")) zones, \(summary.count("records")) records "
                + "and \(summary.assets) assets (\(summary.totalRows.formatted()) rows) into PostgreSQL; change tokens stay valid.")
        if !summary.missingAssetFiles.isEmpty {
            printError("\(summary.missingAssetFiles.count) asset rows had no file in \(fromSQLite)/assets (not copied), e.g. \(summary.missingAssetFiles[0])")
        }
        print("Start the instances with --database-url; the SQLite cloud in \(fromSQLite) was left as it was.")
    }
}
