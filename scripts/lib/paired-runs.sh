# PAIRS=N for scripts/bench-peers (sourced there; uses its $peers, $args and the harness's knobs).
#
# Every named server runs at once, each on its own port, all pinned to SERVER_CPU; an idle one sleeps in
# epoll_wait. After a warm-up of each, N rounds follow; in a round each server serves one measured
# window of DURATION seconds per scenario, the servers one after the other (the order rotating from
# round to round). The windows of a round lie within a few tens of seconds of each other, so the
# machine's drift, which on a shared two-core VM moves the kernel's cost per request by up to 20% over
# tens of seconds, lands on both sides of each ratio alike. The measure is the harness's: utime+stime
# of all the server's threads over the window (/proc/PID/stat) divided by the responses wrk counted,
# with wrk started exactly as the harness starts it (same script, headers, connections and depth).
# Prints each window, then per server and scenario the median CPU per request and, beside raw, the
# median of the per-round ratios (scripts/lib/round-medians.sh, shared with ROUNDS). A window where
# other processes used more than 10% of a core is marked '!' and left out of the medians (with the raw
# window of its round).

pairs=$PAIRS
server_cpu=${SERVER_CPU:-0}
wrk_cpu=${WRK_CPU:-1}
conns=${CONNS:-64}
depth=${DEPTH:-16}
duration=${DURATION:-5}
warmup=${WARMUP:-5}
scenarios=${SCENARIOS:-"keepalive pipeline"}
threads=${THREADS:-1}
base_port=${PORT:-8080}
hz=$(getconf CLK_TCK)

names=() cmds=() pids=() ports=()
listing=$("$peers/bench.sh" --list)
for a in "${args[@]}"; do
  if [[ $a == *=* ]]; then
    names+=("${a%%=*}") cmds+=("${a#*=}")
  else
    c=$(awk -v n="$a" '$1 == n { sub(/^[^ ]+ +/, ""); print }' <<<"$listing")
    [[ -n $c ]] || { echo "bench-peers: unknown server '$a' (try $peers/bench.sh --list)" >&2; exit 1; }
    # The harness builds its peers on its first run: a one-second run of it builds what is missing.
    for w in $c; do
      if [[ $w == /* && ! -e $w ]]; then
        DURATION=1 WARMUP=0 RUNS=1 SCENARIOS=keepalive "$peers/bench.sh" "$a" >/dev/null
        break
      fi
    done
    names+=("$a") cmds+=("$c")
  fi
done

stop_all() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap stop_all EXIT

logdir=$(mktemp -d /tmp/bench-pairs.XXXXXX)
for i in "${!names[@]}"; do
  port=$((base_port + i))
  if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/plaintext"; then
    echo "bench-peers: port $port is already in use" >&2
    exit 1
  fi
  PORT=$port THREADS=$threads GOMAXPROCS=$threads taskset -c "$server_cpu" bash -c "exec ${cmds[i]}" >"$logdir/${names[i]}.log" 2>&1 &
  pids+=($!) ports+=("$port")
done
for i in "${!names[@]}"; do
  for _ in $(seq 1 150); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:${ports[i]}/plaintext") == 200 ]] && continue 2
    kill -0 "${pids[i]}" 2>/dev/null || break
    sleep 0.2 # waiting for the port to open: a start-up poll, not a measurement
  done
  echo "bench-peers: ${names[i]} did not start (log: $logdir/${names[i]}.log)" >&2
  exit 1
done

run_wrk() { # port scenario seconds
  local script=report.lua extra=()
  [[ $2 == pipeline ]] && script=pipeline.lua extra=(-- "$depth")
  WRK_CONNS=$conns taskset -c "$wrk_cpu" wrk -t1 -c"$conns" -d"$3"s --timeout 5s -H 'Connection: keep-alive' \
    -H 'Accept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7' \
    -s "$peers/$script" "http://127.0.0.1:$1/plaintext" "${extra[@]}"
}
proc_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
all_ticks() { awk '$1 == "cpu" {print $2 + $3 + $4}' /proc/stat; }

echo "# $(date -u) $("$JAVA_HOME/bin/java" -version 2>&1 | head -1) PAIRS=$pairs: ${names[*]} at once on cpu$server_cpu, wrk on cpu$wrk_cpu -c$conns depth=$depth, ${duration}s windows, warm-up ${warmup}s per server and scenario"
for i in "${!names[@]}"; do
  for s in $scenarios; do run_wrk "${ports[i]}" "$s" "$warmup" >/dev/null 2>&1 || true; done
done

results=$logdir/windows.tsv
for ((r = 1; r <= pairs; r++)); do
  for s in $scenarios; do
    for ((j = 0; j < ${#names[@]}; j++)); do
      i=$(((j + r - 1) % ${#names[@]}))
      p0=$(proc_ticks "${pids[i]}") a0=$(all_ticks)
      out=$({ TIMEFORMAT='%R %U %S'; time run_wrk "${ports[i]}" "$s" "$duration" 2>&1; } 2>&1)
      p1=$(proc_ticks "${pids[i]}") a1=$(all_ticks)
      read -r real wu ws <<<"$(tail -1 <<<"$out")"
      req=$(awk '/requests in/ {print $1}' <<<"$out")
      awk -v n="${names[i]}" -v s="$s" -v r="$r" -v req="${req:-0}" -v pt=$((p1 - p0)) -v at=$((a1 - a0)) -v hz="$hz" \
          -v real="$real" -v wt="$wu $ws" -v tsv="$results" 'BEGIN {
        split(wt, w, " "); ns = req > 0 ? pt / hz / req * 1e9 : 0
        other = 100 * (at / hz - pt / hz - w[1] - w[2]) / real; if (other < 0) other = 0
        printf "%-16s %-9s r%-3d %9d responses  srv %6d ns/req  other %3d%s\n", n, s, r, req, ns, other, (other > 10 ? "!" : "")
        printf "%s\t%s\t%d\t%d\t%d\n", n, s, r, ns, (other > 10) >> tsv
      }'
    done
  done
done

source scripts/lib/round-medians.sh
round_medians "$results"
rm -rf "$logdir"
