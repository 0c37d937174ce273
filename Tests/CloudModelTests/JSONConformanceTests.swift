@testable import CloudModel
import Testing

/// RFC 8259 conformance of both public ways to read JSON: the tree parser (`JSONParser`) and the pull reader that
/// the hot messages use (`JSONReader`), over the same corpus.
@Suite("JSON conformance (RFC 8259)")
struct JSONConformanceTests {
    private func check(_ reading: JSONValue?, against verdict: JSONVerdict, _ bytes: [UInt8]) {
        switch verdict {
        case .accepted(let value), .ours(let value?, _):
            #expect(JSONTestSupport.same(reading, value), "read \(String(describing: reading)) from \(JSONTestSupport.shown(bytes))")
        case .refused, .ours(nil, _):
            #expect(reading == nil, "accepted \(JSONTestSupport.shown(bytes)) as \(String(describing: reading))")
        }
    }

    @Test("The tree parser", arguments: JSONCorpus.all)
    func treeParser(_ testCase: JSONCase) {
        check(JSONTestSupport.tree(testCase.bytes), against: testCase.verdict, testCase.bytes)
    }

    @Test("The pull reader", arguments: JSONCorpus.all)
    func pullReader(_ testCase: JSONCase) {
        check(JSONTestSupport.pull(testCase.bytes), against: testCase.verdict, testCase.bytes)
    }

    @Test("Every case is read from a non-contiguous collection the same way")
    func nonContiguousInput() {
        for testCase in JSONCorpus.all where testCase.bytes.count < 1_000 {
            let reversedTwice = testCase.bytes.reversed().reversed()  // a lazy view: no contiguous storage
            let tree = try? JSONParser.parse(reversedTwice)
            #expect(JSONTestSupport.same(tree, JSONTestSupport.tree(testCase.bytes)), "\(testCase.name)")
        }
    }

    @Test("The corpus covers each part of the grammar with accepted, refused and implementation-defined cases")
    func corpusShape() {
        func counts(_ cases: [JSONCase]) -> (accepted: Int, refused: Int, ours: Int) {
            cases.reduce(into: (0, 0, 0)) { total, testCase in
                switch testCase.verdict {
                case .accepted: total.0 += 1
                case .refused: total.1 += 1
                case .ours: total.2 += 1
                }
            }
        }
        for group in [JSONCorpus.numbers, JSONCorpus.strings, JSONCorpus.objects, JSONCorpus.depth] {
            #expect(counts(group).ours > 0)
        }
        for group in [JSONCorpus.structure, JSONCorpus.literals, JSONCorpus.numbers, JSONCorpus.strings, JSONCorpus.encodings] {
            #expect(counts(group).refused > 0)
        }
        let total = counts(JSONCorpus.all)
        #expect(Set(JSONCorpus.all.map(\.name)).count == JSONCorpus.all.count, "case names are unique")
        print("JSON conformance corpus: \(JSONCorpus.all.count) cases, \(total.accepted) accepted, \(total.refused) refused, \(total.ours) implementation-defined")
    }

    @Test("A refusal says where")
    func errorsCarryTheirOffset() {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(Array("[1,]".utf8)) }
        do {
            _ = try JSONParser.parse(Array(#"{"a":[1,2,x]}"#.utf8))
            Issue.record("accepted a bare word")
        } catch {
            #expect(error.offset == 10)
            #expect(error.description == "unexpected character at byte 10")
        }
    }
}
