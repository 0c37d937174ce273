import CloudModel
import Foundation
import Testing

@Suite("Share wire format")
struct SharingWireTests {
    @Test func specBodiesDecode() throws {
        let modify = #"""
            {"operations":[{"operationType":"save","zoneID":{"zoneName":"Todos"},
              "rootRecordName":"L1","participants":[{"account":"bob","permission":"READ_WRITE"}]},
              {"rootRecordName":"L2","operationType":"delete","zoneID":{"zoneName":"Todos"}}]}
            """#
        let request = try JSONDecoder().decode(ModifySharesRequest.self, from: Data(modify.utf8))
        #expect(
            request
                == ModifySharesRequest(operations: [
                    .init(.save, zoneID: ZoneID(zoneName: "Todos"), rootRecordName: "L1", participants: [.init(account: "bob", permission: .readWrite)]),
                    .init(.delete, zoneID: ZoneID(zoneName: "Todos"), rootRecordName: "L2"),
                ]))

        let accept = #"{"shares":[{"shareRecordName":"share-L1","zoneID":{"zoneName":"Todos","ownerRecordName":"_owner"}}]}"#
        let reference = try JSONDecoder().decode(ShareReferenceRequest.self, from: Data(accept.utf8))
        #expect(reference.shares == [ShareReference(shareRecordName: "share-L1", zoneID: ZoneID(zoneName: "Todos", ownerRecordName: "_owner"))])

        let answer = #"""
            {"shares":[{"shareRecordName":"share-L1","zoneID":{"zoneName":"Todos","ownerRecordName":"_a1"},
              "rootRecordName":"L1","rootTitle":"Groceries","recordChangeTag":"k2",
              "owner":{"userRecordName":"_a1","account":"alice"},
              "participants":[{"userRecordName":"_b2","account":"bob","permission":"READ_WRITE","acceptanceStatus":"ACCEPTED"}],
              "currentUserParticipant":{"userRecordName":"_b2","account":"bob","permission":"READ_WRITE","acceptanceStatus":"ACCEPTED"}},
             {"rootRecordName":"L9","serverErrorCode":"NOT_FOUND","reason":"record 'L9' not found"}]}
            """#
        let response = try JSONDecoder().decode(SharesResponse.self, from: Data(answer.utf8))
        let share = try #require(response.shares.first?.share)
        let bob = ShareParticipantInfo(userRecordName: "_b2", account: "bob", permission: .readWrite, acceptanceStatus: .accepted)
        #expect(share.participants == [bob])
        #expect(share.currentUserParticipant == bob)
        #expect(share.owner == ShareOwnerInfo(userRecordName: "_a1", account: "alice"))
        #expect(share.rootTitle == "Groceries")
        let error = try #require(response.shares.last?.error)
        #expect(error.serverErrorCode == .notFound)
        #expect(error.rootRecordName == "L9")
        #expect(response.shares.last?.share == nil)
    }

    @Test func sharesRoundTripWithCloudKitKeyNames() throws {
        var failure = ServerError(.notFound, "no share 'share-L1' of that zone lists you")
        failure.shareRecordName = "share-L1"
        let response = SharesResponse(shares: [
            .share(
                ShareInfo(
                    shareRecordName: "share-L1", zoneID: ZoneID(zoneName: "Todos", ownerRecordName: "_a"), rootRecordName: "L1",
                    owner: ShareOwnerInfo(userRecordName: "_a", account: "alice"),
                    participants: [ShareParticipantInfo(userRecordName: "_b", account: nil, permission: .readOnly, acceptanceStatus: .pending)])),
            .failure(failure),
        ])
        let data = try JSONEncoder().encode(response)
        #expect(try JSONDecoder().decode(SharesResponse.self, from: data) == response)
        let json = String(decoding: data, as: UTF8.self)
        for key in ["\"READ_ONLY\"", "\"PENDING\"", "\"acceptanceStatus\"", "\"shareRecordName\":\"share-L1\"", "\"serverErrorCode\":\"NOT_FOUND\""] {
            #expect(json.contains(key), "\(key) in \(json)")
        }
        // The tree decoder the client uses for error bodies reads the share keys too.
        let parsed = try ServerError(json: JSONParser.parse(Data(try JSONEncoder().encode(failure))), path: "$")
        #expect(parsed.shareRecordName == "share-L1")
        #expect(ShareSchema.recordName(forRoot: "L1") == "share-L1")
    }

    @Test func unknownPermissionsAndOperationsAreRefused() {
        for json in [
            #"{"operations":[{"operationType":"save","zoneID":{"zoneName":"Todos"},"rootRecordName":"L1","participants":[{"account":"bob","permission":"OWNER"}]}]}"#,
            #"{"operations":[{"operationType":"share","zoneID":{"zoneName":"Todos"},"rootRecordName":"L1"}]}"#,
            #"{"operations":[{"operationType":"save","rootRecordName":"L1"}]}"#,
        ] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(ModifySharesRequest.self, from: Data(json.utf8)) }
        }
    }
}
