import CloudModel
import Foundation
import Hummingbird

/// Hummingbird glue: hands each request to the cloud's router (`CloudRoutes`), which answers it through its
/// middleware and routes.
///
/// The router matches paths as sent, so a percent-encoded segment would miss the route its decoded form names. The
/// router is given the path of the decoded segments instead, each one still one segment (a decoded `/`, `?`, `#`
/// or `%` is encoded again, and then names no route); the routes read the decoded segments from the context.
struct CloudResponder: HTTPResponder {
    typealias Context = CloudRequestContext
    private let router: RouterResponder<CloudRequestContext>

    init(service: CloudService) {
        router = CloudRoutes.router(for: service).buildResponder()
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        var context = context
        let path = request.uri.path
        let segments = Self.segments(path)
        context.path = path
        context.request.method = request.method.rawValue
        context.request.segments = segments
        var head = request.head
        head.path = "/" + segments.map(Self.routable).joined(separator: "/") + (request.uri.query.map { "?\($0)" } ?? "")
        return try await router.respond(to: Request(head: head, body: request.body), context: context)
    }

    /// The path's segments, empty ones dropped, percent-decoded.
    static func segments(_ path: String) -> [String] {
        // Most segments have nothing to decode: only those with a "%" go through Foundation.
        path.split(separator: "/", omittingEmptySubsequences: true).map {
            $0.contains("%") ? String($0).removingPercentEncoding ?? String($0) : String($0)
        }
    }

    /// A decoded segment as one segment of the path the router matches.
    private static func routable(_ segment: String) -> String {
        guard segment.contains(where: { "/?#%".contains($0) }) else { return segment }
        return segment.addingPercentEncoding(withAllowedCharacters: Self.plain) ?? "%"
    }

    private static let plain = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#%"))

    /// The path as the request log shows it: a courier URL's push token is the long-poll's only credential, so it
    /// never reaches the log.
    static func loggedPath(_ path: String) -> String {
        CapabilityURL.redacted(path)
    }
}
