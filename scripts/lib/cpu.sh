# Sourced by the benchmark scripts (bench-peers' PAIRS and ROUNDS, bench-static): the one definition of
# server CPU per request, and of a disturbed window.
#
#   server CPU per request = CPU time of the server's process over a measured window (utime+stime of all
#                            its threads, from /proc/PID/stat) / the requests completed in that window
#                            (wrk's "N requests in ...")
#   loop CPU per request   = the same with the CPU time of the server's busiest thread only (its event
#                            loop when THREADS=1): busiest_thread_delta below
#   other                  = % of one core that every other process used over the window: user+nice+
#                            system ticks of all CPUs, minus the server's and wrk's CPU time, over the
#                            window's wall time; above 10 the window is disturbed (marked '!')
#
# irq and softirq ticks are left out of "other", as the peer harness leaves them out: loopback TCP work is
# charged there, and it belongs to the traffic measured. (The harness, ../shared/peers/bench.sh, is not
# part of this repository; its own srv ns/req divides by wrk's rate times wrk's wall time instead of by
# the requests completed, which reads lower by wrk's start-up and wind-down share.)

CPU_HZ=$(getconf CLK_TCK)

# proc_cpu_ticks PID: utime+stime of every thread of PID so far, in clock ticks (nothing once PID is gone).
proc_cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12 + $13}'; }

# thread_ticks PID: one line per thread of PID, "tid ticks" (utime+stime so far).
thread_ticks() {
  local f
  for f in /proc/"$1"/task/*/stat; do
    sed 's/.*) //' "$f" 2>/dev/null | awk -v f="$f" '{ split(f, p, "/"); print p[5], $12 + $13 }'
  done
}

# busiest_thread_delta BEFORE AFTER: the most CPU ticks one thread used between two thread_ticks
# snapshots (a thread born in between counts from 0). For a server with one event loop that is the loop
# thread: "loop CPU per request" leaves out the JIT compiler, the GC and every other helper thread, which
# on a two-core machine share the measured core and vary from run to run (issue 27); the raw C loop has
# one thread, so for it the two measures agree.
busiest_thread_delta() {
  awk 'NR == FNR { before[$1] = $2; next } { d = $2 - before[$1]; if (d > max) max = d } END { print max + 0 }' \
    <(printf '%s\n' "$1") <(printf '%s\n' "$2")
}

# busy_ticks: user+nice+system ticks of all CPUs so far.
busy_ticks() { awk '$1 == "cpu" {print $2 + $3 + $4}' /proc/stat; }

# wrk_requests: the requests wrk completed, from its report on stdin (0 when it reported none).
wrk_requests() { awk '/ requests in / {n = $1} END {print n + 0}'; }

# cpu_ns_per_request TICKS REQUESTS: server CPU ns per request (0 when no request completed).
cpu_ns_per_request() {
  awk -v t="$1" -v r="$2" -v hz="$CPU_HZ" 'BEGIN { printf "%d\n", (r > 0 ? t / hz * 1e9 / r : 0) }'
}

# other_cpu_pct BUSY_TICKS SERVER_TICKS WRK_CPU_SECONDS REAL_SECONDS: % of one core used by other processes.
other_cpu_pct() {
  awk -v b="$1" -v s="$2" -v w="$3" -v real="$4" -v hz="$CPU_HZ" \
    'BEGIN { o = real > 0 ? 100 * ((b - s) / hz - w) / real : 0; printf "%d\n", (o < 0 ? 0 : o) }'
}
