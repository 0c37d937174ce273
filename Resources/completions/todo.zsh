#compdef todo

__todo_complete() {
    local -ar non_empty_completions=("${@:#(|:*)}")
    local -ar empty_completions=("${(M)@:#(|:*)}")
    _describe -V '' non_empty_completions -- empty_completions -P $'\'\''
}

__todo_custom_complete() {
    local -a completions
    completions=("${(@f)"$("${command_name}" "${@}" "${command_line[@]}")"}")
    if [[ "${#completions[@]}" -gt 1 ]]; then
        __todo_complete "${completions[@]:0:-1}"
    fi
}

__todo_cursor_index_in_current_word() {
    if [[ -z "${QIPREFIX}${IPREFIX}${PREFIX}" ]]; then
        printf 0
    else
        printf %s "${#${(z)LBUFFER}[-1]}"
    fi
}

_todo() {
    emulate -RL zsh -G
    setopt extendedglob nullglob numericglobsort
    unsetopt aliases banghist

    local -xr SAP_SHELL=zsh
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(builtin emulate zsh -c 'printf %s "${ZSH_VERSION}"')"
    local -r SAP_SHELL_VERSION

    local context state state_descr line
    local -A opt_args

    local -r command_name="${words[1]}"
    local -ar command_line=("${words[@]}")
    local -ir current_word_index="$((CURRENT - 1))"

    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'open:Open the terminal app (the default when no verb is given).'
            'add:Add a todo.'
            'list:List todos (after fetching what changed), optionally only those a filter matches.'
            'done:Mark a todo done.'
            'edit:Change fields of one or more todos (by ID, or every todo a filter matches).'
            'annotate:Add a timestamped note to a todo.'
            'skip:Skip an occurrence of a repeating todo: it goes to the trash and the next one is made.'
            'trash:Trash a todo (public board posts are marked trashed).'
            'sync:Fetch what changed and send what waits.'
            'status:Show account, device, tokens, pending changes and the last error.'
            'push:Ask the cloud to send a test push to one of your devices.'
            'signout:Sign this device out.'
            'signin:Sign this device in (again).'
            'import:Add todos from an iCalendar file or directory, a Taskwarrior export, or this app'\''s JSON.'
            'export:Write your todos as iCalendar (VTODO), Taskwarrior JSON or this app'\''s JSON.'
            'keys:List the terminal app'\''s keys (Markdown table).'
            'lists:Show your lists and lists shared with you.'
            'newlist:Create a list.'
            'move:Move a todo to another list (none: out of any list).'
            'share:Share a list with another account (or change their access).'
            'shares:Show the lists you share and those shared with you.'
            'accept:Accept invitations to shared lists (all, or the one named).'
            'unshare:Stop sharing a list, with everyone or with one account.'
            'leave:Leave a list shared with you, or decline its invitation.'
            'conflicts:List values that lost a conflict to a later edit (restore one with todo restore ID FIELD).'
            'restore:Put back a value that lost a conflict (see todo conflicts); it is sent as a new, later edit.'
            'login:Sign this device in to a cloud and save the login (later verbs and the app need no --server).'
            'logout:End the saved login: revoke its session at the cloud and forget it on this device.'
            'signup:Create an account on a cloud that allows registration, then log in as with todo login.'
            'server:Run the CloudKit-compatible cloud (started on demand by the app).'
            'devices:List the devices signed in to your account, or sign one out (revoke).'
            'help:Show subcommand help information.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        open|add|list|done|edit|annotate|skip|trash|sync|status|push|signout|signin|import|export|keys|lists|newlist|move|share|shares|accept|unshare|leave|conflicts|restore|login|logout|signup|server|devices|help)
            "_todo_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_todo_open() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_add() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        ':title:'
        '*--tag[Add a tag (one word; repeat the flag for several).]:tag:{__todo_custom_complete ---completion add -- --tag "${current_word_index}" "$(__todo_cursor_index_in_current_word)"}'
        '*--untag[Remove a tag (repeat the flag for several).]:untag:{__todo_custom_complete ---completion add -- --untag "${current_word_index}" "$(__todo_cursor_index_in_current_word)"}'
        '--due[Due date, optionally with a time\: YYYY-MM-DD, today, tomorrow, yesterday, a weekday (mon…sun, monday…sunday), eow, eom, eoy, +3d, +2w, +1m, +1y, 17\:00, 9am, 5\:30pm, a day then a time (fri 9am), none or an ISO 8601 time (2026-05-01T09\:00\:00Z).]:when:'
        '--repeat[Repeat\: daily, weekly, monthly, yearly, weekdays, "every 2 weeks", "every mon,thu" or an RRULE; add "from completion" to count from when it is done.]:rule:'
        '--no-repeat[Stop repeating (the series ends with this occurrence).]'
        '--priority[Priority, 0 (none) to 3 (high).]:priority:'
        '--notes[Notes.]:notes:'
        '--public[Post to the public board instead of your private list.]'
        '--list[The list to add it to (title or ID; yours or one shared with you read-write).]:list:{__todo_custom_complete ---completion add -- --list "${current_word_index}" "$(__todo_cursor_index_in_current_word)"}'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_list() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        '--json[Print JSON for scripts.]'
        '--all[Include trashed records.]'
        '--public[List the public board instead of your private todos.]'
        '--shared[List todos of lists others share with you.]'
        '--offline[Do not ask the cloud; show the cache.]'
        '*:filter:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_done() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        ':id:{__todo_custom_complete ---completion done -- positional@0 "${current_word_index}" "$(__todo_cursor_index_in_current_word)"}'
        '--undo[Mark it not done again.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_edit() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        '*:ids:{__todo_custom_complete ---completion edit -- positional@0 "${current_word_index}" "$(__todo_cursor_index_in_current_word)"}'
        '--filter[Edit every open todo of yours this filter matches instead (the syntax of todo list, quoted as one argument).]:filter:'
        '--title[New title.]:title:'
        '--notes[New notes.]:notes:'
        '--priority[New priority, 0 to 3.]:priority:'
        '*--tag[Add a tag (one word; repeat the flag for several).]:tag:{__todo_custom_complete ---completion edit -- --tag "${current_word_index}" "$(__todo_cursor_index_in_current_word)"}'
        '*--untag[Remove a tag (repeat the flag for several).]:untag:{__todo_custom_complete ---completion edit -- --untag "${current_word_index}" "$(__todo_cursor_index_in_current_word)"}'
        '--due[Due date, optionally with a time\: YYYY-MM-DD, today, tomorrow, yesterday, a weekday (mon…sun, monday…sunday), eow, eom, eoy, +3d, +2w, +1m, +1y, 17\:00, 9am, 5\:30pm, a day then a time (fri 9am), none or an ISO 8601 time (2026-05-01T09\:00\:00Z).]:when:'
        '--repeat[Repeat\: daily, weekly, monthly, yearly, weekdays, "every 2 weeks", "every mon,thu" or an RRULE; add "from completion" to count from when it is done.]:rule:'
        '--no-repeat[Stop repeating (the series ends with this occurrence).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_annotate() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        ':id:{__todo_custom_complete ---completion annotate -- positional@0 "${current_word_index}" "$(__todo_cursor_index_in_current_word)"}'
        '*:text:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_skip() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        ':id:{__todo_custom_complete ---completion skip -- positional@0 "${current_word_index}" "$(__todo_cursor_index_in_current_word)"}'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_trash() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        ':id:{__todo_custom_complete ---completion trash -- positional@0 "${current_word_index}" "$(__todo_cursor_index_in_current_word)"}'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_sync() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_status() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_push() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        ':target:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_signout() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_signin() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_import() {
    local -i ret=1
    local -ar ___format=('ics' 'taskwarrior' 'json')
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        ':file:'
        '--format[ics, taskwarrior or json (default\: found from the content).]:format:{__todo_complete "${___format[@]}"}'
        '(--quiet -q)'{--quiet,-q}'[No progress line.]'
        '--no-send[Store and queue only; `todo sync` (or the app) sends them later.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_export() {
    local -i ret=1
    local -ar ___format=('ics' 'taskwarrior' 'json')
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        '--format[ics, taskwarrior or json (default\: json).]:format:{__todo_complete "${___format[@]}"}'
        '(--output -o)'{--output,-o}'[Write to this file instead of standard output.]:output:'
        '--vdir[Write an iCalendar directory (one subdirectory per list, one .ics file per todo) instead; it must not exist or be empty.]:vdir:'
        '--offline[Do not ask the cloud first; export the cache.]'
        '*:filter:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_keys() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_lists() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        '--offline[Do not ask the cloud; show the cache.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_newlist() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        ':title:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_move() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        ':id:{__todo_custom_complete ---completion move -- positional@0 "${current_word_index}" "$(__todo_cursor_index_in_current_word)"}'
        ':list:{__todo_custom_complete ---completion move -- positional@1 "${current_word_index}" "$(__todo_cursor_index_in_current_word)"}'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_share() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        ':list:{__todo_custom_complete ---completion share -- positional@0 "${current_word_index}" "$(__todo_cursor_index_in_current_word)"}'
        '--with[The account to share with.]:with:'
        '--read-only[They may read but not change it (default\: read-write).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_shares() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_accept() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        ':list:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_unshare() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        ':list:{__todo_custom_complete ---completion unshare -- positional@0 "${current_word_index}" "$(__todo_cursor_index_in_current_word)"}'
        '--with[Only take this account off the share.]:with:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_leave() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        ':list:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_conflicts() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        '--offline[Do not ask the cloud; show the cache.]'
        '--mine[Only the values this device'\''s edits lost.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_restore() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        ':id:'
        ':field:'
        '--dismiss[Drop the notice instead, keeping the value that won (on every device).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_login() {
    local -i ret=1
    local -ar arg_specs=(
        ':url:'
        '--account[The account name.]:account:'
        '--device[This device'\''s name; each device has its own cache (default\: main).]:device:'
        '--ca-file[PEM file of certificate authorities to trust (a private CA; default\: $TODO_CA_FILE).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_logout() {
    local -i ret=1
    local -ar arg_specs=(
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_signup() {
    local -i ret=1
    local -ar arg_specs=(
        ':url:'
        '--account[The account name.]:account:'
        '--device[This device'\''s name; each device has its own cache (default\: main).]:device:'
        '--ca-file[PEM file of certificate authorities to trust (a private CA; default\: $TODO_CA_FILE).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_server() {
    local -i ret=1
    local -ar arg_specs=(
        '--host[Interface to listen on.]:host:'
        '--port[TCP port (0 picks a free one).]:port:'
        '--data-dir[Where the cloud keeps its SQLite files (default\: $XDG_DATA_HOME/cloudtodo/server).]:data-dir:'
        '--open-registration[Let anyone create an account.]'
        '--detach[Start in the background, wait until it answers, then return.]'
        '--enable-faults[Serve the admin fault and compaction routes (tests only).]'
        '--rate-limit[Requests per second per user (0\: unlimited).]:rate-limit:'
        '--tombstone-retention[Seconds to keep tombstones; older change tokens expire.]:tombstone-retention:'
        '--log-level[trace, debug, info, notice, warning, error or critical.]:log-level:'
        '--api-token[Require this ckAPIToken query parameter on every request.]:api-token:'
        '--password-cost[yescrypt cost of password hashes, 1 to 11 (4\: ~11 ms, 8 MB per sign-in).]:password-cost:'
        '--max-asset-size[Largest asset an upload takes, in MB.]:max-asset-size:'
        '--tls-cert[Serve HTTPS with this certificate chain (PEM); needs --tls-key.]:tls-cert:'
        '--tls-key[The private key (PEM) of --tls-cert.]:tls-key:'
        '--insecure-http[Serve plain HTTP on a non-loopback --host\: a TLS proxy stands in front.]'
        '--idle-timeout[Seconds a connection has to send a whole request head (and between body reads, and between requests).]:idle-timeout:'
        '--defer-accept[Seconds a new connection waits in the kernel until its client sends something (Linux; 0\: accept at once).]:defer-accept:'
        '--max-connections-per-address[Concurrent connections one client address may hold (0\: no cap).]:max-connections-per-address:'
        '--session-idle-days[Days a session may go unused before it ends.]:session-idle-days:'
        '--session-cache-seconds[On PostgreSQL, seconds an instance trusts a session it read before reading it again (0\: every request).]:session-cache-seconds:'
        '--database-url[Keep the cloud'\''s data in PostgreSQL, shared by any number of instances\: postgres\://USER\[\:PASS\]@HOST\[\:PORT\]/DB\[?sslmode=...\] (default\: $TODO_DATABASE_URL, else SQLite in --data-dir).]:database-url:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'schema:Show, index and deploy the cloud'\''s schema (record types and typed fields).'
            'status:Show the cloud serving --data-dir (as for todo server): address, pid, uptime; exit 1 when none runs.'
            'stop:Stop the cloud serving --data-dir (as for todo server) gracefully: SIGTERM, then wait.'
            'account:Manage the cloud'\''s accounts in --data-dir D, or in the --database-url database (works while the cloud runs).'
            'migrate:Copy a stopped SQLite cloud (--from-sqlite DIR) into an empty PostgreSQL database (--database-url URL).'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        schema|status|stop|account|migrate)
            "_todo_server_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_todo_server_schema() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'show:Print the record types, their fields'\'' types and index marks.'
            'index:Mark a field queryable and/or sortable (or unmark it).'
            'deploy:Copy the development schema into production (additive: nothing of production is removed).'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        show|index|deploy)
            "_todo_server_schema_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_todo_server_schema_show() {
    local -i ret=1
    local -ar arg_specs=(
        '--container[Container identifier.]:container:'
        '--environment[development or production.]:environment:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_server_schema_index() {
    local -i ret=1
    local -ar arg_specs=(
        '--container[Container identifier.]:container:'
        '--environment[development or production.]:environment:'
        ':record-type:'
        ':field:'
        '--queryable[Whether records/query may filter on the field.]'
        '--no-queryable[Whether records/query may filter on the field.]'
        '--sortable[Whether records/query may sort on the field.]'
        '--no-sortable[Whether records/query may sort on the field.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_server_schema_deploy() {
    local -i ret=1
    local -ar arg_specs=(
        '--container[Container identifier.]:container:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_server_status() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_server_stop() {
    local -i ret=1
    local -ar arg_specs=(
        '--timeout[Seconds to wait for it to finish its requests and exit.]:timeout:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_server_account() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'add:Create an account (password from $TODO_PASSWORD, else asked twice; --password-cost N sets the yescrypt cost).'
            'list:List the accounts with their signed-in devices and last use.'
            'remove:Delete an account and all its data (asks unless --yes).'
            'passwd:Set an account'\''s password and sign all its devices out (password from $TODO_PASSWORD, else asked twice).'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        add|list|remove|passwd)
            "_todo_server_account_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_todo_server_account_add() {
    local -i ret=1
    local -ar arg_specs=(
        ':name:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_server_account_list() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_server_account_remove() {
    local -i ret=1
    local -ar arg_specs=(
        ':name:'
        '--yes[Do not ask for confirmation.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_server_account_passwd() {
    local -i ret=1
    local -ar arg_specs=(
        ':name:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_server_migrate() {
    local -i ret=1
    local -ar arg_specs=(
        '--from-sqlite[The SQLite cloud'\''s data directory (the one `todo server --data-dir` used).]:from-sqlite:'
        '--quiet[No progress line.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_devices() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'list:List the devices signed in to your account.'
            'revoke:Sign one of your devices out; it must sign in again to sync.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        list|revoke)
            "_todo_devices_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_todo_devices_list() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_devices_revoke() {
    local -i ret=1
    local -ar arg_specs=(
        '--account[Account name (default\: the saved login'\''s, else $USER). Never created here\: see todo signup.]:account:'
        '--device[Device name; each device has its own cache (default\: the saved login'\''s, else main).]:device:'
        '--server[Cloud base URL (default\: the saved login'\''s, else http\://127.0.0.1\:8787, started in the background if it does not answer).]:server:'
        '--ca-file[PEM file of certificate authorities to trust for https (default\: $TODO_CA_FILE, else the saved login'\''s).]:ca-file:'
        '--data-dir[Directory for caches, credentials and the configuration (default\: XDG directories).]:data-dir:'
        '--password[Account password for a sign-in (default\: $TODO_PASSWORD; on the embedded local cloud, a generated one kept 0600).]:password:'
        ':name:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_todo_help() {
    local -i ret=1
    local -ar arg_specs=(
        '*:subcommands:'
        '--version[Show the version.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

if [[ "${funcstack[1]}" = _todo ]]; then
    _todo "${@}"
else
    compdef _todo todo
fi
