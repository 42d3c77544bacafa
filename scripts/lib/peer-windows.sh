# Sourced by bench-peers (PAIRS and ROUNDS; uses its $peers, $args and the harness's knobs): starts the
# named servers the way the peer harness starts them, warms them up, and measures windows of wrk load with
# the scripts' one definition of server CPU per request (scripts/lib/cpu.sh). Each window appends a line
# to $results (server, scenario, round, ns/request, disturbed 0/1) and the same with the busiest thread's
# CPU only to $results.loop, for round_medians
# (scripts/lib/round-medians.sh) and prints it.

source scripts/lib/cpu.sh

server_cpu=${SERVER_CPU:-0}
wrk_cpu=${WRK_CPU:-1}
conns=${CONNS:-64}
depth=${DEPTH:-16}
scenarios=${SCENARIOS:-"keepalive pipeline"}
threads=${THREADS:-1}
base_port=${PORT:-8080}

names=() cmds=() pids=() ports=()
logdir=$(mktemp -d /tmp/bench-windows.XXXXXX)
results=$logdir/windows.tsv
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
for i in "${!names[@]}"; do ports+=($((base_port + i))) pids+=(""); done

stop_server() { # i
  local p=${pids[$1]}
  [[ -n $p ]] || return 0
  kill "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
  pids[$1]=""
}
stop_all() {
  local i
  for i in "${!names[@]}"; do stop_server "$i"; done
}
trap stop_all EXIT

start_server() { # i: starts it pinned to SERVER_CPU on its port and waits until it answers
  local i=$1 port=${ports[$1]}
  if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/plaintext"; then
    echo "bench-peers: port $port is already in use" >&2
    exit 1
  fi
  PORT=$port THREADS=$threads GOMAXPROCS=$threads taskset -c "$server_cpu" bash -c "exec ${cmds[i]}" >"$logdir/${names[i]}.log" 2>&1 &
  pids[i]=$!
  for _ in $(seq 1 150); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:$port/plaintext") == 200 ]] && return 0
    kill -0 "${pids[i]}" 2>/dev/null || break
    sleep 0.2 # waiting for the port to open: a start-up poll, not a measurement
  done
  echo "bench-peers: ${names[i]} did not start (log: $logdir/${names[i]}.log)" >&2
  exit 1
}

run_wrk() { # port scenario seconds: wrk exactly as the harness starts it (script, headers, connections, depth)
  local script=report.lua extra=()
  [[ $2 == pipeline ]] && script=pipeline.lua extra=(-- "$depth")
  WRK_CONNS=$conns taskset -c "$wrk_cpu" wrk -t1 -c"$conns" -d"$3"s --timeout 5s -H 'Connection: keep-alive' \
    -H 'Accept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7' \
    -s "$peers/$script" "http://127.0.0.1:$1/plaintext" "${extra[@]}"
}

warm_up() { # i seconds: one unmeasured run per scenario
  local s
  for s in $scenarios; do run_wrk "${ports[$1]}" "$s" "$2" >/dev/null 2>&1 || true; done
}

measure_window() { # i scenario round seconds
  window_figures "$1" "$2" "$4"
  record_window "$1" "$2" "$3" "$w_ticks" "$w_loop" "$w_req" "$w_other"
}

# window_figures i scenario seconds: one window of wrk load on server i; sets w_ticks (the server's CPU
# ticks), w_loop (its busiest thread's), w_req (requests wrk completed) and w_other (% of a core other
# processes used).
window_figures() {
  local i=$1 p0 b0 p1 b1 t0 t1 out real wu ws
  t0=$(thread_ticks "${pids[i]}") p0=$(proc_cpu_ticks "${pids[i]}") b0=$(busy_ticks)
  out=$({ TIMEFORMAT='%R %U %S'; time run_wrk "${ports[i]}" "$2" "$3" 2>&1; } 2>&1)
  p1=$(proc_cpu_ticks "${pids[i]}") b1=$(busy_ticks) t1=$(thread_ticks "${pids[i]}")
  read -r real wu ws <<<"$(tail -1 <<<"$out")"
  w_ticks=$((p1 - p0))
  w_loop=$(busiest_thread_delta "$t0" "$t1")
  w_req=$(wrk_requests <<<"$out")
  w_other=$(other_cpu_pct $((b1 - b0)) $((p1 - p0)) "$(awk -v u="$wu" -v s="$ws" 'BEGIN { print u + s }')" "$real")
}

# record_window i scenario round ticks loop_ticks requests other: prints the window and appends it to
# $results and $results.loop.
record_window() {
  local ns loop mark=""
  ns=$(cpu_ns_per_request "$4" "$6")
  loop=$(cpu_ns_per_request "$5" "$6")
  (($7 > 10)) && mark='!'
  printf '%-16s %-9s r%-3d %9d responses  srv %6d ns/req  loop %6d ns/req  other %3d%s\n' "${names[$1]}" "$2" "$3" "$6" "$ns" "$loop" "$7" "$mark"
  printf '%s\t%s\t%d\t%d\t%d\n' "${names[$1]}" "$2" "$3" "$ns" "$(($7 > 10))" >>"$results"
  printf '%s\t%s\t%d\t%d\t%d\n' "${names[$1]}" "$2" "$3" "$loop" "$(($7 > 10))" >>"$results.loop"
}

# wait_quiet: up to QUIET_WAIT seconds (default 60) for other processes to use under 10% of a core, as the
# harness waits before each server; says so when the machine stays busy.
wait_quiet() {
  local t b0 b1 used=0
  for ((t = 0; t < ${QUIET_WAIT:-60}; t++)); do
    b0=$(busy_ticks); sleep 1; b1=$(busy_ticks)
    used=$(( (b1 - b0) * 100 / CPU_HZ ))
    ((used < 10)) && return 0
  done
  echo "# machine busy before start (${used}% of one core used by other processes): windows will be marked" >&2
}
