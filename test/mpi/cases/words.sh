# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# The wording of coll/topo's verbose lines (coll_topo_verbose 1 and 2) and
# of the test programs' summaries, as the tables (test/mpi/cases/*.cases)
# and the checks of run-cases.sh match them: where the component's wording
# changes, change it here.  Sourced by run-cases.sh before a table.

# Every verbose line about a communicator starts so.
W_LINE="coll:topo: comm "
# "<primitive> uses <algorithm> (<reason>)": coll/topo served the call.
W_USES="uses"
# The module below coll/topo, as the verbose lines and reasons name it.
W_PREVIOUS="the previous module"
# "<primitive> goes to the previous module (<reason>)": the call went
# to it.
W_PREV="goes to $W_PREVIOUS"
# the reason of a forced algorithm that does not fit a call:
# "(coll_topo_<primitive>_algorithm=<algorithm> does not fit ...)"
W_NOFIT="does not fit"
# the reason of a handoff of one-message calls (coll_topo_handoff)
W_HANDOFF="coll_topo_handoff:"
# "i<primitive> runs <algorithm> from the progress engine (nonblocking, ...)"
# and "<primitive>_init runs ... (persistent, ...)": coll/topo ran a
# nonblocking or persistent call
W_NB="from the progress engine"

# The transport a communicator's messages take, coll_topo_verbose 1:
# "transport ofi (provider P)" or "transport pml[: why]".
W_TRANSPORT="transport"
# The message of coll_topo_transport=ofi where libfabric cannot serve.
W_OFI_UNAVAILABLE="coll/topo was asked to carry its messages over libfabric"

# The summary line of a test program with no failure (@PROG@: the program,
# @NP@: the number of ranks); programs with their own below.
SUMMARY_DEFAULT='^@PROG@: @NP@ ranks, .*[1-9][0-9]* .*calls checked on rank 0, 0 failures'
summary test_allreduce '^test_allreduce: @NP@ ranks, [1-9][0-9]* MPI_Allreduce calls checked on rank 0, 0 failures'
summary test_primitives '^test_primitives: @NP@ ranks, [1-9][0-9]* calls checked on rank 0, 0 failures'
summary test_intercomm '^test_intercomm: @NP@ ranks \(groups of [0-9]+ and [0-9]+\), [1-9][0-9]* calls checked on rank 0, 0 failures on all ranks$'
