import Foundation
import Testing
import TodoPlanning

/// Taskwarrior's urgency terms against a fixed clock (Tuesday 2026-03-10 12:00 UTC).
@Suite("Urgency")
struct UrgencyTests {
    typealias F = PlanningFixture
    let urgency = Urgency(now: F.now, calendar: F.utc)

    @Test func eachTermAsTaskwarriorWeighsIt() {
        let table: [(String, UrgencyFacts, Double)] = [
            ("nothing", UrgencyFacts(), 0),
            ("due a week ago", UrgencyFacts(due: F.allDay(2026, 3, 3)), 12),
            ("due a month ago", UrgencyFacts(due: F.allDay(2026, 2, 10)), 12),
            ("due now", UrgencyFacts(due: F.at(2026, 3, 10, 12, 0)), 12 * (14 * 0.8 / 21 + 0.2)),
            ("due in two weeks", UrgencyFacts(due: F.at(2026, 3, 24, 12, 0)), 12 * 0.2),
            ("due in a year", UrgencyFacts(due: F.allDay(2027, 3, 10)), 12 * 0.2),
            ("high", UrgencyFacts(priority: 3), 6), ("medium", UrgencyFacts(priority: 2), 3.9), ("low", UrgencyFacts(priority: 1), 1.8),
            ("one tag", UrgencyFacts(tags: ["a"]), 0.8), ("two tags", UrgencyFacts(tags: ["a", "b"]), 0.9),
            ("five tags", UrgencyFacts(tags: ["a", "b", "c", "d", "e"]), 1), ("next", UrgencyFacts(tags: ["next"]), 15.8),
            ("annotated", UrgencyFacts(annotationCount: 1), 0.8), ("in a list", UrgencyFacts(inList: true), 1),
            ("half a year old", UrgencyFacts(created: F.now.addingTimeInterval(-182.5 * 86_400)), 1),
            ("two years old", UrgencyFacts(created: F.now.addingTimeInterval(-730 * 86_400)), 2),
            ("active", UrgencyFacts(isActive: true), 4), ("scheduled today", UrgencyFacts(scheduled: F.moment(2026, 3, 10, 9, 0)), 5),
            ("scheduled later", UrgencyFacts(scheduled: F.moment(2026, 3, 11, 9, 0)), 0), ("blocking", UrgencyFacts(isBlocking: true), 8),
            ("blocked", UrgencyFacts(isBlocked: true), -5), ("waiting", UrgencyFacts(isWaiting: true), -3),
        ]
        for (name, facts, expected) in table {
            #expect(abs(urgency.score(facts) - expected) < 1e-9, "\(name): \(urgency.score(facts))")
        }
    }

    @Test func coefficientsAreOverriddenByName() throws {
        var tuned = urgency
        tuned.coefficients = try UrgencyCoefficients(overrides: ["next-tag": 0, "age-max-days": 730, "blocked": -10])
        #expect(tuned.score(UrgencyFacts(tags: ["next"])) == 0.8)
        #expect(tuned.score(UrgencyFacts(created: F.now.addingTimeInterval(-730 * 86_400))) == 2)
        #expect(tuned.score(UrgencyFacts(isBlocked: true)) == -10)
        #expect(throws: UrgencyError.self) { try UrgencyCoefficients(overrides: ["soon": 1]) }
        #expect(throws: UrgencyError.self) { try UrgencyCoefficients(overrides: ["due": .infinity]) }
        #expect(throws: UrgencyError.self) { try UrgencyCoefficients(overrides: ["age-max-days": 0]) }
        #expect(UrgencyCoefficients.names.allSatisfy { UrgencyCoefficients()[name: $0] != nil })
        #expect(Urgency.text(18) == "18.00" && Urgency.text(1.805) == "1.81" && Urgency.text(-3.5) == "-3.50" && Urgency.text(0) == "0.00")
    }
}
