import CloudModel
import Foundation
import Testing

/// The endpoint table (CloudModel's `AnyEndpoint.all`) against the cloud's router: every endpoint is routed with the
/// methods the table gives it, in the databases it works in, and refused with a reason in the others; what no route
/// serves is `NOT_FOUND` after the same checks as always.
@Suite("Endpoint table and routes")
struct EndpointRoutingTests {
    /// A body each endpoint reads without failing before its database check.
    static let refusableBodies: [String: String] = [
        "records/changes": #"{"zoneID":{"zoneName":"_defaultZone"}}"#,
        "changes/database": "{}",
        "changes/zone": #"{"zones":[{"zoneID":{"zoneName":"_defaultZone"}}]}"#,
        "zones/changes": "{}",
        "zones/modify": #"{"operations":[]}"#,
        "shares/modify": #"{"operations":[]}"#,
        "shares/list": "{}",
        "shares/accept": #"{"shares":[]}"#,
        "shares/leave": #"{"shares":[]}"#,
        "assets/rereference": #"{"assets":[]}"#,
        "records/accept": #"{"shortGUIDs":[]}"#,
    ]

    private struct Answer {
        var status: Int
        var error: ServerError?

        /// Whether the router found no route (rather than the endpoint refusing the request).
        var unrouted: Bool { status == 404 && error?.reason.hasPrefix("no endpoint") == true }
    }

    private func call(_ cloud: TestCloud, _ method: EndpointMethod, _ path: String, _ json: String = "{}", token: String?) async throws -> Answer {
        let (status, body) = try await cloud.raw(method.rawValue, path, body: method == .post ? Data(json.utf8) : nil, token: token)
        return Answer(status: status, error: try? JSONDecoder().decode(ServerError.self, from: body))
    }

    @Test func everyEndpointIsRoutedWithItsMethodsWhereItWorks() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            for endpoint in AnyEndpoint.all {
                let databases = endpoint.api == .database ? Array(endpoint.databases) : [.private]
                #expect(endpoint.api != .database || !databases.isEmpty, "\(endpoint) works in no database")
                for database in databases {
                    let path = cloud.address.path(of: endpoint, in: database)
                    // (No session for the accounts API: `signout` would end alice's.)
                    let token = endpoint.api == .auth ? nil : alice.token
                    for method in EndpointMethod.allCases {
                        let answer = try await call(cloud, method, path, token: token)
                        let what = "\(method.rawValue) \(path): \(answer.status) \(answer.error?.reason ?? "")"
                        if endpoint.methods.contains(method) {
                            #expect(!answer.unrouted && answer.status != 405, "\(what)")
                        } else if endpoint.api == .database {
                            // Routed, and refused for its method after the session and fault checks, as always.
                            #expect(answer.status == 400, "\(what)")
                        } else if method != .head {
                            #expect(answer.unrouted, "\(what)")
                        } else {
                            #expect(answer.status == 404, "\(what)")
                        }
                    }
                }
            }
        }
    }

    @Test func databaseEndpointsAreRefusedWithAReasonWhereTheyDoNotWork() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            var refused = 0
            for endpoint in AnyEndpoint.all where endpoint.api == .database {
                for database in DatabaseScope.allCases where !endpoint.databases.contains(database) {
                    let body = try #require(Self.refusableBodies[endpoint.path], "no body to try \(endpoint) with")
                    let answer = try await call(cloud, endpoint.method, cloud.address.path(of: endpoint, in: database), body, token: alice.token)
                    #expect(answer.status == 400 && answer.error?.serverErrorCode == .badRequest, "\(endpoint) in \(database): \(answer.status)")
                    #expect(answer.error?.reason.isEmpty == false)
                    refused += 1
                }
            }
            #expect(refused == 16)
        }
    }

    @Test func pathsMatchDecodedAndChecksComeInTheirOrder() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let zones = cloud.address.path(of: Endpoint.zonesList, in: .private)
            // A percent-encoded letter names the same endpoint; an encoded slash is part of one segment, and names none.
            #expect(try await call(cloud, .get, zones.replacingOccurrences(of: "zones/list", with: "zones/%6Cist"), token: alice.token).status == 200)
            let slashed = zones.replacingOccurrences(of: "zones/list", with: "zones%2Flist")
            #expect(try await call(cloud, .post, slashed, token: alice.token).unrouted)
            let prefix = "/database/1/\(cloud.address.container)/\(cloud.address.environment)"
            // An unknown endpoint is told after the session check; a bad container and database name before it.
            #expect(try await call(cloud, .post, prefix + "/private/nothing/here", token: "not-a-session").status == 401)
            #expect(try await call(cloud, .post, prefix + "/private/nothing/here", token: alice.token).unrouted)
            #expect(try await call(cloud, .post, prefix + "/elsewhere/zones/list", token: "not-a-session").error?.reason.hasPrefix("unknown database") == true)
            let badContainer = "/database/1/bad!name/development/private/nothing/here"
            #expect(try await call(cloud, .post, badContainer, token: "not-a-session").error?.reason == "invalid container name")
            // Below the device API, anything unknown also meets the session check first, even the first part of a path.
            let device = cloud.address.path(of: Endpoint.tokensCreate)
            #expect(try await call(cloud, .post, String(device.dropLast("/create".count)), token: "not-a-session").status == 401)
            #expect(try await call(cloud, .post, String(device.dropLast("/create".count)), token: alice.token).unrouted)
            #expect(try await call(cloud, .get, device, token: alice.token).unrouted)
            // A path one segment short or long of any route is unknown at once.
            #expect(try await call(cloud, .post, prefix + "/private/zones", token: "not-a-session").unrouted)
            #expect(try await call(cloud, .post, zones + "/more", token: "not-a-session").unrouted)
        }
    }

    @Test func theURLsTheCloudHandsOutAreItsCapabilityURLsAndAnswerOnlyTheirMethod() async throws {
        try await withCloud { cloud in
            let alice = try await cloud.signIn("alice")
            let container = "\(cloud.address.container)/\(cloud.address.environment)"
            let created = try await cloud.raw(
                "POST", cloud.address.path(of: Endpoint.tokensCreate), body: try JSONEncoder().encode(CreateTokenRequest()), token: alice.token)
            let token = try JSONDecoder().decode(CreateTokenResponse.self, from: created.body)
            let courier = try #require(URL(string: token.webcourierURL))
            #expect(courier.path == CapabilityURL.courier.path(container: container, credential: token.apnsToken))
            #expect(CapabilityURL.redacted(courier.path).hasSuffix("/courier/(push token)"))
            #expect(!CapabilityURL.redacted(courier.path).contains(token.apnsToken))

            try await cloud.createTodosZone(alice)
            let upload = try await cloud.raw(
                "POST", cloud.address.path(of: Endpoint.assetsUpload, in: .private),
                body: Data(#"{"zoneID":{"zoneName":"Todos"},"tokens":[{"recordName":"r","recordType":"Todo","fieldName":"photo"}]}"#.utf8),
                token: alice.token)
            let tokens = try JSONDecoder().decode(AssetUploadResponse.self, from: upload.body).tokens
            let uploadURL = try #require(tokens.first.flatMap { URL(string: $0.url) })
            let ticket = uploadURL.lastPathComponent
            #expect(uploadURL.path == CapabilityURL.assetUpload.path(container: container, credential: ticket))
            // Each capability answers its own method only: another is unknown there (below the device API, once the
            // caller is known).
            for capability in CapabilityURL.allCases {
                let path = capability.path(container: container, credential: String(repeating: "a", count: 64))
                for method in EndpointMethod.allCases where method != capability.method {
                    #expect(try await call(cloud, method, path, token: alice.token).status == 404, "\(method) \(capability)")
                }
            }
            // The upload URL takes the bytes once, with no session.
            #expect(try await call(cloud, .post, uploadURL.path, "bytes", token: nil).status == 200)
            #expect(try await call(cloud, .post, uploadURL.path, "bytes", token: nil).status == 404)
        }
    }
}
