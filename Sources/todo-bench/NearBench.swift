import CloudModel
import CloudServer
import Foundation
import TestSupport

/// `todo-bench near [RECORDS]`: `records/query` with `NEAR` (100 km; by name, and nearest first) over RECORDS public
/// places spread over the globe, on one SQLite cloud: through the location index, and reading every record of the type
/// as before it (the same build with `TODO_NEAR_SCAN=1` in the cloud's environment). Prints p50 and p99 of each.
enum NearBench {
    static func run(records: Int, queries: Int = 300) async throws {
        print("== NEAR benchmark (release build, \(ProcessInfo.processInfo.activeProcessorCount) cores): \(records) public places ==")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-near-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var random = SplitMix(seed: 29)
        let places = (0..<records).map { _ in random.pointOnSphere() }

        var cloud = try Cloud(directory: directory, scan: false)
        let owner = try BenchAccounts.signIn(cloud.base, account: "places", device: "writer")
        let connection = try RawHTTPConnection(port: cloud.port)
        let modify = ContainerAddress.default.path(of: .recordsModify, in: .public)
        let start = ContinuousClock.now
        for batch in stride(from: 0, to: records, by: 200) {
            let operations = (batch..<min(batch + 200, records)).map { index in
                #"{"operationType":"create","record":{"recordName":"place-\#(index)","recordType":"Place","fields":{"# + #""name":{"value":"Place \#(index)"},"#
                    + #""loc":{"type":"LOCATION","value":{"latitude":\#(places[index].latitude),"longitude":\#(places[index].longitude)}}}}}"#
            }
            let answer = try connection.request("POST", modify, body: Array(#"{"operations":[\#(operations.joined(separator: ","))]}"#.utf8), token: owner.token)
            guard answer.status == 200 else { throw BenchError("writing places failed: \(answer.status)") }
        }
        print(String(format: "wrote %d places in %.1f s (200 a request)", records, seconds(since: start)))
        cloud.stop()
        try await SchemaAdministration.index(
            dataDirectory: directory, container: ContainerAddress.default.container, environment: ContainerAddress.default.environment,
            recordType: "Place", field: "loc", queryable: true, sortable: true)

        // The same centers both ways: places of the set, so most circles hold a few. Before the index a request read
        // at most 4,096 records and answered a continuation marker to go on from, so what is timed is the whole answer:
        // every request until no marker comes back. The scan is slow enough that it is asked fewer times.
        let centers = (0..<queries).map { _ in places[Int(random.next() % UInt64(records))] }
        for scan in [false, true] {
            cloud = try Cloud(directory: directory, scan: scan)
            defer { cloud.stop() }
            let query = try RawHTTPConnection(port: cloud.port)
            for nearestFirst in [false, true] {
                let count = scan ? (nearestFirst ? 5 : 30) : queries
                var samples: [Double] = []
                var found = 0
                var requests = 0
                for (index, center) in ([centers[0]] + centers.prefix(count)).enumerated() {
                    let began = ContinuousClock.now
                    let (places, asked) = try wholeAnswer(query, center, nearestFirst: nearestFirst)
                    if index == 0 { continue }  // the first warms the cloud's caches
                    samples.append(seconds(since: began) * 1000)
                    found += places
                    requests += asked
                }
                samples.sort()
                print(String(format: "NEAR 100 km%@, %d queries, %@: p50 %.2f ms, p99 %.2f ms (%.1f places, %.1f requests a query)",
                             nearestFirst ? ", nearest first" : "", count, scan ? "reading every record (before the index)" : "through the location index",
                             percentile(samples, 0.5), percentile(samples, 0.99), Double(found) / Double(count), Double(requests) / Double(count)))
            }
        }
    }

    /// Asks a NEAR query until no continuation marker comes back; answers the places found and the requests made.
    private static func wholeAnswer(
        _ connection: RawHTTPConnection, _ center: (latitude: Double, longitude: Double), nearestFirst: Bool
    ) throws -> (places: Int, requests: Int) {
        let path = ContainerAddress.default.path(of: .recordsQuery, in: .public)
        let point = #"{"latitude":\#(center.latitude),"longitude":\#(center.longitude)}"#
        let sort = nearestFirst ? #","sortBy":[{"fieldName":"loc","relativeLocation":\#(point),"ascending":true}]"# : ""
        var marker: String?
        var places = 0
        var requests = 0
        repeat {
            let continuation = marker.map { #","continuationMarker":"\#($0)""# } ?? ""
            let body = #"{"resultsLimit":200\#(continuation),"query":{"recordType":"Place","filterBy":[{"comparator":"NEAR","fieldName":"loc","#
                + #""fieldValue":{"type":"LOCATION","value":\#(point)},"distance":100000}]\#(sort)}}"#
            let answer = try connection.request("POST", path, body: Array(body.utf8), token: nil)
            guard answer.status == 200 else { throw BenchError("records/query failed: \(answer.status) \(String(decoding: answer.body, as: UTF8.self))") }
            let page = try JSONDecoder().decode(QueryResponse.self, from: Data(answer.body))
            places += page.records.count
            requests += 1
            marker = page.continuationMarker
        } while marker != nil
        return (places, requests)
    }

    /// A cloud child process on a data directory that outlives it.
    private struct Cloud {
        let process = Process()
        let port = Int.random(in: 20_000...40_000)
        var base: String { "http://127.0.0.1:\(port)" }

        init(directory: URL, scan: Bool) throws {
            process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            process.arguments = ["_server", "\(port)", directory.path]
            var environment = ProcessInfo.processInfo.environment
            environment["TODO_NEAR_SCAN"] = scan ? "1" : nil
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                if (try? HTTP.shared.get(base + EndpointAPI.healthPath))?.status == 200 { return }
                usleep(50_000)
            }
            throw BenchError("the cloud did not start")
        }

        func stop() {
            process.terminate()
            process.waitUntilExit()
        }
    }

}

/// Seeded points, so both runs and every run of the bench ask the same.
extension SplitMix {
    /// A point spread evenly over the sphere.
    fileprivate mutating func pointOnSphere() -> (latitude: Double, longitude: Double) {
        (asin(2 * unit() - 1) * 180 / .pi, unit() * 360 - 180)
    }
}
