# PAIRS=N for scripts/bench-peers (sourced there; uses its $peers, $args and the harness's knobs).
#
# Every named server runs at once, each on its own port, all pinned to SERVER_CPU; an idle one sleeps in
# epoll_wait. After a warm-up of each, N rounds follow; in a round each server serves one measured
# window of DURATION seconds per scenario, the servers one after the other (the order rotating from
# round to round). The windows of a round lie within a few tens of seconds of each other, so the
# machine's drift, which on a shared two-core VM moves the kernel's cost per request by up to 20% over
# tens of seconds, lands on both sides of each ratio alike. The measure is the scripts' one definition
# (scripts/lib/cpu.sh): utime+stime of all the server's threads over the window divided by the requests
# wrk completed in it, with wrk started exactly as the harness starts it (scripts/lib/peer-windows.sh).
# Prints each window, then per server and scenario the median CPU per request and, beside raw, the
# median of the per-round ratios (scripts/lib/round-medians.sh, shared with ROUNDS). A window where
# other processes used more than 10% of a core is marked '!' and left out of the medians (with the raw
# window of its round).
#
# Each server's window is cut into SLICES=K slices of DURATION/K seconds (by default 1 s slices: K =
# DURATION; SLICES=1 measures whole windows, as before 2026-11-27) and the slices interleave: slice 1 of
# every server, then slice 2 of every server, and so on (the order rotating from round to round as
# before). A round's figure for a server is its CPU over its K slices divided by the requests of its K
# slices, so the two sides of a ratio are a second apart instead of several: drift over tens of seconds
# lands on both alike even within a round. Each slice starts wrk anew (its connections are opened again:
# 64 accepts and closes a slice, against about 10^5 requests).

pairs=$PAIRS
duration=${DURATION:-5}
warmup=${WARMUP:-5}
source scripts/lib/peer-windows.sh
slices=${SLICES:-$duration}
if ((slices > 1 && duration % slices != 0)); then
  echo "bench-peers: SLICES=$slices must divide DURATION=$duration (wrk takes whole seconds)" >&2
  exit 1
fi

for i in "${!names[@]}"; do start_server "$i"; done
echo "# $(date -u) $("$JAVA_HOME/bin/java" -version 2>&1 | head -1) PAIRS=$pairs: ${names[*]} at once on cpu$server_cpu, wrk on cpu$wrk_cpu -c$conns depth=$depth, ${duration}s windows in $slices slice(s), warm-up ${warmup}s per server and scenario"
for i in "${!names[@]}"; do warm_up "$i" "$warmup"; done

for ((r = 1; r <= pairs; r++)); do
  for s in $scenarios; do
    if ((slices <= 1)); then
      for ((j = 0; j < ${#names[@]}; j++)); do
        measure_window $(((j + r - 1) % ${#names[@]})) "$s" "$r" "$duration"
      done
      continue
    fi
    ticks=() loops=() reqs=() others=()
    for ((k = 0; k < slices; k++)); do
      for ((j = 0; j < ${#names[@]}; j++)); do
        i=$(((j + r - 1) % ${#names[@]}))
        window_figures "$i" "$s" $((duration / slices))
        ticks[i]=$((${ticks[i]:-0} + w_ticks)) loops[i]=$((${loops[i]:-0} + w_loop))
        reqs[i]=$((${reqs[i]:-0} + w_req)) others[i]=$((${others[i]:-0} + w_other))
      done
    done
    for ((j = 0; j < ${#names[@]}; j++)); do
      i=$(((j + r - 1) % ${#names[@]}))
      record_window "$i" "$s" "$r" "${ticks[i]}" "${loops[i]}" "${reqs[i]}" $((others[i] / slices))
    done
  done
done

source scripts/lib/round-medians.sh
round_medians "$results"
echo "# the same with the busiest thread's CPU only (the event loop: JIT, GC and other threads left out)"
round_medians "$results.loop"
rm -rf "$logdir"
