#!/bin/bash

__todo_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__todo_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__todo_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__todo_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_todo() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--version -h --help)
    local -a repeating_options=()
    local -a non_repeating_options=()
    __todo_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    open|add|list|done|edit|annotate|skip|trash|sync|status|push|signout|signin|import|export|keys|lists|newlist|move|share|shares|accept|unshare|leave|conflicts|restore|login|logout|signup|server|devices|help)
        # Offer subcommand argument completions
        "_todo_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'open add list done edit annotate skip trash sync status push signout signin import export keys lists newlist move share shares accept unshare leave conflicts restore login logout signup server devices help' -- "${cur}"))
        ;;
    esac
}

_todo_open() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac
}

_todo_add() {
    repeating_flags=()
    non_repeating_flags=(--no-repeat --public --version -h --help)
    repeating_options=(--tag --untag)
    non_repeating_options=(--account --device --server --ca-file --data-dir --password --due --repeat --priority --notes --list)
    __todo_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    '--tag')
        __todo_add_completions -W "$(__todo_custom_complete ---completion add -- --tag "${COMP_CWORD}" "$(__todo_cursor_index_in_current_word)")"
        return
        ;;
    '--untag')
        __todo_add_completions -W "$(__todo_custom_complete ---completion add -- --untag "${COMP_CWORD}" "$(__todo_cursor_index_in_current_word)")"
        return
        ;;
    '--due')
        return
        ;;
    '--repeat')
        return
        ;;
    '--priority')
        return
        ;;
    '--notes')
        return
        ;;
    '--list')
        __todo_add_completions -W "$(__todo_custom_complete ---completion add -- --list "${COMP_CWORD}" "$(__todo_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_todo_list() {
    repeating_flags=()
    non_repeating_flags=(--json --all --public --shared --offline --version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac
}

_todo_done() {
    repeating_flags=()
    non_repeating_flags=(--undo --version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __todo_add_completions -W "$(__todo_custom_complete ---completion done -- positional@0 "${COMP_CWORD}" "$(__todo_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_todo_edit() {
    repeating_flags=()
    non_repeating_flags=(--no-repeat --version -h --help)
    repeating_options=(--tag --untag)
    non_repeating_options=(--account --device --server --ca-file --data-dir --password --filter --title --notes --priority --due --repeat)
    __todo_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    '--filter')
        return
        ;;
    '--title')
        return
        ;;
    '--notes')
        return
        ;;
    '--priority')
        return
        ;;
    '--tag')
        __todo_add_completions -W "$(__todo_custom_complete ---completion edit -- --tag "${COMP_CWORD}" "$(__todo_cursor_index_in_current_word)")"
        return
        ;;
    '--untag')
        __todo_add_completions -W "$(__todo_custom_complete ---completion edit -- --untag "${COMP_CWORD}" "$(__todo_cursor_index_in_current_word)")"
        return
        ;;
    '--due')
        return
        ;;
    '--repeat')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __todo_add_completions -W "$(__todo_custom_complete ---completion edit -- positional@0 "${COMP_CWORD}" "$(__todo_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_todo_annotate() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __todo_add_completions -W "$(__todo_custom_complete ---completion annotate -- positional@0 "${COMP_CWORD}" "$(__todo_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_todo_skip() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __todo_add_completions -W "$(__todo_custom_complete ---completion skip -- positional@0 "${COMP_CWORD}" "$(__todo_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_todo_trash() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __todo_add_completions -W "$(__todo_custom_complete ---completion trash -- positional@0 "${COMP_CWORD}" "$(__todo_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_todo_sync() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac
}

_todo_status() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac
}

_todo_push() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac
}

_todo_signout() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac
}

_todo_signin() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac
}

_todo_import() {
    repeating_flags=()
    non_repeating_flags=(--quiet -q --no-send --version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password --format)
    __todo_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    '--format')
        __todo_add_completions -W 'ics'$'\n''taskwarrior'$'\n''json'
        return
        ;;
    esac
}

_todo_export() {
    repeating_flags=()
    non_repeating_flags=(--offline --version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password --format --output -o --vdir)
    __todo_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    '--format')
        __todo_add_completions -W 'ics'$'\n''taskwarrior'$'\n''json'
        return
        ;;
    '--output'|'-o')
        return
        ;;
    '--vdir')
        return
        ;;
    esac
}

_todo_keys() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __todo_offer_flags_options 0
}

_todo_lists() {
    repeating_flags=()
    non_repeating_flags=(--offline --version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac
}

_todo_newlist() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac
}

_todo_move() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __todo_add_completions -W "$(__todo_custom_complete ---completion move -- positional@0 "${COMP_CWORD}" "$(__todo_cursor_index_in_current_word)")"
        return
        ;;
    2)
        __todo_add_completions -W "$(__todo_custom_complete ---completion move -- positional@1 "${COMP_CWORD}" "$(__todo_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_todo_share() {
    repeating_flags=()
    non_repeating_flags=(--read-only --version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password --with)
    __todo_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    '--with')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __todo_add_completions -W "$(__todo_custom_complete ---completion share -- positional@0 "${COMP_CWORD}" "$(__todo_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_todo_shares() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac
}

_todo_accept() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac
}

_todo_unshare() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password --with)
    __todo_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    '--with')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __todo_add_completions -W "$(__todo_custom_complete ---completion unshare -- positional@0 "${COMP_CWORD}" "$(__todo_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_todo_leave() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac
}

_todo_conflicts() {
    repeating_flags=()
    non_repeating_flags=(--offline --mine --version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac
}

_todo_restore() {
    repeating_flags=()
    non_repeating_flags=(--dismiss --version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac
}

_todo_login() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --ca-file --data-dir)
    __todo_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    esac
}

_todo_logout() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--data-dir)
    __todo_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--data-dir')
        return
        ;;
    esac
}

_todo_signup() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --ca-file --data-dir)
    __todo_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    esac
}

_todo_server() {
    repeating_flags=()
    non_repeating_flags=(--open-registration --detach --enable-faults --insecure-http --version -h --help)
    repeating_options=()
    non_repeating_options=(--host --port --data-dir --rate-limit --tombstone-retention --log-level --api-token --password-cost --max-asset-size --tls-cert --tls-key --idle-timeout --defer-accept --max-connections-per-address --session-idle-days --session-cache-seconds --database-url)
    __todo_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--host')
        return
        ;;
    '--port')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--rate-limit')
        return
        ;;
    '--tombstone-retention')
        return
        ;;
    '--log-level')
        return
        ;;
    '--api-token')
        return
        ;;
    '--password-cost')
        return
        ;;
    '--max-asset-size')
        return
        ;;
    '--tls-cert')
        return
        ;;
    '--tls-key')
        return
        ;;
    '--idle-timeout')
        return
        ;;
    '--defer-accept')
        return
        ;;
    '--max-connections-per-address')
        return
        ;;
    '--session-idle-days')
        return
        ;;
    '--session-cache-seconds')
        return
        ;;
    '--database-url')
        return
        ;;
    esac

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    schema|status|stop|account|migrate)
        # Offer subcommand argument completions
        "_todo_server_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'schema status stop account migrate' -- "${cur}"))
        ;;
    esac
}

_todo_server_schema() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __todo_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    show|index|deploy)
        # Offer subcommand argument completions
        "_todo_server_schema_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'show index deploy' -- "${cur}"))
        ;;
    esac
}

_todo_server_schema_show() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--container --environment)
    __todo_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--container')
        return
        ;;
    '--environment')
        return
        ;;
    esac
}

_todo_server_schema_index() {
    repeating_flags=()
    non_repeating_flags=(--queryable --no-queryable --sortable --no-sortable --version -h --help)
    repeating_options=()
    non_repeating_options=(--container --environment)
    __todo_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--container')
        return
        ;;
    '--environment')
        return
        ;;
    esac
}

_todo_server_schema_deploy() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--container)
    __todo_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--container')
        return
        ;;
    esac
}

_todo_server_status() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __todo_offer_flags_options 0
}

_todo_server_stop() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--timeout)
    __todo_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--timeout')
        return
        ;;
    esac
}

_todo_server_account() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __todo_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    add|list|remove|passwd)
        # Offer subcommand argument completions
        "_todo_server_account_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'add list remove passwd' -- "${cur}"))
        ;;
    esac
}

_todo_server_account_add() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __todo_offer_flags_options 1
}

_todo_server_account_list() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __todo_offer_flags_options 0
}

_todo_server_account_remove() {
    repeating_flags=()
    non_repeating_flags=(--yes --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __todo_offer_flags_options 1
}

_todo_server_account_passwd() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __todo_offer_flags_options 1
}

_todo_server_migrate() {
    repeating_flags=()
    non_repeating_flags=(--quiet --version -h --help)
    repeating_options=()
    non_repeating_options=(--from-sqlite)
    __todo_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--from-sqlite')
        return
        ;;
    esac
}

_todo_devices() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __todo_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|revoke)
        # Offer subcommand argument completions
        "_todo_devices_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list revoke' -- "${cur}"))
        ;;
    esac
}

_todo_devices_list() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac
}

_todo_devices_revoke() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--account --device --server --ca-file --data-dir --password)
    __todo_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--account')
        return
        ;;
    '--device')
        return
        ;;
    '--server')
        return
        ;;
    '--ca-file')
        return
        ;;
    '--data-dir')
        return
        ;;
    '--password')
        return
        ;;
    esac
}

_todo_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __todo_offer_flags_options -1
}

complete -o filenames -F _todo todo
