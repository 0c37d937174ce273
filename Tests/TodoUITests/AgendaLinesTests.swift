import Foundation
import Testing
@testable import TodoUI

/// The Next view's lines point into the tabs' rows; they must read as the lines they stand for.
@Suite("AgendaLines")
struct AgendaLinesTests {
    @Test func placesReadAsTheRowsTheyPointAt() {
        let todos = (0..<5).map { TodoRow(id: "t\($0)", title: "Todo \($0)") }
        let shared = (0..<3).map { TodoRow(id: "s\($0)", title: "Shared \($0)") }
        let lines = AgendaLines(
            head: [.heading("Most urgent first (4)")], parts: [todos, shared],
            places: [AgendaLines.place(part: 1, index: 2), AgendaLines.place(part: 0, index: 4), AgendaLines.place(part: 0, index: 0),
                     AgendaLines.place(part: 1, index: 0)])
        #expect(Array(lines) == [.heading("Most urgent first (4)"), .todo(shared[2]), .todo(todos[4]), .todo(todos[0]), .todo(shared[0])])
        #expect(lines.count == 5 && !lines.isTodo(0) && lines.isTodo(1) && lines.isTodo(4))
        #expect(lines.todoCount(before: 0) == 0 && lines.todoCount(before: 1) == 0 && lines.todoCount(before: 3) == 2 && lines.todoCount(before: 99) == 4)
        // The Today view's lines are held as they are.
        let today = AgendaLines([.heading("Overdue (1)"), .todo(todos[1]), .heading("Today (1)"), .todo(todos[2])])
        #expect(today.count == 4 && today[3] == .todo(todos[2]) && today.todoCount(before: 3) == 1 && !today.isTodo(2))
        #expect(AgendaLines().isEmpty)
    }
}
