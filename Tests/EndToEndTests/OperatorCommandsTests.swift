import CloudServer
import Foundation
import Testing

extension TrustedTextEndToEnd {
    /// The real `todo server account …` and `todo devices` against a cloud that is running.
    @Suite("Operator and device commands", .serialized)
    struct OperatorCommandsTests {
        @Test func accountToolsAndTheDeviceListWhileTheCloudRuns() async throws {
            let stage = try await E2EStage.start()
            defer { stage.tearDown() }
            let cli = TodoCommandLine(stage: stage)
            let data = ["--data-dir", stage.directory.appendingPathComponent("cloud").path]

            // No password in the environment and no terminal to type it at: refused in words.
            let noPassword = try await cli.run(["server", "account", "add", "carol"] + data, environment: ["TODO_PASSWORD": ""])
            #expect(noPassword.status == 1, "\(noPassword.allText)")
            #expect(noPassword.errors.contains("TODO_PASSWORD"), "\(noPassword.errors)")

            let added = try await cli.run(["server", "account", "add", "carol"] + data, environment: ["TODO_PASSWORD": "e2e-password-carol"])
            #expect(added.status == 0, "\(added.allText)")
            #expect(added.output.contains("Created the account carol"))
            let again = try await cli.run(["server", "account", "add", "carol"] + data, environment: ["TODO_PASSWORD": "e2e-password-carol"])
            #expect(again.status == 1)
            #expect(again.errors.contains("already exists"), "\(again.errors)")

            // The account the operator made signs in; its devices are listed and one revoked.
            #expect(try await cli.run("carol", ["sync"], device: "laptop").status == 0)
            #expect(try await cli.run("carol", ["sync"], device: "phone").status == 0)
            let devices = try await cli.run("carol", ["devices"], device: "laptop")
            #expect(devices.status == 0, "\(devices.allText)")
            let lines = devices.output.split(separator: "\n")
            #expect(lines.count == 3, "\(devices.output)")
            #expect(lines.contains { $0.hasPrefix("laptop") && $0.hasSuffix("(this device)") }, "\(devices.output)")
            #expect(lines.contains { $0.hasPrefix("phone") && !$0.contains("this device") }, "\(devices.output)")
            let revoked = try await cli.run("carol", ["devices", "revoke", "phone"], device: "laptop")
            #expect(revoked.status == 0, "\(revoked.allText)")
            #expect(revoked.output.contains("Signed out phone"))
            let unknown = try await cli.run("carol", ["devices", "revoke", "tablet"], device: "laptop")
            #expect(unknown.status == 1)
            #expect(unknown.errors.contains("tablet"), "\(unknown.errors)")

            let listed = try await cli.run(["server", "account", "list"] + data)
            #expect(listed.status == 0)
            #expect(listed.output.split(separator: "\n").contains { $0.hasPrefix("carol ") }, "\(listed.output)")

            // remove asks first; without a terminal answer nothing is deleted.
            let unconfirmed = try await cli.run(["server", "account", "remove", "carol"] + data)
            #expect(unconfirmed.status == 1)
            #expect(try await AccountAdministration.list(dataDirectory: stage.directory.appendingPathComponent("cloud")).contains { $0.account == "carol" })
            let removed = try await cli.run(["server", "account", "remove", "carol", "--yes"] + data)
            #expect(removed.status == 0, "\(removed.allText)")
            #expect(try await !AccountAdministration.list(dataDirectory: stage.directory.appendingPathComponent("cloud")).contains { $0.account == "carol" })
            await stage.server.shutdown()
        }

        @Test func schemaToolsWorkOnTheDataDirectoryTheyAreGiven() async throws {
            let stage = try await E2EStage.start()
            defer { stage.tearDown() }
            let cli = TodoCommandLine(stage: stage)
            let cloud = stage.directory.appendingPathComponent("cloud")
            // A first save defines the Todo type in development.
            #expect(try await cli.run("alice", ["add", "Schema probe"]).status == 0)
            let index = try await cli.run(["server", "schema", "index", "Todo", "priority", "--queryable", "--data-dir", cloud.path])
            #expect(index.status == 0, "\(index.allText)")
            let shown = try await cli.run(["server", "schema", "show", "--data-dir", cloud.path])
            #expect(shown.status == 0, "\(shown.allText)")
            #expect(shown.output.contains("priority"), "\(shown.output)")
            #expect(shown.output.contains("queryable"), "\(shown.output)")
            // Another directory holds no schema: the option was not ignored.
            let empty = stage.directory.appendingPathComponent("other-cloud")
            let elsewhere = try await cli.run(["server", "schema", "show", "--data-dir", empty.path])
            #expect(!elsewhere.output.contains("priority"), "\(elsewhere.output)")
            await stage.server.shutdown()
        }
    }
}
