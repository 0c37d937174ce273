@testable import CloudServer
import CloudModel
import Foundation
import PostgresTestSupport
import TestSupport
import Testing

/// The real `todo server account …` and `todo server schema …` on a PostgreSQL database (`--database-url` or
/// `$TODO_DATABASE_URL`), beside a cloud instance that serves it.
@Suite("Operator tools on PostgreSQL")
struct OperatorToolsOnPostgresTests {
    @Test func accountAndSchemaToolsActOnTheDatabaseTheyAreGiven() async throws {
        guard let binary = TodoExecutable.path else {
            print("skipped: operator tools on PostgreSQL: the todo executable was not built beside the tests (swift build first)")
            return
        }
        try await PostgresTestDatabase.with { database in
            // A data directory the tools must not touch: the accounts live in the database.
            let unused = ScratchDirectory.path("unused")
            defer { try? FileManager.default.removeItem(at: unused) }
            let flag = ["--database-url", database.url.secretText, "--data-dir", unused.path]
            func todoServer(_ arguments: [String], _ environment: [String: String] = [:]) async throws -> TodoProcess.Result {
                try await TodoProcess.run(binary, ["server"] + arguments, environment: environment)
            }

            let added = try await todoServer(["account", "add", "dana"] + flag, ["TODO_PASSWORD": "dana first password"])
            #expect(added.status == 0, "\(added.errors)")
            #expect(added.output.contains("Created the account dana"))
            let again = try await todoServer(["account", "add", "dana"] + flag, ["TODO_PASSWORD": "dana first password"])
            #expect(again.status == 1)
            #expect(again.errors.contains("already exists"), "\(again.errors)")
            #expect(!FileManager.default.fileExists(atPath: unused.appendingPathComponent("cloud.sqlite").path))

            // A cloud on the same database signs the account in.
            try await withCloud(storage: .postgres(database.url)) { cloud in
                #expect(try await cloud.attemptSignIn("dana", password: "dana first password").status == 200)
                // $TODO_DATABASE_URL names the database as well as the flag does.
                let listed = try await todoServer(["account", "list", "--data-dir", unused.path], ["TODO_DATABASE_URL": database.url.secretText])
                #expect(listed.status == 0, "\(listed.errors)")
                #expect(listed.output.split(separator: "\n").contains { $0.hasPrefix("dana ") }, "\(listed.output)")

                let changed = try await todoServer(["account", "passwd", "dana"] + flag, ["TODO_PASSWORD": "dana second password"])
                #expect(changed.status == 0, "\(changed.errors)")
                #expect(try await cloud.attemptSignIn("dana", password: "dana first password").status == 401)
                #expect(try await cloud.attemptSignIn("dana", password: "dana second password").status == 200)

                // The schema the cloud learnt from a save, indexed and deployed by the tools.
                let alice = try await cloud.signIn("alice")
                try await cloud.createTodosZone(alice)
                _ = try await cloud.modify(alice, [RecordOperation(.create, todo("s1", "Schema probe"))])
                let index = try await todoServer(["schema", "index", "Todo", "priority", "--queryable"] + flag)
                #expect(index.status == 0, "\(index.errors)")
                let shown = try await todoServer(["schema", "show"] + flag)
                #expect(shown.status == 0, "\(shown.errors)")
                #expect(shown.output.contains("priority") && shown.output.contains("queryable"), "\(shown.output)")
                let deployed = try await todoServer(["schema", "deploy"] + flag)
                #expect(deployed.status == 0, "\(deployed.errors)")
                let production = try await todoServer(["schema", "show", "--environment", "production"] + flag)
                #expect(production.output.contains("priority"), "\(production.output)")

                let removed = try await todoServer(["account", "remove", "dana", "--yes"] + flag)
                #expect(removed.status == 0, "\(removed.errors)")
                #expect(try await cloud.attemptSignIn("dana", password: "dana second password").status == 401)
            }

            // A database that cannot be reached is said so, without the password.
            var unreachable = database.url
            unreachable.port = 1
            unreachable.password = "operator-secret-42"
            let refused = try await todoServer(["account", "list", "--database-url", unreachable.secretText])
            #expect(refused.status != 0)
            #expect(!refused.errors.isEmpty)
            #expect(!refused.errors.contains("operator-secret-42") && !refused.output.contains("operator-secret-42"), "\(refused.errors)")
        }
    }
}
