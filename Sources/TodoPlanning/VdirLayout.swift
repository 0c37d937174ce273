import Foundation

/// Why a vdir could not be read or written.
public struct VdirError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One plain sentence saying what is wrong and what is accepted.
    public let description: String
}

/// The vdir layout vdirsyncer and todoman use: one directory per list (its name in a `displayname` file), one `.ics`
/// file per todo.
public enum VdirLayout {
    /// The directory todos without a list are written to.
    public static let unlistedDirectory = "Todos"
    /// The largest `.ics` file read, in bytes.
    static let fileBytes = 16 * 1024 * 1024
    /// The most `.ics` files read from one directory tree.
    static let files = 1_000_000

    /// The todos of a vdir: each subdirectory is a list (named by its `displayname` file, else by the directory), each
    /// `.ics` file in it holds a todo. `.ics` files directly in `directory` make it a list of its own. Warnings name the file.
    public static func read(directory: URL, calendar: Calendar) throws(VdirError) -> PortableImport {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw VdirError(description: "\(directory.path) is not a directory; give a vdir (a directory of list directories of .ics files).")
        }
        var log = WarningLog()
        var todos: [PortableTodo] = []
        var seen: Set<String> = []
        var fileCount = 0
        let lists = [directory] + entries(of: directory).filter { isDir($0) }
        for list in lists {
            let files = entries(of: list).filter { $0.pathExtension.lowercased() == "ics" && !isDir($0) }
            if files.isEmpty { continue }
            let name = listName(of: list)
            let prefix = list == directory ? "" : list.lastPathComponent + "/"
            for file in files {
                fileCount += 1
                guard fileCount <= Self.files else {
                    log.add("The vdir holds more than \(Self.files) .ics files; the rest were skipped.")
                    return PortableImport(todos: todos, warnings: log.all)
                }
                let label = prefix + file.lastPathComponent
                guard let size = (try? manager.attributesOfItem(atPath: file.path))?[.size] as? NSNumber, size.intValue <= fileBytes,
                    let data = try? Data(contentsOf: file)
                else {
                    log.add("\(label): could not be read or is larger than 16 MiB; it was skipped.")
                    continue
                }
                do throws(ICalendarError) {
                    let result = try ICalendar.decode(String(decoding: data, as: UTF8.self), calendar: calendar)
                    for warning in result.warnings { log.add(label + ": " + warning) }
                    for var todo in result.todos {
                        todo.listName = name
                        if seen.insert(todo.uid).inserted {
                            todos.append(todo)
                        } else {
                            log.add("\(label): a second todo with UID \(PortableLimits.quoted(todo.uid)); only the first was kept.")
                        }
                    }
                } catch {
                    log.add(label + ": " + error.description)
                }
            }
        }
        return PortableImport(todos: todos, warnings: log.all)
    }

    /// Writes `todos` as a vdir into `directory`, which must not exist yet or be empty: one subdirectory per list
    /// (a safe name, the real one in `displayname`; todos without a list in `Todos`), one `<uid>.ics` per todo, each
    /// file written atomically.
    public static func write(_ todos: [PortableTodo], to directory: URL, calendar: Calendar, now: Date = Date()) throws(VdirError) {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw VdirError(description: "\(directory.path) is a file; give a new or empty directory to write the vdir into.")
            }
            let contents = (try? manager.contentsOfDirectory(atPath: directory.path)) ?? ["?"]
            guard contents.isEmpty else {
                throw VdirError(description: "\(directory.path) is not empty; give a new or empty directory to write the vdir into.")
            }
        }
        var groups: [String: [PortableTodo]] = [:]
        var order: [String] = []
        for todo in todos {
            let list = todo.listName ?? unlistedDirectory
            if groups[list] == nil { order.append(list) }
            groups[list, default: []].append(todo)
        }
        var usedDirectories: Set<String> = []
        do {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true)
            for list in order {
                let name = unique(safeName(list, fallback: "List", keep: ""), in: &usedDirectories)
                let folder = directory.appendingPathComponent(name, isDirectory: true)
                try manager.createDirectory(at: folder, withIntermediateDirectories: false)
                try Data(list.utf8).write(to: folder.appendingPathComponent("displayname"), options: .atomic)
                var usedFiles: Set<String> = ["displayname"]
                for todo in groups[list] ?? [] {
                    let file = unique(fileStem(todo.uid), in: &usedFiles) + ".ics"
                    let text = ICalendar.encode([todo], calendar: calendar, includeList: false, now: now)
                    try Data(text.utf8).write(to: folder.appendingPathComponent(file), options: .atomic)
                }
            }
        } catch {
            throw VdirError(description: "Could not write the vdir into \(directory.path): \(error.localizedDescription)")
        }
    }

    /// `text` as a portable file or directory name: ASCII letters, digits, `-`, `_`, `.` and the characters in `keep`,
    /// other runs as one `-`, no leading dot, at most 64 characters; `fallback` when nothing is left.
    static func safeName(_ text: String, fallback: String, keep: String) -> String {
        var out = ""
        var pendingDash = false
        for scalar in text.unicodeScalars {
            let ascii = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
            if ascii || scalar == "-" || scalar == "_" || scalar == "." || keep.unicodeScalars.contains(scalar) {
                if pendingDash, !out.isEmpty { out.append("-") }
                pendingDash = false
                out.unicodeScalars.append(scalar)
                if out.utf8.count >= 64 { break }
            } else {
                pendingDash = true
            }
        }
        while out.hasPrefix(".") || out.hasPrefix("-") { out.removeFirst() }
        while out.hasSuffix(".") || out.hasSuffix("-") { out.removeLast() }
        return out.isEmpty ? fallback : out
    }

    /// The file name (without `.ics`) for a todo's UID: the UID itself when already safe, else a safe form of it
    /// followed by part of a hash of the whole UID (so different UIDs never share a name).
    static func fileStem(_ uid: String) -> String {
        let safe = safeName(uid, fallback: "todo", keep: "@+=")
        if safe == uid { return safe }
        return safe + "-" + StableID.uuid(uid).prefix(8)
    }

    /// `name`, or `name-2`, `name-3`… when already taken (ignoring case, for case-insensitive file systems).
    private static func unique(_ name: String, in used: inout Set<String>) -> String {
        var candidate = name
        var number = 1
        while used.contains(candidate.lowercased()) {
            number += 1
            candidate = name + "-" + String(number)
        }
        used.insert(candidate.lowercased())
        return candidate
    }

    /// A list's name: its `displayname` file (first line, trimmed, control characters dropped) else the directory name.
    private static func listName(of directory: URL) -> String {
        let file = directory.appendingPathComponent("displayname")
        if let data = try? Data(contentsOf: file), data.count <= 64 * 1024 {
            let text = String(decoding: data, as: UTF8.self)
            let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            let cleaned = String(String.UnicodeScalarView(line.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
            let name = PortableLimits.field(cleaned.trimmingCharacters(in: .whitespaces)).text
            if !name.isEmpty { return name }
        }
        return directory.lastPathComponent
    }

    /// The visible entries of `directory`, sorted by name.
    private static func entries(of directory: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
    }

    private static func isDir(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
