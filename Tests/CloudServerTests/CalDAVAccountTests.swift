import CloudModel
@testable import CloudServer
import Foundation
import TestSupport
import Testing

/// App passwords and CalDAV's discovery and sign-in, through a real cloud on loopback.
@Suite struct CalDAVAccountTests {
    @Test func anAppPasswordIsListedAsADeviceSignsCalDAVInAndEndsWithItsRevocation() async throws {
        try await withCloud { cloud in
            let login = try await cloud.davLogin("alice")
            #expect(login.password.count == 29)
            let (_, listed) = try await cloud.raw("POST", cloud.address.devicePath("devices/list"), body: Data("{}".utf8), token: login.device.token)
            let devices = try JSONDecoder().decode(DevicesResponse.self, from: listed).devices.map(\.deviceName)
            #expect(Set(devices) == ["laptop", "phone"])
            #expect(try await cloud.dav("PROPFIND", "/dav/", login: login, headers: ["Depth": "0"]).status == 207)
            // The same label again is refused while that one is signed in.
            await #expect(throws: ServerError.self) { _ = try await cloud.appPassword(login.device, label: "phone") }
            let revoke = try JSONEncoder().encode(RevokeDeviceRequest(deviceName: "phone"))
            #expect(try await cloud.raw("POST", cloud.address.devicePath("devices/revoke"), body: revoke, token: login.device.token).status == 200)
            let refused = try await cloud.dav("PROPFIND", "/dav/", login: login, headers: ["Depth": "0"])
            #expect(refused.status == 401)
            #expect(refused.headers["www-authenticate"]?.hasPrefix("Basic") == true)
        }
    }

    @Test func anAppPasswordIsNoCloudKitSession() async throws {
        try await withCloud { cloud in
            let login = try await cloud.davLogin("fay")
            // Every CloudKit route answers it as it answers a token it never issued, in either place a token goes.
            func answer(_ path: String, token: String, inQuery: Bool = false) async throws -> (Int, ServerErrorCode?, String?) {
                let target = inQuery ? path + "?ckWebAuthToken=" + token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! : path
                let (status, data) = try await cloud.raw("POST", target, body: Data("{}".utf8), token: inQuery ? nil : token)
                let error = try? JSONDecoder().decode(ServerError.self, from: data)
                return (status, error?.serverErrorCode, error?.reason)
            }
            let paths = [
                cloud.address.databasePath(.private, "users/caller"), cloud.address.databasePath(.private, "zones/list"),
                cloud.address.devicePath("devices/list"), cloud.address.devicePath("app-passwords/create"),
            ]
            for path in paths {
                let unknown = try await answer(path, token: "a-token-this-cloud-never-issued")
                #expect(unknown.0 == 401)
                #expect(try await answer(path, token: login.password) == unknown)
                #expect(try await answer(path, token: login.password, inQuery: true) == unknown)
            }
            // Signing out with it ends nothing; the device's own session still works, and so does the app password.
            _ = try await cloud.raw("POST", cloud.address.authPath("signout"), token: login.password)
            #expect(try await answer(paths[0], token: login.device.token).0 == 200)
            #expect(try await cloud.dav("PROPFIND", "/dav/", login: login, headers: ["Depth": "0"]).status == 207)
            // Nor is a device's session token an app password.
            let asDevice = DAVLogin(account: "fay", password: login.device.token, device: login.device)
            #expect(try await cloud.dav("PROPFIND", "/dav/", login: asDevice, headers: ["Depth": "0"]).status == 401)
        }
    }

    @Test func wrongPasswordsAreRefusedAndThrottledAsSignInsAre() async throws {
        try await withCloud(signInLimits: SignInLimits(failuresPerAccount: 3, failuresPerAddress: 30, failuresPerAddressAndAccount: 3)) { cloud in
            let login = try await cloud.davLogin("bob")
            #expect(try await cloud.dav("PROPFIND", "/dav/", login: nil).status == 401)
            var wrong = login
            wrong.password = "not-the-password"
            for _ in 0..<3 { #expect(try await cloud.dav("PROPFIND", "/dav/", login: wrong).status == 401) }
            let throttled = try await cloud.dav("PROPFIND", "/dav/", login: wrong)
            #expect(throttled.status == 429)
            #expect(throttled.headers["retry-after"] != nil)
            // Another account's app password does not sign bob in, nor a device's password.
            let carol = try await cloud.davLogin("carol")
            #expect(try await cloud.dav("PROPFIND", "/dav/", login: DAVLogin(account: "carol", password: login.password, device: carol.device)).status == 401)
        }
    }

    @Test func wellKnownLeadsToThePrincipalAndItsCalendarHome() async throws {
        try await withCloud { cloud in
            let login = try await cloud.davLogin("dana")
            let redirect = try await cloud.dav("PROPFIND", "/.well-known/caldav", login: nil)
            #expect(redirect.status == 301)
            #expect(redirect.headers["location"] == "/dav/")
            let root = try await cloud.dav(
                "PROPFIND", "/dav/",
                #"<d:propfind xmlns:d="DAV:"><d:prop><d:current-user-principal/></d:prop></d:propfind>"#, login: login, headers: ["Depth": "0"])
            #expect(root.status == 207)
            #expect(root.text.contains("<d:current-user-principal><d:href>/dav/principals/dana/</d:href>"))
            let principal = try await cloud.dav(
                "PROPFIND", "/dav/principals/dana/",
                #"<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-home-set/><d:displayname/><d:x-unknown/></d:prop></d:propfind>"#,
                login: login, headers: ["Depth": "0"])
            #expect(principal.text.contains("<c:calendar-home-set><d:href>/dav/calendars/dana/</d:href>"))
            #expect(principal.text.contains("404 Not Found"))
            let options = try await cloud.dav("OPTIONS", "/dav/", login: nil)
            #expect(options.status == 200)
            #expect(options.headers["dav"]?.contains("calendar-access") == true)
            // Another account's home is not this one's.
            _ = try await cloud.davLogin("erin")
            #expect(try await cloud.dav("PROPFIND", "/dav/calendars/erin/", login: login, headers: ["Depth": "0"]).status == 403)
        }
    }
}
