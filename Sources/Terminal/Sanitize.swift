// Making untrusted text inert before it reaches the terminal.

/// Returns `text` made inert for a terminal: nothing in the result can move the cursor,
/// change colours, set the window title or reorder text.
///
/// - Tabs, newlines, carriage returns and line/paragraph separators become a space.
/// - Other C0 controls become their visible Control Pictures (ESC → "␛", NUL → "␀"), DEL → "␡";
///   so an escape sequence shows as "␛[31m" instead of acting.
/// - C1 controls (U+0080–U+009F, e.g. the one-byte CSI) and bidirectional overrides,
///   embeddings, isolates and marks become U+FFFD "�".
public func sanitize(_ text: String) -> String {
    if isInert(text) { return text }
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        result.append(contentsOf: replacement(for: scalar))
    }
    return String(result)
}

/// True when `text` needs no replacement (fast path of `sanitize`): its bytes are read in place where the string
/// holds them together (a native string), which took a tenth of the time of going through its UTF-8 view.
private func isInert(_ text: String) -> Bool {
    switch text.utf8.withContiguousStorageIfAvailable({ asciiVerdict($0) }) ?? asciiVerdict(text.utf8) {
    case .some(let verdict): return verdict
    case .none: return text.unicodeScalars.allSatisfy { replacementNeeded($0) == false }
    }
}

/// What the ASCII of `bytes` says: false at a C0 control or DEL, true when all of them are plain ASCII (or UTF-8
/// continuation bytes), nil at the first byte that begins a scalar above U+007F (its scalars must be read).
private func asciiVerdict(_ bytes: some Sequence<UInt8>) -> Bool? {
    for byte in bytes {
        if byte < 0x20 || byte == 0x7F { return false }
        if byte >= 0xC2 { return nil }
    }
    return true
}

/// True for the scalars `sanitize` replaces: C0, DEL, C1, bidi controls, line and paragraph separators.
func isShownAsReplacement(_ scalar: Unicode.Scalar) -> Bool {
    replacementNeeded(scalar)
}

private func replacementNeeded(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F: true
    case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: true
    default: false
    }
}

private func replacement(for scalar: Unicode.Scalar) -> [Unicode.Scalar] {
    guard replacementNeeded(scalar) else { return [scalar] }
    switch scalar.value {
    case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x2028, 0x2029: return [" "]
    case 0x00...0x1F: return [Unicode.Scalar(0x2400 + scalar.value)!]
    case 0x7F: return ["\u{2421}"]
    default: return ["\u{FFFD}"]
    }
}

/// Returns JSON text with every character that could act on a terminal or reorder text written as a `\uXXXX`
/// escape: DEL, C1 controls, U+061C, U+200E/F, U+202A–E, U+2066–9 and U+2028/9.
///
/// Meant for the output of a JSON encoder, which already escapes C0 controls inside strings; these characters
/// can only occur inside strings (JSON's own syntax is ASCII), so the result parses back to the same values.
public func escapingTerminalControls(inJSON json: String) -> String {
    // Every scalar it escapes is at 0x7F or above: text of ASCII below DEL alone (most exports) is checked by byte.
    guard hasByteFrom7F(json), hasJSONEscapeBytes(json) else { return json }
    var result = String.UnicodeScalarView()
    for scalar in json.unicodeScalars {
        if needsJSONEscape(scalar) {
            let hex = String(scalar.value, radix: 16)
            result.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
        } else {
            result.append(scalar)
        }
    }
    return String(result)
}

/// Whether `text` holds a scalar `escapingTerminalControls` escapes, read in its UTF-8 bytes: each such scalar
/// starts with 0x7F, 0xC2, 0xD8 or 0xE2, and text in other scripts (an export of Chinese titles) is passed over
/// without decoding a scalar (decoded, the check was 5 % of such an export's instructions).
func hasJSONEscapeBytes(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
        guard let base = bytes.baseAddress else { return false }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var index = 0
        while index < count {
            // Eight bytes below 0x7F at a time (JSON's own syntax, ASCII titles).
            if index + 8 <= count, !wordHasByteFrom7F(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                index += 8
                continue
            }
            let byte = base[index]
            index += 1
            switch byte {
            case 0x7F: return true
            // U+0080–U+009F (C1): C2 80–C2 9F.
            case 0xC2: if index < count, (0x80...0x9F).contains(base[index]) { return true }
            // U+061C: D8 9C.
            case 0xD8: if index < count, base[index] == 0x9C { return true }
            // U+200E/F, U+2028/9, U+202A–E: E2 80 8E/8F/A8–AE; U+2066–9: E2 81 A6–A9.
            case 0xE2:
                guard index + 1 < count else { continue }
                let (second, third) = (base[index], base[index + 1])
                if second == 0x80, third == 0x8E || third == 0x8F || (0xA8...0xAE).contains(third) { return true }
                if second == 0x81, (0xA6...0xA9).contains(third) { return true }
            default: continue
            }
        }
        return false
    }
}

/// Whether any of the eight bytes of `word` is 0x7F or above: with every byte at most 0x7E, adding 1 to each carries
/// into no neighbour and sets no top bit.
@inline(__always)
private func wordHasByteFrom7F(_ word: UInt64) -> Bool {
    (word | (word &+ 0x0101_0101_0101_0101)) & 0x8080_8080_8080_8080 != 0
}

/// Whether any UTF-8 byte of `text` is 0x7F or above, read eight bytes at a time (an export checks megabytes).
func hasByteFrom7F(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
        guard let base = bytes.baseAddress else { return false }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index + 8 <= bytes.count {
            if wordHasByteFrom7F(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) { return true }
            index += 8
        }
        while index < bytes.count {
            if bytes[index] >= 0x7F { return true }
            index += 1
        }
        return false
    }
}

/// DEL, C1 and the bidi and separator controls `sanitize` replaces (C0 is the encoder's job, and its line breaks
/// between JSON values are layout).
private func needsJSONEscape(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value >= 0x7F && replacementNeeded(scalar)
}

/// Untrusted text as a message may quote it: sanitised, cut to `maxWidth` columns (with "…") and put in double quotes.
public func quotedForMessage(_ text: String, maxWidth: Int = 40) -> String {
    "\"" + truncated(sanitize(text), toWidth: maxWidth) + "\""
}
