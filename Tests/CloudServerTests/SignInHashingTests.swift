import CloudModel
import CloudServer
import Foundation
import TestSupport
import Testing

/// yescrypt at sign-in: the same time for unknown accounts, off the cooperative pool, and long passwords.
@Suite("Password hashing at sign-in")
struct SignInHashingTests {
    private static let generous = SignInLimits(failuresPerAccount: 10_000, failuresPerAddress: 10_000, failuresPerAddressAndAccount: 10_000)

    @Test func unknownAccountsTakeAsLongAsWrongPasswords() async throws {
        // Cost 4 (the default, ~11 ms): the hash is most of a sign-in's time, as on a real cloud.
        try await withCloud(passwordHashCost: 4, signInLimits: Self.generous) { cloud async throws in
            #expect(try await cloud.attemptRegistration("alice", password: "correct horse").status == 201)
            var wrong: [Duration] = []
            var unknown: [Duration] = []
            let clock = ContinuousClock()
            // Interleaved, so a slower moment of the machine falls on both sides alike.
            for index in 0..<30 {
                var status = 0
                wrong.append(try await clock.measure { status = try await cloud.attemptSignIn("alice", password: "wrong \(index)").status })
                #expect(status == 401)
                unknown.append(try await clock.measure { status = try await cloud.attemptSignIn("nobody\(index)", password: "wrong \(index)").status })
                #expect(status == 401)
            }
            let ratio = median(unknown) / median(wrong)
            // Before the dummy hash an unknown account answered in about a tenth of the time.
            #expect(ratio > 0.5, "unknown \(median(unknown)), wrong password \(median(wrong))")
            #expect(ratio < 2, "unknown \(median(unknown)), wrong password \(median(wrong))")
        }
    }

    // Failed sign-ins at several costs, from the first try after start: SignInTimingProcessTests, through the binary
    // (hashing lanes of its own, not this process's, which the other tests share).

    @Test func healthAnswersWhileTwentyFourSignInsHash() async throws {
        // Cost 6: ~32 MB and ~50 ms a hash, so two dozen of them keep the hashing lanes busy for a while.
        try await withCloud(passwordHashCost: 6, signInLimits: Self.generous) { cloud async throws in
            #expect(try await cloud.attemptRegistration("alice", password: "correct horse").status == 201)
            let done = Counter()
            let signIns = Task {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<24 {
                        group.addTask {
                            defer { done.increment() }
                            return try await cloud.attemptSignIn("alice", password: "correct horse", device: "d\(index)").status
                        }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
            }
            // /health, one after another while the sign-ins hash; each answer notes how many sign-ins were done by then.
            var doneAtAnswers: [Int] = []
            while doneAtAnswers.count < 50 {
                #expect(try await cloud.raw("GET", "/health").status == 200)
                let doneNow = done.value
                if doneNow == 24 { break }
                doneAtAnswers.append(doneNow)
            }
            let statuses = try await signIns.value
            #expect(statuses == Array(repeating: 200, count: 24))
            // Hashes on the cooperative pool would hold /health until most of them were done: one late answer. Here
            // answers keep coming while the first half still hash (ordering, not a stopwatch: on two cores running
            // the whole suite an answer may be slow, but not behind most of the hashes).
            let early = doneAtAnswers.filter { $0 < 12 }.count
            #expect(early >= 2, "health answered \(early) times before half the sign-ins were done: \(doneAtAnswers)")
        }
    }

    @Test(arguments: [511, 512, 1024])
    func longPasswordsWork(length: Int) async throws {
        try await withCloud { cloud async throws in
            let password = String(repeating: "ü", count: length / 2) + String(repeating: "k", count: length % 2)
            #expect(try await cloud.attemptRegistration("alice", password: password).status == 201)
            #expect(try await cloud.attemptSignIn("alice", password: password).status == 200)
            #expect(try await cloud.attemptSignIn("alice", password: String(password.dropLast()) + "x").status == 401)
        }
    }

    @Test func passwordsOverTheMaximumAreRefusedInWords() async throws {
        try await withCloud { cloud async throws in
            let password = String(repeating: "k", count: 1025)
            for answer in [
                try await cloud.attemptRegistration("alice", password: password), try await cloud.attemptSignIn("alice", password: password),
            ] {
                #expect(answer.status == 400)
                let error = try JSONDecoder().decode(ServerError.self, from: answer.body)
                #expect(error.serverErrorCode == .badRequest)
                #expect(error.reason.contains("at most 1024 bytes"))
            }
            let nul = try await cloud.attemptRegistration("alice", password: "password\u{0}tail")
            #expect(nul.status == 400)
        }
    }
}

/// A one-way switch shared between tasks.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}

/// The middle duration of a list, in seconds.
private func median(_ durations: [Duration]) -> Double {
    let sorted = durations.sorted()
    let middle = sorted[sorted.count / 2]
    return Double(middle.components.seconds) + Double(middle.components.attoseconds) / 1e18
}
