import CloudModel
import Foundation
import Hummingbird
import Logging

/// CalDAV (RFC 4791) for todos, beside the CloudKit routes on the same port: `/.well-known/caldav` (RFC 6764) and
/// everything below `/dav/` (see docs/CALDAV.md for the layout).
enum CalDAVRoutes {
    /// The methods CalDAV clients send; `UnservedMethodHandler` lets them through below `/dav/` and the well-known path.
    static let methods = ["OPTIONS", "PROPFIND", "PROPPATCH", "REPORT", "GET", "HEAD", "PUT", "DELETE", "MKCALENDAR", "MKCOL", "POST"]

    /// Whether a request of `method` to `uri` is one of CalDAV's (for the methods the rest of the cloud never serves).
    static func serves(method: String, uri: String) -> Bool {
        guard methods.contains(method) else { return false }
        // Clients given only the server's address look for the principal at its root.
        if uri == "/" { return method == "PROPFIND" || method == "OPTIONS" }
        return uri == "/dav" || uri.hasPrefix("/dav/") || uri.hasPrefix("/.well-known/caldav")
    }

    /// Registers the CalDAV routes on `router`.
    static func register(_ router: Router<CloudRequestContext>, _ service: CloudService) {
        let handler = CalDAVHandler(service: service)
        for name in methods {
            let method = HTTPRequest.Method(rawValue: name)!
            router.on(".well-known/caldav", method: method) { _, _ in
                // RFC 6764: the context path; clients follow it and PROPFIND for the principal there.
                Response(status: .movedPermanently, headers: [.location: "/dav/"])
            }
            router.on("dav", method: method) { request, context in await handler.respond(request, context) }
            if name == "PROPFIND" || name == "OPTIONS" {
                router.on("/", method: method) { request, context in await handler.respond(request, context) }
            }
            router.on("dav/**", method: method) { request, context in await handler.respond(request, context) }
        }
    }
}

/// Where a CalDAV path points.
enum CalDAVTarget: Sendable {
    case root
    case principal(account: String)
    case home(account: String)
    case collection(account: String, CalDAVCollectionID)
    case object(account: String, CalDAVCollectionID, name: String)

    /// The target of a decoded path below `/dav`; nil for anything else.
    init?(_ segments: [String]) {
        guard segments.isEmpty || segments[0] == "dav" else { return nil }
        let parts = Array(segments.dropFirst())
        switch parts.count {
        case 0: self = .root
        case 2 where parts[0] == "principals": self = .principal(account: parts[1])
        case 2 where parts[0] == "calendars": self = .home(account: parts[1])
        case 3 where parts[0] == "calendars": self = .collection(account: parts[1], CalDAVCollectionID(segment: parts[2]))
        case 4 where parts[0] == "calendars" && parts[3].hasSuffix(".ics") && parts[3].count > 4:
            self = .object(account: parts[1], CalDAVCollectionID(segment: parts[2]), name: String(parts[3].dropLast(4)))
        default: return nil
        }
    }

    var account: String? {
        switch self {
        case .root: nil
        case .principal(let account), .home(let account), .collection(let account, _), .object(let account, _, _): account
        }
    }
}

/// The paths of the layout, percent-encoded.
enum CalDAVPath {
    static func encode(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
    }

    private static let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~@+"))
        .subtracting(CharacterSet(charactersIn: "\u{80}"..."\u{10FFFF}"))

    static let root = "/dav/"
    static func principal(_ account: String) -> String { "/dav/principals/\(encode(account))/" }
    static func home(_ account: String) -> String { "/dav/calendars/\(encode(account))/" }
    static func collection(_ account: String, _ id: CalDAVCollectionID) -> String { home(account) + encode(id.segment) + "/" }
    static func object(_ account: String, _ id: CalDAVCollectionID, _ name: String) -> String {
        collection(account, id) + encode(name) + ".ics"
    }
}

/// One CalDAV request's context: the service, the signed-in account, the request's headers and body.
struct CalDAVRequest: Sendable {
    var method: String
    var target: CalDAVTarget
    var account: CalDAVAccount
    var headers: HTTPFields
    var body: Data
    /// The path as sent.
    var path: String

    func header(_ name: String) -> String? { HTTPFields.Element.Name(name).flatMap { headers[$0] } }

    /// `Depth`: 0, 1 (also for `infinity`, which we answer as 1); `otherwise` when absent.
    func depth(otherwise: Int) -> Int {
        guard let value = header("Depth")?.trimmingCharacters(in: .whitespaces).lowercased() else { return otherwise }
        return value == "0" ? 0 : 1
    }
}

/// Answers the CalDAV requests: authentication, then the method on the target.
struct CalDAVHandler: Sendable {
    let service: CloudService
    /// Each collection's sync token and CTag, kept while its zone is unchanged.
    let heads = CalDAVHeads()

    /// The container CalDAV serves: the one the todo app uses.
    var container: String { "\(ContainerAddress.default.container)/\(ContainerAddress.default.environment)" }

    func respond(_ request: Request, _ context: CloudRequestContext) async -> Response {
        let method = request.method.rawValue
        do {
            if method == "OPTIONS" { return Self.options() }
            guard let target = CalDAVTarget(context.request.segments) else { throw CalDAVFailure(404, "no such CalDAV resource") }
            guard let caller = try await service.authenticateBasic(request.headers[.authorization], context.request) else {
                return Self.unauthorized("sign in with your account name and an app password (todo app-password add LABEL)")
            }
            guard let user = caller.userRecordName,
                let row = try await service.store.readSingle({ try await $0.user(recordName: user) })
            else { return Self.unauthorized("wrong account name or app password") }
            if let named = target.account, named != row.account {
                throw CalDAVFailure(403, "this path belongs to another account")
            }
            var signed = caller
            signed.origin = context.request.origin
            let account = CalDAVAccount(account: row.account, user: user, caller: signed, container: container)
            let dav = CalDAVRequest(method: method, target: target, account: account, headers: request.headers, body: context.request.body, path: context.path)
            return try await dispatch(dav)
        } catch let failure as CalDAVFailure {
            return Self.failure(failure)
        } catch let error as DAVBodyError {
            return Self.failure(CalDAVFailure(error.status, error.reason))
        } catch is CalDAVTokenExpired {
            return Self.failure(CalDAVFailure(403, "the sync token expired or is not this collection's: sync again from scratch", condition: "<d:valid-sync-token/>"))
        } catch let error as ServerError {
            switch error.serverErrorCode {
            case .authenticationFailed, .authenticationRequired: return Self.unauthorized(error.reason)
            case .throttled:
                var response = Self.failure(CalDAVFailure(429, error.reason))
                if let wait = error.retryAfter { response.headers[.retryAfter] = String(Int(wait.rounded(.up))) }
                return response
            default: return Self.failure(CloudService.calDAVFailure(error))
            }
        } catch {
            service.logger.error("CalDAV internal error", metadata: ["error": "\(error)"])
            return Self.failure(CalDAVFailure(500, "internal error; nothing was written"))
        }
    }

    private func dispatch(_ request: CalDAVRequest) async throws -> Response {
        switch request.method {
        case "PROPFIND": return try await propfind(request)
        case "PROPPATCH": return try await proppatch(request)
        case "REPORT": return try await report(request)
        case "GET", "HEAD": return try await get(request, head: request.method == "HEAD")
        case "PUT": return try await put(request)
        case "DELETE": return try await delete(request)
        case "MKCALENDAR", "MKCOL": return try await makeCalendar(request)
        default: throw CalDAVFailure(405, "\(request.method) is not served here")
        }
    }

    // MARK: Answers

    static let davHeader = "1, 3, calendar-access, extended-mkcol"

    static func options() -> Response {
        var headers = HTTPFields()
        headers[HTTPFields.Element.Name("DAV")!] = davHeader
        headers[.allow] = CalDAVRoutes.methods.joined(separator: ", ")
        headers[.contentLength] = "0"
        return Response(status: .ok, headers: headers)
    }

    static func unauthorized(_ reason: String) -> Response {
        var response = failure(CalDAVFailure(401, reason))
        response.headers[.wwwAuthenticate] = "Basic realm=\"CloudTodo\", charset=\"UTF-8\""
        return response
    }

    /// An error answer: a `<d:error>` body with the precondition (if any) and the sentence.
    static func failure(_ failure: CalDAVFailure) -> Response {
        let body = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<d:error xmlns:d=\"DAV:\" xmlns:c=\"\(DAVNamespace.caldav)\">"
            + (failure.condition ?? "") + "<d:responsedescription>\(DAVWriter.escape(failure.reason))</d:responsedescription></d:error>"
        return xml(body, status: failure.status)
    }

    static func xml(_ text: String, status: Int = 207) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/xml; charset=utf-8"
        headers[HTTPFields.Element.Name("DAV")!] = davHeader
        return Response(status: HTTPResponse.Status(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func empty(_ status: Int, etag: String? = nil) -> Response {
        var headers = HTTPFields()
        if let etag { headers[.eTag] = etag }
        headers[.contentLength] = "0"
        return Response(status: HTTPResponse.Status(code: status), headers: headers)
    }

    /// The entity tag of a record version.
    static func etag(_ tag: String?) -> String { "\"\(tag ?? "")\"" }
}
