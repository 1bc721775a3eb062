# bash completion for lockscope-cli (installed to /usr/share/bash-completion/completions).
# Commands and options; lock names are asked from the server of the command line's --url (or
# LOCKSCOPE_URL) with a read-only `list --json --pattern 'PREFIX*'`, at most 2 s.

_lockscope_cli_lock_names()
{
    local prefix=$1 url_args=() i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            --url|--user|--tls-ca|--tls-cert|--tls-key|--tls-server-name)
                url_args+=("${COMP_WORDS[i]}" "${COMP_WORDS[i+1]}") ;;
            --cluster|--tls-insecure)
                url_args+=("${COMP_WORDS[i]}") ;;
        esac
    done
    timeout 2 lockscope-cli "${url_args[@]}" --read-only list --json --pattern "${prefix}*" 2>/dev/null \
        | sed -n 's/^{.*"name":"\([^"\\]*\)".*/\1/p'
}

_lockscope_cli()
{
    local cur prev words cword
    _init_completion || return

    local commands="list show clients watch acquire force-unlock doctor set-ttl remove-waiter remove-reader wake record export redlock workshop serve"
    local options
    options=$(lockscope-cli --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)

    case $prev in
        --url|--servers)
            COMPREPLY=($(compgen -W "redis:// rediss:// unix:// redis-sentinel://" -- "$cur")); compopt -o nospace; return ;;
        --tls-ca|--tls-cert|--tls-key|--out|--audit-log|--scenario-file|--web-config|--targets|--password-file)
            _filedir; return ;;
        --out-dir)
            _filedir -d; return ;;
        --kind)
            COMPREPLY=($(compgen -W "lock fair read write fenced" -- "$cur")); return ;;
        --pattern|--user|--tls-server-name|--lease-ms|--hold-ms|--wait-ms|--thread-id|--ttl-ms|--duration-ms|--observe-ms|--poll-budget|--watchdog-threshold-ms|--waiter-threshold-ms|--silent-holder-threshold-ms|--replication-threshold-ms|--identify-ms|--client-list-budget|--pace-ms|--holder|--listen|--group|--max-groups|--max-named-findings)
            return ;;
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
        return
    fi

    # The command is the first word that is not an option or an option's value.
    local i command="" arg_index=0
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            --url|--user|--tls-ca|--tls-cert|--tls-key|--tls-server-name|--pattern|--lease-ms|--hold-ms|--wait-ms|--thread-id|--kind|--ttl-ms|--duration-ms|--out|--out-dir|--audit-log|--observe-ms|--poll-budget|--watchdog-threshold-ms|--waiter-threshold-ms|--silent-holder-threshold-ms|--replication-threshold-ms|--identify-ms|--client-list-budget|--servers|--scenario-file|--pace-ms|--holder|--listen|--group|--max-groups|--max-named-findings|--web-config|--targets|--password-file)
                ((i++)) ;;
            -*) ;;
            *)
                if [[ -z $command ]]; then command=${words[i]}; else ((arg_index++)); fi ;;
        esac
    done

    if [[ -z $command ]]; then
        COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        return
    fi
    case $command in
        show|acquire|force-unlock|set-ttl|remove-waiter|remove-reader|wake)
            if ((arg_index == 0)); then
                local IFS=$'\n'
                COMPREPLY=($(compgen -W "$(_lockscope_cli_lock_names "$cur")" -- "$cur"))
            fi ;;
        export)
            ((arg_index == 0)) && _filedir '@(jsonl|gz)' ;;
        redlock)
            ((arg_index == 0)) && COMPREPLY=($(compgen -W "show acquire" -- "$cur")) ;;
        workshop)
            if ((arg_index == 0)); then
                COMPREPLY=($(compgen -W "list run" -- "$cur"))
            elif ((arg_index == 1)); then
                COMPREPLY=($(compgen -W "$(lockscope-cli workshop list 2>/dev/null | awk '{print $1}')" -- "$cur"))
            fi ;;
    esac
}
complete -F _lockscope_cli lockscope-cli

_lockscope()
{
    local cur prev words cword
    _init_completion || return
    case $prev in
        --url) COMPREPLY=($(compgen -W "redis:// rediss:// unix:// redis-sentinel://" -- "$cur")); compopt -o nospace; return ;;
        --tls-ca|--tls-cert|--tls-key|--record|--replay|--scenario-file|--screenshot|--memory-log) _filedir; return ;;
        --tab) COMPREPLY=($(compgen -W "event problems ttl timeline contention" -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(lockscope --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)" -- "$cur"))
    fi
}
complete -F _lockscope lockscope
