# Sourced by the scripts that run the examples app: ensure_examples_jar builds
# examples/target/peregrine-examples.jar when it is missing or older than any source or POM of a module
# it bundles. The shaded jar bundles examples/ and every module of ours examples/pom.xml depends on
# outside test scope, and theirs in turn (today core/ and client/); the list is read from the POMs, so a
# module added there is watched without touching this file. The parent pom.xml is watched too.
#   source scripts/lib/examples-jar.sh; ensure_examples_jar     (from the repository's root)
# Sets EXAMPLES_JAR to the jar's path. MVN_FLAGS adds Maven flags (e.g. -o to build offline).

EXAMPLES_JAR=examples/target/peregrine-examples.jar

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

# examples_jar_modules: examples and the module directories it bundles, one a line.
examples_jar_modules() {
  local -A dir_of=() seen=()
  local m a queue=(examples)
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

# examples_jar_stale: prints why the jar needs building (nothing when it is up to date).
examples_jar_stale() {
  [ -f "$EXAMPLES_JAR" ] || { echo "no $EXAMPLES_JAR"; return; }
  local m inputs=(pom.xml) newer
  for m in $(examples_jar_modules); do inputs+=("$m/pom.xml" "$m/src"); done
  newer=$(find "${inputs[@]}" -type f -newer "$EXAMPLES_JAR" 2>/dev/null | head -1)
  [ -z "$newer" ] || echo "$newer is newer"
}

ensure_examples_jar() {
  local why
  why=$(examples_jar_stale)
  if [ -n "$why" ]; then
    echo "building $EXAMPLES_JAR ($why)" >&2
    # shellcheck disable=SC2086 # MVN_FLAGS are words
    mvn -B -q -ntp ${MVN_FLAGS:-} -DskipTests -pl examples -am package >&2
  fi
}
