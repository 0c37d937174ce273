@testable import CloudModel
import Foundation
import TestSupport
import Testing

/// Our JSON readers against Foundation's `JSONSerialization` over generated documents, valid and mutated: both must
/// read the same value or both refuse, except where Foundation is laxer in a way RFC 8259 leaves to each reader
/// or forbids, each such case pinned down by the conformance corpus. The tree parser and the pull reader must agree
/// exactly on every document.
@Suite("JSON differential fuzz against Foundation", .onThreadOfItsOwn)
struct JSONDifferentialFuzzTests {
    static let documents = 100_000

    /// Where Foundation accepts what we refuse, on purpose.
    enum Difference: String, CaseIterable {
        /// `[1,]` and `{"a":1,}`: Foundation takes them; the grammar does not (corpus: "trailing comma in …").
        case trailingComma = "trailing comma"
        /// A leading UTF-8 byte order mark: Foundation skips it; §8.1 lets us refuse it (corpus: "UTF-8 byte order mark").
        case byteOrderMark = "byte order mark"
        /// Nesting past our 64 (Foundation allows 512; corpus: "… one past the limit").
        case nesting = "nesting past 64"
        /// A NUL byte: Foundation takes it as a sign of UTF-16 or UTF-32 and reads the text so; we read UTF-8 only
        /// (§8.1; corpus: "UTF-16 … text", "trailing NUL byte").
        case notUTF8 = "NUL byte read as UTF-16/32"
        /// An out-of-range number (`1e400`) in a member that a later duplicate name replaces: Foundation never reads
        /// it, we refuse it (corpus: "out-of-range number in a replaced duplicate").
        case replacedHugeNumber = "out-of-range number under a replaced name"
        /// Foundation drops a raw U+FEFF that opens a string or follows an escape (it decodes each run of raw bytes
        /// as if it were a document, whose byte order mark it skips); it is a character like any other and we keep
        /// it (corpus: "raw byte order mark inside a string").
        case droppedFEFF = "U+FEFF dropped by Foundation"
        /// Foundation reads negative integers of 19 digits as doubles, losing digits; we keep the exact Int64
        /// (corpus: "smallest Int64").
        case integerAsDouble = "negative 19-digit integer read as a double by Foundation"
    }

    @Test("100,000 generated documents read as JSONSerialization reads them")
    func agreesWithJSONSerialization() {
        var generator = JSONDocumentGenerator(seed: 8259)
        var generated = 0, valid = 0, mutated = 0, agreedValues = 0, agreedRefusals = 0, documented = 0
        var differences: [Difference: Int] = [:]
        var failures: [String] = []
        for index in 0..<Self.documents {
            let isValid = index % 2 == 0
            let bytes = isValid ? generator.document() : generator.mutated()
            generated += 1
            if isValid { valid += 1 } else { mutated += 1 }
            let ours = JSONTestSupport.tree(bytes)
            if !JSONTestSupport.same(ours, JSONTestSupport.pull(bytes)) {
                failures.append("tree parser and pull reader differ on \(JSONTestSupport.shown(bytes))")
            }
            if isValid, ours == nil, let reason = refusal(bytes), !reason.hasPrefix("number out of range"), !reason.hasPrefix("JSON nested deeper") {
                failures.append("refused a valid document (\(reason)): \(JSONTestSupport.shown(bytes))")
            }
            switch (ours, JSONTestSupport.foundation(bytes)) {
            case (let ours?, let theirs?):
                if JSONTestSupport.same(ours, theirs) {
                    agreedValues += 1
                } else if let explained = explanation(bytes, ours: ours, foundation: theirs) {
                    documented += 1
                    for difference in explained { differences[difference, default: 0] += 1 }
                } else {
                    failures.append("values differ on \(JSONTestSupport.shown(bytes)): ours \(ours), Foundation's \(theirs)")
                }
            case (nil, nil): agreedRefusals += 1
            case (nil, let theirs?):
                let explained = explanation(bytes, foundation: theirs)
                if explained.isEmpty {
                    failures.append("refused what Foundation reads (\(refusal(bytes) ?? "")): \(JSONTestSupport.shown(bytes))")
                } else {
                    documented += 1
                }
                for difference in explained { differences[difference, default: 0] += 1 }
            case (_?, nil): failures.append("read what Foundation refuses: \(JSONTestSupport.shown(bytes))")
            }
        }
        print("""
            JSON differential fuzz: \(generated) documents (\(valid) valid, \(mutated) mutated); \(agreedValues) read alike, \
            \(agreedRefusals) refused by both, \(documented) differ in documented ways: \
            \(Difference.allCases.map { "\($0.rawValue) \(differences[$0, default: 0])" }.joined(separator: ", ")); \
            \(failures.count) unexplained
            """)
        #expect(generated == Self.documents)
        #expect(agreedValues + agreedRefusals + documented + failures.count >= Self.documents, "every document is accounted for")
        #expect(agreedValues > Self.documents / 3 && agreedRefusals > Self.documents / 10, "the mix exercises both sides")
        #expect(differences[.trailingComma, default: 0] > 0 && differences[.nesting, default: 0] > 0, "the documented differences occur")
        #expect(differences[.droppedFEFF, default: 0] > 0, "Foundation still drops U+FEFF: if not, drop this difference")
        #expect(failures.isEmpty, "\(failures.count) disagreements, first: \(failures.prefix(15).joined(separator: "\n"))")
    }

    /// Why our tree parser refuses `bytes`, or nil when it reads them.
    private func refusal(_ bytes: [UInt8]) -> String? {
        do {
            _ = try JSONParser.parse(bytes)
            return nil
        } catch {
            return error.message
        }
    }

    /// The documented differences that explain Foundation reading `bytes` as `theirs` where we refuse them: each is
    /// undone (the byte order mark dropped, trailing commas removed, out-of-range numbers made 0) and what remains
    /// must read as Foundation read it, or be refused for its nesting alone. Empty when they do not explain it.
    private func explanation(_ bytes: [UInt8], foundation theirs: JSONValue) -> [Difference] {
        if bytes.contains(0x00) { return [.notUTF8] }
        var repaired = bytes
        var found: Set<Difference> = []
        if repaired.starts(with: [0xEF, 0xBB, 0xBF]) {
            repaired.removeFirst(3)
            found.insert(.byteOrderMark)
        }
        for (difference, repair) in [(Difference.trailingComma, withoutTrailingCommas), (.replacedHugeNumber, withoutHugeNumbers), (.droppedFEFF, withoutDroppedFEFF)] {
            let next = repair(repaired)
            if next != repaired {
                repaired = next
                found.insert(difference)
            }
        }
        if let reason = refusal(repaired) {
            return reason.hasPrefix("JSON nested deeper") ? Array(found) + [.nesting] : []
        }
        guard let ours = JSONTestSupport.tree(repaired), JSONTestSupport.same(ours, theirs) || alike(ours, theirs, &found) else { return [] }
        return Array(found)
    }

    /// The documented differences that explain Foundation reading `bytes` as `theirs` where we read `ours`: the
    /// U+FEFF it drops removed from the bytes, what we read must be what it read, but for the negative integers it
    /// reads as doubles. Nil when they do not explain it.
    private func explanation(_ bytes: [UInt8], ours: JSONValue, foundation theirs: JSONValue) -> Set<Difference>? {
        var found: Set<Difference> = []
        var value: JSONValue? = ours
        let repaired = withoutDroppedFEFF(bytes)
        if repaired != bytes {
            found.insert(.droppedFEFF)
            value = JSONTestSupport.tree(repaired)
        }
        guard let value, JSONTestSupport.same(value, theirs) || alike(value, theirs, &found), !found.isEmpty else { return nil }
        return found
    }

    /// Whether `ours` is `theirs` but for the negative 19-digit integers Foundation reads as doubles (then noted in
    /// `found`).
    private func alike(_ ours: JSONValue, _ theirs: JSONValue, _ found: inout Set<Difference>) -> Bool {
        switch (ours, theirs) {
        case (.int(let mine), .double(let other)):
            guard mine <= -1_000_000_000_000_000_000, Double(mine) == other else { return false }
            found.insert(.integerAsDouble)
            return true
        case (.array(let mine), .array(let other)):
            return mine.count == other.count && zip(mine, other).allSatisfy { alike($0, $1, &found) }
        case (.object(let mine), .object(let other)):
            return mine.count == other.count && other.allSatisfy { name, value in mine[name].map { alike($0, value, &found) } ?? false }
        default:
            return JSONTestSupport.same(ours, theirs)
        }
    }

    /// `bytes` without the raw U+FEFF (EF BB BF) that Foundation drops: one that opens a string or directly follows
    /// an escape.
    private func withoutDroppedFEFF(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var inString = false, runStart = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if inString, runStart, bytes[index...].starts(with: [0xEF, 0xBB, 0xBF]) {
                index += 3
                runStart = false
                continue
            }
            runStart = false
            if !inString {
                if byte == UInt8(ascii: "\"") { inString = true; runStart = true }
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            } else if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                let length = bytes[index + 1] == UInt8(ascii: "u") ? 6 : 2
                out.append(contentsOf: bytes[index..<min(bytes.count, index + length)])
                index += length
                runStart = true
                continue
            }
            out.append(byte)
            index += 1
        }
        return out
    }

    /// `bytes` with every number outside strings whose nearest double is infinite written as `0`.
    private func withoutHugeNumbers(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var inString = false, escaped = false
        var index = 0
        func isNumberByte(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || Array("+-.eE".utf8).contains(byte) }
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                var end = index
                while end < bytes.count, isNumberByte(bytes[end]) { end += 1 }
                let token = bytes[index..<end]
                if let value = Double(String(decoding: token, as: UTF8.self)), value.isInfinite {
                    out.append(UInt8(ascii: "0"))
                } else {
                    out.append(contentsOf: token)
                }
                index = end
                continue
            }
            out.append(byte)
            index += 1
        }
        return out
    }

    /// `bytes` with every comma outside strings that only whitespace separates from a `]` or `}` removed.
    private func withoutTrailingCommas(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var inString = false, escaped = false
        for (index, byte) in bytes.enumerated() {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: ",") {
                let next = bytes[(index + 1)...].first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
                if next == UInt8(ascii: "]") || next == UInt8(ascii: "}") { continue }
            }
            out.append(byte)
        }
        return out
    }
}
