import CloudModel
import Foundation
import TestSupport
import Testing

/// The server's storage read of `records/modify` keeps fields as canonical JSON; these pin it to the decoding path.
@Suite("Fields kept as canonical JSON", .onThreadOfItsOwn)
struct EncodedFieldsTests {
    /// A modify body with one record whose `fields` object is `fieldsJSON`, verbatim.
    private func body(_ fieldsJSON: String, type: String = "create") -> [UInt8] {
        body(bytes: Array(fieldsJSON.utf8), type: type)
    }

    private func body(bytes fieldsJSON: [UInt8], type: String = "create") -> [UInt8] {
        Array(#"{"operations":[{"operationType":"\#(type)","record":{"recordName":"r","recordType":"Todo","fields":"#.utf8)
            + fieldsJSON + Array("}}]}".utf8)
    }

    /// What the decoding path stores for a body: its fields, null values removed, written sorted.
    private func decodedBytes(_ bytes: [UInt8]) throws -> [UInt8] {
        let fields = try #require(try ModifyRecordsRequest(bytes: bytes).operations.first?.record.fields)
        var writer = JSONWriter()
        writer.fields(fields.filter { if case .unknown(_, .null) = $0.value { false } else { true } })
        return writer.bytes
    }

    private func encodedBytes(_ bytes: [UInt8]) throws -> [UInt8] {
        let read = try ModifyRecordsRequest.readForStorage(bytes: bytes)
        #expect(read.request.operations.first?.record.fields == nil)
        return try #require(read.fields.first ?? nil).json()
    }

    @Test func canonicalBytesEqualTheDecodedPath() throws {
        let cases = [
            // The common shapes, in both key orders, with spacing.
            #"{"title":{"value":"Buy milk","type":"STRING"},"n":{"type":"INT64","value":42},"due":{"value":1790000000000,"type":"TIMESTAMP"}}"#,
            #"{ "title" : { "type" : "STRING" , "value" : "写周报 🥛 \#u{7F}\#u{85}" } , "n" : {"value" : -7 , "type":"INT64"} }"#,
            #"{"zero":{"type":"INT64","value":-0},"min":{"type":"INT64","value":-9223372036854775808},"max":{"type":"TIMESTAMP","value":9223372036854775807}}"#,
            // String lists (tags) on the fast path: spacing, value first, non-ASCII; with escapes or other elements, not.
            #"{"tags":{"type":"STRING_LIST","value":["home"]},"two":{"value" : [ "a" , "写🥛 \#u{7F}" ] , "type":"STRING_LIST"}}"#,
            #"{"esc":{"type":"STRING_LIST","value":["a\"b","c\u00e9"]},"none":{"type":"STRING_LIST","value":[]},"obj":{"type":"STRING_LIST","value":["a"],"extra":true}}"#,
            // Escapes are decoded and written back the canonical way.
            #"{"t":{"type":"STRING","value":"a\"b\\c\/d\n\u00e9\ud83d\ude00\u001b"}}"#,
            // The general path: doubles, timestamps as fractions, lists, references, bytes, unknown types, typeless values.
            #"{"d":{"type":"DOUBLE","value":2.5},"di":{"type":"DOUBLE","value":3},"de":{"type":"DOUBLE","value":1e300},"tf":{"type":"TIMESTAMP","value":12.6}}"#,
            #"{"l":{"type":"STRING_LIST","value":["a","b"]},"il":{"type":"INT64_LIST","value":[]},"r":{"type":"REFERENCE","value":{"recordName":"L","action":"DELETE_SELF"}}}"#,
            #"{"b":{"type":"BYTES","value":"AAH+/w=="},"loc":{"type":"LOCATION","value":{"longitude":-3.25,"latitude":1.5}},"s":"bare","i":5,"f":0.25}"#,
            #"{"x":{"value":5},"y":{"type":"INT64","value":"12"},"z":{"type":"INT64","value":true},"big":{"type":"TIMESTAMP","value":8999999999999999}}"#,
            // Extra keys, duplicate keys in a value, duplicate field names (the later wins), removals.
            #"{"e":{"type":"STRING","value":"x","note":1},"dv":{"type":"STRING","value":"a","value":"b"},"dt":{"value":1,"type":"STRING","value":"s"}}"#,
            #"{"a":{"type":"STRING","value":"first"},"b":{"type":"INT64","value":1},"a":{"type":"STRING","value":"second"},"gone":{"type":"STRING","value":null}}"#,
            #"{"a":{"type":"STRING","value":"kept"},"a":{"type":"STRING","value":null}}"#,
            // Names already in order (as sorting writers send them), with a removal among them, and one out of order.
            #"{"dueDate":{"type":"TIMESTAMP","value":1},"isCompleted":{"type":"INT64","value":0},"title":{"type":"STRING","value":"t"}}"#,
            #"{"a":{"type":"STRING","value":"x"},"b":{"type":"STRING","value":null},"c":{"type":"INT64","value":3}}"#,
            #"{"a":{"type":"STRING","value":"x"},"c":{"type":"INT64","value":3},"b":{"type":"INT64","value":2}}"#,
            // Already canonical (type first, no spacing: taken whole), beside near misses (spacing, -0, value first).
            #"{"l":{"type":"STRING_LIST","value":["a","bc"]},"s":{"type":"STRING","value":""},"t":{"type":"TIMESTAMP","value":-5},"z":{"type":"INT64","value":0}}"#,
            #"{"l":{"type":"STRING_LIST","value":["a", "bc"]},"s":{"type":"STRING","value": ""},"t":{"type":"TIMESTAMP","value":-0},"z":{"value":0,"type":"INT64"}}"#,
            // Names in order that need escaping when written, and names beyond ASCII that do not.
            #"{"a\"q":{"type":"STRING","value":"x"},"b\u0001":{"type":"INT64","value":1},"c\\":{"type":"INT64","value":2}}"#,
            #"{"é":{"type":"STRING","value":"x"},"写":{"type":"INT64","value":1},"🥛":{"type":"STRING","value":""}}"#,
            "{}",
        ]
        for fields in cases {
            let bytes = body(fields)
            #expect(try encodedBytes(bytes) == decodedBytes(bytes), "\(fields)")
        }
    }

    @Test func randomFieldsEncodeLikeTheWriter() throws {
        var rng = SplitMix(seed: 7)
        let alphabet = Array("ab \"\\/\n\t\u{01}é写🥛\u{7F}\u{85}".unicodeScalars)
        for round in 0..<300 {
            var fields: [String: FieldValue] = [:]
            for index in 0..<Int(rng.next() % 8) {
                let name = "f\(index)_\(rng.next() % 5)"
                switch rng.next() % 5 {
                case 0: fields[name] = .int64(Int64(bitPattern: rng.next()) >> (rng.next() % 64))
                case 1: fields[name] = .timestamp(Int64(rng.next() % 4_000_000_000_000))
                case 2: fields[name] = .double(Double(Int64(bitPattern: rng.next()) % 1_000_000) / 64)
                case 3: fields[name] = .list(.string, [.string("x"), .string(String(round))])
                default:
                    let scalars = (0..<Int(rng.next() % 12)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
                    fields[name] = .string(String(String.UnicodeScalarView(scalars)))
                }
            }
            var object = JSONWriter()
            // Keys unsorted and values with the value first, as JSONEncoder sends them.
            object.raw("{")
            for (index, (name, value)) in fields.enumerated() {
                object.separator(index)
                object.string(name)
                object.raw(":")
                object.raw(Array(try JSONEncoder().encode(value)))
            }
            object.raw("}")
            let bytes = body(String(decoding: object.bytes, as: UTF8.self))
            var expected = JSONWriter()
            expected.fields(fields)
            #expect(try encodedBytes(bytes) == expected.bytes)
            #expect(try decodedBytes(bytes) == expected.bytes)
        }
    }

    @Test func malformedFieldsAreRefusedWithTheSameErrors() {
        let cases: [[UInt8]] = [
            body(#"{"n":{"type":"INT64","value":"abc"}}"#),
            body(#"{"n":{"type":"INT64","value":1.5}}"#),
            body(#"{"n":{"type":"INT64","value":012}}"#),
            body(#"{"n":{"type":"INT64","value":-}}"#),
            body(#"{"n":{"type":"INT64","value":12x}}"#),
            body(#"{"n":{"type":"STRING","value":7}}"#),
            body(#"{"n":{"type":"STRING"}}"#),
            body(#"{"n":{}}"#),
            body(#"{"n":{"type":5,"value":"x"}}"#),
            body(#"{"n":{"type":"STRING","value":"unterminated}}"#),
            body(#"{"n":{"type":"STRING","value":"bad \x"}}"#),
            body(#"{"n":{"type":"STRING","value":"a"},}"#),
            body(#"{"n":{"type":"TIMESTAMP","value":1e20}}"#),
            body(#"{"n":{"type":"BYTES","value":"%%%"}}"#),
            body(#"{"n":{"type":"TIMESTAMP","value":9223372036854775808}}"#),
            body(bytes: Array(#"{"n":{"type":"STRING","value":"ctl"#.utf8) + [0x01] + Array(#""}}"#.utf8)),
            body(bytes: Array(#"{"n":{"type":"STRING","value":"bad"#.utf8) + [0xC0, 0x80] + Array(#""}}"#.utf8)),
            body(bytes: Array(#"{"n":{"type":"STRING","value":"cut"#.utf8) + [0xE5, 0x86] + Array(#""}}"#.utf8)),
            body(bytes: Array(#"{"n":{"value":"sur"#.utf8) + [0xED, 0xA0, 0x80] + Array(#"","type":"STRING"}}"#.utf8)),
        ]
        for bytes in cases {
            let text = String(decoding: bytes, as: UTF8.self)
            var decodingError: String?
            do { _ = try ModifyRecordsRequest(bytes: bytes) } catch { decodingError = "\(error)" }
            var storageError: String?
            do { _ = try ModifyRecordsRequest.readForStorage(bytes: bytes) } catch { storageError = "\(error)" }
            #expect(decodingError != nil, "\(text)")
            #expect(storageError == decodingError, "\(text)")
        }
    }

    @Test func mergingMatchesDictionaryUpdates() throws {
        let existing: [String: FieldValue] = ["title": .string("Old"), "notes": .string("n"), "priority": .int64(1)]
        let changes = body(#"{"title":{"type":"STRING","value":"New"},"notes":{"type":"STRING","value":null},"due":{"value":5,"type":"TIMESTAMP"}}"#, type: "update")
        var merged = EncodedFields(existing)
        merged.merge(try #require(try ModifyRecordsRequest.readForStorage(bytes: changes).fields.first ?? nil))
        var expected = JSONWriter()
        expected.fields(["title": .string("New"), "priority": .int64(1), "due": .timestamp(5)])
        #expect(merged.json() == expected.bytes)
        #expect(try merged.decoded() == ["title": .string("New"), "priority": .int64(1), "due": .timestamp(5)])
        #expect(merged.names.count == 6)
        #expect(Set(merged.names) == ["title", "notes", "priority", "due"])
    }

    @Test func requestsWithoutFieldsAndOtherKeysReadTheSame() throws {
        let json = #"{"atomic":true,"zoneID":{"zoneName":"Todos"},"operations":[{"operationType":"delete","record":{"recordName":"a","recordChangeTag":"k"}},{"operationType":"create","desiredKeys":["title"],"record":{"recordName":"b","recordType":"Todo","fields":null,"parent":{"recordName":"L"}}}]}"#
        let decoded = try ModifyRecordsRequest(bytes: Array(json.utf8))
        let stored = try ModifyRecordsRequest.readForStorage(bytes: Array(json.utf8))
        #expect(stored.request == decoded)
        #expect(stored.fields.count == 2)
        #expect(stored.fields.allSatisfy { $0 == nil })
    }

    @Test func aBodyReadOperationByOperationReadsAsAWhole() throws {
        // Strings holding brackets, braces, commas and escaped quotes; spacing; members before and after the operations.
        let tricky = #"{"type":"STRING","value":"] }, {\"x\": [1,2]} \\"}"#
        let operation = { (index: Int) -> String in
            #" { "record" : {"recordName":"r\#(index)","recordType":"Todo","fields":{"t":\#(tricky),"n":{"value":\#(index),"type":"INT64"}}}, "operationType":"create" , "desiredKeys":["t"]} "#
        }
        let bodies = [
            "{\"zoneID\":{\"zoneName\":\"Todos\"},\"operations\":[" + (0..<40).map(operation).joined(separator: ",") + "],\"atomic\":false}",
            "{ \"operations\" : [\n" + (0..<3).map(operation).joined(separator: ",\n") + "\n] , \"desiredKeys\" : [] , \"zoneID\":{\"zoneName\":\"Todos\",\"ownerRecordName\":\"_o\"} }",
            #"{"operations":[]}"#,
        ]
        for text in bodies {
            let bytes = Array(text.utf8)
            let whole = try ModifyRecordsRequest.readForStorage(bytes: bytes)
            let split = try ModifyRecordsBody(bytes: bytes)
            var header = whole.request
            header.operations = []
            #expect(split.header == header)
            #expect(split.count == whole.request.operations.count)
            for index in (0..<split.count).reversed() {  // any order
                let read = try split.operation(index)
                #expect(read.operation == whole.request.operations[index])
                #expect(read.fields == whole.fields[index])
            }
        }
        // What the first pass cannot split, it refuses (reading the whole body then says why).
        for bad in [#"{"operations":[{"a":"unterminated}]}"#, #"{"operations":{}}"#, #"{"zoneID":{"zoneName":"Todos"}}"#, #"{"operations":[1,]}"#, #"{"operations":[]} x"#] {
            #expect(throws: (any Error).self) { try ModifyRecordsBody(bytes: Array(bad.utf8)) }
        }
        // Brackets that do not match are not always noticed by the first pass: the operation's own reading notices.
        let mismatched = Array(#"{"operations":[{"operationType":"create","record":{"recordName":"a"]},{"operationType":"create","record":{"recordName":"c"}}]}"#.utf8)
        let skimmed = try ModifyRecordsBody(bytes: mismatched)
        #expect(throws: (any Error).self) { try skimmed.operation(0) }
        #expect(throws: (any Error).self) { try ModifyRecordsRequest.readForStorage(bytes: mismatched) }
        // An operation that does not read throws, as reading the whole body does; the others read.
        let malformed = Array(#"{"operations":[{"operationType":"create","record":{"recordName":"a"}},{"operationType":"explode","record":{"recordName":"b"}},{"operationType":"create","record":{"recordName":"c"}}]}"#.utf8)
        let split = try ModifyRecordsBody(bytes: malformed)
        #expect(split.count == 3)
        #expect(throws: (any Error).self) { try split.operation(1) }
        #expect(try split.operation(2).operation.record.recordName == "c")
        #expect(throws: (any Error).self) { try ModifyRecordsRequest.readForStorage(bytes: malformed) }
    }

    @Test func integersAreWrittenAsStringWouldSpellThem() {
        var rng = SplitMix(seed: 3)
        var values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, Int64.max, Int64.min, Int64.min + 1, 1_790_000_000_000]
        for _ in 0..<1000 { values.append(Int64(bitPattern: rng.next()) >> (rng.next() % 64)) }
        for value in values {
            var writer = JSONWriter()
            writer.int(value)
            #expect(writer.bytes == Array(String(value).utf8))
        }
    }
}

@Suite("UTF-8 checking in the parser")
struct UTF8ValidationTests {
    /// Parses `bytes` as the contents of a JSON string; nil when refused.
    private func parsed(_ bytes: [UInt8]) -> String? {
        guard case .string(let text)? = try? JSONParser.parse([0x22] + bytes + [0x22]) else { return nil }
        return text
    }

    @Test func agreesWithTheStandardLibrary() {
        let edges: [[UInt8]] = [
            [0x41], [0xC2, 0x80], [0xDF, 0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0xA0, 0x80], [0xE0, 0x9F, 0xBF],
            [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF],
            [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x80], [0xE5, 0x86],
            [0xF0, 0x9F, 0xA5], [0xE5, 0x86, 0x99, 0x80], [0x61, 0xE5, 0x86, 0x99, 0x62],
        ]
        var rng = SplitMix(seed: 11)
        var samples = edges
        for _ in 0..<20_000 {
            // Bytes biased towards lead and continuation bytes; quotes, backslashes and controls left out.
            samples.append((0..<Int(1 + rng.next() % 6)).map { _ in
                let byte = UInt8(truncatingIfNeeded: rng.next() % 3 == 0 ? 0x20 + rng.next() % 0x60 : 0x80 + rng.next() % 0x80)
                return byte == 0x22 || byte == 0x5C ? 0x41 : byte
            })
        }
        for bytes in samples {
            let expected = String(validating: bytes, as: UTF8.self)
            #expect(parsed(bytes) == expected, "\(bytes)")
            // The escape path checks the same way.
            #expect(parsed(Array(#"\n"#.utf8) + bytes).map { String($0.dropFirst()) } == expected, "\(bytes)")
        }
    }
}
