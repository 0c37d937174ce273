import CloudModel
@testable import CloudServer
import Foundation
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One CalDAV answer: status, body text and headers (names lowercased).
struct DAVAnswer: Sendable {
    var status: Int
    var text: String
    var headers: [String: String]

    var etag: String? { headers["etag"] }

    /// The `<d:href>`s of the body, in order.
    var hrefs: [String] { matches("<d:href>", "</d:href>") }

    /// The texts between every `open` and the next `close`.
    func matches(_ open: String, _ close: String) -> [String] {
        var found: [String] = []
        var rest = Substring(text)
        while let start = rest.range(of: open), let end = rest[start.upperBound...].range(of: close) {
            found.append(String(rest[start.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return found
    }
}

/// The tests' CalDAV client: redirects are the tests' to follow.
enum DAVTestClient {
    static let shared = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init(redirectConfiguration: .disallow))
}

/// A CalDAV client's sign-in: the account name and an app password.
struct DAVLogin: Sendable {
    var account: String
    var password: String
    var device: Device

    var basic: String { "Basic " + Data("\(account):\(password)".utf8).base64EncodedString() }
}

extension TestCloud {
    /// Signs `account` in (a device named laptop) and makes an app password labelled `label`.
    func davLogin(_ account: String, label: String = "phone") async throws -> DAVLogin {
        let device = try await signIn(account)
        let made = try await appPassword(device, label: label)
        return DAVLogin(account: account, password: made.password, device: device)
    }

    /// `app-passwords/create` for a signed-in device.
    func appPassword(_ device: Device, label: String) async throws -> CreateAppPasswordResponse {
        let (status, data) = try await raw(
            "POST", address.devicePath("app-passwords/create"), body: try JSONEncoder().encode(CreateAppPasswordRequest(label: label)), token: device.token)
        guard status == 200 else { throw try JSONDecoder().decode(ServerError.self, from: data) }
        return try JSONDecoder().decode(CreateAppPasswordResponse.self, from: data)
    }

    /// One CalDAV request with Basic authentication (none when `login` is nil); redirects are not followed.
    ///
    /// Through AsyncHTTPClient: URLSession on Linux answers a 401 with `WWW-Authenticate` by waiting for a credential
    /// delegate that never comes.
    func dav(
        _ method: String, _ path: String, _ body: String? = nil, login: DAVLogin?, headers: [String: String] = [:],
        contentType: String = "application/xml; charset=utf-8"
    ) async throws -> DAVAnswer {
        var request = HTTPClientRequest(url: server.baseURL.absoluteString + path)
        request.method = HTTPMethod(rawValue: method)
        if let body {
            request.body = .bytes(ByteBuffer(string: body))
            request.headers.add(name: "Content-Type", value: contentType)
        }
        if let login { request.headers.add(name: "Authorization", value: login.basic) }
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        let response = try await DAVTestClient.shared.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 64 * 1_048_576)
        var fields: [String: String] = [:]
        for (name, value) in response.headers { fields[name.lowercased()] = value }
        return DAVAnswer(status: Int(response.status.code), text: String(buffer: bytes), headers: fields)
    }

    /// PUTs a VTODO text at `NAME.ics` of a collection.
    func putTodo(_ login: DAVLogin, collection: String = "todos", _ name: String, _ ics: String, headers: [String: String] = [:]) async throws -> DAVAnswer {
        try await dav("PUT", "/dav/calendars/\(login.account)/\(collection)/\(name).ics", ics, login: login, headers: headers, contentType: "text/calendar; charset=utf-8")
    }

    /// GETs `NAME.ics` of a collection.
    func getTodo(_ login: DAVLogin, collection: String = "todos", _ name: String) async throws -> DAVAnswer {
        try await dav("GET", "/dav/calendars/\(login.account)/\(collection)/\(name).ics", login: login)
    }

    /// A `sync-collection` REPORT from `token` ("" for the first), asking for etags and, if `data`, calendar data.
    func syncCollection(_ login: DAVLogin, collection: String = "todos", token: String, data: Bool = false) async throws -> DAVAnswer {
        let body = """
            <?xml version="1.0" encoding="utf-8"?><d:sync-collection xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">\
            <d:sync-token>\(token)</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/>\(data ? "<c:calendar-data/>" : "")</d:prop></d:sync-collection>
            """
        return try await dav("REPORT", "/dav/calendars/\(login.account)/\(collection)/", body, login: login)
    }
}

/// A VCALENDAR with one VTODO of these property lines (UID first).
func vtodo(_ uid: String, _ lines: [String], extraComponents: [String] = []) -> String {
    (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VTODO", "UID:\(uid)", "DTSTAMP:20261101T100000Z"] + lines + extraComponents
        + ["END:VTODO", "END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
}

/// The unfolded lines of an iCalendar text.
func icsLines(_ text: String) -> [String] { ICalendarObject.lines(text) }
