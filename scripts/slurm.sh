#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# A one-machine Slurm cluster (Debian's slurm-wlm and munge), for running
# coll/topo's MPI tests under srun --mpi=pmix.
#
#   scripts/slurm.sh up     [--dir DIR] [--port N] [--cpus N]
#   scripts/slurm.sh down   [--dir DIR]
#   scripts/slurm.sh status [--dir DIR]
#
# up installs munge, slurmctld, slurmd and slurm-client with apt-get where
# they are missing, then writes everything under DIR (default
# _build/slurm of the repository): munge's key, socket, log and pid file,
# slurm.conf, the controller's state, slurmd's spool, the logs and pid
# files, and tmp/ (world-writable; TmpFS, and TMPDIR for jobs).  It starts
# munged, slurmctld and slurmd as root (SlurmUser and SlurmdUser root), one
# node "localhost" at 127.0.0.1 with --cpus CPUs (default 8, more than the
# machine may have: jobs of up to that many ranks fit), controller port N
# and slurmd port N+1 (default 6817), and waits until the node is idle.
# It prints the environment to use (also in DIR/env, to source):
#   SLURM_CONF=DIR/slurm.conf  TMPDIR=DIR/tmp
# down stops the three daemons by their pid files (TERM, then KILL after 10
# seconds) and removes DIR; status says which daemons run and what sinfo
# says.  up refuses a DIR that holds something it did not create.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prog=slurm

die() {
    echo "$prog: $*" >&2
    exit 1
}
usage_die() {
    echo "$prog: $*" >&2
    echo "usage: scripts/slurm.sh up|down|status [--dir DIR] [--port N] [--cpus N]" >&2
    exit 2
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in up | down | status) ;; *) usage_die "unknown command '$cmd'" ;; esac
dir=
port=6817
cpus=8
while [ $# -gt 0 ]; do
    case $1 in
    --dir) [ $# -ge 2 ] || usage_die "--dir needs a value"; dir=$2; shift 2 ;;
    --port) [ $# -ge 2 ] || usage_die "--port needs a value"; port=$2; shift 2 ;;
    --cpus) [ $# -ge 2 ] || usage_die "--cpus needs a value"; cpus=$2; shift 2 ;;
    *) usage_die "unknown argument $1" ;;
    esac
done
[ -n "$dir" ] || dir="$root/_build/slurm"
case $dir in /*) ;; *) dir="$PWD/$dir" ;; esac
if ! [[ $port =~ ^[0-9]+$ ]] || [ "$port" -lt 1024 ] || [ "$port" -gt 65000 ]; then
    usage_die "bad --port '$port': 1024 to 65000"
fi
if ! [[ $cpus =~ ^[0-9]+$ ]] || [ "$cpus" -lt 1 ] || [ "$cpus" -gt 256 ]; then
    usage_die "bad --cpus '$cpus': 1 to 256"
fi
marker="$dir/.made-by-slurm.sh"

# pid_of PIDFILE: the pid written there, or nothing
pid_of() {
    { tr -dc 0-9 <"$1"; } 2>/dev/null || true
}
# alive_pid PID: that process runs (a zombie counts as dead)
alive_pid() {
    local st
    [ -n "$1" ] || return 1
    st=$(ps -o stat= -p "$1" 2>/dev/null || true)
    [ -n "$st" ] && [ "${st:0:1}" != Z ]
}
# alive PIDFILE: the process named there runs
alive() {
    alive_pid "$(pid_of "$1")"
}

# stop NAME PIDFILE: TERM, then KILL after 10 s
stop_daemon() {
    local name=$1 pid i
    pid=$(pid_of "$2")
    alive_pid "$pid" || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
        alive_pid "$pid" || { echo "$prog: stopped $name (pid $pid)"; return 0; }
        sleep 0.2
    done
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 25; i++)); do
        alive_pid "$pid" || { echo "$prog: killed $name (pid $pid)"; return 0; }
        sleep 0.2
    done
    echo "$prog: $name (pid $pid) does not end" >&2
    return 1
}

# wait_daemon NAME PIDFILE: until the daemon wrote its pid file and runs
# (up to 10 s); the pid file is how down finds it
wait_daemon() {
    local i
    for ((i = 0; i < 100; i++)); do
        alive "$2" && return 0
        sleep 0.1
    done
    die "$1 did not start (no running process in $2)"
}

do_down() {
    [ "$(id -u)" -eq 0 ] || die "down needs root"
    if [ ! -e "$marker" ]; then
        echo "$prog: no cluster of scripts/slurm.sh in $dir; nothing to stop"
        return 0
    fi
    local ok=yes
    stop_daemon slurmd "$dir/run/slurmd.pid" || ok=no
    stop_daemon slurmctld "$dir/run/slurmctld.pid" || ok=no
    stop_daemon munged "$dir/munge/munged.pid" || ok=no
    [ "$ok" = yes ] || die "a daemon did not stop; $dir kept"
    rm -rf "$dir"
    echo "$prog: down; $dir removed"
}

do_status() {
    if [ ! -e "$marker" ]; then
        echo "$prog: no cluster in $dir"
        return 3
    fi
    local d f up=0
    for d in munged:munge/munged.pid slurmctld:run/slurmctld.pid slurmd:run/slurmd.pid; do
        f="$dir/${d#*:}"
        if alive "$f"; then
            echo "$prog: ${d%%:*} runs (pid $(pid_of "$f"))"
            up=$((up + 1))
        else
            echo "$prog: ${d%%:*} does not run"
        fi
    done
    SLURM_CONF="$dir/slurm.conf" timeout 10 sinfo 2>&1 || true
    [ "$up" -eq 3 ]
}

do_up() {
    [ "$(id -u)" -eq 0 ] || die "up needs root (it installs packages and runs the daemons as root); nothing was done"
    local p missing=() st
    for p in munge slurmctld slurmd slurm-client; do
        st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
        [ "$st" = installed ] || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "$prog: installing ${missing[*]}"
        DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null ||
            die "apt-get update failed; nothing else was done"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
            die "apt-get install ${missing[*]} failed; nothing else was done"
    fi
    for p in munged mungekey munge unmunge slurmctld slurmd srun sinfo scontrol timeout; do
        command -v "$p" >/dev/null 2>&1 || die "$p not found after installing; nothing was done"
    done
    if [ -e "$marker" ]; then
        if alive "$dir/run/slurmctld.pid"; then
            die "a cluster runs in $dir already (scripts/slurm.sh down --dir $dir)"
        fi
        die "$dir holds a cluster that does not run: scripts/slurm.sh down --dir $dir first"
    fi
    if [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
        die "$dir exists and is not empty; choose another --dir"
    fi
    if command -v ss >/dev/null 2>&1 &&
        ss -ltnH "( sport = :$port or sport = :$((port + 1)) )" 2>/dev/null | grep -q .; then
        die "port $port or $((port + 1)) is in use (another Slurm?); choose another --port"
    fi

    mkdir -p "$dir"
    : >"$marker"
    # from here on a failure stops what was started and removes $dir
    trap 'echo "$prog: up failed; stopping what it started" >&2; show_logs; do_down' ERR
    set -E
    mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log" "$dir/run" "$dir/tmp"
    chmod 755 "$dir" "$dir/munge" "$dir/run"
    chmod 700 "$dir/state" "$dir/spool"
    chmod 1777 "$dir/tmp"
    local sock="$dir/munge/munge.socket"
    mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null
    chmod 400 "$dir/munge/munge.key"
    munged --socket="$sock" --key-file="$dir/munge/munge.key" \
        --log-file="$dir/munge/munged.log" --pid-file="$dir/munge/munged.pid" \
        --seed-file="$dir/munge/munged.seed"
    wait_daemon munged "$dir/munge/munged.pid"
    local i
    for ((i = 0; i < 50; i++)); do
        [ -S "$sock" ] && break
        sleep 0.1
    done
    munge -n -S "$sock" | unmunge -S "$sock" >/dev/null || die "munge does not work (log: $dir/munge/munged.log)"

    cat >"$dir/slurm.conf" <<EOF
# A one-machine Slurm cluster (written by scripts/slurm.sh up)
ClusterName=colltopo
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
TmpFS=$dir/tmp
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
    export SLURM_CONF="$dir/slurm.conf"
    slurmctld -f "$SLURM_CONF"
    wait_daemon slurmctld "$dir/run/slurmctld.pid"
    slurmd -f "$SLURM_CONF" -N localhost
    wait_daemon slurmd "$dir/run/slurmd.pid"
    local state=
    for ((i = 0; i < 150; i++)); do
        state=$(timeout 5 sinfo -h -n localhost -o %T 2>/dev/null || true)
        [ "$state" = idle ] && break
        sleep 0.2
    done
    [ "$state" = idle ] || die "the node is not idle after 30 s (state '${state:-none}'; logs in $dir/log)"
    trap - ERR
    set +E
    {
        echo "export SLURM_CONF=$dir/slurm.conf"
        echo "export TMPDIR=$dir/tmp"
    } >"$dir/env"
    echo "$prog: up: node localhost idle, $cpus CPUs, controller port $port; for the clients:"
    cat "$dir/env"
}

show_logs() {
    local f
    for f in "$dir/munge/munged.log" "$dir/log/slurmctld.log" "$dir/log/slurmd.log"; do
        [ -f "$f" ] || continue
        echo "---- $f (end)" >&2
        tail -n 15 "$f" >&2
    done
}

case $cmd in
up) do_up ;;
down) do_down ;;
status) do_status ;;
esac
