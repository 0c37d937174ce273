/// A key press, decoded from the terminal into a value the UI can match on.
public enum Key: Hashable, Sendable {
    /// A printable character (already decoded from UTF-8, possibly wide).
    case char(Character)
    /// Arrow up.
    case up
    /// Arrow down.
    case down
    /// Arrow left.
    case left
    /// Arrow right.
    case right
    /// Page up.
    case pageUp
    /// Page down.
    case pageDown
    /// Home.
    case home
    /// End.
    case end
    /// Enter or Return.
    case enter
    /// Escape on its own (not the start of a sequence).
    case escape
    /// Backspace (also DEL and Ctrl-H).
    case backspace
    /// Delete (forward).
    case delete
    /// Tab.
    case tab
    /// Shift-Tab.
    case backTab
    /// A control chord, as its lowercase letter: `.ctrl("c")` is Ctrl-C.
    case ctrl(Character)
    /// The terminal changed size; read the new size from the driver.
    case resize
    /// Function key F1…F12.
    case function(Int)

    /// A short human-readable name, as shown in the help overlay ("j", "↓", "Ctrl-D", "PgDn").
    public var label: String {
        switch self {
        case .char(" "): "Space"
        case .char(let c): String(c)
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .home: "Home"
        case .end: "End"
        case .enter: "Enter"
        case .escape: "Esc"
        case .backspace: "Backspace"
        case .delete: "Del"
        case .tab: "Tab"
        case .backTab: "Shift-Tab"
        case .ctrl(let c): "Ctrl-\(String(c).uppercased())"
        case .resize: "Resize"
        case .function(let n): "F\(n)"
        }
    }

    /// Decodes one Unicode scalar read from the terminal (raw mode) into a key.
    public static func decode(scalar value: UInt32) -> Key? {
        switch value {
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 0: return .ctrl(" ")
        case 1...26: return .ctrl(Character(Unicode.Scalar(UInt8(value) + 96)))
        case 28...31: return nil
        default:
            guard let scalar = Unicode.Scalar(value) else { return nil }
            return .char(Character(scalar))
        }
    }
}
