# Sourced by the scripts that run the examples app or the JMH jar: ensure_examples_jar builds
# examples/target/peregrine-examples.jar, ensure_benchmarks_jar jmh/target/benchmarks.jar, when it is
# missing or older than any source or POM of a module it bundles. A shaded jar bundles its module and
# every module of ours that module's POM depends on outside test scope, and theirs in turn (for the
# examples today core/ and client/); the list is read from the POMs, so a module added there is watched
# without touching this file. The parent pom.xml is watched too.
#   source scripts/lib/examples-jar.sh; ensure_examples_jar     (from the repository's root)
# Sets EXAMPLES_JAR and BENCHMARKS_JAR to the jars' paths. MVN_FLAGS adds Maven flags (e.g. -o to build offline).

EXAMPLES_JAR=examples/target/peregrine-examples.jar
BENCHMARKS_JAR=jmh/target/benchmarks.jar

# module_artifact DIR: the artifactId of the module in DIR (its own, not its parent's).
module_artifact() {
  awk '/<parent>/ { p = 1 } /<\/parent>/ { p = 0; next }
    !p && match($0, /<artifactId>[^<]*<\/artifactId>/) { print substr($0, RSTART + 12, RLENGTH - 25); exit }' "$1/pom.xml"
}

# module_deps DIR: artifactIds of dev.peregrine dependencies of DIR's POM that are not test-scoped
# (dependencies only: plugins and dependencyManagement are skipped).
module_deps() {
  awk '/<dependencyManagement>/ { m = 1 } /<\/dependencyManagement>/ { m = 0 }
    /<dependency>/ && !m { d = 1; g = a = s = "" }
    d && match($0, /<groupId>[^<]*<\/groupId>/) { g = substr($0, RSTART + 9, RLENGTH - 19) }
    d && match($0, /<artifactId>[^<]*<\/artifactId>/) { a = substr($0, RSTART + 12, RLENGTH - 25) }
    d && match($0, /<scope>[^<]*<\/scope>/) { s = substr($0, RSTART + 7, RLENGTH - 15) }
    /<\/dependency>/ && d { d = 0; if (g == "dev.peregrine" && s != "test") print a }' "$1/pom.xml"
}

# jar_modules MODULE: MODULE's directory and those of the modules its jar bundles, one a line.
jar_modules() {
  local -A dir_of=() seen=()
  local m a queue=("$1")
  for m in $(sed -n 's:.*<module>\(.*\)</module>.*:\1:p' pom.xml); do
    [ -f "$m/pom.xml" ] && dir_of[$(module_artifact "$m")]=$m
  done
  while ((${#queue[@]})); do
    m=${queue[0]}; queue=("${queue[@]:1}")
    [ -n "${seen[$m]:-}" ] && continue
    seen[$m]=1
    echo "$m"
    for a in $(module_deps "$m"); do
      [ -n "${dir_of[$a]:-}" ] && queue+=("${dir_of[$a]}")
    done
  done
}

# jar_stale MODULE JAR: prints why JAR needs building (nothing when it is up to date).
jar_stale() {
  [ -f "$2" ] || { echo "no $2"; return; }
  local m inputs=(pom.xml) newer
  for m in $(jar_modules "$1"); do inputs+=("$m/pom.xml" "$m/src"); done
  newer=$(find "${inputs[@]}" -type f -newer "$2" 2>/dev/null | head -1)
  [ -z "$newer" ] || echo "$newer is newer"
}

# ensure_module_jar MODULE JAR: builds MODULE (and what it needs) when JAR is missing or stale.
ensure_module_jar() {
  local why
  why=$(jar_stale "$1" "$2")
  if [ -n "$why" ]; then
    echo "building $2 ($why)" >&2
    # shellcheck disable=SC2086 # MVN_FLAGS are words
    mvn -B -q -ntp ${MVN_FLAGS:-} -DskipTests -pl "$1" -am package >&2
  fi
}

ensure_examples_jar() {
  ensure_module_jar examples "$EXAMPLES_JAR"
}

ensure_benchmarks_jar() {
  ensure_module_jar jmh "$BENCHMARKS_JAR"
}
