public import Terminal

/// The names keys have in a configuration file's `[keys]` table.
///
/// A key is one printable character (`x`, `T`, `/`, `é`; case matters), or a name (case does not matter): `space`,
/// `tab`, `shift-tab`, `enter`, `backspace`, `del`, `esc`, `up`, `down`, `left`, `right`, `home`, `end`, `pgup`,
/// `pgdn`, `f1` to `f12`, `ctrl-a` to `ctrl-z`. `ctrl-h`, `ctrl-i`, `ctrl-j` and `ctrl-m` reach the app as
/// backspace, tab and enter, and are read as those keys.
public enum KeyName {
    /// The accepted names, as an error message lists them.
    public static let grammar =
        "one printable character, space, tab, shift-tab, enter, backspace, del, esc, up, down, left, right, home, end, "
        + "pgup, pgdn, f1 to f12 or ctrl-a to ctrl-z, separated by spaces"

    private static let named: [String: Key] = [
        "space": .char(" "), "tab": .tab, "shift-tab": .backTab, "enter": .enter, "backspace": .backspace, "del": .delete,
        "esc": .escape, "up": .up, "down": .down, "left": .left, "right": .right, "home": .home, "end": .end,
        "pgup": .pageUp, "pgdn": .pageDown,
    ]

    /// The key a name stands for, or nil when it names none.
    public static func key(named text: String) -> Key? {
        let scalars = text.unicodeScalars
        if scalars.count == 1, let scalar = scalars.first {
            return isPrintable(scalar) ? .char(Character(scalar)) : nil
        }
        // Names are ASCII; anything else (and anything long) names no key.
        guard text.utf8.count <= 9, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        let name = text.lowercased()
        if let key = named[name] { return key }
        if name.hasPrefix("f"), let number = Int(name.dropFirst()), (1...12).contains(number), !name.dropFirst().hasPrefix("0") {
            return .function(number)
        }
        if name.hasPrefix("ctrl-"), name.count == 6, let letter = name.last, ("a"..."z").contains(letter) {
            switch letter {
            case "h": return .backspace
            case "i": return .tab
            case "j", "m": return .enter
            default: return .ctrl(letter)
            }
        }
        return nil
    }

    /// Whether a single character can be typed and shown as itself: not a control, not a space, not a mark that
    /// joins the character before it, and left alone by `sanitize`.
    private static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        let text = String(Character(scalar))
        guard !scalar.properties.isWhitespace, sanitize(text) == text else { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .nonspacingMark, .spacingMark, .enclosingMark,
            .lineSeparator, .paragraphSeparator, .spaceSeparator:
            return false
        default:
            return displayWidth(of: scalar) > 0
        }
    }
}
