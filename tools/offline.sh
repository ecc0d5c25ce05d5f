#!/bin/sh
# Run a command with no network: in a new network namespace whose only interface is loopback (up,
# so that Jupyter kernels can talk to nbval over localhost ZMQ). `make test` and `make pdf` run the
# book build, nbval and the browser and PDF checks through it: any attempt to fetch data, fonts or
# scripts fails there, as it would for a reader without network.
#
#   tools/offline.sh COMMAND [ARG...]
#
# As root: `unshare --net`; otherwise `unshare --map-root-user --net` (an unprivileged user
# namespace). Where neither is permitted (a container without CAP_SYS_ADMIN, a kernel with
# unprivileged user namespaces switched off, no `unshare` or `ip`), it says so on stderr and runs
# the command with the network as it is; OFFLINE=require makes that an error instead (for CI), and
# OFFLINE=skip runs the command directly without trying.
set -eu

if [ "$#" -eq 0 ]; then
    echo "usage: tools/offline.sh COMMAND [ARG...]" >&2
    exit 2
fi
mode="${OFFLINE:-try}"
if [ "$mode" = skip ]; then
    exec "$@"
fi

if [ "$(id -u)" = 0 ]; then
    ns="unshare --net"
else
    ns="unshare --map-root-user --net"
fi

why=""
if ! command -v unshare >/dev/null 2>&1; then
    why="there is no unshare command (util-linux)"
elif ! command -v ip >/dev/null 2>&1; then
    why="there is no ip command (iproute2) to bring loopback up"
elif ! why=$($ns sh -c 'ip link set lo up' 2>&1); then
    why="'$ns' is not permitted: ${why:-no message}"
else
    # shellcheck disable=SC2086  # $ns is two or three words on purpose
    exec $ns sh -c 'ip link set lo up && exec "$@"' offline "$@"
fi

echo "tools/offline.sh: cannot take the network away here: $why." >&2
if [ "$mode" = require ]; then
    echo "tools/offline.sh: OFFLINE=require, so this is an error." >&2
    exit 1
fi
echo "tools/offline.sh: running '$*' WITH the network: the no-network check is NOT enforced on this machine (OFFLINE=require makes this an error)." >&2
exec "$@"
