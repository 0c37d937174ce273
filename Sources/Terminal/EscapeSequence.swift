/// Decodes the bytes that follow an ESC the terminal library did not recognise: the key sequences of
/// terminals whose terminfo entry is incomplete (`ESC [ 1 ~` for Home, `ESC O H`, `ESC [ 3 ~`...).
///
/// A sequence it does not know is consumed whole and yields no key, so that it never reaches the app as
/// an Escape (which would cancel a form) followed by stray characters. ESC followed by an ordinary
/// character (an Alt chord) is ignored the same way.
public struct EscapeSequence: Sendable {
    /// What feeding one more scalar gives.
    public enum Step: Equatable, Sendable {
        /// The sequence goes on.
        case more
        /// The sequence ended: the key it names, or nil for one to ignore.
        case key(Key?)
    }

    private var scalars: [UInt32] = []

    /// Longest sequence read before giving up on it (real ones are under ten bytes).
    static let limit = 32

    /// An empty sequence (the ESC was just read).
    public init() {}

    /// Feeds the next scalar after the ESC.
    public mutating func feed(_ value: UInt32) -> Step {
        scalars.append(value)
        guard let introducer = scalars.first else { return .more }
        if scalars.count >= Self.limit { return .key(nil) }
        switch introducer {
        case 0x5B:  // "[": CSI parameters and intermediates, then a final byte 0x40...0x7E
            if scalars.count == 1 { return .more }
            if scalars.count == 2, value == 0x5B { return .more }  // Linux console F1-F5: ESC [ [ A
            if scalars.count == 3, scalars[1] == 0x5B { return .key(Self.linuxFunctionKey(value)) }
            if (0x20...0x3F).contains(value) { return .more }
            if (0x40...0x7E).contains(value) { return .key(Self.csiKey(parameters: scalars.dropFirst().dropLast(), final: value)) }
            return .key(nil)  // not a sequence after all
        case 0x4F:  // "O": SS3, one byte
            if scalars.count == 1 { return .more }
            return .key(Self.ss3Key(value))
        case 0x1B:  // Escape pressed twice in a row: one Escape
            return .key(.escape)
        default:
            return .key(nil)  // Alt chord or a stray ESC before text: ignored
        }
    }

    /// True when the scalar after the first ESC was a second ESC.
    public var startsWithEscape: Bool { scalars.first == 0x1B }

    /// Nothing more came: a lone ESC is Escape; a sequence cut short is ignored.
    public func end() -> Key? {
        scalars.isEmpty ? .escape : nil
    }

    /// Decodes a whole sequence (the scalars after ESC), as the terminal would deliver it.
    public static func decode(_ text: String) -> Key? {
        var reader = EscapeSequence()
        for scalar in text.unicodeScalars {
            if case .key(let key) = reader.feed(scalar.value) { return key }
        }
        return reader.end()
    }

    private static func csiKey(parameters: ArraySlice<UInt32>, final: UInt32) -> Key? {
        let text = String(String.UnicodeScalarView(parameters.compactMap(Unicode.Scalar.init)))
        let numbers = text.split(separator: ";").map { Int($0) }
        switch final {
        case 0x41: return .up
        case 0x42: return .down
        case 0x43: return .right
        case 0x44: return .left
        case 0x48: return .home
        case 0x46: return .end
        case 0x5A: return .backTab
        case 0x7E:
            guard let code = numbers.first ?? nil else { return nil }
            switch code {
            case 1, 7: return .home
            case 4, 8: return .end
            case 3: return .delete
            case 5: return .pageUp
            case 6: return .pageDown
            case 11...15: return .function(code - 10)
            case 17...21: return .function(code - 11)
            case 23, 24: return .function(code - 12)
            default: return nil
            }
        default: return nil
        }
    }

    private static func ss3Key(_ value: UInt32) -> Key? {
        switch value {
        case 0x41: .up
        case 0x42: .down
        case 0x43: .right
        case 0x44: .left
        case 0x48: .home
        case 0x46: .end
        case 0x4D: .enter
        case 0x50...0x53: .function(Int(value) - 0x4F)
        default: nil
        }
    }

    private static func linuxFunctionKey(_ value: UInt32) -> Key? {
        (0x41...0x45).contains(value) ? .function(Int(value) - 0x40) : nil
    }
}
