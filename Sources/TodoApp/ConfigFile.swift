import CloudClient
import Foundation
import TOMLKit
import TodoSync

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
/// It holds the saved login in a `[login]` table (`cloud`, `account`, `device`, `ca-file`). It is read as untrusted
/// input: a file that is not TOML, too large, has a value of the wrong type or a key this version does not know is
/// an error naming the file and the line, never a crash and never silently ignored.
public struct ConfigFile: Sendable {
    /// The largest configuration file read, in bytes.
    public static let maximumSize = 64 * 1024
    /// The file's name in the configuration directory.
    public static let fileName = "config.toml"
    /// The keys of the `[login]` table, in the order they are written.
    static let loginKeys = ["cloud", "account", "device", "ca-file"]

    /// Where the file lives.
    public let url: URL

    /// The configuration file in `directory`.
    public init(directory: URL) {
        url = directory.appendingPathComponent(Self.fileName)
    }

    /// The configuration file of a device's options (its configuration directory).
    public init(_ options: DeviceOptions) {
        self.init(directory: options.resolvedConfigDirectory)
    }

    /// The saved login; nil when there is no file or it saves no login.
    public func savedLogin() throws(ConfigFileError) -> SavedLogin? {
        guard let text = try readText() else { return nil }
        return try parse(text)
    }

    /// Saves `login` (atomically, mode 0600 in a 0700 directory), replacing any earlier one.
    public func save(_ login: SavedLogin) throws {
        let table = TOMLTable()
        var fields: [String: String] = ["cloud": login.server.absoluteString, "account": login.account]
        fields["device"] = login.device
        fields["ca-file"] = login.caFile
        let loginTable = TOMLTable()
        for key in Self.loginKeys {
            guard let value = fields[key] else { continue }
            // What is saved must read back: one non-empty line, as `savedLogin()` demands.
            guard !value.isEmpty, !value.contains(where: { $0.isNewline || $0 == "\0" }) else {
                throw ConfigFileError(file: url.path, line: nil, problem: "cannot hold '\(key)': it must be one non-empty line")
            }
            loginTable[key] = value
        }
        table["login"] = loginTable
        let text = "# CloudTodo on this device. Written by `todo login`; `todo logout` removes the login.\n" + table.convert(to: .toml)
            + "\n"
        try SecretFile.write(Data(text.utf8), to: url)
    }

    /// Forgets the saved login (the file goes, as it holds nothing else); answers whether there was one.
    @discardableResult
    public func forgetLogin() -> Bool {
        let existed = FileManager.default.fileExists(atPath: url.path)
        SecretFile.remove(url)
        return existed
    }

    // MARK: Reading untrusted text

    /// The file's text; nil when it does not exist.
    func readText() throws(ConfigFileError) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue { throw error("a directory, not a file") }
        guard let handle = FileHandle(forReadingAtPath: url.path) else { throw error("cannot be read (permissions?)") }
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

    /// The saved login the text describes.
    func parse(_ text: String) throws(ConfigFileError) -> SavedLogin? {
        if let (line, problem) = ConfigTextShape.problem(in: text) { throw error(problem, line: line) }
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let parse as TOMLParseError {
            throw error("not valid TOML: \(parse.description)", line: parse.source.begin.line)
        } catch {
            throw self.error("not valid TOML")
        }
        for key in root.keys where key != "login" {
            throw error("an unknown setting '\(printable(key))' (known: [login])", line: line(of: key, in: nil, text))
        }
        guard let value = root["login"] else { return nil }
        guard let login = value.table else {
            throw error("'login' must be a table ([login]), not \(value.type.withArticle)", line: line(of: "login", in: nil, text))
        }
        var strings: [String: String] = [:]
        for key in login.keys {
            let at = line(of: key, in: "login", text)
            guard Self.loginKeys.contains(key) else {
                throw error("an unknown setting '\(printable(key))' in [login] (known: \(Self.loginKeys.joined(separator: ", ")))", line: at)
            }
            guard let string = login[key]?.string else {
                throw error("'\(key)' in [login] must be a string, not \(login[key]?.type.withArticle ?? "a value")", line: at)
            }
            guard !string.isEmpty, !string.contains(where: { $0.isNewline || $0 == "\0" }) else {
                throw error("'\(key)' in [login] must be a non-empty single line", line: at)
            }
            strings[key] = string
        }
        guard let cloud = strings["cloud"] else { throw error("[login] has no 'cloud' (the cloud's URL)", line: line(of: "login", in: nil, text)) }
        guard let url = URL(string: cloud), CloudOrigin(url) != nil else {
            throw error("'cloud' in [login] must be an http:// or https:// URL with a host", line: line(of: "cloud", in: "login", text))
        }
        guard let account = strings["account"] else { throw error("[login] has no 'account'", line: line(of: "login", in: nil, text)) }
        return SavedLogin(server: url, account: account, device: strings["device"], caFile: strings["ca-file"])
    }

    /// The line (1-based) where `key` is set in `table` (nil: the top level, where a table header also counts).
    func line(of key: String, in table: String?, _ text: String) -> Int? {
        var current: String?
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                let name = line.trimmingCharacters(in: CharacterSet(charactersIn: "[] \t")).split(separator: "#").first
                    .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "[] \t")) } ?? ""
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

    /// A key as it may be shown: controls made visible, at most 40 characters.
    private func printable(_ key: String) -> String {
        let visible = String(String.UnicodeScalarView(key.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
        return visible.count > 40 ? String(visible.prefix(40)) + "…" : visible
    }

    private func error(_ problem: String, line: Int? = nil) -> ConfigFileError {
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
