// Hints that name a key say the key of the state's keymap, not the standard one.

extension AppState {
    /// `phrase` made with the label of the first key of `command`, or `otherwise` when the command has no key.
    func keyed(_ command: Command, otherwise: String = "", _ phrase: (String) -> String) -> String {
        keymap.keyLabel(for: command).map(phrase) ?? otherwise
    }

    /// " (o)" with the first key of `command` ("Details (o)"), or "" when it has none.
    func keyNote(_ command: Command) -> String {
        keyed(command) { " (\($0))" }
    }

    /// " (u undoes)" with the undo key, or "" when undo has no key.
    var undoNote: String {
        keyed(.undo) { " (\($0) undoes)" }
    }

    /// The status line's hint in the list: "? help · a add · / filter · q quit" (commands without a key left out).
    var listHint: String {
        let parts: [(Command, String)] = [(.help, "help"), (.add, "add"), (.filter, "filter"), (.quit, "quit")]
        return parts.compactMap { command, word in keymap.keyLabel(for: command).map { "\($0) \(word)" } }.joined(separator: " · ")
    }

    /// The status line's hint while todos are marked: "Space done · d delete · m move · p priority · +/- tag · Esc clears".
    var markedHint: String {
        let tags = [keymap.keyLabel(for: .addTag), keymap.keyLabel(for: .removeTag)].compactMap(\.self).joined(separator: "/")
        let parts: [(String?, String)] = [
            (keymap.keyLabel(for: .toggleDone), "done"), (keymap.keyLabel(for: .trash), "delete"), (keymap.keyLabel(for: .move), "move"),
            (keymap.keyLabel(for: .priority), "priority"), (tags.isEmpty ? nil : tags, "tag"), (keymap.keyLabel(for: .clearMarks), "clears"),
        ]
        return parts.compactMap { key, word in key.map { "\($0) \(word)" } }.joined(separator: " · ")
    }
}

extension AppState {
    /// Opens the password prompt of `L` when signed out; signed in, says so.
    mutating func startSignIn() {
        guard status.connection == .signedOut else {
            message = StatusMessage(status.connection == .connecting ? "Still connecting; sign in once the header says signed out." : "Signed in already.")
            return
        }
        guard !status.signingIn else { return }
        mode = .prompt(Prompt(.signIn(account: status.account ?? "your account")))
    }
}
