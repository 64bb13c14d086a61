# ordered-jobs.sh — sourced by bash scripts (tests/suites/40-programs.sh,
# fuzz/tools/smoke.sh): run independent jobs a few at a time and print
# each one's output in the order the jobs were started, each as soon as it
# and every job before it have finished (not all at the end), so that a
# long suite shows its progress while its lines stay in a fixed order.
#
#   oj_init N         start a pool of at most N jobs at once (N >= 1)
#   oj_run FILE CMD...  run CMD (a command or shell function) in the
#                     background, its stdout and stderr to FILE; waits
#                     first while N jobs of the pool are running
#   oj_wait           wait for every job; print what is still unprinted
#
# FILE stays after it is printed: the caller may grep it (for FAIL lines,
# say).  CMD's exit status is not used; its lines say how it went.  Only
# this pool's jobs are counted and waited for; needs bash >= 5.1 (wait -n
# -p).  Not re-entrant: one pool at a time per shell.
oj_init() {
    oj_max=$1 oj_n=0 oj_next=0 oj_files=() oj_pids=() oj_done=()
}

# oj_reap — wait for one job of the pool to end; marks it done.
oj_reap() {
    local pid i
    wait -n -p pid "${oj_pids[@]}"
    for i in "${!oj_pids[@]}"; do
        if [ "${oj_pids[$i]}" = "$pid" ]; then oj_done[$i]=1; unset "oj_pids[$i]"; fi
    done
}

# oj_flush — print the finished jobs' files that are next in order.
oj_flush() {
    while [ "$oj_next" -lt "$oj_n" ] && [ -n "${oj_done[$oj_next]:-}" ]; do
        cat "${oj_files[$oj_next]}"
        oj_next=$((oj_next + 1))
    done
}

oj_run() {
    local file=$1; shift
    while [ "${#oj_pids[@]}" -ge "$oj_max" ]; do oj_reap; oj_flush; done
    "$@" >"$file" 2>&1 &
    oj_pids[$oj_n]=$! oj_files[$oj_n]=$file
    oj_n=$((oj_n + 1))
}

oj_wait() {
    while [ "${#oj_pids[@]}" -gt 0 ]; do oj_reap; oj_flush; done
    oj_flush
}
