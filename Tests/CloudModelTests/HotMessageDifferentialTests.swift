import CloudModel
import Foundation
import TestSupport
import Testing

/// Each hot message's fast reader against its Codable decoder over generated messages: the bytes `JSONEncoder`
/// writes, the same JSON respelled (members shuffled, whitespace, unknown members), and, for records, the bytes the
/// fast writer writes. Both readers must give the message that was written.
@Suite("Hot messages: fast readers against Codable over generated messages", .onThreadOfItsOwn)
struct HotMessageDifferentialTests {
    static let messages = 1_500

    /// The spellings of `message` both readers are given: Codable's bytes and two respellings of them.
    private func spellings<T: Encodable>(_ message: T, _ generator: inout WireMessageGenerator) throws -> [[UInt8]] {
        let encoded = Array(try JSONWriter.encoder.encode(message))
        let tree = try JSONParser.parse(encoded)
        return [encoded, generator.respell(tree), generator.respell(tree)]
    }

    /// Reads every spelling both ways; each must give `message`.
    private func check<T: Codable & Equatable>(
        _ message: T, _ generator: inout WireMessageGenerator, fast: ([UInt8]) throws -> T
    ) throws {
        for bytes in try spellings(message, &generator) {
            let streamed = try fast(bytes)
            let codable = try JSONDecoder().decode(T.self, from: Data(bytes))
            #expect(streamed == codable, "\(JSONTestSupport.shown(bytes))")
            #expect(streamed == message, "\(JSONTestSupport.shown(bytes))")
        }
    }

    @Test("records/modify answers: records and per-item errors")
    func recordsAnswers() throws {
        var generator = WireMessageGenerator(seed: 1)
        for _ in 0..<Self.messages {
            let results = (0..<generator.below(5)).map { _ in
                generator.chance(70) ? RecordResult.record(generator.record()) : .failure(generator.error())
            }
            try check(RecordsResponse(records: results), &generator) { try RecordsResponse(bytes: $0) }
        }
    }

    @Test("changes/zone pages, failed zones included")
    func changePages() throws {
        var generator = WireMessageGenerator(seed: 2)
        for _ in 0..<Self.messages {
            let zones = (0..<(1 + generator.below(3))).map { _ in
                if generator.chance(20) {
                    return ZoneChanges.failure(generator.zone(), ServerError(.zoneNotFound, generator.text()))
                }
                let records = (0..<generator.below(5)).map { _ in generator.record() }
                return ZoneChanges(zoneID: generator.zone(), records: records, syncToken: ChangeToken(rawValue: generator.text()), moreComing: generator.chance(50))
            }
            try check(ZoneChangesResponse(zones: zones), &generator) { try ZoneChangesResponse(bytes: $0) }
        }
    }

    @Test("records/query pages, with and without a continuation marker")
    func queryPages() throws {
        var generator = WireMessageGenerator(seed: 5)
        for _ in 0..<Self.messages {
            let records = (0..<generator.below(6)).map { _ in generator.record() }
            let page = QueryResponse(records: records, continuationMarker: generator.chance(50) ? generator.text() : nil)
            try check(page, &generator) { try QueryResponse(bytes: $0) }
            // The tree reading of a record (`Record(json:)`, what the client's query path uses today) gives the same.
            let tree = try JSONParser.parse(try JSONWriter.encoder.encode(page))
            let items = try tree.object(at: "$")["records"]?.array(at: "records") ?? []
            #expect(try items.map { try Record(json: $0) } == records)
        }
        for bad in [#"{"records":[{"recordType":"Todo"}]}"#, #"{"records":{}}"#, #"{"records":[],"continuationMarker":7}"#, #"{"records":["#] {
            #expect(throws: (any Error).self) { try QueryResponse(bytes: Array(bad.utf8)) }
            #expect(throws: (any Error).self) { try JSONDecoder().decode(QueryResponse.self, from: Data(bad.utf8)) }
        }
    }

    @Test("records/modify requests, whole and operation by operation")
    func modifyRequests() throws {
        var generator = WireMessageGenerator(seed: 3)
        let types = RecordOperationType.allCases
        for _ in 0..<Self.messages {
            let operations = (0..<(1 + generator.below(4))).map { _ in
                RecordOperation(types[generator.below(types.count)], generator.record(), desiredKeys: generator.chance(20) ? [generator.text()] : nil)
            }
            let request = ModifyRecordsRequest(operations: operations, zoneID: generator.chance(50) ? generator.zone() : nil, atomic: generator.chance(50) ? true : nil)
            try check(request, &generator) { try ModifyRecordsRequest(bytes: $0) }
            // Read for storage, whole or split, each operation gives the same record, its fields kept aside.
            let bytes = Array(try JSONWriter.encoder.encode(request))
            let stored = try ModifyRecordsRequest.readForStorage(bytes: bytes)
            let body = try ModifyRecordsBody(bytes: bytes)
            #expect(body.count == operations.count)
            for (index, operation) in operations.enumerated() {
                var withoutFields = operation
                withoutFields.record.fields = nil
                #expect(stored.request.operations[index] == withoutFields)
                #expect(try body.operation(index).operation == withoutFields)
                #expect(try stored.fields[index].map { try $0.decoded() } == operation.record.fields)
            }
        }
    }

    @Test("Records the fast writer writes read back through Codable and the fast reader alike")
    func fastWriterAgainstCodable() throws {
        var generator = WireMessageGenerator(seed: 4)
        for _ in 0..<Self.messages {
            let record = generator.record()
            var writer = JSONWriter()
            writer.raw("{\"records\":[")
            writer.record(record)
            writer.raw("]}")
            let codable = try JSONDecoder().decode(RecordsResponse.self, from: Data(writer.bytes))
            #expect(codable.records == [.record(record)])
            #expect(try RecordsResponse(bytes: writer.bytes) == codable)
        }
    }

    @Test("A key is the key it decodes to: escaped, it matches as written plainly; a near miss matches nothing")
    func escapedKeys() throws {
        let plain = #"{"records":[{"recordName":"a","recordType":"Todo","fields":{"title":{"type":"STRING","value":"t"}}}]}"#
        let escaped = #"{"r\u0065cords":[{"\u0072ecordName":"a","recordTyp\u0065":"Todo","fields":{"t\u0069tle":{"\u0074ype":"STRING","value":"t"}}}]}"#
        let expected = try RecordsResponse(bytes: Array(plain.utf8))
        #expect(expected.records.count == 1)
        #expect(try RecordsResponse(bytes: Array(escaped.utf8)) == expected)
        #expect(try JSONDecoder().decode(RecordsResponse.self, from: Data(escaped.utf8)) == expected)
        // Keys one letter longer or shorter, or differing in case, are unknown members: the record has no name.
        for near in ["recordNam", "recordNamee", "RecordName", #"recordName\u0000"#] {
            let bytes = Array(#"{"records":[{"\#(near)":"a"}]}"#.utf8)
            #expect(throws: (any Error).self) { try RecordsResponse(bytes: bytes) }
        }
    }
}
