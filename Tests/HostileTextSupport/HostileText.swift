import TestSupport

/// The seeded generator the hostile strings are drawn with (SplitMix64): the same seed makes the same strings on every
/// machine and every run.
public typealias SeededGenerator = SplitMix

/// Strings another account could write: ASCII, CJK, emoji and ZWJ sequences, zero-width characters, combining
/// marks, C0 and C1 controls, DEL, bidi controls, whole escape sequences, and any other scalar.
public enum HostileText {
    /// The title an attacker would try first: window title, clipboard write, one-byte CSI, bidi, ZW, family emoji.
    public static let showcase =
        "Pay\u{1B}]0;PWNED\u{07} \u{1B}]52;c;cm0gLXJmIH4=\u{07}\u{9B}31m red\u{202E}gnp.exe\u{2066}x\u{2069} a\u{200B}b\u{FEFF}c\u{2060}d 👨‍👩‍👧 e\u{301}"

    /// Whole sequences and clusters, dropped in as they are.
    public static let pieces: [String] = [
        "\u{1B}]0;PWNED\u{07}", "\u{1B}]52;c;cm0gLXJmIH4=\u{07}", "\u{1B}[2J", "\u{1B}[31m", "\u{9B}6n", "\u{9D}0;x\u{9C}",
        "👨‍👩‍👧", "👨‍👩‍👧‍👦", "👩🏽‍💻", "🏳️‍🌈", "🇫🇷", "❤️", "👍🏽", "e\u{301}\u{302}", "한국", "\r\n", "\u{200D}\u{200D}",
    ]

    /// Bidi controls and the line and paragraph separators.
    public static let bidi: [UInt32] = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x2028, 0x2029]

    /// One random string of up to `maxLength` pieces.
    public static func random(_ rng: inout SeededGenerator, maxLength: Int = 24) -> String {
        var text = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...maxLength, using: &rng) {
            let value: UInt32
            switch Int.random(in: 0..<11, using: &rng) {
            case 0, 1: value = UInt32.random(in: 0x20...0x7E, using: &rng)
            case 2: value = UInt32.random(in: 0x4E00...0x9FFF, using: &rng)
            case 3: value = UInt32.random(in: 0x1F300...0x1FAFF, using: &rng)
            case 4: value = [0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0xFE0F, 0x1F3FD].randomElement(using: &rng)!
            case 5: value = UInt32.random(in: 0x0300...0x036F, using: &rng)
            case 6: value = [UInt32.random(in: 0...0x1F, using: &rng), 0x7F].randomElement(using: &rng)!
            case 7: value = UInt32.random(in: 0x80...0x9F, using: &rng)
            case 8: value = bidi.randomElement(using: &rng)!
            case 9:
                text.append(contentsOf: pieces.randomElement(using: &rng)!.unicodeScalars)
                continue
            default:
                // Any scalar at all (surrogates are not scalars; 0xD800 ... 0xDFFF are skipped).
                var candidate = UInt32.random(in: 0...0x10FFFF, using: &rng)
                if (0xD800...0xDFFF).contains(candidate) { candidate -= 0x800 }
                value = candidate
            }
            text.append(Unicode.Scalar(value)!)
        }
        return String(text)
    }

    /// Scalars that must never reach a terminal raw: C0, DEL, C1, bidi controls, line and paragraph separators.
    public static func isActive(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v < 0x20 || (0x7F...0x9F).contains(v) || bidi.contains(v)
    }

    /// The first active scalar of `text`, if any.
    public static func firstActive(in text: some StringProtocol) -> Unicode.Scalar? {
        text.unicodeScalars.first(where: isActive)
    }
}

