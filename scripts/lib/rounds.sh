# ROUNDS=N for scripts/bench-peers (sourced there; uses its $peers, $args and the harness's knobs).
#
# N rounds; in each, the named servers one after the other (the order rotating from round to round, so
# none is always first or last), each alone: started pinned to SERVER_CPU, after up to QUIET_WAIT seconds
# for the machine to calm down, warmed up for WARMUP seconds per scenario, measured over one window of
# DURATION seconds per scenario, stopped. So the servers of a round are measured within a minute or two
# of each other, as the harness measures them with RUNS=1, and with the scripts' one definition of
# server CPU per request (scripts/lib/cpu.sh), as PAIRS measures them. Prints each window, then per
# server and scenario the median over the rounds and, beside raw, the median of the per-round ratios
# (scripts/lib/round-medians.sh); a window other processes disturbed (more than 10% of a core) is marked
# '!' and left out, with the raw window of its round. PAIRS, with every server running at once and the
# two sides of a ratio seconds apart, cancels more of the machine's drift.

rounds=$ROUNDS
duration=${DURATION:-10}
warmup=${WARMUP:-5}
source scripts/lib/peer-windows.sh

echo "# $(date -u) $("$JAVA_HOME/bin/java" -version 2>&1 | head -1) ROUNDS=$rounds: ${names[*]} one at a time on cpu$server_cpu, wrk on cpu$wrk_cpu -c$conns depth=$depth, ${duration}s windows, warm-up ${warmup}s per scenario"
for ((r = 1; r <= rounds; r++)); do
  echo "# round $r of $rounds"
  for ((j = 0; j < ${#names[@]}; j++)); do
    i=$(((j + r - 1) % ${#names[@]}))
    wait_quiet
    start_server "$i"
    warm_up "$i" "$warmup"
    for s in $scenarios; do measure_window "$i" "$s" "$r" "$duration"; done
    stop_server "$i"
  done
done

source scripts/lib/round-medians.sh
round_medians "$results"
echo "# the same with the busiest thread's CPU only (the event loop: JIT, GC and other threads left out)"
round_medians "$results.loop"
rm -rf "$logdir"
