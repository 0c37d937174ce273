import TestSupport

/// Seeded JSON texts for the differential fuzz: valid documents built from RFC 8259's grammar (random whitespace,
/// number spellings, raw and escaped text, repeated and canonically equivalent names, now and then nesting near the
/// limit), and near-valid ones made from them by a few byte-level mutations.
struct JSONDocumentGenerator {
    private var rng: SplitMix

    init(seed: UInt64) { rng = SplitMix(seed: seed) }

    private mutating func below(_ bound: Int) -> Int { Int(rng.next() % UInt64(bound)) }
    private mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    private mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    /// A valid document.
    mutating func document() -> [UInt8] {
        var out: [UInt8] = []
        if chance(1) { deep(into: &out) } else { value(depth: 0, into: &out) }
        return out
    }

    /// A valid document with one to three mutations: most are then invalid, some stay valid.
    mutating func mutated() -> [UInt8] {
        var bytes = document()
        if chance(1) { bytes = [0xEF, 0xBB, 0xBF] + bytes }
        for _ in 0...below(3) { mutate(&bytes) }
        return bytes
    }

    private mutating func whitespace(into out: inout [UInt8]) {
        guard chance(20) else { return }
        for _ in 0...below(2) { out.append(pick([0x20, 0x09, 0x0A, 0x0D])) }
    }

    private mutating func value(depth: Int, into out: inout [UInt8]) {
        whitespace(into: &out)
        switch below(depth >= 3 ? 6 : 8) {
        case 0: out.append(contentsOf: pick(["true", "false", "null"]).utf8)
        case 1, 2: number(into: &out)
        case 3, 4, 5: string(into: &out, name: false)
        case 6:
            out.append(UInt8(ascii: "["))
            for index in 0..<below(4) {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value(depth: depth + 1, into: &out)
            }
            whitespace(into: &out)
            out.append(UInt8(ascii: "]"))
        default:
            out.append(UInt8(ascii: "{"))
            for index in 0..<below(4) {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                whitespace(into: &out)
                string(into: &out, name: true)
                whitespace(into: &out)
                out.append(UInt8(ascii: ":"))
                value(depth: depth + 1, into: &out)
            }
            whitespace(into: &out)
            out.append(UInt8(ascii: "}"))
        }
        whitespace(into: &out)
    }

    /// Containers nested 60 to 70 deep around a scalar: on both sides of the limit of 64.
    private mutating func deep(into out: inout [UInt8]) {
        var closers: [UInt8] = []
        for _ in 0..<(60 + below(11)) {
            if chance(50) {
                out.append(UInt8(ascii: "["))
                closers.append(UInt8(ascii: "]"))
            } else {
                out.append(contentsOf: #"{"k":"#.utf8)
                closers.append(UInt8(ascii: "}"))
            }
        }
        number(into: &out)
        out.append(contentsOf: closers.reversed())
    }

    private mutating func digits(_ count: Int, into out: inout [UInt8]) {
        for _ in 0..<count { out.append(UInt8(ascii: "0") + UInt8(below(10))) }
    }

    private mutating func number(into out: inout [UInt8]) {
        if chance(30) { out.append(UInt8(ascii: "-")) }
        if chance(15) {
            out.append(UInt8(ascii: "0"))
        } else {
            out.append(UInt8(ascii: "1") + UInt8(below(9)))
            digits(chance(10) ? below(30) : below(5), into: &out)
        }
        if chance(30) {
            out.append(UInt8(ascii: "."))
            digits(1 + (chance(10) ? below(25) : below(4)), into: &out)
        }
        if chance(25) {
            out.append(pick([UInt8(ascii: "e"), UInt8(ascii: "E")]))
            if chance(50) { out.append(pick([UInt8(ascii: "+"), UInt8(ascii: "-")])) }
            digits(1 + (chance(10) ? 2 : below(2)), into: &out)
        }
    }

    private static let rawPieces = ["é", "写", "🥛", "e\u{301}", "\u{7F}", "\u{85}", "\u{2028}", "\u{FEFF}", "\u{10FFFF}", " ", "/"]
    private static let shortEscapes = [#"\""#, #"\\"#, #"\/"#, #"\b"#, #"\f"#, #"\n"#, #"\r"#, #"\t"#]
    private static let names = ["a", "b", "é", "e\u{301}", #"\u00e9"#, #"\u00E9"#, "", "A"]

    private mutating func hex(_ value: UInt32, into out: inout [UInt8]) {
        let digits = Array((chance(50) ? "0123456789abcdef" : "0123456789ABCDEF").utf8)
        out.append(contentsOf: #"\u"#.utf8)
        for shift in stride(from: 12, through: 0, by: -4) { out.append(digits[Int(value >> UInt32(shift) & 0xF)]) }
    }

    private mutating func string(into out: inout [UInt8], name: Bool) {
        out.append(UInt8(ascii: "\""))
        defer { out.append(UInt8(ascii: "\"")) }
        if name, chance(60) {
            out.append(contentsOf: pick(Self.names).utf8)
            return
        }
        for _ in 0..<below(6) {
            switch below(6) {
            case 0, 1: out.append(pick(Array("abcXYZ019 _-.,:[]{}#'".utf8)))
            case 2: out.append(contentsOf: pick(Self.rawPieces).utf8)
            case 3: out.append(contentsOf: pick(Self.shortEscapes).utf8)
            case 4:
                // A BMP code point that is not a surrogate, often a control.
                var unit = UInt32(chance(30) ? below(0x20) : below(0x10000))
                if (0xD800...0xDFFF).contains(unit) { unit = 0x41 }
                hex(unit, into: &out)
            default:
                let scalar = 0x10000 + UInt32(below(0x100000))
                hex(0xD800 + ((scalar - 0x10000) >> 10), into: &out)
                hex(0xDC00 + ((scalar - 0x10000) & 0x3FF), into: &out)
            }
        }
    }

    private static let bytes: [UInt8] = Array(",]}[{:\"\\0-+.eE /udtnx'".utf8) + [0x09, 0x0B, 0x0C, 0x00, 0x01, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF]
    private static let tokens = ["//", "/*x*/", ",", #"\u"#, #"\ud800"#, #"\udc00"#, "1e400", "-", "0", ".", "e", "tru", "\u{FEFF}", #"\x"#, "00", ",]", ",}"]

    private mutating func mutate(_ bytes: inout [UInt8]) {
        let at = below(bytes.count + 1)
        switch below(6) {
        case 0: if at < bytes.count { bytes.remove(at: at) }
        case 1: bytes.insert(pick(Self.bytes), at: at)
        case 2: if at < bytes.count { bytes[at] = pick(Self.bytes) }
        case 3: bytes.removeSubrange(at...)
        case 4:
            let end = min(bytes.count, at + 1 + below(8))
            let copy = Array(bytes[at..<end])
            bytes.insert(contentsOf: copy, at: below(bytes.count + 1))
        default: bytes.insert(contentsOf: pick(Self.tokens).utf8, at: at)
        }
    }
}
