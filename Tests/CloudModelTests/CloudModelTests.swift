import CloudModel
import Foundation
import TestSupport
import Testing

@Suite("Wire format")
struct WireFormatTests {
    private func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: try JSONEncoder().encode(value))
    }

    @Test func fieldValuesKeepTheirTypes() throws {
        let values: [FieldValue] = [
            .string("牛奶 🥛"), .int64(-7), .double(2.5), .timestamp(1_700_000_000_123), .bytes(Data([0, 1, 254, 255])),
            .reference(Reference(recordName: "L1", zoneID: ZoneID(zoneName: "Todos", ownerRecordName: "_u"), action: .deleteSelf)),
            .list(.string, [.string("a"), .string("b")]), .list(.int64, []), .list(.timestamp, [.timestamp(1)]),
            .unknown(type: "LOCATION", value: .object(["latitude": .double(1.5), "longitude": .double(-3.25)])),
            .unknown(type: "ASSET", value: .object(["fileChecksum": .string("abc"), "size": .int(12)])),
        ]
        for value in values { #expect(try roundTrip(value) == value) }
    }

    @Test func encodingUsesCloudKitKeyNames() throws {
        var record = Record(recordName: "t1", recordType: "Todo", recordChangeTag: "k1", fields: ["title": .string("x")], zoneID: ZoneID(zoneName: "Todos"))
        record.created = RecordStamp(timestamp: 5, userRecordName: "_u", deviceID: "d")
        let json = try #require(String(data: try JSONEncoder().encode(record), encoding: .utf8))
        for key in ["\"recordName\"", "\"recordType\"", "\"recordChangeTag\"", "\"fields\"", "\"zoneName\"", "\"userRecordName\"", "\"deviceID\"", "\"type\":\"STRING\""] {
            #expect(json.contains(key), "\(key) in \(json)")
        }
        let push = PushNotification(ck: .init(nid: "n", cid: "c", met: .init(sid: "private-changes", dbs: 1)))
        let pushJSON = try #require(String(data: try JSONEncoder().encode(push), encoding: .utf8))
        #expect(pushJSON.contains("\"content-available\":1"))
        #expect(pushJSON.contains("\"met\""))
    }

    @Test func typelessValuesAreInferred() throws {
        let json = #"{"s":"text","i":42,"d":0.25,"l":[1,2],"r":{"recordName":"x"},"o":{"weird":true}}"#
        let fields = try JSONDecoder().decode([String: FieldValue].self, from: Data(json.utf8))
        #expect(fields["s"] == .string("text"))
        #expect(fields["i"] == .int64(42))
        #expect(fields["d"] == .double(0.25))
        #expect(fields["l"] == .list(.int64, [.int64(1), .int64(2)]))
        #expect(fields["r"]?.referenceValue?.recordName == "x")
        #expect(fields["o"] == .unknown(type: nil, value: .object(["weird": .bool(true)])))
        // Unknown values keep their JSON on the way out.
        let back = try JSONDecoder().decode([String: FieldValue].self, from: try JSONEncoder().encode(fields))
        #expect(back == fields)
    }

    @Test func mismatchedTypesAreRejected() throws {
        for json in [#"{"value":"abc","type":"INT64"}"#, #"{"value":"%%%","type":"BYTES"}"#, #"{"value":1,"type":"STRING_LIST"}"#, #"{"value":{"x":1},"type":"REFERENCE"}"#] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(FieldValue.self, from: Data(json.utf8)) }
        }
    }

    @Test func resultsDistinguishRecordsFromErrors() throws {
        let json = #"{"records":[{"recordName":"a","recordType":"Todo"},{"recordName":"b","serverErrorCode":"CONFLICT","reason":"stale","serverRecord":{"recordName":"b","recordChangeTag":"9"}}]}"#
        let response = try JSONDecoder().decode(RecordsResponse.self, from: Data(json.utf8))
        #expect(response.records[0].record?.recordName == "a")
        #expect(response.records[1].error?.serverErrorCode == .conflict)
        #expect(response.records[1].error?.serverRecord?.recordChangeTag == "9")
    }

    @Test func errorCodesMapToDocumentedStatuses() {
        let expected: [ServerErrorCode: Int] = [
            .accessDenied: 403, .atomicError: 400, .authenticationFailed: 401, .authenticationRequired: 421, .badRequest: 400,
            .conflict: 409, .exists: 409, .internalError: 500, .notFound: 404, .quotaExceeded: 413, .throttled: 429,
            .tryAgainLater: 503, .validatingReferenceError: 412, .zoneNotFound: 404,
            // Ours travel under a documented code and its status.
            .changeTokenExpired: 400, .userDeletedZone: 404, .limitExceeded: 400,
        ]
        for (code, status) in expected { #expect(code.httpStatus == status, "\(code)") }
    }

    @Test func pathsFollowTheWebServicesLayout() {
        let address = ContainerAddress(container: "iCloud.x", environment: "development")
        #expect(address.databasePath(.private, "records/modify") == "/database/1/iCloud.x/development/private/records/modify")
        #expect(address.devicePath("tokens/create") == "/device/1/iCloud.x/development/tokens/create")
        #expect(address.authPath("signin") == "/auth/1/iCloud.x/signin")
    }
}

@Suite("Streaming decoders agree with the Codable decoders", .onThreadOfItsOwn)
struct StreamingDecoderTests {
    @Test func modifyRequestDecodesTheSameBothWays() throws {
        var record = Record(
            recordName: "t1", recordType: "Todo", recordChangeTag: "k",
            fields: [
                "title": .string("Milk \u{1B}[2J \"quoted\" 牛奶"), "n": .int64(3), "d": .double(0.5), "due": .timestamp(17),
                "tags": .list(.string, ["a", "b"].map(FieldValue.string)), "loc": .unknown(type: "LOCATION", value: .object(["lat": .double(1.5)])),
                "ref": .reference(Reference(recordName: "L", action: .deleteSelf)), "gone": .unknown(type: "STRING", value: .null),
            ], zoneID: ZoneID(zoneName: "Todos", ownerRecordName: "_o"), parent: ParentReference(recordName: "L"))
        record.created = RecordStamp(timestamp: 1, userRecordName: "_u", deviceID: "d")
        var writer = JSONWriter()
        writer.raw("{\"atomic\":false,\"operations\":[{\"operationType\":\"update\",\"record\":")
        writer.record(record)
        writer.raw("}],\"zoneID\":{\"zoneName\":\"Todos\"}}")
        let streamed = try ModifyRecordsRequest(bytes: writer.bytes)
        let codable = try JSONDecoder().decode(ModifyRecordsRequest.self, from: Data(writer.bytes))
        #expect(streamed == codable)
        #expect(streamed.operations.first?.record == record)
        #expect(streamed.atomic == false)
    }

    @Test func valueBeforeTypeAndTypelessValues() throws {
        let json = #"{"operations":[{"record":{"recordName":"x","fields":{"a":{"value":"s","type":"STRING"},"b":{"value":5},"c":7}},"operationType":"create"}]}"#
        let request = try ModifyRecordsRequest(bytes: Array(json.utf8))
        let fields = try #require(request.operations.first?.record.fields)
        #expect(fields["a"] == .string("s"))
        #expect(fields["b"] == .int64(5))
        #expect(fields["c"] == .int64(7))
    }

    @Test func malformedInputIsRefused() {
        for json in [#"{"operations":[{"operationType":"create"}]}"#, #"{"operations":[{"operationType":"boom","record":{"recordName":"x"}}]}"#,
                     #"{"operations":[{"operationType":"create","record":{"recordName":"x","fields":{"a":{"type":"INT64","value":"x"}}}}]}"#,
                     #"{"operations":[]"#, String(repeating: "[", count: 100)] {
            #expect(throws: (any Error).self) { try ModifyRecordsRequest(bytes: Array(json.utf8)) }
        }
    }

    @Test func modifyAnswerDecodesTheSameBothWays() throws {
        let json = #"{"records":[{"recordName":"a","recordType":"Todo","recordChangeTag":"2","fields":{"title":{"type":"STRING","value":"A"},"priority":{"value":2,"type":"INT64"},"due":{"type":"TIMESTAMP","value":17}},"created":{"timestamp":5,"userRecordName":"_u"},"modified":{"timestamp":6,"userRecordName":"_u","deviceID":"d"},"zoneID":{"zoneName":"Todos"},"parent":{"recordName":"L"}},{"serverErrorCode":"CONFLICT","reason":"changed","recordName":"b","serverRecord":{"recordName":"b","recordChangeTag":"9","fields":{"title":{"type":"STRING","value":"B"}}},"uuid":"u1"},{"recordName":"c","serverErrorCode":"THROTTLED","reason":"slow down","retryAfter":1.5},{"recordName":"d","deleted":true}]}"#
        let streamed = try RecordsResponse(bytes: Array(json.utf8))
        let codable = try JSONDecoder().decode(RecordsResponse.self, from: Data(json.utf8))
        #expect(streamed == codable)
        #expect(streamed.records.count == 4)
        guard case .failure(let conflict) = streamed.records[1] else { Issue.record("expected an error"); return }
        #expect(conflict.serverErrorCode == .conflict)
        #expect(conflict.serverRecord?.recordChangeTag == "9")
        guard case .failure(let throttled) = streamed.records[2] else { Issue.record("expected an error"); return }
        #expect(throttled.retryAfter == 1.5)
        #expect(try RecordsResponse(bytes: Array(#"{"records":[]}"#.utf8)).records.isEmpty)
        for bad in [#"{"records":[{"recordType":"Todo"}]}"#, #"{"records":[{"serverErrorCode":"NOPE"}]}"#, #"{"records":null}"#, #"{"records":["#] {
            #expect(throws: (any Error).self) { try RecordsResponse(bytes: Array(bad.utf8)) }
        }
    }

    @Test func repeatedStampsAndZonesDecodeAsWritten() throws {
        // Answers repeat one writer's stamp and one zone record after record; some differ, some come back again.
        let zones = [ZoneID(zoneName: "Todos", ownerRecordName: "_alice"), ZoneID(zoneName: "Todos"), ZoneID(zoneName: "Other", ownerRecordName: "_alice")]
        let stamps = [
            RecordStamp(timestamp: 1_790_000_000_000, userRecordName: "_alice", deviceID: "device-A"),
            RecordStamp(timestamp: 1_790_000_000_000, userRecordName: "_alice"),
            RecordStamp(timestamp: 1_790_000_000_001, userRecordName: "_alice", deviceID: "device-A"),
        ]
        var records: [Record] = []
        for index in 0..<30 {
            var record = Record(recordName: "r\(index)", recordType: "Todo", recordChangeTag: "t\(index)", fields: [:], zoneID: zones[index / 4 % 3])
            record.created = stamps[index / 3 % 3]
            record.modified = stamps[index / 5 % 3]
            records.append(record)
        }
        var writer = JSONWriter()
        writer.raw("{\"records\":[")
        for (index, record) in records.enumerated() {
            writer.separator(index)
            writer.record(record)
        }
        writer.raw("]}")
        let decoded = try RecordsResponse(bytes: writer.bytes).records.map(\.record)
        #expect(decoded == records.map { Optional($0) })
        #expect(try ZoneChangesResponse(bytes: Array("{\"zones\":[{\"zoneID\":{\"zoneName\":\"Todos\"},\"records\":".utf8) + Array(writer.bytes.dropFirst(11).dropLast(1)) + Array(",\"moreComing\":false}]}".utf8)).zones.first?.records == records)
    }

    @Test func changesPageDecodesTheSameBothWays() throws {
        let json = #"{"zones":[{"zoneID":{"zoneName":"Todos"},"records":[{"recordName":"a","recordType":"Todo","recordChangeTag":"1","fields":{"title":{"type":"STRING","value":"A"}},"created":{"timestamp":5,"userRecordName":"_u"},"modified":{"timestamp":6,"userRecordName":"_u","deviceID":"d"},"deleted":false,"zoneID":{"zoneName":"Todos","ownerRecordName":"_u"}},{"recordName":"b","deleted":true}],"syncToken":"Z1","moreComing":true},{"zoneID":{"zoneName":"Gone"},"records":[],"moreComing":false,"serverErrorCode":"ZONE_NOT_FOUND","reason":"nope"}]}"#
        let streamed = try ZoneChangesResponse(bytes: Array(json.utf8))
        let codable = try JSONDecoder().decode(ZoneChangesResponse.self, from: Data(json.utf8))
        #expect(streamed == codable)
        #expect(streamed.zones[0].records.count == 2)
        #expect(streamed.zones[1].error?.serverErrorCode == .zoneNotFound)
    }
}
