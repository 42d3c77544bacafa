# Sourced by the scripts: makes sure a JDK (17+) and Maven are there, installing them from Debian's
# packages when missing and allowed (root with apt-get), and sets JAVA to the java binary in use.
ensure_tools() {
  if ! command -v mvn >/dev/null 2>&1 || { [ -z "${JAVA_HOME:-}" ] && ! command -v java >/dev/null 2>&1; }; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "installing maven and a JDK from Debian's packages" >&2
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven openjdk-17-jdk-headless >/dev/null
    else
      echo "peregrine: needs Maven 3.8+ and JDK 17+ on PATH (or JAVA_HOME)" >&2
      exit 1
    fi
  fi
  # The end-to-end tests drive the server with real clients besides the JDK's: curl, and Python's
  # http.client and requests; the scale-out test puts HAProxy in front and loads it with wrk; the
  # HTTP/2 tests use nghttp and h2load (Debian's nghttp2-client).
  local missing=()
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
  command -v wrk >/dev/null 2>&1 || missing+=(wrk)
  command -v h2load >/dev/null 2>&1 || missing+=(nghttp2-client)
  command -v python3 >/dev/null 2>&1 || missing+=(python3)
  python3 -c 'import requests' >/dev/null 2>&1 || missing+=(python3-requests)
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "installing ${missing[*]} from Debian's packages (the end-to-end tests use them)" >&2
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
      echo "peregrine: the end-to-end tests need ${missing[*]}" >&2
      exit 1
    fi
  fi
  # The WebSocket tests drive the server with Python's websockets too: pip installs it into the
  # project's .tools/python (no system change); without it that one test is skipped, saying why.
  local tools
  tools="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.tools/python"
  if [ ! -d "$tools/websockets" ]; then
    echo "installing Python websockets into $tools (the WebSocket tests use it)" >&2
    python3 -m pip install -q --disable-pip-version-check --target "$tools" 'websockets>=12' >/dev/null 2>&1 \
      || echo "peregrine: could not install Python websockets into $tools; its test will be skipped" >&2
  fi
  # The HTTP/2 client is tested against third-party servers too (Http2PeersTest): the peer harness's
  # Netty and Jetty h2c jars, built from ../shared/peers when it sits beside the checkout; without them
  # that test is skipped, saying why.
  local root peers
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  for peers in "$root/../shared/peers" "$root/../../shared/peers"; do
    if [ -f "$peers/java/pom.xml" ]; then
      if [ ! -f "$peers/java/netty-h2/target/peer.jar" ] || [ ! -f "$peers/java/jetty-h2c/target/peer.jar" ]; then
        echo "building the HTTP/2 peer jars in $peers/java (the client's Http2PeersTest uses them)" >&2
        mvn -q -B -ntp -f "$peers/java/pom.xml" package -DskipTests -pl netty-h2,jetty-h2c >/dev/null 2>&1 \
          || echo "peregrine: could not build the HTTP/2 peer jars; Http2PeersTest will be skipped" >&2
      fi
      break
    fi
  done
  if [ -n "${JAVA_HOME:-}" ]; then
    JAVA="$JAVA_HOME/bin/java"
    export PATH="$JAVA_HOME/bin:$PATH"
  else
    JAVA=java
  fi
}

# The Temurin 25 JDK installed beside the default one, or nothing.
find_jdk25() {
  local d
  for d in /usr/lib/jvm/temurin-25-jdk-* /usr/lib/jvm/jdk-25* /usr/lib/jvm/java-25-*; do
    [ -x "$d/bin/java" ] && { echo "$d"; return 0; }
  done
  return 1
}

# ensure_perf: Linux perf (Debian's linux-perf), for the scripts that count kernel work or CPU per thread
# (scripts/uring-ops, scripts/cpu-pair); installed when missing and allowed, else the caller's message.
ensure_perf() {
  command -v perf >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing linux-perf from Debian's packages" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-perf >/dev/null
  fi
  command -v perf >/dev/null 2>&1
}

# ensure_hsdis: a HotSpot disassembler (hsdis-amd64.so) for -XX:+PrintAssembly and JMH's -prof perfasm,
# built from scripts/lib/hsdis-capstone.c against Debian's libcapstone-dev (installed when missing and
# allowed) into .tools/hsdis. Sets HSDIS_DIR; use it as LD_LIBRARY_PATH="$HSDIS_DIR" for the JVM (HotSpot
# dlopens hsdis-amd64.so by name when its own lib/ has none). x86-64 only.
ensure_hsdis() {
  local root src
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  src="$root/scripts/lib/hsdis-capstone.c"
  HSDIS_DIR="$root/.tools/hsdis"
  [ -f "$HSDIS_DIR/hsdis-amd64.so" ] && [ "$HSDIS_DIR/hsdis-amd64.so" -nt "$src" ] && return 0
  if [ ! -f /usr/include/capstone/capstone.h ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "installing libcapstone-dev from Debian's packages (hsdis disassembles with it)" >&2
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcapstone-dev >/dev/null
    fi
  fi
  [ -f /usr/include/capstone/capstone.h ] || { echo "peregrine: hsdis needs libcapstone-dev" >&2; return 1; }
  mkdir -p "$HSDIS_DIR"
  gcc -O2 -shared -fPIC -o "$HSDIS_DIR/hsdis-amd64.so" "$src" -lcapstone \
    || { echo "peregrine: could not build hsdis" >&2; return 1; }
}
