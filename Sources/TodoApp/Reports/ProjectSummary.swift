import Foundation

/// `todo summary` and `todo projects`: per project (a list path, `Home.Garden` below `Home`), how many todos are open
/// and how many are done, each parent counting its children's, as Taskwarrior's summary and projects reports count
/// sub-projects in their parent. Which todos count is `ReportCounting`'s rule.
public struct ProjectSummary: Sendable, Hashable {
    /// One line of the summary.
    public struct Line: Sendable, Hashable {
        /// The whole path (`Home.Garden`), nil for the todos in no list.
        public var path: String?
        /// How deep it is: 0 for a top-level project.
        public var depth: Int
        /// Open todos in it and below it.
        public var open: Int
        /// Done todos in it and below it.
        public var done: Int

        /// The last part of the path ("Garden"), or `(none)`.
        public var name: String { path.map { String($0.split(separator: ".", omittingEmptySubsequences: false).last ?? "") } ?? "(none)" }
        /// The percentage done, 0…100 (rounded down, so 100 means all done).
        public var percentDone: Int { open + done == 0 ? 0 : done * 100 / (open + done) }
    }

    /// The lines: projects in path order (a parent before its children), then the todos in no list.
    public private(set) var lines: [Line] = []
    /// How many projects were left out for having nothing open.
    public private(set) var finishedLeftOut = 0

    /// The summary of todos given as their list path (nil: in no list) and whether each is done. A path's parents
    /// get lines of their own even when no list has that name. A project with nothing open in it or below it is
    /// left out unless `everyProject`, as Taskwarrior leaves it out unless `summary.all.projects` is set.
    public init(_ todos: [(path: String?, isCompleted: Bool)], everyProject: Bool = false) {
        var counts: [String: (open: Int, done: Int)] = [:]
        var loose = (open: 0, done: 0)
        for todo in todos {
            guard let path = todo.path.map(Self.normalized), !path.isEmpty else {
                if todo.isCompleted { loose.done += 1 } else { loose.open += 1 }
                continue
            }
            let parts = path.split(separator: ".", omittingEmptySubsequences: false)
            for end in 1...parts.count {
                let prefix = parts[..<end].joined(separator: ".")
                var count = counts[prefix] ?? (0, 0)
                if todo.isCompleted { count.done += 1 } else { count.open += 1 }
                counts[prefix] = count
            }
        }
        // A parent sorts right before its children: compare part by part, case-insensitively.
        let paths = counts.keys.sorted { a, b in
            let x = a.lowercased().split(separator: ".", omittingEmptySubsequences: false)
            let y = b.lowercased().split(separator: ".", omittingEmptySubsequences: false)
            for (p, q) in zip(x, y) where p != q { return p < q }
            return x.count != y.count ? x.count < y.count : a < b
        }
        lines = paths.map { path in
            let count = counts[path] ?? (0, 0)
            return Line(path: path, depth: path.count(where: { $0 == "." }), open: count.open, done: count.done)
        }
        if loose.open + loose.done > 0 { lines.append(Line(path: nil, depth: 0, open: loose.open, done: loose.done)) }
        if !everyProject {
            finishedLeftOut = lines.count(where: { $0.open == 0 })
            lines.removeAll { $0.open == 0 }
        }
    }

    /// A list title as a path: spaces around the dots dropped (`Home . Garden` is `Home.Garden`).
    static func normalized(_ title: String) -> String {
        title.split(separator: ".", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: ".")
    }

    /// The report as lines of text at most `width` columns wide (80 and more give the bar its full 20 columns).
    public func text(width: Int = 80, ink: ReportInk = .plain) -> [String] {
        guard !lines.isEmpty else {
            return [finishedLeftOut > 0 ? "No open todos: every project is done (todo summary --all shows them)." : "No todos: nothing to summarise."]
        }
        let names = lines.map { String(repeating: "  ", count: $0.depth) + $0.name }
        let nameWidth = min(32, max(7, names.map(\.count).max() ?? 0))
        let numbers = 6 + 6 + 6
        // A bar narrower than 10 columns says nothing: it goes first when the width is short.
        let room = min(20, width - nameWidth - numbers - 2)
        let barWidth = room >= 10 ? room : 0
        var out = [ink.paint(padded("Project", nameWidth) + rightAligned("Open", 6) + rightAligned("Done", 6) + rightAligned("Done%", 6) + (barWidth > 0 ? "  " + padded("0%", barWidth - 4) + "100%" : ""), .heading)]
        for (line, name) in zip(lines, names) {
            let shown = name.count > nameWidth ? String(name.prefix(nameWidth - 1)) + "…" : name
            var row = padded(shown, nameWidth) + rightAligned(String(line.open), 6) + rightAligned(String(line.done), 6)
            row += rightAligned("\(line.percentDone)%", 6)
            if barWidth > 0 {
                let filled = (line.done + line.open) == 0 ? 0 : line.done * barWidth / (line.done + line.open)
                let bar = ink.colour
                    ? ink.paint(String(repeating: "█", count: filled), .done) + ink.paint(String(repeating: "░", count: barWidth - filled), .muted)
                    : String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled)
                row += "  " + bar
            }
            out.append(row)
        }
        let projects = lines.filter { $0.path != nil }
        let open = lines.filter { $0.depth == 0 }.reduce(0) { $0 + $1.open }
        let done = lines.filter { $0.depth == 0 }.reduce(0) { $0 + $1.done }
        out.append("")
        out.append(ink.paint("\(projects.count) project\(projects.count == 1 ? "" : "s"), \(open) open, \(done) done", .muted))
        return out
    }

    /// `todo projects`: each project, indented under its parent, with its open todos (its children's included), then
    /// `(none)`; a line saying so when nothing is open.
    public func projectsText() -> [String] {
        guard !lines.isEmpty else { return ["No projects: no todo is open."] }
        let names = lines.map { String(repeating: "  ", count: $0.depth) + $0.name }
        let width = max(7, names.map(\.count).max() ?? 0)
        let open = lines.filter { $0.depth == 0 }.reduce(0) { $0 + $1.open }
        let projects = lines.count(where: { $0.path != nil })
        return [padded("Project", width) + "  Open"] + zip(lines, names).map { line, name in
            padded(name, width) + "  " + rightAligned(String(line.open), 4)
        } + ["", "\(projects) project\(projects == 1 ? "" : "s"), \(open) open"]
    }
}
