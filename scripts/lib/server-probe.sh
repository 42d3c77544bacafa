# Sourced by scripts/soak, scripts/census and scripts/load-vs-wrk: start the plaintext app with GET /metrics,
# read its memory, stop it with SIGTERM. Build the jar first: ensure_examples_jar (scripts/lib/examples-jar.sh,
# sourced here).
source scripts/lib/examples-jar.sh

# start_app PORT LOG [app flags...]: sets APP_PID; waits until the port answers.
start_app() {
  local port=$1 log=$2; shift 2
  [[ $port != 0 ]] || { echo "a fixed port is needed (the app is probed on it), not 0" >&2; exit 2; }
  "$JAVA" --enable-native-access=ALL-UNNAMED -Xms256m -Xmx256m -XX:+AlwaysPreTouch ${JAVA_OPTS:-} \
      -jar "$EXAMPLES_JAR" --port "$port" --metrics 1 "$@" >"$log" 2>&1 &
  APP_PID=$!
  for _ in $(seq 1 200); do
    curl -fs "http://127.0.0.1:$port/plaintext" >/dev/null 2>&1 && return 0
    kill -0 "$APP_PID" 2>/dev/null || { cat "$log" >&2; echo "the app died" >&2; exit 1; }
    sleep 0.1
  done
  kill "$APP_PID" 2>/dev/null || true # never left running behind a failed start
  echo "the app did not start (log: $log)" >&2; exit 1
}

# metric PORT SAMPLE: one value from GET /metrics (Prometheus text), SAMPLE as written there, labels
# included, e.g. peregrine_connections_open or 'jvm_memory_used_bytes{jvm_memory_type="heap"}'.
metric() {
  curl -fs "http://127.0.0.1:$1/metrics" | sample "$2"
}

# sample SAMPLE: the value of SAMPLE in the Prometheus text on stdin; with a bare family name that has
# labelled samples (peregrine_rejected_total), the sum over its labels.
sample() {
  awk -v n="$1" '$1 == n { v = $2; found = 1 } index($1, n "{") == 1 { s += $2; summed = 1 }
      END { if (found) print v; else if (summed) print s }'
}

# Sample names of the app's GET /metrics used by soak and census.
HEAP_USED='jvm_memory_used_bytes{jvm_memory_type="heap"}'
DIRECT_USED='jvm_buffer_memory_used_bytes{jvm_buffer_pool_name="direct"}'

# rss_kib PID: resident set size in KiB.
rss_kib() {
  sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status"
}

# live_heap_bytes PID PORT: forces a full GC, then reads heap in use (= live heap, plus the little
# allocated since) from GET /metrics.
live_heap_bytes() {
  jcmd "$1" GC.run >/dev/null
  metric "$2" "$HEAP_USED"
}

# stop_app LOG: SIGTERM, then checks the shutdown hook closed the server gracefully.
stop_app() {
  kill -TERM "$APP_PID"
  local rc=0
  wait "$APP_PID" || rc=$?
  if grep -q "closed on signal" "$1"; then
    echo "app closed gracefully on SIGTERM (exit $rc): $(grep 'closed on signal' "$1" | tail -1)"
  else
    echo "app did NOT log a graceful stop on SIGTERM (exit $rc)"; return 1
  fi
}
