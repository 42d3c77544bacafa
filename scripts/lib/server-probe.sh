# Sourced by scripts/soak and scripts/census: start the plaintext app with GET /metrics, read its
# memory, stop it with SIGTERM.

# start_app PORT LOG [app flags...]: sets APP_PID; waits until the port answers.
start_app() {
  local port=$1 log=$2; shift 2
  "$JAVA" --enable-native-access=ALL-UNNAMED -Xms256m -Xmx256m -XX:+AlwaysPreTouch ${JAVA_OPTS:-} \
      -jar examples/target/peregrine-examples.jar --port "$port" --metrics 1 "$@" >"$log" 2>&1 &
  APP_PID=$!
  for _ in $(seq 1 200); do
    curl -fs "http://127.0.0.1:$port/plaintext" >/dev/null 2>&1 && return 0
    kill -0 "$APP_PID" 2>/dev/null || { cat "$log" >&2; echo "the app died" >&2; exit 1; }
    sleep 0.1
  done
  echo "the app did not start" >&2; exit 1
}

# metric PORT NAME: one value from GET /metrics.
metric() {
  curl -fs "http://127.0.0.1:$1/metrics" | sed -n "s/^$2=//p"
}

# rss_kib PID: resident set size in KiB.
rss_kib() {
  sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status"
}

# live_heap_bytes PID PORT: forces a full GC, then reads heap in use (= live heap, plus the little
# allocated since) from GET /metrics.
live_heap_bytes() {
  jcmd "$1" GC.run >/dev/null
  metric "$2" heapUsed
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

ensure_app_jar() {
  local jar=examples/target/peregrine-examples.jar
  if [ ! -f "$jar" ] || [ -n "$(find core/src examples/src pom.xml core/pom.xml examples/pom.xml -newer "$jar" -type f 2>/dev/null | head -1)" ]; then
    echo "building $jar" >&2
    mvn -B -q -ntp -o -DskipTests -pl examples -am package >&2
  fi
}
