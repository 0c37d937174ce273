import ArgumentParser
import CommandLineSupport
import Foundation
import TodoApp
import TodoPlanning
import TodoSync

/// `todo context [NAME | none | list]`: which saved filter (`[filters]` in config.toml) applies to `list`, `next` and
/// the app, as Taskwarrior's `task context` does.
struct Context: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "context", abstract: "Show, set or clear the context: a saved filter applied to list, next and the app.",
        discussion: """
            todo context NAME puts the filter saved as NAME in config.toml's [filters] in effect for todo list, todo \
            next and the app (its header shows it) until todo context none; the filter terms given to a verb narrow \
            it further. todo context alone prints the context in effect; todo context list every saved filter, the \
            one in effect marked with *. Filters are defined in [filters] (or saved in the app with F).
            """)

    @OptionGroup var device: DeviceOptionGroup

    @Argument(help: "A saved filter's name, none (clear it) or list; nothing: show the one in effect.")
    var name: String?

    func run() throws {
        let file = ConfigFile(try device.deviceOptions())
        let settings: DeviceSettings
        do { settings = try file.settings() } catch { throw ValidationError(error.description) }
        switch name {
        case nil:
            guard let current = settings.view.context, let filter = settings.filters.first(where: { $0.name == current }) else {
                print("no context" + (settings.filters.isEmpty ? " (no saved filters: define them in [filters] of \(file.url.path))" : ""))
                return
            }
            print("\(filter.name): \(filter.text)")
        case "list"?:
            if settings.filters.isEmpty { printError("no saved filters: define them in [filters] of \(file.url.path)") }
            for filter in settings.filters {
                print((filter.name == settings.view.context ? "* " : "  ") + filter.name + ": " + filter.text)
            }
        case "none"?:
            if settings.view.context != nil { try file.update { $0.view.context = nil } }
            print("No context: list, next and the app show every todo again.")
        case let name?:
            guard let filter = settings.filters.first(where: { $0.name == name }) else {
                let known = settings.filters.map(\.name).joined(separator: ", ")
                throw ValidationError(
                    "there is no saved filter '\(name)'" + (known.isEmpty ? "; define it in [filters] of \(file.url.path)" : " (saved: \(known))"))
            }
            try file.update { $0.view.context = filter.name }
            print("Context '\(filter.name)' set (\(filter.text)); todo context none clears it.")
        }
    }
}

/// The context in effect (`todo context NAME`) as a compiled filter with its name; nil when none is set.
func activeContext(_ options: DeviceOptions) throws -> (name: String, filter: TodoFilter)? {
    let settings: DeviceSettings
    do { settings = try ConfigFile(options).settings() } catch { throw ValidationError(error.description) }
    guard let name = settings.view.context, let saved = settings.filters.first(where: { $0.name == name }) else { return nil }
    do {
        return (name, try TodoFilter.parse(saved.text, now: Date(), calendar: planningCalendar) { try parseDueDate($0) })
    } catch {
        throw ValidationError("the context '\(name)' cannot be used: \(error)")
    }
}

/// The line on standard error that says a context narrows what is shown.
func contextLine(_ context: (name: String, filter: TodoFilter)) -> String {
    "context '\(context.name)' in effect (\(context.filter.summary)); todo context none shows everything"
}

/// The line on standard error that says what the context wrote into a new todo.
func contextWriteLine(_ name: String, tags: [String], project: String?) -> String {
    var parts: [String] = []
    if !tags.isEmpty { parts.append("tagged " + tags.map { "+" + $0 }.joined(separator: " ")) }
    if let project { parts.append("in project \(project)") }
    return "context '\(name)': " + parts.joined(separator: ", ") + " (todo context none stops this)"
}

extension ContextWrite {
    /// `given` tags, then the context's that are not among them (compared without case).
    static func merged(_ given: [String], _ context: [String]) -> [String] {
        given + context.filter { tag in !given.contains { $0.caseInsensitiveCompare(tag) == .orderedSame } }
    }
}
