import Foundation
import TodoPlanning

/// The due date, tags and repeat an edit form holds, read.
struct FormPlanning: Hashable {
    var due: DueDate?
    var tags: [String]
    var repeatRule: String?
    var repeatFromCompletion: Bool
}

/// A field of the form that does not read, and the line under the fields that says why.
struct FormProblem: Error {
    var field: FormField
    var line: String
}

extension EditForm {
    /// Reads the due, tags and repeat fields. A field left as it opened keeps the todo's value as it was (the
    /// grammar's words for it may differ).
    func readPlanning(now: Date, calendar: Calendar) -> Result<FormPlanning, FormProblem> {
        let original = self.original
        var planning = FormPlanning(
            due: original?.due, tags: original?.tags ?? [], repeatRule: original?.repeatRule,
            repeatFromCompletion: original?.repeatFromCompletion ?? false)
        guard kind == .todo else { return .success(planning) }
        if original == nil || !isUnchanged(.due) {
            do {
                planning.due = try DueDateGrammar(now: now, calendar: calendar).parse(self[.due].text)
            } catch {
                return .failure(FormProblem(field: .due, line: error.formLine))
            }
        }
        if original == nil || !isUnchanged(.tags) {
            switch Self.readTags(self[.tags].text) {
            case .success(let tags): planning.tags = tags
            case .failure(let error): return .failure(FormProblem(field: .tags, line: "Tags: \(error.problem) ('\(error.text)')."))
            }
        }
        if original == nil || !isUnchanged(.repeat) {
            let words = self[.repeat].text.trimmingCharacters(in: .whitespaces)
            if words.isEmpty || words.lowercased() == "none" {
                planning.repeatRule = nil
                planning.repeatFromCompletion = false
            } else {
                do {
                    let rule = try RepeatRule(words: words)
                    planning.repeatRule = rule.rrule
                    planning.repeatFromCompletion = rule.from == .completion
                } catch {
                    return .failure(FormProblem(field: .repeat, line: "Repeat: \(error.problem)."))
                }
            }
        }
        if planning.repeatRule != nil, planning.due == nil {
            return .failure(FormProblem(field: .due, line: "Due: a repeating todo needs a due date."))
        }
        return .success(planning)
    }

    /// The tags of space-separated text (a leading `+` dropped), each once (compared without case), or the first
    /// word that cannot be a tag.
    static func readTags(_ text: String) -> Result<[String], TagError> {
        var tags: [String] = []
        var seen = Set<String>()
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            do {
                let tag = try TagName.read(String(word))
                if seen.insert(tag.lowercased()).inserted { tags.append(tag) }
            } catch {
                return .failure(error)
            }
        }
        return .success(tags)
    }
}
