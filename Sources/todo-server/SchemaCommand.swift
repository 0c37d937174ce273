import ArgumentParser
import CloudModel
import CloudServer
import Foundation

/// `todo server schema`: the cloud's record types and fields, per container environment.
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Show, index and deploy the cloud's schema (record types and typed fields).",
        subcommands: [Show.self, Index.self, Deploy.self]
    )

    /// `todo server`, whose `--data-dir` (or `--database-url`) names the cloud (ArgumentParser hands those options to
    /// the parent command).
    @ParentCommand var server: ServerCommand

    /// Which container's schema.
    struct Location: ParsableArguments {
        @Option(help: "Container identifier.")
        var container = ContainerAddress.default.container
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Print the record types, their fields' types and index marks.")

        @OptionGroup var location: Location
        @ParentCommand var schema: SchemaCommand

        @Option(help: "development or production.")
        var environment = "development"

        func run() async throws {
            let types = try await SchemaAdministration.show(
                dataDirectory: schema.server.dataDirectory, storage: try schema.server.storage, container: location.container,
                environment: environment)
            print("\(location.container) (\(environment))")
            printLines(SchemaAdministration.describe(types))
        }
    }

    struct Index: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "index", abstract: "Mark a field queryable and/or sortable (or unmark it).")

        @OptionGroup var location: Location
        @ParentCommand var schema: SchemaCommand

        @Option(help: "development or production.")
        var environment = "development"

        @Argument(help: "Record type, e.g. Todo.")
        var recordType: String

        @Argument(help: "Field name, e.g. priority.")
        var field: String

        @Flag(inversion: .prefixedNo, help: "Whether records/query may filter on the field.")
        var queryable: Bool?

        @Flag(inversion: .prefixedNo, help: "Whether records/query may sort on the field.")
        var sortable: Bool?

        func validate() throws {
            guard queryable != nil || sortable != nil else { throw ValidationError("give --queryable, --sortable or their --no- forms") }
        }

        func run() async throws {
            try await SchemaAdministration.index(
                dataDirectory: schema.server.dataDirectory, storage: try schema.server.storage, container: location.container,
                environment: environment, recordType: recordType, field: field, queryable: queryable, sortable: sortable)
            print("\(recordType).\(field) marked in \(environment)")
        }
    }

    struct Deploy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "deploy",
            abstract: "Copy the development schema into production (additive: nothing of production is removed).")

        @OptionGroup var location: Location
        @ParentCommand var schema: SchemaCommand

        func run() async throws {
            let types = try await SchemaAdministration.deploy(
                dataDirectory: schema.server.dataDirectory, storage: try schema.server.storage, container: location.container)
            print("Deployed to \(location.container) (production):")
            printLines(SchemaAdministration.describe(types))
        }
    }
}

/// Prints each line of `text` on its own (the sanitiser makes a newline inside one line inert, so the lines go one
/// by one: type and field names come from clients).
private func printLines(_ text: String) {
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0) { print(line) }
}
