import CloudClient
import Foundation
import TOMLKit
import Terminal
import TodoPlanning
import TodoStore
import TodoSync
import TodoUI

/// Everything the configuration file holds.
public struct DeviceSettings: Sendable, Hashable {
    /// The saved login, nil when signed out of the saved cloud.
    public var login: SavedLogin?
    /// How the app starts and sorts.
    public var view = ViewSettings()
    /// Saved filters (contexts), by name.
    public var filters: [NamedFilter] = []
    /// `[keys]`: command name → the keys that run it (`Keymap(overrides:)` reads them; checked when read).
    public var keys: [String: String] = [:]
    /// `[colors]`: colour role → colour (`Palette(overrides:)` reads them; checked when read).
    public var colors: [String: String] = [:]
    /// `[urgency]`: coefficient name → value (`UrgencyCoefficients(overrides:)` reads them; checked when read).
    public var urgency: [String: Double] = [:]

    /// The key table `[keys]` makes of the standard one.
    public var keymap: Keymap { (try? Keymap(overrides: keys)) ?? .standard }
    /// The colours `[colors]` makes of the standard ones.
    public var palette: Palette { (try? Palette(overrides: colors)) ?? .standard }
    /// The urgency coefficients `[urgency]` makes of Taskwarrior's.
    public var urgencyCoefficients: UrgencyCoefficients { (try? UrgencyCoefficients(overrides: urgency)) ?? UrgencyCoefficients() }

    /// No settings.
    public init() {}
}

/// How the app shows todos: the sort and the view it opens on (nil: the defaults).
public struct ViewSettings: Sendable, Hashable {
    /// `due`, `priority`, `created`, `title` or `next` (urgency).
    public var sort: String?
    /// `todos` or `today`.
    public var start: String?
    /// The saved filter in effect everywhere (`todo context NAME`): a name in `[filters]`; nil for none.
    public var context: String?
    /// The day calendars start their weeks on: `monday` (nil: the default, ISO 8601) or `sunday`.
    public var weekStart: String?

    /// The defaults.
    public init(sort: String? = nil, start: String? = nil, context: String? = nil, weekStart: String? = nil) {
        self.sort = sort
        self.start = start
        self.context = context
        self.weekStart = weekStart
    }

    /// Whether calendars start their weeks on Sunday.
    public var sundayFirst: Bool { weekStart == "sunday" }

    static let keys = ["sort", "start", "context", "week-start"]
    static let weekStarts = ["monday", "sunday"]
    static let sorts = ["due", "priority", "created", "title", "next"]
    static let starts = ["todos", "today"]
}

/// A filter saved under a name (a context), switchable from the app.
public struct NamedFilter: Sendable, Hashable {
    /// The name shown.
    public var name: String
    /// The filter text, as typed after `/`.
    public var text: String

    /// A saved filter.
    public init(name: String, text: String) {
        self.name = name
        self.text = text
    }
}

/// The login `todo login` saves: which cloud, which account, which device, which certificates to trust.
public struct SavedLogin: Sendable, Hashable {
    /// The cloud's URL as given to `todo login`.
    public var server: URL
    /// The account signed in.
    public var account: String
    /// The device name, nil for the default (`main`).
    public var device: String?
    /// A PEM file of extra certificate authorities (a private CA), nil for the system's store only.
    public var caFile: String?

    /// A saved login.
    public init(server: URL, account: String, device: String? = nil, caFile: String? = nil) {
        self.server = server
        self.account = account
        self.device = device
        self.caFile = caFile
    }
}

/// The device's configuration file, `config.toml` in the configuration directory (`$XDG_CONFIG_HOME/cloudtodo/`).
///
/// It holds the saved login in a `[login]` table (`cloud`, `account`, `device`, `ca-file`), the app's view in `[view]`
/// (`sort`: due, priority, created, title or next; `start`: todos or today; `context`: a saved filter's name) and saved filters in `[filters]` (name = filter
/// text). It is read as untrusted
/// input: a file that is not TOML, too large, has a value of the wrong type or a key this version does not know is
/// an error naming the file and the line, never a crash and never silently ignored.
public struct ConfigFile: Sendable {
    /// The largest configuration file read, in bytes.
    public static let maximumSize = 64 * 1024
    /// The file's name in the configuration directory.
    public static let fileName = "config.toml"
    /// The keys of the `[login]` table, in the order they are written.
    static let loginKeys = ["cloud", "account", "device", "ca-file"]
    /// The tables the file may have.
    static let tables: Set<String> = ["login", "view", "filters", "keys", "colors", "urgency"]

    /// Where the file lives.
    public let url: URL

    /// The configuration file in `directory`.
    public init(directory: URL) {
        url = directory.appendingFilePath(Self.fileName)
    }

    /// The configuration file of a device's options (its configuration directory).
    public init(_ options: DeviceOptions) {
        self.init(directory: options.resolvedConfigDirectory)
    }

    /// The saved login; nil when there is no file or it saves no login.
    public func savedLogin() throws(ConfigFileError) -> SavedLogin? {
        try settings().login
    }

    /// Everything the file says (nothing when there is no file).
    public func settings() throws(ConfigFileError) -> DeviceSettings {
        guard let text = try readText() else { return DeviceSettings() }
        return try parse(text)
    }

    /// Saves `login` (atomically, mode 0600 in a 0700 directory), replacing any earlier one; other settings stay.
    public func save(_ login: SavedLogin) throws {
        var settings = (try? settings()) ?? DeviceSettings()
        settings.login = login
        try write(settings)
    }

    /// Saves the view settings and saved filters, keeping the login.
    public func savePreferences(view: ViewSettings, filters: [NamedFilter]) throws {
        try update {
            $0.view = view
            $0.filters = filters
        }
    }

    /// Reads the settings once, lets `change` change them, and writes them back (the rest kept as they were).
    public func update(_ change: (inout DeviceSettings) -> Void) throws {
        var settings = try settings()
        change(&settings)
        try write(settings)
    }

    /// Forgets the saved login (the file goes when it holds nothing else); answers whether there was one.
    @discardableResult
    public func forgetLogin() -> Bool {
        let existed = FileManager.default.fileExists(atPath: url.path)
        if var settings = try? settings(), settings.view != ViewSettings() || !settings.filters.isEmpty || !settings.keys.isEmpty
            || !settings.colors.isEmpty
        {
            settings.login = nil
            if (try? write(settings)) != nil { return existed }
        }
        SecretFile.remove(url)
        return existed
    }

    /// Writes every setting (atomically, mode 0600 in a 0700 directory).
    private func write(_ settings: DeviceSettings) throws {
        let table = TOMLTable()
        if let login = settings.login {
            var fields: [String: String] = ["cloud": login.server.absoluteString, "account": login.account]
            fields["device"] = login.device
            fields["ca-file"] = login.caFile
            table["login"] = try Self.table(fields, order: Self.loginKeys, name: "login")
        }
        var view: [String: String] = [:]
        view["sort"] = settings.view.sort
        view["start"] = settings.view.start
        view["context"] = settings.view.context
        view["week-start"] = settings.view.weekStart
        if !view.isEmpty { table["view"] = try Self.table(view, order: ViewSettings.keys, name: "view") }
        if !settings.filters.isEmpty {
            let filters = Dictionary(settings.filters.map { ($0.name, $0.text) }, uniquingKeysWith: { _, last in last })
            table["filters"] = try Self.table(filters, order: filters.keys.sorted(), name: "filters")
        }
        if !settings.keys.isEmpty { table["keys"] = try Self.table(settings.keys, order: settings.keys.keys.sorted(), name: "keys", allowingEmpty: true) }
        if !settings.colors.isEmpty { table["colors"] = try Self.table(settings.colors, order: settings.colors.keys.sorted(), name: "colors") }
        if !settings.urgency.isEmpty { table["urgency"] = Self.urgencyTable(settings.urgency) }
        let text = "# CloudTodo on this device: the login `todo login` saves, the app's view and saved filters.\n"
            + table.convert(to: .toml) + "\n"
        try SecretFile.write(Data(text.utf8), to: url)
    }

    /// A TOML table of single-line strings, in `order`.
    private static func table(_ fields: [String: String], order: [String], name: String, allowingEmpty: Bool = false) throws -> TOMLTable {
        let table = TOMLTable()
        for key in order {
            guard let value = fields[key] else { continue }
            // What is saved must read back: one non-empty line, as `parse` demands.
            guard !value.isEmpty || allowingEmpty, !value.contains(where: { $0.isNewline || $0 == "\0" }) else {
                throw ConfigFileError(file: name, line: nil, problem: "cannot hold '\(key)': it must be one non-empty line")
            }
            table[key] = value
        }
        return table
    }

    // MARK: Reading untrusted text

    /// The file's text; nil when it does not exist.
    func readText() throws(ConfigFileError) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.filePath, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue { throw error("a directory, not a file") }
        guard let handle = FileHandle(forReadingAtPath: url.filePath) else { throw error("cannot be read (permissions?)") }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: Self.maximumSize + 1) ?? Data()
        } catch {
            throw self.error("cannot be read: \(error.localizedDescription)")
        }
        if data.count > Self.maximumSize { throw error("larger than \(Self.maximumSize / 1024) KiB, where a configuration file is a few lines") }
        guard let text = String(data: data, encoding: .utf8) else { throw error("not UTF-8 text") }
        if let index = text.firstIndex(of: "\0") {
            throw error("a NUL byte", line: text[..<index].count(where: { $0 == "\n" }) + 1)
        }
        return text
    }

    /// The settings the text describes.
    func parse(_ text: String) throws(ConfigFileError) -> DeviceSettings {
        if let (line, problem) = ConfigTextShape.problem(in: text) { throw error(problem, line: line) }
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let parse as TOMLParseError {
            throw error("not valid TOML: \(parse.description)", line: parse.source.begin.line)
        } catch {
            throw self.error("not valid TOML")
        }
        for key in root.keys where !Self.tables.contains(key) {
            throw error("an unknown setting '\(printable(key))' (known: [login], [view], [filters], [keys], [colors], [urgency])", line: line(of: key, in: nil, text))
        }
        var settings = DeviceSettings()
        if let login = try strings(of: "login", in: root, text, known: Self.loginKeys) {
            guard let cloud = login["cloud"] else { throw error("[login] has no 'cloud' (the cloud's URL)", line: line(of: "login", in: nil, text)) }
            guard let url = URL(string: cloud), CloudOrigin(url) != nil else {
                throw error("'cloud' in [login] must be an http:// or https:// URL with a host", line: line(of: "cloud", in: "login", text))
            }
            guard let account = login["account"] else { throw error("[login] has no 'account'", line: line(of: "login", in: nil, text)) }
            settings.login = SavedLogin(server: url, account: account, device: login["device"], caFile: login["ca-file"])
        }
        if let view = try strings(of: "view", in: root, text, known: ViewSettings.keys) {
            if let sort = view["sort"] {
                guard ViewSettings.sorts.contains(sort) else {
                    throw error("'sort' in [view] must be one of \(ViewSettings.sorts.joined(separator: ", "))", line: line(of: "sort", in: "view", text))
                }
                settings.view.sort = sort
            }
            if let start = view["start"] {
                guard ViewSettings.starts.contains(start) else {
                    throw error("'start' in [view] must be one of \(ViewSettings.starts.joined(separator: ", "))", line: line(of: "start", in: "view", text))
                }
                settings.view.start = start
            }
            settings.view.context = view["context"]
            if let weekStart = view["week-start"] {
                guard ViewSettings.weekStarts.contains(weekStart) else {
                    throw error("'week-start' in [view] must be monday or sunday", line: line(of: "week-start", in: "view", text))
                }
                settings.view.weekStart = weekStart
            }
        }
        if let filters = try strings(of: "filters", in: root, text, known: nil) {
            settings.filters = filters.pairs.sorted { $0.key < $1.key }.map { NamedFilter(name: $0.key, text: $0.value) }
            // Each is read now, as the app will read it: a filter that cannot work is told with the file, not later.
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .current
            let now = Date()
            let grammar = DueDateGrammar(now: now, calendar: calendar)
            for filter in settings.filters {
                do {
                    _ = try TodoFilter.parse(filter.text, now: now, calendar: calendar) { try grammar.parse($0) }
                } catch {
                    throw self.error(
                        "the saved filter '\(printable(filter.name))' in [filters] cannot be used: \(error.description)",
                        line: line(of: filter.name, in: "filters", text))
                }
            }
        }
        if let context = settings.view.context, !settings.filters.contains(where: { $0.name == context }) {
            throw error(
                "'context' in [view] names '\(printable(context))', which [filters] does not have (todo context none clears it)",
                line: line(of: "context", in: "view", text))
        }
        if let keys = try strings(of: "keys", in: root, text, known: Keymap.commandNames, allowingEmpty: true)?.dictionary {
            do {
                _ = try Keymap(overrides: keys)
            } catch {
                throw self.error(error.description, line: line(of: "keys", in: nil, text))
            }
            settings.keys = keys
        }
        if let colors = try strings(of: "colors", in: root, text, known: Palette.roleNames)?.dictionary {
            do {
                _ = try Palette(overrides: colors)
            } catch {
                throw self.error(error.description, line: line(of: "colors", in: nil, text))
            }
            settings.colors = colors
        }
        settings.urgency = try urgency(in: root, text)
        return settings
    }

    /// The string values of a table (nil when the file has none), every key checked against `known` (nil: any key).
    private func strings(
        of table: String, in root: TOMLTable, _ text: String, known: [String]?, allowingEmpty: Bool = false
    ) throws(ConfigFileError) -> ConfigStrings? {
        guard let value = root[table] else { return nil }
        guard let contents = value.table else {
            throw error("'\(table)' must be a table ([\(table)]), not \(value.type.withArticle)", line: line(of: table, in: nil, text))
        }
        var strings = ConfigStrings()
        for key in contents.keys {
            let at = line(of: key, in: table, text)
            if let known, !known.contains(key) {
                throw error("an unknown setting '\(printable(key))' in [\(table)] (known: \(known.joined(separator: ", ")))", line: at)
            }
            guard key.count <= 64, !key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw error("a name in [\(table)] must be at most 64 characters without control characters", line: at)
            }
            guard let string = contents[key]?.string else {
                throw error("'\(printable(key))' in [\(table)] must be a string, not \(contents[key]?.type.withArticle ?? "a value")", line: at)
            }
            guard !string.isEmpty || allowingEmpty, !string.contains(where: { $0.isNewline || $0 == "\0" }) else {
                throw error("'\(printable(key))' in [\(table)] must be a non-empty single line", line: at)
            }
            strings.pairs.append((key, string))
        }
        return strings
    }

    /// The line (1-based) where `key` is set in `table` (nil: the top level, where a table header also counts).
    func line(of key: String, in table: String?, _ text: String) -> Int? {
        var current: String?
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            // Trimmed here, not by Foundation's `trimmingCharacters(in:)`: its NSString bridge made the runtime scan
            // every conformance record of the binary three times on the first line of every command with a saved login.
            let line = Self.trimmed(raw, Self.isBlank)
            if line.hasPrefix("[") {
                let header = { (character: Character) in character == "[" || character == "]" || Self.isBlank(character) }
                let name = Self.trimmed(line, header).split(separator: "#").first.map { String(Self.trimmed($0, header)) } ?? ""
                current = name
                if table == nil, name == key || name.hasPrefix(key + ".") || name == "\"\(key)\"" { return index + 1 }
                continue
            }
            guard current == table else { continue }
            for spelling in [key, "\"\(key)\"", "'\(key)'"] where line.hasPrefix(spelling) {
                let rest = line.dropFirst(spelling.count).drop(while: { $0 == " " || $0 == "\t" })
                if rest.hasPrefix("=") || rest.hasPrefix(".") { return index + 1 }
            }
        }
        return nil
    }

    /// A table's string values in the file's order (TOML keys are unique), found by name without a dictionary: the
    /// standard library's `[String: String]` code makes the runtime scan every conformance record of the binary, and
    /// every command with a saved login reads its `[login]` table.
    struct ConfigStrings {
        /// The keys and values, as the file gives them.
        var pairs: [(key: String, value: String)] = []

        /// The value of `key`; nil when the table does not set it.
        subscript(key: String) -> String? { pairs.first { $0.key == key }?.value }

        /// The pairs as a dictionary (the tables kept whole: `[keys]`, `[colors]`).
        var dictionary: [String: String] { Dictionary(pairs, uniquingKeysWith: { $1 }) }
    }

    /// TOML's blanks between tokens: space and tab.
    static func isBlank(_ character: Character) -> Bool { character == " " || character == "\t" }

    /// `text` without the characters `drop` names at its start and end.
    static func trimmed(_ text: Substring, _ drop: (Character) -> Bool) -> Substring {
        guard let first = text.firstIndex(where: { !drop($0) }), let last = text.lastIndex(where: { !drop($0) }) else { return "" }
        return text[first...last]
    }

    /// A key as it may be shown: controls made visible, at most 40 characters.
    func printable(_ key: String) -> String {
        let visible = String(String.UnicodeScalarView(key.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
        return visible.count > 40 ? String(visible.prefix(40)) + "…" : visible
    }

    func error(_ problem: String, line: Int? = nil) -> ConfigFileError {
        ConfigFileError(file: url.path, line: line, problem: problem)
    }
}

/// A configuration file that cannot be used, with where and why.
public struct ConfigFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file's path.
    public var file: String
    /// The 1-based line, when known.
    public var line: Int?
    /// What is wrong, in words.
    public var problem: String

    /// Words for the user: the file, the line, what is wrong and what to do.
    public var description: String {
        let place = line.map { "\(file), line \($0)" } ?? file
        return "the configuration file \(place): \(problem) (fix or remove it; todo logout removes it)"
    }
}

extension TOMLType {
    /// The type's name as a TOML user knows it, with its article.
    fileprivate var withArticle: String {
        switch self {
        case .bool: "a boolean"
        case .int: "an integer"
        case .double: "a float"
        case .string: "a string"
        case .date: "a date"
        case .time: "a time"
        case .dateTime: "a date-time"
        case .array: "an array"
        case .table: "a table"
        }
    }
}
