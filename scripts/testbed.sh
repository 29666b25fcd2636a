#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# An emulated torus or mesh of Linux network namespaces on one machine, and
# MPI jobs on it with one (or K) ranks per emulated node.
#
#   scripts/testbed.sh start SHAPE [--rate RATE] [--delay DELAY] [--check full|quick|none]
#                                  [--tie split|plus]
#   scripts/testbed.sh stop
#   scripts/testbed.sh status
#   scripts/testbed.sh check [--check full|quick]   the checks of start, again
#   scripts/testbed.sh run [--ranks-per-node K] [--component-dir DIR] [--mca NAME VALUE]...
#                          [--env NAME=VALUE]... [--timeout S] [--] PROGRAM [ARGS...]
#   scripts/testbed.sh probe        exit 0 if this machine can start a testbed, else 77
#   common options: --prefix P (default tb), --state-dir DIR
#                   (default _build/testbed/P), --net 10.N (default 10.213)
#
# SHAPE is torus:AxB, torus:AxBxC or mesh:AxB, every dimension 2 or more,
# 4 to 64 nodes.  Every node is a network namespace named P-X-Y[-Z] after
# its coordinates (that name is also its host name in MPI jobs), with its
# address 10.N.0.(I+1) (I = its row-major index, last dimension fastest)
# on a port-less bridge named "node".  Every link is one veth pair: node X
# and its + neighbour in dimension D (with wrap-around on a torus), its ends
# named dDp (at X) and dDm (at the neighbour), addressed from 10.N.128.0/17.
# On a ring of 2 a node has two links to its neighbour (its own + link and
# the neighbour's), as in coll/topo's model.
#
# Routing: static, dimension order (first dimension first), the shorter way
# around each ring.  A tie (distance K/2 on a ring of even K) is not broken:
# coll/topo's model (core/links.c) sends half of such traffic each way, and
# the testbed routes it over both ways as an equal-cost multipath route,
# hashed per flow on addresses and ports (fib_multipath_hash_policy=1), so
# one TCP connection takes one way and many connections split.  --tie plus
# sends every tie the + way instead (deterministic, but all of a tie's
# traffic on one side of the ring).
#
# --rate RATE limits every link direction (the egress of every veth end)
# with an htb qdisc: RATE for the link, bucket (burst) 128 KB, and TCP's
# pure acknowledgements (IPv4 TCP packets under 256 bytes without the PSH
# flag) in a class of higher priority, so that they do not wait behind bulk
# data; a short data segment stays in its flow's class, so that it cannot
# overtake the segments before it (reordering made every receiver ask for
# retransmissions).  TCP in the namespaces uses a loss-based congestion
# control (cubic where the kernel allows it, else reno), not the host's
# default where that is a model-based one such as bbr: bbr's pacing, with
# many flows sharing each rate-limited link, ran large collectives 2-5x
# under the links' rate once a connection had left its start-up, so that
# a job's later calls ran slower than its first.  --delay DELAY adds
# netem's delay on every link direction where the kernel has netem; where
# it does not, start says so and stops.  RATE: a number with bit, kbit, mbit or gbit; DELAY: a
# number with us or ms.
#
# start checks what it built: every node's routing table is read back from
# the kernel and walked from every node to every other (each next hop to
# the node owning that address, every multipath branch), and each walk must
# reach its destination in exactly the grid distance; then TTL probes
# (ping with TTL = hop count must answer, TTL = hop count - 1 must come back
# "Time to live exceeded"), between all pairs on up to 16 nodes (--check
# full) or from and to the first node (--check quick, and full above 16
# nodes).  It reports every difference and fails.
#
# Everything start creates is recorded in the state directory (the list of
# namespaces, appended before each is created); stop deletes exactly those,
# after ending the processes left inside them, and then the state
# directory.  A start that fails removes what it created.
#
# run writes a hostfile of the node names (K slots each, row-major order),
# the coordinates file of coll/topo for those names (coll_topo_coords_file)
# and an rsh launcher agent that runs Open MPI's daemon inside the named
# node's namespace with that name as its host name (a private UTS
# namespace); mpirun itself runs in the first node's namespace, with the
# rsh launcher named (an environment's OMPI_MCA_plm, such as the
# "isolated" that some container images set, would launch nothing).  Open MPI
# then uses TCP between nodes, on the node addresses only.  With
# --component-dir, coll/topo is loaded from DIR (mca_component_path DIR and
# Open MPI's own directory; coll topo,tuned,inter,basic,libnbc,self).
# --env NAME=VALUE sets a variable in every rank's environment (mpirun -x;
# e.g. FI_TCP_IFACE=node: libfabric's tcp provider on the node address).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prog=testbed

die() {
    echo "$prog: $*" >&2
    exit 1
}
usage_die() {
    echo "$prog: $*" >&2
    echo "usage: scripts/testbed.sh start|stop|status|check|run|probe [options] (see the script's header)" >&2
    exit 2
}

# ---- options -------------------------------------------------------------
cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
start | stop | status | check | run | probe | "" | -h | --help | help) ;;
*) usage_die "unknown command '$cmd'" ;;
esac
prefix=tb
state_dir=
net=10.213
shape=
rate=
delay=
cc=
check=full
tie="split"
rpn=1
component_dir=
run_timeout=600
mca=()
run_args=()
while [ $# -gt 0 ]; do
    case $1 in
    --prefix) [ $# -ge 2 ] || usage_die "--prefix needs a value"; prefix=$2; shift 2 ;;
    --state-dir) [ $# -ge 2 ] || usage_die "--state-dir needs a value"; state_dir=$2; shift 2 ;;
    --net) [ $# -ge 2 ] || usage_die "--net needs a value"; net=$2; shift 2 ;;
    --rate) [ $# -ge 2 ] || usage_die "--rate needs a value"; rate=$2; shift 2 ;;
    --delay) [ $# -ge 2 ] || usage_die "--delay needs a value"; delay=$2; shift 2 ;;
    --check) [ $# -ge 2 ] || usage_die "--check needs a value"; check=$2; shift 2 ;;
    --tie) [ $# -ge 2 ] || usage_die "--tie needs a value"; tie=$2; shift 2 ;;
    --ranks-per-node) [ $# -ge 2 ] || usage_die "--ranks-per-node needs a value"; rpn=$2; shift 2 ;;
    --component-dir) [ $# -ge 2 ] || usage_die "--component-dir needs a value"; component_dir=$2; shift 2 ;;
    --timeout) [ $# -ge 2 ] || usage_die "--timeout needs a value"; run_timeout=$2; shift 2 ;;
    --mca) [ $# -ge 3 ] || usage_die "--mca needs a name and a value"; mca+=(--mca "$2" "$3"); shift 3 ;;
    --env) [[ ${2:-} == [A-Za-z_]*=* ]] || usage_die "--env needs NAME=VALUE"; mca+=(-x "$2"); shift 2 ;;
    --) shift; run_args+=("$@"); break ;;
    -*) usage_die "unknown option $1" ;;
    *)
        if [ "$cmd" = start ] && [ -z "$shape" ]; then
            shape=$1
            shift
        elif [ "$cmd" = run ]; then
            run_args+=("$@")
            break
        else
            usage_die "unexpected argument $1"
        fi
        ;;
    esac
done

[[ $prefix =~ ^[a-z][a-z0-9]{0,7}$ ]] ||
    usage_die "--prefix must be a lower-case letter and up to 7 more letters or digits: $prefix"
if ! [[ $net =~ ^10\.([0-9]{1,3})$ ]] || [ "${BASH_REMATCH[1]}" -gt 255 ]; then
    usage_die "--net must be 10.N with N in 0-255: $net"
fi
[ -n "$state_dir" ] || state_dir="$root/_build/testbed/$prefix"
case $state_dir in /*) ;; *) state_dir="$PWD/$state_dir" ;; esac

need_root() {
    [ "$(id -u)" -eq 0 ] ||
        die "$1 needs root (it creates network namespaces, veth pairs and qdiscs); nothing was done"
}
# need_tools TOOL...: install the Debian packages of missing tools (as root,
# with apt-get), or fail with a message
need_tools() {
    local t missing=() pkgs=() p
    for t in "$@"; do
        command -v "$t" >/dev/null 2>&1 || missing+=("$t")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    for t in "${missing[@]}"; do
        case $t in
        ip | tc) p=iproute2 ;;
        ping) p=iputils-ping ;;
        unshare | setpriv) p=util-linux ;;
        hostname) p=hostname ;;
        mpirun | ompi_info) p=openmpi-bin ;;
        timeout | tac) p=coreutils ;;
        awk) p=gawk ;;
        *) p= ;;
        esac
        [ -z "$p" ] || [[ " ${pkgs[*]:-} " == *" $p "* ]] || pkgs+=("$p")
    done
    if [ "$(id -u)" -eq 0 ] && [ ${#pkgs[@]} -gt 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "$prog: installing ${pkgs[*]} (for ${missing[*]})"
        if DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}" >/dev/null 2>&1 ||
            { DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null 2>&1 &&
                DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}" >/dev/null 2>&1; }; then
            missing=()
            for t in "$@"; do
                command -v "$t" >/dev/null 2>&1 || missing+=("$t")
            done
            [ ${#missing[@]} -gt 0 ] || return 0
        fi
    fi
    die "missing tool(s): ${missing[*]} (Debian: ${pkgs[*]:-?}); nothing was done"
}

# ---- the shape -------------------------------------------------------------
kind=
dims=()
nnodes=0
parse_shape() {
    local s=$1 d
    if [[ $s =~ ^(torus):([0-9]+)x([0-9]+)(x([0-9]+))?$ ]] || [[ $s =~ ^(mesh):([0-9]+)x([0-9]+)$ ]]; then
        kind=${BASH_REMATCH[1]}
        dims=("${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}")
        [ -n "${BASH_REMATCH[5]:-}" ] && dims+=("${BASH_REMATCH[5]}")
    else
        usage_die "bad shape '$s': expected torus:AxB, torus:AxBxC or mesh:AxB"
    fi
    nnodes=1
    for d in "${dims[@]}"; do
        if [ "${#d}" -gt 3 ] || [ "$((10#$d))" -lt 2 ]; then
            usage_die "bad shape '$s': every dimension must be 2 or more"
        fi
        nnodes=$((nnodes * 10#$d))
        [ "$nnodes" -le 64 ] || usage_die "bad shape '$s': more than 64 nodes"
    done
    local i
    for i in "${!dims[@]}"; do dims[i]=$((10#${dims[i]})); done
    [ "$nnodes" -ge 4 ] || usage_die "bad shape '$s': fewer than 4 nodes"
}

# coordinates of node index $1 (row-major, last dimension fastest) -> coords[]
coords=()
node_coords() {
    local n=$1 i
    coords=()
    for ((i = ${#dims[@]} - 1; i >= 0; i--)); do
        coords[i]=$((n % dims[i]))
        n=$((n / dims[i]))
    done
}
node_index() { # coords... -> index
    local n=0 i=0 c
    for c in "$@"; do
        n=$((n * dims[i] + c))
        i=$((i + 1))
    done
    echo "$n"
}
node_name() { # index -> name
    node_coords "$1"
    local IFS=-
    echo "$prefix-${coords[*]}"
}
node_addr() { echo "$net.0.$(($1 + 1))"; }
# the link leaving node $1 towards + in dimension $2: addresses of its two ends
link_addr() { # node dim end(0 = at the node, 1 = at its + neighbour)
    local j=$(($1 * ${#dims[@]} + $2))
    echo "$net.$((128 + j / 128)).$((2 * (j % 128) + $3))"
}
# neighbour of node $1 in dimension $2, direction $3 (+1/-1); empty on a mesh edge
neighbour() {
    node_coords "$1"
    local c=$((coords[$2] + $3)) k=${dims[$2]}
    if [ "$kind" = mesh ] && { [ "$c" -lt 0 ] || [ "$c" -ge "$k" ]; }; then
        return 0
    fi
    coords[$2]=$(((c + k) % k))
    node_index "${coords[@]}"
}
# grid distance (hops of a minimal route) between nodes $1 and $2
distance() {
    local a b i h=0 f k
    node_coords "$1"
    a=("${coords[@]}")
    node_coords "$2"
    b=("${coords[@]}")
    for i in "${!dims[@]}"; do
        k=${dims[i]}
        if [ "$kind" = torus ]; then
            f=$(((b[i] - a[i] + k) % k))
            [ $((2 * f)) -le "$k" ] || f=$((k - f))
        else
            f=$((b[i] - a[i]))
            [ "$f" -ge 0 ] || f=$((-f))
        fi
        h=$((h + f))
    done
    echo "$h"
}

parse_rate() { # RATE -> bits per second
    [[ $1 =~ ^([0-9]+)(bit|kbit|mbit|gbit)$ ]] ||
        usage_die "bad --rate '$1': a number with bit, kbit, mbit or gbit (e.g. 200mbit)"
    local v=$((10#${BASH_REMATCH[1]})) m=1
    case ${BASH_REMATCH[2]} in kbit) m=1000 ;; mbit) m=1000000 ;; gbit) m=1000000000 ;; esac
    if [ "$v" -lt 1 ] || [ "$v" -gt 100000 ]; then usage_die "bad --rate '$1'"; fi
    echo $((v * m))
}

# ---- state -------------------------------------------------------------------
load_state() {
    [ -f "$state_dir/config" ] || die "no testbed recorded in $state_dir (start one first)"
    local key value
    while IFS='=' read -r key value; do
        case $key in
        shape) shape=$value ;;
        net) net=$value ;;
        prefix) prefix=$value ;;
        rate) rate=$value ;;
        delay) delay=$value ;;
        tie) tie=$value ;;
        tcp_congestion_control) cc=$value ;;
        esac
    done <"$state_dir/config"
    parse_shape "$shape"
}

# Delete the namespaces listed in $state_dir/netns (those not present are
# skipped), ending the processes inside each first; then the state directory.
teardown() {
    local ns pids p tries left=0
    if [ -f "$state_dir/netns" ]; then
        while read -r ns; do
            [ -n "$ns" ] || continue
            ip netns list | awk '{print $1}' | grep -qxF "$ns" || continue
            for tries in 1 2 3 4 5 6 7 8 9 10; do
                pids=$(ip netns pids "$ns" 2>/dev/null || true)
                [ -n "$pids" ] || break
                for p in $pids; do
                    if [ "$tries" -lt 6 ]; then kill -TERM "$p" 2>/dev/null || true; else kill -KILL "$p" 2>/dev/null || true; fi
                done
                sleep 0.3
            done
            ip netns del "$ns" 2>/dev/null || { echo "$prog: could not delete namespace $ns" >&2; left=$((left + 1)); }
        done < <(tac "$state_dir/netns")
    fi
    if [ "$left" -eq 0 ]; then
        rm -rf "$state_dir"
    else
        die "$left namespace(s) could not be deleted; state kept in $state_dir"
    fi
}

# ---- probe: can this machine build a testbed? ------------------------------
netem_ok=no
probe() { # creates and deletes one namespace $prefix-probe; sets netem_ok
    local ns="$prefix-probe" ok=yes
    ip netns list | awk '{print $1}' | grep -qxF "$ns" && die "namespace $ns exists already (another testbed?)"
    if ! ip netns add "$ns" 2>/dev/null; then
        echo "$prog: cannot create a network namespace (CAP_NET_ADMIN and CAP_SYS_ADMIN needed)" >&2
        return 1
    fi
    # (removed even when this script is interrupted here)
    trap 'ip netns del "$prefix-probe" 2>/dev/null' EXIT
    if ! ip -n "$ns" link add dev probe0 type veth peer name probe1 2>/dev/null; then
        echo "$prog: cannot create a veth pair (kernel without veth?)" >&2
        ok=no
    elif ! ip -n "$ns" link add dev node type bridge 2>/dev/null; then
        echo "$prog: cannot create a bridge device" >&2
        ok=no
    elif ! tc -n "$ns" qdisc add dev probe0 root handle 1: htb default 20 2>/dev/null; then
        echo "$prog: cannot add an htb qdisc (kernel without sch_htb?)" >&2
        ok=no
    fi
    if tc -n "$ns" qdisc add dev lo root netem delay 1ms 2>/dev/null; then
        netem_ok=yes
    fi
    ip netns del "$ns"
    trap - EXIT
    [ "$ok" = yes ]
}

# ---- start -------------------------------------------------------------------
do_start() {
    [ -n "$shape" ] || usage_die "start needs a shape (torus:AxB, torus:AxBxC or mesh:AxB)"
    parse_shape "$shape"
    local rate_bits=0
    [ -z "$rate" ] || rate_bits=$(parse_rate "$rate")
    if [ -n "$delay" ] && ! [[ $delay =~ ^[0-9]+(\.[0-9]+)?(us|ms)$ ]]; then
        usage_die "bad --delay '$delay': a number with us or ms (e.g. 0.5ms)"
    fi
    case $check in full | quick | none) ;; *) usage_die "bad --check '$check': full, quick or none" ;; esac
    case $tie in split | plus) ;; *) usage_die "bad --tie '$tie': split or plus" ;; esac
    need_root start
    need_tools ip tc ping awk tac
    [ ! -e "$state_dir/config" ] || die "a testbed is recorded in $state_dir already (stop it first)"
    local n i name existing
    existing=$(ip netns list | awk '{print $1}' | grep -E "^$prefix-[0-9]" || true)
    [ -z "$existing" ] || die "namespaces named $prefix-... exist already: $(echo "$existing" | tr '\n' ' ')(another testbed? use --prefix)"
    probe || die "this machine cannot run the testbed; nothing was left behind"
    if [ -n "$delay" ] && [ "$netem_ok" != yes ]; then
        die "--delay: netem (sch_netem) is not available in this kernel, so no per-link delay can be added; nothing was done"
    fi

    # a loss-based congestion control in the namespaces (see the header)
    local cc=reno
    case " $(sysctl -n net.ipv4.tcp_allowed_congestion_control 2>/dev/null) " in
    *" cubic "*) cc=cubic ;;
    esac

    mkdir -p "$state_dir"
    : >"$state_dir/netns"
    {
        echo "shape=$shape"
        echo "tcp_congestion_control=$cc"
        echo "net=$net"
        echo "prefix=$prefix"
        echo "rate=$rate"
        echo "delay=$delay"
        echo "tie=$tie"
    } >"$state_dir/config"
    # from here on a failure removes what was created
    trap 'echo "$prog: start failed; removing what it created" >&2; teardown' ERR
    set -E

    local nd=${#dims[@]} names=()
    for ((n = 0; n < nnodes; n++)); do
        name=$(node_name "$n")
        names+=("$name")
        echo "$name" >>"$state_dir/netns"
        ip netns add "$name"
        ip netns exec "$name" sysctl -q -w net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
            net.ipv4.conf.default.rp_filter=0 net.ipv4.icmp_ratelimit=0 \
            net.ipv4.fib_multipath_hash_policy=1 net.ipv4.tcp_congestion_control="$cc" >/dev/null
        ip -n "$name" link set lo up
        ip -n "$name" link add dev node type bridge
        ip -n "$name" addr add "$(node_addr "$n")/24" dev node
        ip -n "$name" link set node up
    done
    printf '%s\n' "${names[@]}" >"$state_dir/nodes"

    # links: node n's + link in dimension d (none past a mesh edge)
    local d m dev
    : >"$state_dir/links"
    for ((n = 0; n < nnodes; n++)); do
        for ((d = 0; d < nd; d++)); do
            m=$(neighbour "$n" "$d" 1)
            [ -n "$m" ] || continue
            ip -n "${names[n]}" link add dev "d${d}p" type veth peer name "d${d}m" netns "${names[m]}"
            ip -n "${names[n]}" addr add "$(link_addr "$n" "$d" 0)/31" dev "d${d}p"
            ip -n "${names[m]}" addr add "$(link_addr "$n" "$d" 1)/31" dev "d${d}m"
            ip -n "${names[n]}" link set "d${d}p" up
            ip -n "${names[m]}" link set "d${d}m" up
            echo "${names[n]} d${d}p $(link_addr "$n" "$d" 0) ${names[m]} d${d}m $(link_addr "$n" "$d" 1)" >>"$state_dir/links"
        done
    done

    # rate limits and delay on every link end
    local ack_bits
    ack_bits=$((rate_bits / 10))
    [ "$ack_bits" -ge 8000 ] || ack_bits=8000
    local a_ns a_dev b_ns b_dev _x end ep
    while read -r a_ns a_dev _x b_ns b_dev _x; do
        for end in "$a_ns $a_dev" "$b_ns $b_dev"; do
            read -r -a ep <<<"$end"
            set -- "${ep[@]}"
            if [ "$rate_bits" -gt 0 ]; then
                tc -n "$1" qdisc add dev "$2" root handle 1: htb default 20
                tc -n "$1" class add dev "$2" parent 1: classid 1:1 htb rate "${rate_bits}bit" \
                    ceil "${rate_bits}bit" burst 128k cburst 128k quantum 60000
                tc -n "$1" class add dev "$2" parent 1:1 classid 1:10 htb rate "${ack_bits}bit" \
                    ceil "${rate_bits}bit" burst 128k cburst 128k prio 0 quantum 1514
                tc -n "$1" class add dev "$2" parent 1:1 classid 1:20 htb \
                    rate "$((rate_bits - ack_bits > 8000 ? rate_bits - ack_bits : 8000))bit" \
                    ceil "${rate_bits}bit" burst 128k cburst 128k prio 1 quantum 60000
                # IPv4 TCP packets (a 20-byte IP header) whose total length
                # is under 256 bytes and whose PSH flag is clear: pure ACKs
                tc -n "$1" filter add dev "$2" parent 1: protocol ip prio 1 u32 \
                    match u8 0x45 0xff at 0 match u16 0x0000 0xff00 at 2 \
                    match u8 0x06 0xff at 9 match u8 0x00 0x08 at 33 flowid 1:10
                if [ -n "$delay" ]; then
                    tc -n "$1" qdisc add dev "$2" parent 1:10 handle 10: netem delay "$delay" limit 100000
                    tc -n "$1" qdisc add dev "$2" parent 1:20 handle 20: netem delay "$delay" limit 100000
                fi
            elif [ -n "$delay" ]; then
                tc -n "$1" qdisc add dev "$2" root handle 1: netem delay "$delay" limit 100000
            fi
        done
    done <"$state_dir/links"

    # routes: dimension order, the shorter way, ties over both ways
    for ((n = 0; n < nnodes; n++)); do
        routes_of "$n" | ip -n "${names[n]}" -batch -
    done
    trap - ERR
    set +E

    echo "$prog: started $shape: $nnodes namespaces $prefix-..., $(wc -l <"$state_dir/links") links${rate:+, $rate per link direction}${delay:+, delay $delay}, TCP congestion control $cc"
    if [ -z "$delay" ]; then
        if [ "$netem_ok" = yes ]; then
            echo "$prog: no added delay (--delay; netem is available)"
        else
            echo "$prog: no added delay: netem is not available in this kernel"
        fi
    fi
    if [ "$check" != none ]; then
        if ! do_check; then
            echo "$prog: the testbed is up but its check failed (see above); 'scripts/testbed.sh stop' removes it" >&2
            exit 1
        fi
    fi
}

# "route add" lines (ip -batch) for node $1
routes_of() {
    local n=$1 m i k f src want hops via nh dev
    local a b
    src=$(node_addr "$n")
    node_coords "$n"
    a=("${coords[@]}")
    for ((m = 0; m < nnodes; m++)); do
        [ "$m" -ne "$n" ] || continue
        node_coords "$m"
        b=("${coords[@]}")
        for i in "${!dims[@]}"; do
            [ "${a[i]}" -ne "${b[i]}" ] && break
        done
        k=${dims[i]}
        want=()
        if [ "$kind" = torus ]; then
            f=$(((b[i] - a[i] + k) % k))
            if [ $((2 * f)) -lt "$k" ]; then
                want=(1)
            elif [ $((2 * f)) -gt "$k" ]; then
                want=(-1)
            elif [ "$tie" = plus ]; then
                want=(1)
            else
                want=(1 -1)
            fi
        else
            if [ "${b[i]}" -gt "${a[i]}" ]; then want=(1); else want=(-1); fi
        fi
        nh=()
        for hops in "${want[@]}"; do
            if [ "$hops" = 1 ]; then
                via=$(link_addr "$n" "$i" 1)
                dev="d${i}p"
            else
                via=$(link_addr "$(neighbour "$n" "$i" -1)" "$i" 0)
                dev="d${i}m"
            fi
            nh+=("$via $dev")
        done
        if [ ${#nh[@]} -eq 1 ]; then
            read -r via dev <<<"${nh[0]}"
            echo "route add $(node_addr "$m")/32 via $via dev $dev src $src"
        else
            local line hop
            line="route add $(node_addr "$m")/32 src $src"
            for hop in "${nh[@]}"; do
                read -r via dev <<<"$hop"
                line+=" nexthop via $via dev $dev weight 1"
            done
            echo "$line"
        fi
    done
}

# ---- check -------------------------------------------------------------------
do_check() {
    local names n m bad=0 out
    mapfile -t names <"$state_dir/nodes"
    # 1. the kernel's tables, walked from every node to every other
    local tables="$state_dir/tables" expect="$state_dir/expected"
    : >"$tables"
    for n in "${names[@]}"; do
        ip -n "$n" -o -4 route show | sed "s|^|$n |" >>"$tables"
    done
    : >"$expect"
    for ((n = 0; n < nnodes; n++)); do
        for ((m = 0; m < nnodes; m++)); do
            [ "$n" -eq "$m" ] || echo "${names[n]} ${names[m]} $(node_addr "$m") $(distance "$n" "$m")" >>"$expect"
        done
    done
    if ! out=$(awk -v links="$state_dir/links" -v nodes="$state_dir/nodes" '
        BEGIN {
            while ((getline l < links) > 0) {
                split(l, f, " ")
                owner[f[3]] = f[1]; owner[f[6]] = f[4]
            }
        }
        FILENAME == ARGV[1] {  # the routing tables: "NS DEST [via X dev D ...|nexthop via X ...]"
            ns = $1; dst = $2; sub(/\/32$/, "", dst)
            for (i = 3; i <= NF; i++)
                if ($i == "via") hop[ns, dst] = hop[ns, dst] " " owner[$(i + 1)]
            next
        }
        # expected: "SRC DST DSTADDR HOPS": every branch must arrive in HOPS hops
        {
            src = $1; dname = $2; daddr = $3; want = $4
            depth = 0; front[1] = src; nf = 1; ok = 1
            while (ok && nf > 0 && depth <= want) {
                nn = 0; arrived = 0
                for (j = 1; j <= nf; j++) {
                    if (front[j] == dname) { arrived++; continue }
                    if (!((front[j], daddr) in hop)) { ok = 0; why = "no route at " front[j]; break }
                    c = split(hop[front[j], daddr], h, " ")
                    for (q = 1; q <= c; q++) {
                        if (h[q] == "") { ok = 0; why = "next hop of " front[j] " owned by no node"; break }
                        nxt[++nn] = h[q]
                    }
                }
                if (!ok) break
                if (arrived) {
                    if (arrived != nf || depth != want) { ok = 0; why = "a branch arrives after " depth " hops, expected " want }
                    break
                }
                delete front; for (j = 1; j <= nn; j++) front[j] = nxt[j]; nf = nn; delete nxt
                depth++
            }
            if (ok && depth > want) { ok = 0; why = "no arrival within " want " hops" }
            if (!ok) { printf "route %s -> %s: %s\n", src, dname, why; bad++ }
            total++
        }
        END { if (bad) exit 1; printf "%d routes walked", total }' "$tables" "$expect"); then
        echo "$out" | head -n 20 >&2
        echo "$prog: check: $(echo "$out" | wc -l) route(s) wrong" >&2
        bad=1
    else
        echo "$prog: check: $out, each in its grid distance"
    fi

    # 2. TTL probes
    local pairs=() probes=0 pbad=0 h t0
    t0=$SECONDS
    for ((n = 0; n < nnodes; n++)); do
        for ((m = 0; m < nnodes; m++)); do
            [ "$n" -ne "$m" ] || continue
            if [ "$check" = full ] && [ "$nnodes" -le 16 ]; then
                pairs+=("$n $m")
            elif [ "$n" -eq 0 ] || [ "$m" -eq 0 ]; then
                pairs+=("$n $m")
            fi
        done
    done
    local p rc ep
    for p in "${pairs[@]}"; do
        read -r -a ep <<<"$p"
        set -- "${ep[@]}"
        h=$(distance "$1" "$2")
        probes=$((probes + 1))
        if ! ip netns exec "${names[$1]}" ping -n -q -c 1 -W 2 -t "$h" "$(node_addr "$2")" >/dev/null 2>&1; then
            echo "$prog: check: ping ${names[$1]} -> ${names[$2]} with TTL $h (its hop count) got no answer" >&2
            pbad=$((pbad + 1))
            continue
        fi
        [ "$h" -gt 1 ] || continue
        rc=0
        out=$(ip netns exec "${names[$1]}" ping -n -c 1 -W 2 -t "$((h - 1))" "$(node_addr "$2")" 2>&1) || rc=$?
        if [ "$rc" -eq 0 ] || ! grep -q "Time to live exceeded" <<<"$out"; then
            echo "$prog: check: ping ${names[$1]} -> ${names[$2]} with TTL $((h - 1)) was not answered 'Time to live exceeded': not $h hops" >&2
            pbad=$((pbad + 1))
        fi
    done
    if [ "$pbad" -eq 0 ]; then
        echo "$prog: check: TTL probes of $probes node pairs: every hop count as expected ($((SECONDS - t0)) s)"
    else
        echo "$prog: check: $pbad of $probes TTL probes wrong" >&2
        bad=1
    fi
    [ "$bad" -eq 0 ]
}

# ---- status ------------------------------------------------------------------
do_status() {
    if [ ! -f "$state_dir/config" ]; then
        echo "$prog: no testbed recorded in $state_dir"
        local stray
        stray=$(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$prefix-[0-9]" || true)
        [ -z "$stray" ] || echo "$prog: but namespaces named $prefix-... exist: $(echo "$stray" | tr '\n' ' ')"
        return 3
    fi
    load_state
    local ns present=0 absent=0 veths=0
    while read -r ns; do
        if ip netns list | awk '{print $1}' | grep -qxF "$ns"; then
            present=$((present + 1))
            veths=$((veths + $(ip -n "$ns" -o link show type veth | wc -l)))
        else
            absent=$((absent + 1))
        fi
    done <"$state_dir/netns"
    echo "$prog: $shape (prefix $prefix, addresses $net.0.0/24), state in $state_dir"
    echo "$prog: $present namespaces present, $absent missing; $veths veth ends; $(wc -l <"$state_dir/links") links"
    echo "$prog: rate per link direction: ${rate:-none}; delay: ${delay:-none}; ties: $tie; TCP congestion control: ${cc:-not set}"
    [ "$absent" -eq 0 ]
}

# ---- run ---------------------------------------------------------------------
do_run() {
    need_root run
    need_tools ip unshare hostname mpirun ompi_info timeout
    load_state
    if ! [[ $rpn =~ ^[0-9]+$ ]] || [ "$rpn" -lt 1 ] || [ "$rpn" -gt 64 ]; then
        usage_die "bad --ranks-per-node '$rpn': 1 to 64"
    fi
    if ! [[ $run_timeout =~ ^[0-9]+$ ]] || [ "$run_timeout" -lt 1 ]; then
        usage_die "bad --timeout '$run_timeout'"
    fi
    [ ${#run_args[@]} -gt 0 ] || usage_die "run needs a program"
    local names n i hostfile="$state_dir/hostfile" coordsfile="$state_dir/coords" agent="$state_dir/agent"
    mapfile -t names <"$state_dir/nodes"

    : >"$hostfile"
    {
        echo "# coll/topo coordinates of the testbed's nodes (written by scripts/testbed.sh run)"
        echo "$shape"
    } >"$coordsfile"
    for ((n = 0; n < nnodes; n++)); do
        echo "${names[n]} slots=$rpn" >>"$hostfile"
        node_coords "$n"
        echo "${names[n]} ${coords[*]}" >>"$coordsfile"
    done
    # The agent Open MPI's rsh launcher runs as "AGENT HOST COMMAND...":
    # COMMAND in HOST's namespace, with HOST as the host name.
    cat >"$agent" <<EOF
#!/bin/sh
# rsh launcher agent of the testbed in $state_dir (written by scripts/testbed.sh run)
set -eu
while [ \$# -gt 0 ]; do
    case \$1 in -*) shift ;; *) break ;; esac
done
[ \$# -ge 2 ] || { echo "testbed agent: usage: agent HOST COMMAND..." >&2; exit 2; }
host=\$1
shift
grep -qxF "\$host" "$state_dir/nodes" || { echo "testbed agent: \$host is not a node of this testbed" >&2; exit 2; }
exec ip netns exec "\$host" unshare --uts /bin/sh -c 'hostname "\$0" && eval "\$*"' "\$host" "\$@"
EOF
    chmod 755 "$agent"

    local cidr="$net.0.0/24" np=$((nnodes * rpn)) args=()
    [ "$(id -u)" -eq 0 ] && args+=(--allow-run-as-root)
    # shellcheck disable=SC2054 # the commas are inside MCA values
    args+=(
        -np "$np" --hostfile "$hostfile" --map-by slot --bind-to none
        --mca plm rsh
        --mca plm_rsh_agent "$agent"
        --mca plm_rsh_no_tree_spawn 1
        --mca pml ob1
        --mca btl self,vader,tcp
        --mca btl_tcp_if_include "$cidr"
        --mca oob_tcp_if_include "$cidr"
        --mca btl_tcp_flags send,inplace,need-ack,need-csum
        --mca mpi_yield_when_idle 1
        --mca coll_topo_coords_file "$coordsfile"
    )
    if [ -n "$component_dir" ]; then
        [ -f "$component_dir/mca_coll_topo.so" ] || die "no mca_coll_topo.so in $component_dir"
        local pkglibdir
        pkglibdir=$(ompi_info --parsable --path pkglibdir | sed -n 's/^path:pkglibdir://p')
        # shellcheck disable=SC2054 # the commas are inside MCA values
        args+=(--mca mca_component_path "$(cd "$component_dir" && pwd):$pkglibdir"
            --mca coll topo,tuned,inter,basic,libnbc,self)
    fi
    args+=("${mca[@]}")
    # the program by its absolute path, and the job's working directory this one
    case ${run_args[0]} in
    /*) ;;
    */*) if [ -e "${run_args[0]}" ]; then run_args[0]="$(cd "$(dirname "${run_args[0]}")" && pwd)/$(basename "${run_args[0]}")"; fi ;;
    esac
    args+=(--wdir "$PWD")
    local rc=0
    timeout -k 10 "$run_timeout" ip netns exec "${names[0]}" mpirun "${args[@]}" "${run_args[@]}" </dev/null || rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "$prog: run: timed out after $run_timeout s" >&2
    fi
    return "$rc"
}

case $cmd in
start) do_start ;;
stop)
    need_root stop
    if [ ! -f "$state_dir/config" ] && [ ! -f "$state_dir/netns" ]; then
        echo "$prog: no testbed recorded in $state_dir; nothing to stop"
        exit 0
    fi
    count=$(grep -c . "$state_dir/netns" 2>/dev/null || true)
    teardown
    echo "$prog: stopped: ${count:-0} namespaces deleted, $state_dir removed"
    ;;
status) do_status ;;
check)
    need_root check
    need_tools ip ping awk
    load_state
    case $check in full | quick) ;; *) usage_die "bad --check '$check': full or quick" ;; esac
    do_check
    ;;
run) do_run ;;
probe)
    need_root probe
    need_tools ip tc
    if probe; then
        echo "$prog: this machine can run the testbed (netem: $([ "$netem_ok" = yes ] && echo available || echo not available))"
    else
        exit 77
    fi
    ;;
"" | -h | --help | help)
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    ;;
*) usage_die "unknown command '$cmd'" ;;
esac
