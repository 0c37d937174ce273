import CloudModel
import Testing

/// What a conformance case expects of our readers.
enum JSONVerdict: Sendable {
    /// RFC 8259's grammar accepts the text: we must read exactly this value.
    case accepted(JSONValue)
    /// The grammar (or §8.1's "MUST be UTF-8") refuses the text: we must refuse it.
    case refused
    /// The RFC leaves it to the implementation (§8.2 unpaired surrogates, §9 limits, §4 duplicate names, §8.1 the
    /// byte order mark, §6 numbers' range and precision): what we do, the value or nil for a refusal, and why.
    case ours(JSONValue?, String)
}

/// One case of the JSON conformance corpus, written from RFC 8259's grammar.
struct JSONCase: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let verdict: JSONVerdict
    var testDescription: String { name }
}

/// The corpus. Each group is one part of the grammar; the names say what each case probes.
enum JSONCorpus {
    static let all: [JSONCase] = structure + literals + numbers + strings + encodings + objects + depth

    private static func ok(_ name: String, _ text: String, _ value: JSONValue) -> JSONCase {
        JSONCase(name: "accepted: \(name)", bytes: Array(text.utf8), verdict: .accepted(value))
    }
    private static func bad(_ name: String, _ text: String) -> JSONCase {
        JSONCase(name: "refused: \(name)", bytes: Array(text.utf8), verdict: .refused)
    }
    private static func bad(_ name: String, bytes: [UInt8]) -> JSONCase {
        JSONCase(name: "refused: \(name)", bytes: bytes, verdict: .refused)
    }
    private static func ours(_ name: String, _ text: String, _ value: JSONValue?, _ why: String) -> JSONCase {
        JSONCase(name: "implementation-defined: \(name)", bytes: Array(text.utf8), verdict: .ours(value, why))
    }
    private static func ours(_ name: String, bytes: [UInt8], _ value: JSONValue?, _ why: String) -> JSONCase {
        JSONCase(name: "implementation-defined: \(name)", bytes: bytes, verdict: .ours(value, why))
    }

    static let structure: [JSONCase] = [
        ok("empty object", "{}", .object([:])),
        ok("empty array", "[]", .array([])),
        ok("empty containers with whitespace inside", "{ \t\n\r}", .object([:])),
        ok("all four whitespace bytes everywhere", " \t\n\r[ \t\n\r1 \t\n\r, \t\n\r2 \t\n\r] \t\n\r", .array([.int(1), .int(2)])),
        ok("whitespace around a name separator", #"{ "a" : 1 }"#, .object(["a": .int(1)])),
        ok("nested containers", #"{"a":[{"b":null},[]],"c":{}}"#, .object(["a": .array([.object(["b": .null]), .array([])]), "c": .object([:])])),
        ok("top-level string", #""x""#, .string("x")),
        ok("top-level number", "7", .int(7)),
        bad("empty input", ""),
        bad("whitespace only", " \n\t\r"),
        bad("unclosed array", "[1"),
        bad("unclosed object", #"{"a":1"#),
        bad("unclosed object after a name", #"{"a""#),
        bad("missing name separator", #"{"a" 1}"#),
        bad("missing member value", #"{"a":}"#),
        bad("number as a member name", #"{1:2}"#),
        bad("bare word as a member name", #"{a:2}"#),
        bad("single-quoted member name", "{'a':1}"),
        bad("trailing comma in an array", "[1,]"),
        bad("trailing comma in an object", #"{"a":1,}"#),
        bad("leading comma", "[,1]"),
        bad("double comma", "[1,,2]"),
        bad("lone comma", "[,]"),
        bad("missing comma between elements", "[1 2]"),
        bad("missing comma between members", #"{"a":1 "b":2}"#),
        bad("array closed by a brace", "[1}"),
        bad("object closed by a bracket", #"{"a":1]"#),
        bad("extra closing bracket", "[1]]"),
        bad("two top-level values", "1 2"),
        bad("two top-level containers", "{}{}"),
        bad("trailing word", "{}x"),
        bad("name separator in an array", "[1:2]"),
        bad("line comment", "//c\n1"),
        bad("block comment", "/*c*/1"),
        bad("comment after the value", "[1]/**/"),
        bad("hash comment", "# c\n1"),
        bad("vertical tab as whitespace", "\u{0B}1"),
        bad("form feed as whitespace", "\u{0C}1"),
        bad("no-break space as whitespace", "\u{A0}1"),
        bad("line separator as whitespace", "\u{2028}1"),
        bad("trailing NUL byte", bytes: [0x31, 0x00]),
        bad("lone closing bracket", "]"),
        bad("lone name separator", ":"),
    ]

    static let literals: [JSONCase] = [
        ok("true", "true", .bool(true)),
        ok("false", "false", .bool(false)),
        ok("null", "null", .null),
        ok("literals in an array", "[true,false,null]", .array([.bool(true), .bool(false), .null])),
        bad("capitalised True", "True"),
        bad("upper-case NULL", "NULL"),
        bad("truncated true", "tru"),
        bad("truncated null in an array", "[nul]"),
        bad("longer word", "nulll"),
        bad("literal glued to a word", "[truex]"),
        bad("NaN", "NaN"),
        bad("Infinity", "Infinity"),
        bad("negative Infinity", "-Infinity"),
        bad("undefined", "undefined"),
    ]

    static let numbers: [JSONCase] = [
        ok("zero", "0", .int(0)),
        ok("one", "1", .int(1)),
        ok("negative", "-1", .int(-1)),
        ok("several digits", "1234567890", .int(1_234_567_890)),
        ok("largest Int64", "9223372036854775807", .int(.max)),
        ok("smallest Int64", "-9223372036854775808", .int(.min)),
        ok("fraction", "1.5", .double(1.5)),
        ok("negative fraction", "-0.25", .double(-0.25)),
        ok("integral fraction is a double", "1.0", .double(1.0)),
        ok("exponent", "1e2", .double(100)),
        ok("upper-case exponent", "1E2", .double(100)),
        ok("explicit plus exponent", "1e+2", .double(100)),
        ok("negative exponent", "1e-2", .double(0.01)),
        ok("fraction and exponent", "-1.5E3", .double(-1500)),
        ok("zero exponent of zero", "0e0", .double(0)),
        ok("negative zero fraction keeps its sign", "-0.0", .double(-0.0)),
        ok("exponent with leading zeros", "1e007", .double(1e7)),
        ok("smallest normal double", "2.2250738585072014e-308", .double(2.2250738585072014e-308)),
        ok("largest double", "1.7976931348623157e308", .double(1.7976931348623157e308)),
        ok("numbers in an array", "[0,-0.5,3e1]", .array([.int(0), .double(-0.5), .double(30)])),
        bad("leading zero", "01"),
        bad("negative leading zero", "-01"),
        bad("double zero", "00"),
        bad("fraction without digits", "1."),
        bad("fraction without an integer part", ".5"),
        bad("negative fraction without an integer part", "-.5"),
        bad("plus sign", "+1"),
        bad("minus alone", "-"),
        bad("minus in an array", "[-]"),
        bad("double minus", "--1"),
        bad("minus and space", "- 1"),
        bad("exponent without digits", "1e"),
        bad("exponent sign without digits", "1e+"),
        bad("fraction point before the exponent without digits", "1.e2"),
        bad("hexadecimal", "0x10"),
        bad("digit separators", "1_000"),
        bad("two fraction points", "1.5.2"),
        bad("comma as the fraction point", "[1,5 2]"),
        bad("Arabic-Indic digit", "\u{0661}"),
        bad("full-width digit", "\u{FF11}"),
        ours("negative zero", "-0", .int(0), "an integer token without fraction or exponent is an Int64; -0 reads as 0"),
        ours("one past Int64.max", "9223372036854775808", .double(9_223_372_036_854_775_808),
             "§6 lets implementations limit range and precision: integers beyond Int64 read as the nearest double"),
        ours("one below Int64.min", "-9223372036854775809", .double(-9_223_372_036_854_775_808), "beyond Int64: the nearest double"),
        ours("thirty-digit integer", "123456789012345678901234567890", .double(1.2345678901234568e29), "beyond Int64: the nearest double"),
        ours("exponent past the double range", "1e400", nil, "a number whose nearest double is infinite is refused: a JSONValue holds finite numbers only"),
        ours("negative exponent past the double range", "-1e400", nil, "refused as infinite"),
        ours("long integer past the double range", "1" + String(repeating: "0", count: 400), nil, "refused as infinite"),
        ours("underflow to zero", "1e-400", .double(0), "a number below the smallest subnormal reads as 0.0, like strtod"),
        ours("huge exponent of zero", "0e99999999", .double(0), "zero times any power of ten is zero"),
        ours("more digits than a double holds", "0.1000000000000000055511151231257827", .double(0.1), "rounded to the nearest double"),
        ours("halfway case rounds to even", "9007199254740993.0", .double(9_007_199_254_740_992), "ties round to even, as correctly rounded parsing does"),
    ]

    static let strings: [JSONCase] = [
        ok("empty string", #""""#, .string("")),
        ok("every two-character escape", #""\"\\\/\b\f\n\r\t""#, .string("\"\\/\u{08}\u{0C}\n\r\t")),
        ok("escaped solidus equals the solidus", #"["\/","/"]"#, .array([.string("/"), .string("/")])),
        ok("\\u escape of ASCII", #""\u0041""#, .string("A")),
        ok("\\u escape with lower-case hex", #""\u00e9""#, .string("é")),
        ok("\\u escape with upper-case hex", #""\u00E9""#, .string("é")),
        ok("\\u escape of NUL", #""\u0000""#, .string("\u{0}")),
        ok("\\u escape of a C0 control", #""\u001f""#, .string("\u{1F}")),
        ok("\\u escape of DEL", #""\u007f""#, .string("\u{7F}")),
        ok("\\u escape of the largest BMP code point", #""\uFFFF""#, .string("\u{FFFF}")),
        ok("surrogate pair", #""\ud83d\ude00""#, .string("😀")),
        ok("upper-case surrogate pair", #""\uD834\uDD1E""#, .string("𝄞")),
        ok("largest code point as a pair", #""\uDBFF\uDFFF""#, .string("\u{10FFFF}")),
        ok("escapes between raw text", #""a\nb\u00e9c""#, .string("a\nbéc")),
        ok("raw two-, three- and four-byte UTF-8", "\"é写🥛\"", .string("é写🥛")),
        ok("raw DEL is not a control for JSON", "\"\u{7F}\"", .string("\u{7F}")),
        ok("raw C1 control", "\"\u{85}\"", .string("\u{85}")),
        ok("raw line separator", "\"\u{2028}\"", .string("\u{2028}")),
        ok("raw byte order mark inside a string", "\"\u{FEFF}\"", .string("\u{FEFF}")),
        ok("escaped U+FEFF is kept", #""a\uFEFFb""#, .string("a\u{FEFF}b")),
        ok("decomposed text kept as written", "\"e\u{301}\"", .string("e\u{301}")),
        ok("long string", "\"" + String(repeating: "ab", count: 50_000) + "\"", .string(String(repeating: "ab", count: 50_000))),
        bad("unknown escape", #""\x41""#),
        bad("upper-case U escape", #""\U0041""#),
        bad("escaped single quote", #""\'""#),
        bad("escaped zero", #""\0""#),
        bad("escaped a (bell)", #""\a""#),
        bad("braced Unicode escape", #""\u{41}""#),
        bad("short \\u escape", #""\u12""#),
        bad("non-hex digit in \\u", #""\u12G4""#),
        bad("\\u at the end of input", #""\u00"#),
        bad("backslash at the end of input", #""\"#),
        bad("escaped closing quote, unterminated", #""\""#),
        bad("unterminated string", #""abc"#),
        bad("single-quoted string", "'abc'"),
        bad("raw NUL", bytes: [0x22, 0x00, 0x22]),
        bad("raw control 0x01", "\"\u{01}\""),
        bad("raw tab", "\"\t\""),
        bad("raw line feed", "\"\n\""),
        bad("raw carriage return", "\"\r\""),
        bad("raw control 0x1F", "\"\u{1F}\""),
        ours("lone high surrogate", #""\ud800""#, nil, "§8.2 leaves unpaired surrogates open; a Swift String cannot hold one, so we refuse"),
        ours("lone low surrogate", #""\udc00""#, nil, "unpaired surrogate: refused"),
        ours("high surrogate then a letter", #""\ud800x""#, nil, "unpaired surrogate: refused"),
        ours("high surrogate then a non-surrogate escape", #""\ud800\u0041""#, nil, "unpaired surrogate: refused"),
        ours("two high surrogates", #""\ud800\ud800""#, nil, "unpaired surrogate: refused"),
        ours("pair in the wrong order", #""\ude00\ud83d""#, nil, "unpaired surrogate: refused"),
        ours("high surrogate then another escape", #""\ud83d\n""#, nil, "unpaired surrogate: refused"),
        ours("surrogate as a member name", #"{"\udfff":1}"#, nil, "unpaired surrogate: refused, in names too"),
    ]

    static let encodings: [JSONCase] = [
        bad("lone continuation byte", bytes: [0x22, 0x80, 0x22]),
        bad("byte 0xFF", bytes: [0x22, 0xFF, 0x22]),
        bad("byte 0xFE", bytes: [0x22, 0xFE, 0x22]),
        bad("overlong solidus in two bytes", bytes: [0x22, 0xC0, 0xAF, 0x22]),
        bad("overlong NUL in two bytes", bytes: [0x22, 0xC0, 0x80, 0x22]),
        bad("overlong in three bytes", bytes: [0x22, 0xE0, 0x80, 0xAF, 0x22]),
        bad("overlong in four bytes", bytes: [0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22]),
        bad("UTF-8-encoded high surrogate", bytes: [0x22, 0xED, 0xA0, 0x80, 0x22]),
        bad("UTF-8-encoded low surrogate", bytes: [0x22, 0xED, 0xBF, 0xBF, 0x22]),
        bad("beyond U+10FFFF", bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22]),
        bad("five-byte lead", bytes: [0x22, 0xF8, 0x88, 0x80, 0x80, 0x80, 0x22]),
        bad("truncated three-byte sequence", bytes: [0x22, 0xE5, 0x86, 0x22]),
        bad("truncated four-byte sequence at the end of input", bytes: [0x22, 0xF0, 0x9F, 0xA5]),
        bad("invalid UTF-8 next to an escape", bytes: Array(#""\n"#.utf8) + [0xE4, 0x22]),
        bad("invalid UTF-8 in a member name", bytes: [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]),
        bad("invalid UTF-8 between tokens", bytes: Array("[1,".utf8) + [0xFF] + Array("2]".utf8)),
        bad("UTF-16 big-endian text", bytes: [0x00, 0x31]),
        bad("UTF-16 little-endian text", bytes: [0x31, 0x00]),
        bad("UTF-16 byte order mark", bytes: [0xFE, 0xFF, 0x00, 0x31]),
        ours("UTF-8 byte order mark", bytes: [0xEF, 0xBB, 0xBF, 0x31], nil,
             "§8.1: senders MUST NOT add one, readers MAY ignore it; we refuse it, so a writer that adds one is caught"),
    ]

    static let objects: [JSONCase] = [
        ok("several members", #"{"a":1,"b":"x","c":[true]}"#, .object(["a": .int(1), "b": .string("x"), "c": .array([.bool(true)])])),
        ok("empty member name", #"{"":1}"#, .object(["": .int(1)])),
        ok("escapes in a member name", #"{"a\nb\u00e9":1}"#, .object(["a\nbé": .int(1)])),
        ok("names that differ by case", #"{"a":1,"A":2}"#, .object(["a": .int(1), "A": .int(2)])),
        ours("duplicate names", #"{"a":1,"a":2}"#, .object(["a": .int(2)]), "§4: names SHOULD be unique; the last member wins"),
        ours("duplicate names, one escaped", #"{"é":1,"\u00e9":2}"#, .object(["é": .int(2)]), "the same name however spelled: the last member wins"),
        ours("out-of-range number in a replaced duplicate", #"{"a":1e400,"a":1}"#, nil,
             "every value is read and checked, even one a later duplicate name replaces"),
        ours("canonically equivalent names", "{\"e\u{301}\":1,\"\u{E9}\":2}", .object(["e\u{301}": .int(2)]),
             "names are Swift Strings, equal when canonically equivalent: one member, the last value, the first spelling"),
    ]

    static let depth: [JSONCase] = {
        let limit = JSONParser.maxDepth
        func arrays(_ n: Int) -> String { String(repeating: "[", count: n) + String(repeating: "]", count: n) }
        func objects(_ n: Int) -> String { String(repeating: #"{"a":"#, count: n - 1) + "{}" + String(repeating: "}", count: n - 1) }
        func nestedArrays(_ n: Int) -> JSONValue { (1..<n).reduce(JSONValue.array([])) { inner, _ in .array([inner]) } }
        func nestedObjects(_ n: Int) -> JSONValue { (1..<n).reduce(JSONValue.object([:])) { inner, _ in .object(["a": inner]) } }
        return [
            ok("arrays nested to the limit", arrays(limit), nestedArrays(limit)),
            ok("objects nested to the limit", objects(limit), nestedObjects(limit)),
            ours("arrays nested one past the limit", arrays(limit + 1), nil, "§9 lets implementations limit nesting: ours is 64 containers"),
            ours("objects nested one past the limit", objects(limit + 1), nil, "nesting limit 64"),
            ours("mixed containers one past the limit", String(repeating: #"[{"a":"#, count: (limit + 1) / 2) + "[]" + String(repeating: "}]", count: (limit + 1) / 2), nil, "nesting limit 64"),
            ours("a hundred thousand open brackets", String(repeating: "[", count: 100_000), nil, "refused at the limit, long before the stack runs out"),
            ok("a wide array stays shallow", "[" + Array(repeating: "[]", count: 10_000).joined(separator: ",") + "]", .array(Array(repeating: .array([]), count: 10_000))),
        ]
    }()
}
