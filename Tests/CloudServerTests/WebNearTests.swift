import CloudModel
@testable import CloudServer
import Foundation
import Testing

/// `NEAR` and sorting by `relativeLocation` where a flat box and a flat distance go wrong: across the antimeridian
/// (179.9 and -179.9 are neighbours) and around the poles (every longitude meets there).
@Suite("Web clients: NEAR across the antimeridian and the poles")
struct WebNearTests {
    private func places(_ cloud: TestCloud, _ device: Device, _ places: [(String, Double, Double)]) async throws {
        let operations = places.map {
            #"{"operationType":"create","record":{"recordName":"\#($0.0)","recordType":"Place","fields":{"loc":{"type":"LOCATION","value":{"latitude":\#($0.1),"longitude":\#($0.2)}}}}}"#
        }
        let answer = try await cloud.web(
            cloud.address.databasePath(.private, "records/modify"), #"{"operations":[\#(operations.joined(separator: ","))]}"#, token: device.token)
        #expect(answer.status == 200 && !answer.text.contains("serverErrorCode"), "\(answer.text)")
        try await cloud.index("Place", ["loc"])
    }

    private func near(_ cloud: TestCloud, _ device: Device, _ latitude: Double, _ longitude: Double, meters: Double) async throws -> [String] {
        let answer = try await cloud.web(
            cloud.address.databasePath(.private, "records/query"),
            #"{"query":{"recordType":"Place","filterBy":[{"comparator":"NEAR","fieldName":"loc","fieldValue":{"value":{"latitude":\#(latitude),"longitude":\#(longitude)},"type":"LOCATION"},"distance":\#(meters)}]}}"#,
            token: device.token)
        #expect(answer.status == 200, "\(answer.text)")
        return (answer["records"] as? [[String: Any]] ?? []).compactMap { $0["recordName"] as? String }.sorted()
    }

    private func nearest(_ cloud: TestCloud, _ device: Device, _ latitude: Double, _ longitude: Double) async throws -> [String] {
        let answer = try await cloud.web(
            cloud.address.databasePath(.private, "records/query"),
            #"{"query":{"recordType":"Place","sortBy":[{"fieldName":"loc","relativeLocation":{"latitude":\#(latitude),"longitude":\#(longitude)},"ascending":true}]}}"#,
            token: device.token)
        #expect(answer.status == 200, "\(answer.text)")
        return (answer["records"] as? [[String: Any]] ?? []).compactMap { $0["recordName"] as? String }
    }

    @Test func nearAndNearestAcrossTheAntimeridian() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await places(
                cloud, alice,
                [
                    ("east", 0, 179.9), ("west", 0, -179.9), ("fiji", 0, 179.0), ("samoa", 0, -178.0), ("greenwich", 0, 0),
                    ("north-east", 60, 179.95), ("north-west", 60, -179.95),
                ])
            // 50 km around either side of the line: both neighbours, nothing a degree away.
            #expect(try await near(cloud, alice, 0, -179.95, meters: 50_000) == ["east", "west"])
            #expect(try await near(cloud, alice, 0, 179.95, meters: 50_000) == ["east", "west"])
            #expect(try await near(cloud, alice, 0, 180, meters: 50_000) == ["east", "west"])
            #expect(try await near(cloud, alice, 0, 179.9, meters: 130_000) == ["east", "fiji", "west"])
            // At 60° north a tenth of a degree of longitude is 5.6 km.
            #expect(try await near(cloud, alice, 60, 179.95, meters: 10_000) == ["north-east", "north-west"])
            #expect(try await nearest(cloud, alice, 0, 179.95) == ["east", "west", "fiji", "samoa", "north-east", "north-west", "greenwich"])
        }
    }

    @Test func nearAndNearestAroundThePoles() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            try await places(
                cloud, alice,
                [
                    // 222 m apart over the north pole; 1.1 km to the third; 111 km to the fourth.
                    ("n1", 89.999, 0), ("n2", 89.999, 180), ("n3", 89.99, 90), ("n4", 89, 0),
                    // 111 m apart over the south pole.
                    ("s1", -89.9995, 45), ("s2", -89.9995, -135),
                    // Around (89, 0): c 1.3° away over the pole, a 1.414° beside it, b 1.5° down the meridian.
                    ("c", 89.7, 180), ("a", 89, 90), ("b", 87.5, 0),
                ])
            #expect(try await near(cloud, alice, 89.999, 0, meters: 500) == ["n1", "n2"])
            #expect(try await near(cloud, alice, 89.999, 0, meters: 2_000) == ["n1", "n2", "n3"])
            #expect(try await near(cloud, alice, 90, 0, meters: 200) == ["n1", "n2"])
            #expect(try await near(cloud, alice, -89.9995, 45, meters: 300) == ["s1", "s2"])
            #expect(try await near(cloud, alice, -90, 0, meters: 100) == ["s1", "s2"])
            let order = try await nearest(cloud, alice, 89, 0).filter { ["a", "b", "c"].contains($0) }
            #expect(order == ["c", "a", "b"])
        }
    }
}
