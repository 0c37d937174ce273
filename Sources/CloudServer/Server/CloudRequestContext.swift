import Foundation
import Hummingbird
import NIOCore

/// The request context of the cloud's router: Hummingbird's basics, the peer's socket address, and what the
/// middleware learns of a request on its way to a route.
struct CloudRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The TCP peer: the device, or the reverse proxy in front of the cloud.
    let remoteAddress: SocketAddress?
    /// The path as the client sent it (the router sees it rewritten, see `CloudResponder`).
    var path = ""
    /// The request as the service reads it, body and all (`RequestBodyMiddleware` fills it in).
    var request = ServiceRequest(method: "", segments: [], query: [:], bearerToken: nil, body: Data(), origin: "")
    /// `container/environment` (or the container alone, for accounts), checked by `ContainerMiddleware`.
    var container = ""
    /// Who is calling, as `AuthenticationMiddleware` found out.
    var caller = Caller.anonymous

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
