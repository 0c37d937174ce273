import ArgumentParser

/// The `todo` command tree: the terminal app by default, device verbs, and the cloud itself.
@main
struct Todo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "todo",
        abstract: "A keyboard-driven todo list that syncs across devices through a CloudKit-compatible cloud.",
        version: "0.1.0",
        subcommands: [
            Open.self, Add.self, List.self, Next.self, Done.self, Edit.self, Annotate.self, Skip.self, Trash.self, Undo.self, Sync.self, Status.self, Push.self, SignOut.self,
            SignIn.self, Import.self, Export.self, Keys.self, Lists.self, NewList.self, Move.self, Share.self, Shares.self, Accept.self,
            Unshare.self, Leave.self, Conflicts.self, Restore.self, Login.self, Logout.self, Signup.self, ServerForward.self,
            Devices.self,
            StartTodo.self, StopTodo.self, Projects.self, Tags.self, Info.self,
            Context.self,
            Summary.self,
            BurndownReport.self,
            CalendarReport.self,
            AppPassword.self,
        ],
        defaultSubcommand: Open.self
    )
}
