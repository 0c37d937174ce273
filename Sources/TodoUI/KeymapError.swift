public import Terminal

/// Why a `[keys]` table was refused.
public enum KeymapError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A name that is no command.
    case unknownCommand(String)
    /// A word in a command's key list that names no key.
    case unknownKey(command: Command, key: String)
    /// One key given to two commands.
    case keyBoundTwice(key: Key, first: Command, second: Command)
    /// A key that keeps its fixed meaning (Esc, Ctrl-C) given to another command.
    case fixedKey(Key, command: Command)
    /// A command that must keep a key (quit, help) left without one.
    case noKey(Command)

    /// One sentence: what is wrong, and what is accepted.
    public var description: String {
        switch self {
        case .unknownCommand(let name):
            "\(quotedForMessage(name)) in [keys] is not a command; the commands are "
                + "\(Command.allCases.map(\.name).joined(separator: ", "))."
        case .unknownKey(let command, let key):
            "\(quotedForMessage(key)) for \(command.name) in [keys] is not a key; keys are \(KeyName.grammar)."
        case .keyBoundTwice(let key, let first, let second):
            "[keys] gives \(key.label) to both \(first.name) and \(second.name); give each key to one command."
        case .fixedKey(let key, let command):
            "[keys] cannot give \(key.label) to \(command.name): \(key.label) always \(Keymap.fixedMeaning(of: key)); choose another key."
        case .noKey(let command):
            "[keys] leaves \(command.name) without a key\(command == .quit ? " besides Ctrl-C" : ""); give it one, "
                + "as in \(command.name) = \"\(Keymap.standard.binding(for: command)?.keys.first.map(Keymap.configName) ?? "")\"."
        }
    }
}
