import Foundation
import TodoPlanning

/// One 64-bit summary per row of the tags it has (a one-hash Bloom filter of their folded names), so a filter's
/// `+tag` terms pass over 100,000 rows without reading a single row's tags.
///
/// Reading each row's tag array touches one heap block per row: at 100,000 rows that alone took 15–30 ms a key.
/// The masks lie in one array; only rows whose mask has every `+tag`'s bit are then asked of `TodoFilter`.
enum TagIndex {
    /// The bits of a row's tags.
    static func mask(of tags: [String]) -> UInt64 {
        var mask: UInt64 = 0
        for tag in tags { mask |= bit(of: tag) }
        return mask
    }

    /// The bit of one tag, folded as `TodoFilter` folds names (case and composition ignored).
    static func bit(of tag: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        if tag.utf8.allSatisfy({ $0 < 0x80 }) {
            for byte in tag.utf8 { hash = (hash ^ UInt64(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)) &* 0x100_0000_01b3 }
        } else {
            for byte in foldedText(tag).utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        return 1 << (hash % 64)
    }

    /// What the tag terms of a filter's text let the masks decide.
    struct Prefilter: Equatable {
        /// A row needs all these bits (its `+tag`s).
        var required: UInt64 = 0
        /// The bits of the `-tag`s: a row with none of them passes those terms whatever its tags.
        var excluded: UInt64 = 0
        /// Whether the only tag terms are `-tag`s, so a row without their bits need not show its tags at all.
        var onlyExclusions = false
    }

    /// The tag terms of `text` as `TodoFilter` reads them; nil when the text has quotes (a phrase may hold a `+`),
    /// so nothing is decided by the masks.
    static func prefilter(_ text: String) -> Prefilter? {
        guard !text.contains("\"") else { return nil }
        var result = Prefilter()
        var tagged = false
        for token in Array(text.unicodeScalars).split(whereSeparator: { $0.properties.isWhitespace }) {
            guard let first = token.first else { continue }
            let rest = token.dropFirst()
            if first == "+" || first == "-" {
                guard !isNumberOrNothing(rest) else { continue }
                let bit = bit(of: String(String.UnicodeScalarView(rest)))
                if first == "+" { result.required |= bit } else { result.excluded |= bit }
            } else if String(String.UnicodeScalarView(token)).lowercased() == "is:tagged" {
                tagged = true
            }
        }
        result.onlyExclusions = result.required == 0 && !tagged && result.excluded != 0
        return result
    }

    /// As `TodoFilter` tells a number (`+3`, `-1.5`: text) from a tag name.
    private static func isNumberOrNothing(_ scalars: ArraySlice<Unicode.Scalar>) -> Bool {
        var digits = false
        for scalar in scalars {
            if ("0"..."9").contains(scalar) { digits = true } else if scalar != "." && scalar != "," { return false }
        }
        return scalars.isEmpty || digits
    }
}
