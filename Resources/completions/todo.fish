function __todo_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __todo_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __todo_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __todo_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __todo_parse_tokens -S
    set -l unparsed_tokens (__todo_tokens -pc)
    switch $unparsed_tokens[1]
    case 'todo'
        __todo_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'open'
            __todo_parse_subcommand 0 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'version' 'h/help'
        case 'add'
            __todo_parse_subcommand 1 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'due=' 'priority=' 'notes=' 'public' 'list=' 'version' 'h/help'
        case 'list'
            __todo_parse_subcommand 0 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'json' 'all' 'public' 'shared' 'offline' 'version' 'h/help'
        case 'done'
            __todo_parse_subcommand 1 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'undo' 'version' 'h/help'
        case 'edit'
            __todo_parse_subcommand 1 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'title=' 'notes=' 'due=' 'priority=' 'version' 'h/help'
        case 'trash'
            __todo_parse_subcommand 1 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'version' 'h/help'
        case 'sync'
            __todo_parse_subcommand 0 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'version' 'h/help'
        case 'status'
            __todo_parse_subcommand 0 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'version' 'h/help'
        case 'push'
            __todo_parse_subcommand 1 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'version' 'h/help'
        case 'signout'
            __todo_parse_subcommand 0 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'version' 'h/help'
        case 'signin'
            __todo_parse_subcommand 0 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'version' 'h/help'
        case 'import'
            __todo_parse_subcommand 1 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'q/quiet' 'no-send' 'version' 'h/help'
        case 'keys'
            __todo_parse_subcommand 0 'version' 'h/help'
        case 'lists'
            __todo_parse_subcommand 0 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'offline' 'version' 'h/help'
        case 'newlist'
            __todo_parse_subcommand 1 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'version' 'h/help'
        case 'move'
            __todo_parse_subcommand 2 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'version' 'h/help'
        case 'share'
            __todo_parse_subcommand 1 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'with=' 'read-only' 'version' 'h/help'
        case 'shares'
            __todo_parse_subcommand 0 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'version' 'h/help'
        case 'accept'
            __todo_parse_subcommand 1 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'version' 'h/help'
        case 'unshare'
            __todo_parse_subcommand 1 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'with=' 'version' 'h/help'
        case 'leave'
            __todo_parse_subcommand 1 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'version' 'h/help'
        case 'conflicts'
            __todo_parse_subcommand 0 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'offline' 'mine' 'version' 'h/help'
        case 'restore'
            __todo_parse_subcommand 2 'account=' 'device=' 'server=' 'data-dir=' 'password=' 'dismiss' 'version' 'h/help'
        case 'server'
            __todo_parse_subcommand 0 'host=' 'port=' 'data-dir=' 'open-registration' 'detach' 'enable-faults' 'rate-limit=' 'tombstone-retention=' 'log-level=' 'api-token=' 'password-cost=' 'max-asset-size=' 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'schema'
                __todo_parse_subcommand 0 'version' 'h/help'
                switch $unparsed_tokens[1]
                case 'show'
                    __todo_parse_subcommand 0 'data-dir=' 'container=' 'environment=' 'version' 'h/help'
                case 'index'
                    __todo_parse_subcommand 2 'data-dir=' 'container=' 'environment=' 'queryable' 'no-queryable' 'sortable' 'no-sortable' 'version' 'h/help'
                case 'deploy'
                    __todo_parse_subcommand 0 'data-dir=' 'container=' 'version' 'h/help'
                end
            end
        case 'help'
            __todo_parse_subcommand -r 1 'version'
        end
    end
end

function __todo_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __todo_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __todo_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __todo_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__todo_tokens -p)
    if test -z "$(__todo_tokens -t)"
        set -l index (count (__todo_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'todo' -f
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'open' -d 'Open the terminal app (the default when no verb is given).'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'add' -d 'Add a todo.'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'list' -d 'List todos (after fetching what changed).'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'done' -d 'Mark a todo done.'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'edit' -d 'Change a todo\'s fields.'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'trash' -d 'Trash a todo (public board posts are marked trashed).'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'sync' -d 'Fetch what changed and send what waits.'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'status' -d 'Show account, device, tokens, pending changes and the last error.'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'push' -d 'Ask the cloud to send a test push to one of your devices.'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'signout' -d 'Sign this device out.'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'signin' -d 'Sign this device in (again).'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'import' -d 'Add todos from a JSON file: [{"title", "notes"?, "due"?, "priority"?, "done"?}].'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'keys' -d 'List the terminal app\'s keys (Markdown table).'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'lists' -d 'Show your lists and lists shared with you.'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'newlist' -d 'Create a list.'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'move' -d 'Move a todo to another list (none: out of any list).'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'share' -d 'Share a list with another account (or change their access).'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'shares' -d 'Show the lists you share and those shared with you.'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'accept' -d 'Accept invitations to shared lists (all, or the one named).'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'unshare' -d 'Stop sharing a list, with everyone or with one account.'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'leave' -d 'Leave a list shared with you, or decline its invitation.'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'conflicts' -d 'List values that lost a conflict to a later edit (restore one with todo restore ID FIELD).'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'restore' -d 'Put back a value that lost a conflict (see todo conflicts); it is sent as a new, later edit.'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'server' -d 'Run the CloudKit-compatible cloud (started on demand by the app).'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo open" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo open" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo open" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo open" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo open" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo open" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo open" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo add" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo add" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo add" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo add" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo add" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo add" due' -l 'due' -d 'Due date: YYYY-MM-DD, today, tomorrow, +3d, +2w or an ISO 8601 time.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo add" priority' -l 'priority' -d 'Priority, 0 (none) to 3 (high).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo add" notes' -l 'notes' -d 'Notes.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo add" public' -l 'public' -d 'Post to the public board instead of your private list.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo add" list' -l 'list' -d 'The list to add it to (title or ID; yours or one shared with you read-write).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo add" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo add" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo list" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo list" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo list" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo list" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo list" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo list" json' -l 'json' -d 'Print JSON for scripts.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo list" all' -l 'all' -d 'Include trashed records.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo list" public' -l 'public' -d 'List the public board instead of your private todos.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo list" shared' -l 'shared' -d 'List todos of lists others share with you.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo list" offline' -l 'offline' -d 'Do not ask the cloud; show the cache.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo list" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo done" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo done" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo done" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo done" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo done" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo done" undo' -l 'undo' -d 'Mark it not done again.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo done" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo done" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo edit" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo edit" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo edit" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo edit" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo edit" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo edit" title' -l 'title' -d 'New title.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo edit" notes' -l 'notes' -d 'New notes.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo edit" due' -l 'due' -d 'New due date (YYYY-MM-DD, today, tomorrow, +3d, +2w, an ISO 8601 time), or none to clear it.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo edit" priority' -l 'priority' -d 'New priority, 0 to 3.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo edit" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo edit" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo trash" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo trash" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo trash" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo trash" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo trash" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo trash" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo trash" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo sync" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo sync" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo sync" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo sync" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo sync" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo sync" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo sync" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo status" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo status" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo status" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo status" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo status" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo status" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo push" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo push" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo push" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo push" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo push" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo push" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo push" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo signout" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo signout" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo signout" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo signout" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo signout" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo signout" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo signout" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo signin" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo signin" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo signin" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo signin" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo signin" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo signin" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo signin" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo import" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo import" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo import" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo import" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo import" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo import" q quiet' -l 'quiet' -s 'q' -d 'No progress line.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo import" no-send' -l 'no-send' -d 'Store and queue only; `todo sync` (or the app) sends them later.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo import" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo import" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo keys" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo keys" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo lists" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo lists" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo lists" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo lists" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo lists" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo lists" offline' -l 'offline' -d 'Do not ask the cloud; show the cache.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo lists" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo lists" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo newlist" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo newlist" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo newlist" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo newlist" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo newlist" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo newlist" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo newlist" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo move" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo move" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo move" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo move" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo move" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo move" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo move" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo share" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo share" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo share" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo share" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo share" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo share" with' -l 'with' -d 'The account to share with.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo share" read-only' -l 'read-only' -d 'They may read but not change it (default: read-write).'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo share" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo share" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo shares" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo shares" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo shares" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo shares" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo shares" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo shares" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo shares" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo accept" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo accept" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo accept" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo accept" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo accept" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo accept" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo accept" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo unshare" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo unshare" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo unshare" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo unshare" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo unshare" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo unshare" with' -l 'with' -d 'Only take this account off the share.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo unshare" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo unshare" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo leave" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo leave" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo leave" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo leave" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo leave" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo leave" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo leave" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo conflicts" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo conflicts" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo conflicts" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo conflicts" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo conflicts" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo conflicts" offline' -l 'offline' -d 'Do not ask the cloud; show the cache.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo conflicts" mine' -l 'mine' -d 'Only the values this device\'s edits lost.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo conflicts" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo conflicts" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo restore" account' -l 'account' -d 'Account name (default: $USER). Created on first use against an open-registration cloud.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo restore" device' -l 'device' -d 'Device name; each device has its own cache (default: main).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo restore" server' -l 'server' -d 'Cloud base URL (default: http://127.0.0.1:8787, started in the background if it does not answer).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo restore" data-dir' -l 'data-dir' -d 'Directory for caches and credentials (default: XDG directories).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo restore" password' -l 'password' -d 'Account password (default: $TODO_PASSWORD, else a generated one kept 0600).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo restore" dismiss' -l 'dismiss' -d 'Drop the notice instead, keeping the value that won (on every device).'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo restore" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo restore" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server" host' -l 'host' -d 'Interface to listen on.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server" port' -l 'port' -d 'TCP port (0 picks a free one).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server" data-dir' -l 'data-dir' -d 'Where the cloud keeps its SQLite files (default: $XDG_DATA_HOME/cloudtodo/server).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server" open-registration' -l 'open-registration' -d 'Let anyone create an account.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server" detach' -l 'detach' -d 'Start in the background, wait until it answers, then return.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server" enable-faults' -l 'enable-faults' -d 'Serve the admin fault and compaction routes (tests only).'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server" rate-limit' -l 'rate-limit' -d 'Requests per second per user (0: unlimited).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server" tombstone-retention' -l 'tombstone-retention' -d 'Seconds to keep tombstones; older change tokens expire.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server" log-level' -l 'log-level' -d 'trace, debug, info, notice, warning, error or critical.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server" api-token' -l 'api-token' -d 'Require this ckAPIToken query parameter on every request.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server" password-cost' -l 'password-cost' -d 'yescrypt cost of password hashes, 1 to 11 (4: ~11 ms, 8 MB per sign-in).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server" max-asset-size' -l 'max-asset-size' -d 'Largest asset an upload takes, in MB.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo server" -eq 1' -fa 'schema' -d 'Show, index and deploy the cloud\'s schema (record types and typed fields).'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo server schema" -eq 1' -fa 'show' -d 'Print the record types, their fields\' types and index marks.'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo server schema" -eq 1' -fa 'index' -d 'Mark a field queryable and/or sortable (or unmark it).'
complete -c 'todo' -n '__todo_should_offer_completions_for_positional "todo server schema" -eq 1' -fa 'deploy' -d 'Copy the development schema into production (additive: nothing of production is removed).'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema show" data-dir' -l 'data-dir' -d 'The cloud\'s data directory (default: $XDG_DATA_HOME/cloudtodo/server).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema show" container' -l 'container' -d 'Container identifier.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema show" environment' -l 'environment' -d 'development or production.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema show" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema show" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema index" data-dir' -l 'data-dir' -d 'The cloud\'s data directory (default: $XDG_DATA_HOME/cloudtodo/server).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema index" container' -l 'container' -d 'Container identifier.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema index" environment' -l 'environment' -d 'development or production.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema index" queryable' -l 'queryable' -d 'Whether records/query may filter on the field.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema index" no-queryable' -l 'no-queryable' -d 'Whether records/query may filter on the field.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema index" sortable' -l 'sortable' -d 'Whether records/query may sort on the field.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema index" no-sortable' -l 'no-sortable' -d 'Whether records/query may sort on the field.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema index" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema index" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema deploy" data-dir' -l 'data-dir' -d 'The cloud\'s data directory (default: $XDG_DATA_HOME/cloudtodo/server).' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema deploy" container' -l 'container' -d 'Container identifier.' -rfka ''
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema deploy" version' -l 'version' -d 'Show the version.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo server schema deploy" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'todo' -n '__todo_should_offer_completions_for_flags_or_options "todo help" version' -l 'version' -d 'Show the version.'
