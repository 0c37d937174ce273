import CloudModel
import Foundation
import Testing

@Suite("Accounts and authentication")
struct AccountTests {
    @Test func accountLifecycle() async throws {
        try await withCloud { cloud in
            let body = try JSONEncoder().encode(CreateAccountRequest(account: "alice", password: "correct horse"))
            let created = try await cloud.raw("POST", cloud.address.authPath("accounts"), body: body)
            #expect(created.status == 201)
            let again = try await cloud.raw("POST", cloud.address.authPath("accounts"), body: body)
            #expect(again.status == 409)
            #expect(try JSONDecoder().decode(ServerError.self, from: again.body).serverErrorCode == .exists)

            let wrong = try JSONEncoder().encode(SignInRequest(account: "alice", password: "wrong horse", deviceName: "phone"))
            let refused = try await cloud.raw("POST", cloud.address.authPath("signin"), body: wrong)
            #expect(refused.status == 401)
            #expect(try JSONDecoder().decode(ServerError.self, from: refused.body).serverErrorCode == .authenticationFailed)

            let right = try JSONEncoder().encode(SignInRequest(account: "alice", password: "correct horse", deviceName: "phone"))
            let signedIn = try await cloud.raw("POST", cloud.address.authPath("signin"), body: right)
            let session = try JSONDecoder().decode(SignInResponse.self, from: signedIn.body)
            let me: UserIdentity = try await cloud.post(.private, "users/caller", EmptyBody(), token: session.ckWebAuthToken)
            #expect(me.userRecordName == session.userRecordName)
            #expect(me.account == "alice")
            let current = try await cloud.raw("GET", cloud.address.databasePath(.private, "users/current"), token: session.ckWebAuthToken)
            #expect(current.status == 200)

            // The token also works as a URL-encoded query parameter, as older web clients send it.
            let encoded = session.ckWebAuthToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let viaQuery = try await cloud.raw("GET", cloud.address.databasePath(.private, "users/caller") + "?ckWebAuthToken=\(encoded)&ckAPIToken=ignored")
            #expect(viaQuery.status == 200)

            // Same device name signs in as the same device.
            let second = try await cloud.raw("POST", cloud.address.authPath("signin"), body: right)
            #expect(try JSONDecoder().decode(SignInResponse.self, from: second.body).deviceID == session.deviceID)

            let out = try await cloud.raw("POST", cloud.address.authPath("signout"), token: session.ckWebAuthToken)
            #expect(out.status == 200)
            let (status, error) = try await cloud.failure(.private, "users/caller", EmptyBody(), token: session.ckWebAuthToken)
            #expect(status == 401)
            #expect(error.serverErrorCode == .authenticationFailed)
        }
    }

    @Test func signedOutCallsNeedAnAccount() async throws {
        try await withCloud { cloud in
            let (status, error) = try await cloud.failure(.private, "zones/list", EmptyBody(), token: nil)
            #expect(status == 421)
            #expect(error.serverErrorCode == .authenticationRequired)
            #expect(error.uuid != nil)
        }
    }

    @Test func closedRegistration() async throws {
        try await withCloud(openRegistration: false) { cloud in
            let body = try JSONEncoder().encode(CreateAccountRequest(account: "mallory", password: "password1"))
            let answer = try await cloud.raw("POST", cloud.address.authPath("accounts"), body: body)
            #expect(answer.status == 403)
        }
    }

    @Test func badAccountInput() async throws {
        try await withCloud { cloud in
            for body in [#"{"account":"a b","password":"password1"}"#, #"{"account":"ok","password":"short"}"#, #"{"account":5}"#] {
                let answer = try await cloud.raw("POST", cloud.address.authPath("accounts"), body: Data(body.utf8))
                #expect(answer.status == 400)
            }
        }
    }
}
