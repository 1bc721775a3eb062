# fish completion for lockscope-cli (installed to /usr/share/fish/vendor_completions.d).
function __lockscope_cli_lock_names
    set -l tokens (commandline -opc)
    set -l url_args
    for i in (seq 2 (count $tokens))
        switch $tokens[$i]
            case --url --user --tls-ca --tls-cert --tls-key --tls-server-name
                set -a url_args $tokens[$i] $tokens[(math $i + 1)]
            case --cluster --tls-insecure
                set -a url_args $tokens[$i]
        end
    end
    timeout 2 lockscope-cli $url_args --read-only list --json --pattern (commandline -ct)'*' 2>/dev/null \
        | sed -n 's/^{.*"name":"\([^"\\\\]*\)".*/\1/p'
end

set -l commands list show clients watch acquire force-unlock doctor set-ttl remove-waiter remove-reader wake record export redlock workshop serve
complete -c lockscope-cli -f
complete -c lockscope-cli -n "not __fish_seen_subcommand_from $commands" -a list -d 'every lock: holders, hold counts, TTL, waiters'
complete -c lockscope-cli -n "not __fish_seen_subcommand_from $commands" -a show -d 'one lock in detail'
complete -c lockscope-cli -n "not __fish_seen_subcommand_from $commands" -a clients -d 'every client id: host, connections, locks'
complete -c lockscope-cli -n "not __fish_seen_subcommand_from $commands" -a watch -d 'events as they happen'
complete -c lockscope-cli -n "not __fish_seen_subcommand_from $commands" -a acquire -d "take the lock as LockScope's client"
complete -c lockscope-cli -n "not __fish_seen_subcommand_from $commands" -a force-unlock -d 'delete the lock and wake its waiters'
complete -c lockscope-cli -n "not __fish_seen_subcommand_from $commands" -a doctor -d 'find stuck locks'
complete -c lockscope-cli -n "not __fish_seen_subcommand_from $commands" -a set-ttl -d 'repair: give a lock without TTL one'
complete -c lockscope-cli -n "not __fish_seen_subcommand_from $commands" -a remove-waiter -d 'repair: drop a stale fair-queue waiter'
complete -c lockscope-cli -n "not __fish_seen_subcommand_from $commands" -a remove-reader -d 'repair: drop a dead reader'
complete -c lockscope-cli -n "not __fish_seen_subcommand_from $commands" -a wake -d 'repair: wake the waiters of a free lock'
complete -c lockscope-cli -n "not __fish_seen_subcommand_from $commands" -a record -d 'record what is seen'
complete -c lockscope-cli -n "not __fish_seen_subcommand_from $commands" -a export -d 'a recording as CSV'
complete -c lockscope-cli -n "not __fish_seen_subcommand_from $commands" -a redlock -d 'RedLock view and acquire'
complete -c lockscope-cli -n "not __fish_seen_subcommand_from $commands" -a workshop -d 'teaching scenarios'
complete -c lockscope-cli -n "not __fish_seen_subcommand_from $commands" -a serve -d 'Prometheus metrics exporter'
complete -c lockscope-cli -n "__fish_seen_subcommand_from show acquire force-unlock set-ttl remove-waiter remove-reader wake" -a '(__lockscope_cli_lock_names)'
complete -c lockscope-cli -n "__fish_seen_subcommand_from redlock" -a 'show acquire'
complete -c lockscope-cli -n "__fish_seen_subcommand_from workshop" -a 'list run (lockscope-cli workshop list 2>/dev/null | string replace -r "\s.*" "")'
complete -c lockscope-cli -n "__fish_seen_subcommand_from export" -F

complete -c lockscope-cli -l url -x -d 'Redis URL' -a 'redis:// rediss:// unix:// redis-sentinel://'
complete -c lockscope-cli -l user -x -d 'ACL user name'
complete -c lockscope-cli -l ask-password -d 'ask for the password'
complete -c lockscope-cli -l tls-ca -r -F -d 'CA certificates (PEM)'
complete -c lockscope-cli -l tls-cert -r -F -d 'client certificate (PEM)'
complete -c lockscope-cli -l tls-key -r -F -d 'private key (PEM)'
complete -c lockscope-cli -l tls-server-name -x -d 'name on the server certificate'
complete -c lockscope-cli -l tls-insecure -d 'do not verify the server certificate'
complete -c lockscope-cli -l read-only -d 'refuse every write'
complete -c lockscope-cli -l pattern -x -d 'only locks matching this glob'
complete -c lockscope-cli -l json -d 'one JSON object per line'
complete -c lockscope-cli -l holder -x -d 'only locks this client id holds or waits for'
complete -c lockscope-cli -l wide -d 'do not fit the table to the terminal'
complete -c lockscope-cli -l identify-ms -x -d 'find who the holders are (MONITOR sample), N ms at most'
complete -c lockscope-cli -l client-list-budget -x -d 'CLIENT LIST calls/s to identify holders (0: off)'
complete -c lockscope-cli -l lease-ms -x -d 'lease time in ms'
complete -c lockscope-cli -l hold-ms -x -d 'release after N ms'
complete -c lockscope-cli -l wait-ms -x -d 'wait up to N ms'
complete -c lockscope-cli -l thread-id -x -d 'thread id of the holder field'
complete -c lockscope-cli -l kind -x -a 'lock fair read write fenced' -d 'lock kind'
complete -c lockscope-cli -l yes -d 'do not ask for confirmation'
complete -c lockscope-cli -l poll -d 'poll instead of notifications'
complete -c lockscope-cli -l poll-budget -x -d 'polling load, commands/s'
complete -c lockscope-cli -l progress -d 'discovery progress on stderr'
complete -c lockscope-cli -l cluster -d 'the URL is a cluster node'
complete -c lockscope-cli -l enable-notifications -d 'turn on keyspace notifications'
complete -c lockscope-cli -l duration-ms -x -d 'stop after N ms'
complete -c lockscope-cli -l ttl-ms -x -d 'set-ttl: TTL in ms'
complete -c lockscope-cli -l out -r -F -d 'recording file'
complete -c lockscope-cli -l csv -d 'export CSV'
complete -c lockscope-cli -l out-dir -r -a '(__fish_complete_directories)' -d 'CSV directory'
complete -c lockscope-cli -l audit-log -r -F -d 'audit log path'
complete -c lockscope-cli -l observe-ms -x -d 'doctor: watch N ms first'
complete -c lockscope-cli -l watchdog-threshold-ms -x -d 'doctor: watchdog threshold'
complete -c lockscope-cli -l waiter-threshold-ms -x -d 'doctor: waiter threshold'
complete -c lockscope-cli -l silent-holder-threshold-ms -x -d 'doctor: silent holder threshold'
complete -c lockscope-cli -l replication-threshold-ms -x -d 'doctor, serve: not_replicated critical after N ms'
complete -c lockscope-cli -l targets -r -F -d 'serve, list, doctor, clients: every Redis of a file_sd file'
complete -c lockscope-cli -l password-file -r -F -d 'with --targets: passwords by target'
complete -c lockscope-cli -l demo -d 'use the embedded demo'
complete -c lockscope-cli -l servers -x -d 'redlock servers'
complete -c lockscope-cli -l listen -x -a '127.0.0.1:9464 0.0.0.0:9464 :9464' -d 'serve: HOST:PORT for /metrics'
complete -c lockscope-cli -l web-config -r -F -d 'serve: TLS and basic auth (YAML)'
complete -c lockscope-cli -l group -x -d 'serve: lock group rule REGEX=NAME'
complete -c lockscope-cli -l max-groups -x -d 'serve: at most N lock groups'
complete -c lockscope-cli -l max-named-findings -x -d 'serve: at most N locks named in findings'
complete -c lockscope-cli -l multi -d 'MultiLock rules'
complete -c lockscope-cli -l scenario-file -r -F -d 'workshop scenario file'
complete -c lockscope-cli -l pace-ms -x -d 'workshop run: ms between steps'
complete -c lockscope-cli -s h -l help -d 'show the options'
complete -c lockscope-cli -s v -l version -d 'show the version'
