import CloudClient
import CloudModel
import CloudServer
import Foundation
import TestSupport
import Testing
import TodoStore
import TodoSync

/// The app against both schema environments: development learns its record types; production takes them once
/// deployed, and then syncs the same way.
@Suite("The app in development and production", .serialized)
struct SchemaEnvironmentTests {
    @Test func devicesSyncInDevelopmentAndAfterADeployInProduction() async throws {
        let cloud = try await TestCloud.start()
        let production = ContainerAddress(container: ContainerAddress.default.container, environment: "production")

        let developer = try await cloud.device("dev")
        let listed = try await developer.engine.add(title: "Learn the schema", priority: 3)
        await developer.engine.waitUntilIdle()
        #expect(try await developer.store.pendingCount() == 0)
        _ = listed

        _ = try await SchemaAdministration.deploy(
            dataDirectory: cloud.directory.appendingPathComponent("server"), container: production.container)
        let a = try await cloud.device("A", account: "pat", container: production)
        let b = try await cloud.device("B", account: "pat", listen: true, container: production)
        let created = try await a.engine.add(title: "Ship it", priority: 2)
        await a.engine.waitUntilIdle()
        #expect(try await a.store.pendingCount() == 0)
        #expect(try await eventually { try await b.store.todo(created.key)?.title == "Ship it" })
        try await a.engine.edit(created.key, TodoEdit(title: "Ship it today", notes: "after lunch"))
        await a.engine.waitUntilIdle()
        #expect(try await eventually { try await b.store.todo(created.key)?.notes == "after lunch" })
        await cloud.shutdown()
    }
}
