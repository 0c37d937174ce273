import Foundation
import Testing
import TodoApp

/// config.toml's `[view]` keys the reports add: `context` (todo context) and `week-start` (calendars).
@Suite("config.toml: context and week-start")
struct ConfigViewTests {
    func file(_ text: String) throws -> ConfigFile {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("config-view-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = ConfigFile(directory: directory)
        try text.write(to: file.url, atomically: true, encoding: .utf8)
        return file
    }

    @Test func readAndWrittenBack() throws {
        let file = try file("[view]\ncontext = \"work\"\nweek-start = \"sunday\"\nsort = \"next\"\n[filters]\nwork = \"+work\"\n")
        defer { try? FileManager.default.removeItem(at: file.url.deletingLastPathComponent()) }
        let settings = try file.settings()
        #expect(settings.view.context == "work" && settings.view.sundayFirst && settings.view.sort == "next")
        try file.update { $0.view.context = nil }
        let again = try file.settings()
        #expect(again.view.context == nil && again.view.weekStart == "sunday" && again.filters.count == 1)
    }

    @Test func mistakesAreToldWithTheLine() throws {
        let unknownDay = try file("[view]\nweek-start = \"friday\"\n")
        defer { try? FileManager.default.removeItem(at: unknownDay.url.deletingLastPathComponent()) }
        #expect(throws: ConfigFileError.self) { try unknownDay.settings() }
        do {
            _ = try unknownDay.settings()
        } catch {
            #expect(error.line == 2 && error.problem == "'week-start' in [view] must be monday or sunday")
        }
        let missing = try file("[view]\ncontext = \"home\"\n")
        defer { try? FileManager.default.removeItem(at: missing.url.deletingLastPathComponent()) }
        do {
            _ = try missing.settings()
            Issue.record("a context naming no saved filter was read")
        } catch {
            #expect(error.line == 2 && error.problem.hasPrefix("'context' in [view] names 'home', which [filters] does not have"))
        }
    }

    @Test(arguments: [
        ("[view]\nweek-start = \"friday\"\n", 2),
        ("# a comment\n\n  [ view ]  # the view\n\tsort = \"due\"\n \t week-start\t= \"friday\"\n", 5),
        ("[filters]\nweek-start = \"x\"\n[\tview\t]\n\"week-start\" = \"friday\"\n", 4),
        ("[view]\n'week-start'   =   \"friday\"\r\n", 2),
    ])
    func theLineIsFoundThroughBlanksAndHeaderSpellings(_ text: String, _ line: Int) throws {
        let file = try file(text)
        defer { try? FileManager.default.removeItem(at: file.url.deletingLastPathComponent()) }
        do {
            _ = try file.settings()
            Issue.record("a week starting on friday was read")
        } catch {
            #expect(error.line == line && error.problem == "'week-start' in [view] must be monday or sunday")
        }
    }
}
