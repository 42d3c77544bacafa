# Sourced by the benchmark scripts (bench-peers' PAIRS and ROUNDS, bench-static): the one definition of
# server CPU per request, and of a disturbed window.
#
#   server CPU per request = CPU time of the server's process over a measured window (utime+stime of all
#                            its threads, from /proc/PID/stat) / the requests completed in that window
#                            (wrk's "N requests in ...")
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
