import CloudServer
import Foundation
import Testing

extension TrustedTextEndToEnd {
    /// `todo server schema show` and `deploy` print one line per record type and one per field.
    @Suite("Schema command output", .serialized)
    struct SchemaOutputTests {
        @Test func showAndDeployPrintALinePerTypeAndField() async throws {
            let stage = try await E2EStage.start()
            defer { stage.tearDown() }
            let cli = TodoCommandLine(stage: stage)
            let cloud = stage.directory.appendingPathComponent("cloud")
            #expect(try await cli.run("alice", ["add", "Schema probe"]).status == 0)
            _ = try await cli.run(["server", "schema", "index", "Todo", "priority", "--queryable", "--data-dir", cloud.path])
            for verb in ["show", "deploy"] {
                let answer = try await cli.run(["server", "schema", verb, "--data-dir", cloud.path])
                #expect(answer.status == 0, "\(answer.allText)")
                let lines = answer.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                #expect(lines.contains("Todo"), "\(answer.output)")
                let priority = lines.filter { $0.hasPrefix("priority ") }
                #expect(priority.count == 1, "\(answer.output)")
                #expect(priority.first?.contains("INT64") == true && priority.first?.contains("queryable") == true, "\(answer.output)")
                #expect(lines.contains { $0.hasPrefix("title ") && $0.hasSuffix("STRING") }, "\(answer.output)")
            }
        }
    }
}
