import CloudModel
import Foundation
import TestSupport
import Testing

/// Each hot message's typed writer against Codable over seeded, generated messages: what the writer writes must be
/// valid JSON that `JSONDecoder` reads as the message written (or, where the wire folds things, as what `JSONEncoder`'s
/// bytes of it read as), and the fast reader must read it alike. The readers' side, Codable's bytes read fast, is
/// `HotMessageDifferentialTests`.
@Suite("Hot messages: typed writers against Codable over generated messages", .onThreadOfItsOwn)
struct HotMessageWriterTests {
    static let messages = 2_000

    /// What `JSONDecoder` reads from `bytes`.
    private func decoded<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
        try JSONDecoder().decode(type, from: Data(bytes))
    }

    /// What Codable makes of `message`: its encoder's bytes, decoded.
    private func codableRoundTrip<T: Codable>(_ message: T) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONWriter.encoder.encode(message))
    }

    private func desiredKeys(_ generator: inout WireMessageGenerator) -> [String]? {
        generator.chance(25) ? (0..<generator.below(3)).map { _ in generator.text() } : nil
    }

    @Test("records/modify requests: ModifyRecordsRequest.jsonBody")
    func modifyRequests() throws {
        var generator = WireMessageGenerator(seed: 11)
        let types = RecordOperationType.allCases
        for _ in 0..<Self.messages {
            let operations = (0..<(1 + generator.below(4))).map { _ in
                RecordOperation(types[generator.below(types.count)], generator.record(), desiredKeys: desiredKeys(&generator))
            }
            var request = ModifyRecordsRequest(
                operations: operations, zoneID: generator.chance(50) ? generator.zone() : nil, atomic: generator.chance(50) ? generator.chance(50) : nil)
            request.desiredKeys = desiredKeys(&generator)
            request.numbersAsStrings = generator.chance(20) ? generator.chance(50) : nil
            let bytes = request.jsonBody
            #expect(try decoded(ModifyRecordsRequest.self, bytes) == request, "\(JSONTestSupport.shown(bytes))")
            #expect(try ModifyRecordsRequest(bytes: bytes) == request, "\(JSONTestSupport.shown(bytes))")
        }
    }

    @Test("records/modify requests written from rows: system fields with fields given every way")
    func modifyRequestsFromRows() throws {
        var generator = WireMessageGenerator(seed: 12)
        for _ in 0..<Self.messages {
            var writer = ModifyRecordsRequestWriter()
            var expected: [Record] = []
            for _ in 0..<(1 + generator.below(4)) {
                let record = generator.record()
                let system = RecordSystemFields(record)
                let fields = record.fields ?? [:]
                var written = record
                written.fields = fields
                switch generator.below(4) {
                case 0 where record.fields == nil:
                    writer.operation(.forceDelete, system)
                    written.fields = nil
                case 0, 1: writer.operation(.update, system, fields: .canonical(Data(EncodedFields(fields).json())))
                case 2:
                    // As the outbox writes its known fields: one at a time, names in order.
                    writer.operation(.replace, system) { json in
                        json.sortedFields { sorted in
                            for name in fields.keys.sorted() { sorted.field(FieldKey(name), fields[name]!) }
                        }
                    }
                default: writer.operation(.create, system, fields: .values(fields))
                }
                expected.append(written)
            }
            let zone = generator.zone()
            let bytes = writer.finish(zoneID: zone, atomic: false, desiredKeys: [])
            let request = try decoded(ModifyRecordsRequest.self, bytes)
            #expect(request.zoneID == zone && request.atomic == false && request.desiredKeys == [])
            #expect(request.operations.map(\.record) == expected, "\(JSONTestSupport.shown(bytes))")
            #expect(try ModifyRecordsRequest(bytes: bytes) == request)
        }
    }

    @Test("records/modify and records/lookup answers: records and per-item errors")
    func recordsAnswers() throws {
        var generator = WireMessageGenerator(seed: 13)
        for _ in 0..<Self.messages {
            var writer = RecordsResponseWriter()
            var results: [RecordResult] = []
            for _ in 0..<generator.below(6) {
                if generator.chance(70) {
                    let record = generator.record()
                    writer.record(record)
                    results.append(.record(record))
                } else {
                    let error = generator.error()
                    try writer.failure(error)
                    results.append(.failure(error))
                }
            }
            let bytes = writer.finish()
            let expected = try codableRoundTrip(RecordsResponse(records: results))
            #expect(try decoded(RecordsResponse.self, bytes) == expected, "\(JSONTestSupport.shown(bytes))")
            #expect(try RecordsResponse(bytes: bytes) == expected)
        }
    }

    @Test("records/query pages, with and without a continuation marker")
    func queryPages() throws {
        var generator = WireMessageGenerator(seed: 14)
        for _ in 0..<Self.messages {
            let records = (0..<generator.below(6)).map { _ in generator.record() }
            let marker = generator.chance(50) ? generator.text() : nil
            var writer = RecordsResponseWriter()
            for record in records {
                // Half the records as the cloud gives its rows: system fields and canonical fields.
                if generator.chance(50), let fields = record.fields {
                    writer.record(RecordSystemFields(record), fields: .canonical(Data(EncodedFields(fields).json())))
                } else {
                    writer.record(record)
                }
            }
            let bytes = writer.finish(continuationMarker: marker)
            let page = QueryResponse(records: records, continuationMarker: marker)
            #expect(try decoded(QueryResponse.self, bytes) == page, "\(JSONTestSupport.shown(bytes))")
            #expect(try QueryResponse(bytes: bytes) == page)
        }
    }

    @Test("changes/zone answers and records/changes pages, failed zones taken back whole")
    func zoneChangePages() throws {
        var generator = WireMessageGenerator(seed: 15)
        let codes = ServerErrorCode.allCases
        for _ in 0..<Self.messages {
            var writer = ZoneChangesWriter()
            var zones: [ZoneChanges] = []
            for _ in 0..<(1 + generator.below(3)) {
                let zoneID = generator.zone()
                writer.beginZone(zoneID)
                let records = (0..<generator.below(5)).map { _ in generator.record() }
                for record in records { writer.record(record) }
                if generator.chance(20) {
                    let error = ServerError(codes[generator.below(codes.count)], generator.text(), retryAfter: generator.chance(30) ? 2.5 : nil)
                    writer.failZone(error)
                    zones.append(.failure(zoneID, error))
                } else {
                    let token = ChangeToken(rawValue: generator.text())
                    let moreComing = generator.chance(50)
                    writer.endZone(syncToken: token, moreComing: moreComing)
                    zones.append(ZoneChanges(zoneID: zoneID, records: records, syncToken: token, moreComing: moreComing))
                }
            }
            let bytes = writer.finish()
            let expected = try codableRoundTrip(ZoneChangesResponse(zones: zones))
            #expect(try decoded(ZoneChangesResponse.self, bytes) == expected, "\(JSONTestSupport.shown(bytes))")
            #expect(try ZoneChangesResponse(bytes: bytes) == expected)

            var single = ZoneChangesWriter(form: .recordChanges)
            let page = RecordChangesResponse(
                zoneID: generator.zone(), records: (0..<generator.below(5)).map { _ in generator.record() },
                syncToken: ChangeToken(rawValue: generator.text()), moreComing: generator.chance(50))
            single.beginZone(page.zoneID!)
            for record in page.records { single.record(record) }
            single.endZone(syncToken: page.syncToken, moreComing: page.moreComing)
            #expect(try decoded(RecordChangesResponse.self, single.finish()) == page)
        }
    }

    @Test("changes/database answers: the encoder's very bytes")
    func databaseChangePages() throws {
        var generator = WireMessageGenerator(seed: 16)
        for _ in 0..<Self.messages {
            let zones = (0..<generator.below(6)).map { _ in
                ZoneChange(zoneID: generator.zone(), deleted: generator.chance(30) ? true : nil, purged: generator.chance(15) ? generator.chance(50) : nil)
            }
            let answer = DatabaseChangesResponse(zones: zones, syncToken: ChangeToken(rawValue: generator.text()), moreComing: generator.chance(50))
            let bytes = answer.jsonBody
            #expect(bytes == Array(try JSONWriter.encoder.encode(answer)), "\(JSONTestSupport.shown(bytes))")
            #expect(try decoded(DatabaseChangesResponse.self, bytes) == answer)
        }
    }

    @Test("A record written from its system fields and canonical fields is the record written whole")
    func systemFieldsWriteTheRecord() throws {
        var generator = WireMessageGenerator(seed: 17)
        for _ in 0..<Self.messages {
            let record = generator.record()
            var whole = JSONWriter()
            whole.record(record)
            var parts = JSONWriter()
            var cache = RecordJSONCache()
            let fields = record.fields.map { RecordFields.canonical(Data(EncodedFields($0).json())) } ?? .absent
            parts.record(RecordSystemFields(record), fields: fields, cache: &cache)
            #expect(parts.bytes == whole.bytes, "\(JSONTestSupport.shown(whole.bytes))")
        }
    }
}
