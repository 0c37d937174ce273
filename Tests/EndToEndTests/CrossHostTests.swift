import Foundation
import ProcessTestSupport
import TLSTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The cloud on one host and two laptops on another, joined by a virtual cable: the real binaries, TLS with a
/// private authority, a saved login, and push, across a network instead of loopback.
@Suite("Across hosts: cloud and devices in separate network namespaces", .serialized)
struct CrossHostTests {
    @Test func twoLaptopsSyncWithACloudOnAnotherHostOverTLS() async throws {
        guard let hosts = try await TwoHosts.make() else { return }
        defer { hosts.tearDown() }
        let binary = try TodoBinary.path()
        let directory = ScratchDirectory.path("hosts")
        defer { try? FileManager.default.removeItem(at: directory) }
        let authority = try await TestCertificateAuthority(in: directory.appendingPathComponent("ca"))
        let certificate = try await authority.issue("cloud", hosts: [hosts.cloudAddress])
        let cloudData = directory.appendingPathComponent("cloud").path
        let password = ["TODO_PASSWORD": "correct horse battery staple"]

        // The operator makes the account on the cloud's host; registration stays closed.
        let added = try await hosts.run(.cloud, [binary, "server", "account", "add", "alice", "--data-dir", cloudData], environment: password)
        #expect(added.status == 0, "account add: \(added.text)")
        let cloud = try hosts.start(
            .cloud,
            [
                binary, "server", "--host", hosts.cloudAddress, "--port", "8443", "--tls-cert", certificate.certificate.path,
                "--tls-key", certificate.key.path, "--data-dir", cloudData,
            ])
        defer { cloud.terminate() }
        let url = "https://\(hosts.cloudAddress):8443"

        // Each laptop has its own home; both sign in once and save the login.
        func laptop(_ name: String) -> [String: String] {
            let home = directory.appendingPathComponent(name).path
            return ["HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data", "LANG": "C.UTF-8"]
        }
        try await hosts.waitUntilAnswering(url, caFile: authority.certificate.path)

        // Without the private authority the certificate does not verify, and the error says so.
        let untrusted = try await hosts.run(.devices, [binary, "login", url, "--account", "alice"], environment: laptop("stranger").merging(password) { $1 })
        #expect(untrusted.status != 0)
        #expect(untrusted.text.lowercased().contains("certificate"), "login without the CA: \(untrusted.text)")

        for name in ["laptop1", "laptop2"] {
            let login = try await hosts.run(
                .devices, [binary, "login", url, "--account", "alice", "--device", name, "--ca-file", authority.certificate.path],
                environment: laptop(name).merging(password) { $1 })
            #expect(login.status == 0, "login on \(name): \(login.text)")
        }

        // laptop1 opens the app; laptop2 adds from its command line; laptop1 shows it by itself (push across hosts).
        let tmux = Tmux()
        defer { tmux.run(["kill-server"]) }
        let app = hosts.shellCommand(.devices, [binary], environment: laptop("laptop1").merging(["TERM": "xterm-256color"]) { $1 })
        tmux.run(["new-session", "-d", "-s", "hosts", "-x", "140", "-y", "20", app + "; echo EXIT=$?; sleep 600"])
        try await tmux.wait("hosts:0.0", "synced", timeout: 30)
        let add = try await hosts.run(.devices, [binary, "add", "Across hosts 跨主机"], environment: laptop("laptop2"))
        #expect(add.status == 0, "add on laptop2: \(add.text)")
        try await tmux.wait("hosts:0.0", "Across hosts 跨主机", timeout: 30)

        // And back: laptop1 completes it; laptop2's command line sees it done.
        tmux.keys("hosts:0.0", "Space")
        try await tmux.wait("hosts:0.0", "[x] Across hosts")
        let done = try await eventually(30) {
            try await hosts.run(.devices, [binary, "list", "--json", "is:done"], environment: laptop("laptop2")).text.contains("\"isCompleted\" : true")
        }
        #expect(done, "laptop2 never saw the completion")
        tmux.keys("hosts:0.0", "q")
        try await tmux.wait("hosts:0.0", "EXIT=0")
    }
}

/// Two network namespaces joined by a veth pair: `cloud` at .1 and `devices` at .2 of a private /30.
struct TwoHosts {
    enum Host { case cloud, devices }

    let cloudNamespace: String
    let devicesNamespace: String
    let cloudAddress: String

    /// Makes the two hosts, or prints why this machine cannot and returns nil (not root, no `ip`, no `openssl`).
    static func make() async throws -> TwoHosts? {
        guard getuid() == 0 else {
            print("SKIPPED cross-host test: network namespaces need root (CI runs as root)")
            return nil
        }
        guard await run(["ip", "netns", "list"]).status == 0 else {
            print("SKIPPED cross-host test: `ip netns` is not available (iproute2)")
            return nil
        }
        guard TestCertificateAuthority.isAvailable else {
            print("SKIPPED cross-host test: openssl is not installed")
            return nil
        }
        let tag = String(UUID().uuidString.lowercased().prefix(6))
        let subnet = "10.\(Int.random(in: 64...127)).\(Int.random(in: 0...255))"
        let hosts = TwoHosts(cloudNamespace: "ctc\(tag)", devicesNamespace: "ctd\(tag)", cloudAddress: "\(subnet).1")
        let steps: [[String]] = [
            ["ip", "netns", "add", hosts.cloudNamespace],
            ["ip", "netns", "add", hosts.devicesNamespace],
            ["ip", "link", "add", "vc\(tag)", "type", "veth", "peer", "name", "vd\(tag)"],
            ["ip", "link", "set", "vc\(tag)", "netns", hosts.cloudNamespace],
            ["ip", "link", "set", "vd\(tag)", "netns", hosts.devicesNamespace],
            ["ip", "-n", hosts.cloudNamespace, "addr", "add", "\(subnet).1/30", "dev", "vc\(tag)"],
            ["ip", "-n", hosts.devicesNamespace, "addr", "add", "\(subnet).2/30", "dev", "vd\(tag)"],
            ["ip", "-n", hosts.cloudNamespace, "link", "set", "vc\(tag)", "up"],
            ["ip", "-n", hosts.devicesNamespace, "link", "set", "vd\(tag)", "up"],
            ["ip", "-n", hosts.cloudNamespace, "link", "set", "lo", "up"],
            ["ip", "-n", hosts.devicesNamespace, "link", "set", "lo", "up"],
        ]
        for step in steps {
            let result = await run(step)
            guard result.status == 0 else {
                hosts.tearDown()
                if step.count > 2, step[1] == "netns", step[2] == "add" {
                    print("SKIPPED cross-host test: cannot make a network namespace here (\(result.text))")
                    return nil
                }
                throw E2EError("\(step.joined(separator: " ")) failed: \(result.text)")
            }
        }
        return hosts
    }

    /// Removes both namespaces (the veth pair goes with them).
    /// Runs from `defer`, inside a task: a thread of its own waits for `ip`.
    func tearDown() {
        let namespaces = [cloudNamespace, devicesNamespace]
        Thread.detachNewThread {
            for namespace in namespaces { _ = try? ChildProcess.runBlocking("/usr/bin/env", ["ip", "netns", "del", namespace]) }
        }
    }

    private func namespace(_ host: Host) -> String { host == .cloud ? cloudNamespace : devicesNamespace }

    private func wrapped(_ host: Host, _ arguments: [String], environment: [String: String]) -> [String] {
        ["ip", "netns", "exec", namespace(host), "env"] + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + arguments
    }

    /// The shell words that run `arguments` on `host` (for a tmux pane).
    func shellCommand(_ host: Host, _ arguments: [String], environment: [String: String]) -> String {
        wrapped(host, arguments, environment: environment).map { "'\($0.replacingOccurrences(of: "'", with: "'\\''"))'" }.joined(separator: " ")
    }

    /// Runs a command on `host` to its end (polling, so the test's threads stay free).
    func run(_ host: Host, _ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, text: String) {
        let result = try await ChildProcess.run("/usr/bin/env", wrapped(host, arguments, environment: environment))
        return (result.status, result.output + result.errors)
    }

    /// Starts a long-running command on `host`.
    func start(_ host: Host, _ arguments: [String], environment: [String: String] = [:]) throws -> HostProcess {
        try HostProcess(wrapped(host, arguments, environment: environment))
    }

    /// Waits until the cloud answers `/health` over TLS from the devices' host.
    func waitUntilAnswering(_ url: String, caFile: String) async throws {
        if try await eventually(10, { try await run(.devices, ["curl", "-sf", "--cacert", caFile, "--max-time", "1", url + "/health"]).status == 0 }) {
            return
        }
        throw E2EError("the cloud at \(url) never answered from the other host")
    }

    private static func run(_ arguments: [String]) async -> (status: Int32, text: String) {
        guard let result = try? await ChildProcess.run("/usr/bin/env", arguments) else { return (127, "cannot run \(arguments[0])") }
        return (result.status, result.output + result.errors)
    }
}

/// A long-running child on a host (`ChildProcess`: output in files, reaped by polling its own pid).
final class HostProcess: Sendable {
    private let child: ChildProcess.Running

    init(_ arguments: [String]) throws { child = try ChildProcess.start("/usr/bin/env", arguments) }

    /// Everything it printed so far, both streams.
    func output() -> String { child.outputSoFar + child.errorsSoFar }

    /// Ends it (SIGTERM, then SIGKILL) and removes its output files.
    func terminate() { ChildProcess.stopInBackground(child) }
}
