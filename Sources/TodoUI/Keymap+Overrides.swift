import Terminal

extension Keymap {
    /// Keys that keep one meaning whatever a `[keys]` table says: Esc clears the marks (and cancels everywhere),
    /// Ctrl-C quits. They may be named for their own command only, and stay with it.
    static let fixedKeys: [Key: Command] = [.escape: .clearMarks, .ctrl("c"): .quit]

    /// What a fixed key always does, for messages.
    static func fixedMeaning(of key: Key) -> String {
        key == .escape ? "cancels and clears the marks" : "quits"
    }

    /// The commands that must keep a key of their own: without them there is no way to read help or to leave.
    static let essentialCommands: [Command] = [.help, .quit]

    /// The name a `[keys]` table writes `key` with (`x`, `space`, `ctrl-f`, `pgdn`).
    static func configName(_ key: Key) -> String {
        switch key {
        case .char(" "): "space"
        case .char(let character): String(character)
        case .pageUp: "pgup"
        case .pageDown: "pgdn"
        case .backTab: "shift-tab"
        default: key.label.lowercased()
        }
    }

    /// Every command's name in a `[keys]` table, in help order.
    public static let commandNames = Command.allCases.map(\.name)

    /// The standard keymap with the commands a `[keys]` table names (command name → keys separated by spaces) given
    /// those keys instead of their own; an empty list leaves a command without key (not `quit` or `help`).
    ///
    /// A key named for one command is taken from the command that had it by default. Esc and Ctrl-C keep their
    /// meaning. Throws the first problem: unknown command names (in name order), then per command in help order a
    /// word that is no key, a fixed key, a key already given to an earlier command; last, `help` or `quit` left
    /// without a key. Key names: see `KeyName`.
    public init(overrides: [String: String]) throws(KeymapError) {
        let known = Set(Self.commandNames)
        if let unknown = overrides.keys.filter({ !known.contains($0) }).sorted().first {
            throw .unknownCommand(unknown)
        }
        var given: [Command: [Key]] = [:]
        var owner: [Key: Command] = [:]
        for command in Command.allCases {
            guard let text = overrides[command.name] else { continue }
            var keys: [Key] = []
            for word in text.split(whereSeparator: \.isWhitespace) {
                guard let key = KeyName.key(named: String(word)) else { throw .unknownKey(command: command, key: String(word)) }
                if let fixed = Self.fixedKeys[key] {
                    guard fixed == command else { throw .fixedKey(key, command: command) }
                    continue
                }
                if let first = owner[key], first != command { throw .keyBoundTwice(key: key, first: first, second: command) }
                if !keys.contains(key) { keys.append(key) }
                owner[key] = command
            }
            given[command] = keys
        }
        var bindings = Self.standard.bindings
        for index in bindings.indices {
            let command = bindings[index].command
            let fixed = bindings[index].keys.filter { Self.fixedKeys[$0] == command }
            if let keys = given[command] {
                bindings[index].keys = keys + fixed
            } else {
                bindings[index].keys.removeAll { owner[$0] != nil }
            }
        }
        for command in Self.essentialCommands {
            let own = bindings.first { $0.command == command }?.keys.filter { Self.fixedKeys[$0] == nil } ?? []
            if own.isEmpty { throw .noKey(command) }
        }
        self.init(bindings: bindings)
    }
}
