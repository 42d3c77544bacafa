# round_medians FILE: the summary of bench-peers' ROUNDS and PAIRS. FILE holds one line per measured
# window, tab-separated: server, scenario, round, server CPU ns/request, 1 if other processes disturbed
# it (else 0); a later line for the same server, scenario and round replaces an earlier one (a run the
# harness redid). Prints per server and scenario the median over the rounds of its CPU per request and,
# beside raw, the median of the per-round ratios to raw, and each; disturbed windows are left out, with
# the raw window of their round.
round_medians() {
  awk -F'\t' '
    { k = $1 " " $2; v[k, $3] = $4; bad[k, $3] = $5; names[$1] = 1; sc[$2] = 1; if ($3 > R) R = $3 }
    function med(a, m,   i, j, t) { for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
    END {
      print "# medians over " R " rounds (disturbed windows left out): server scenario srv_ns/req [median of per-round ratios to raw, and each]"
      for (n in names) for (s in sc) { k = n " " s; m = 0; for (r = 1; r <= R; r++) if ((k, r) in v && !bad[k, r]) a[++m] = v[k, r]
        if (m == 0) continue
        line = sprintf("%-16s %-9s %6d", n, s, med(a, m)); rk = "raw " s
        if (n != "raw") { m = 0; each = ""
          for (r = 1; r <= R; r++) if ((k, r) in v && (rk, r) in v && !bad[k, r] && !bad[rk, r] && v[rk, r] > 0) {
            b[++m] = v[k, r] / v[rk, r]; each = each sprintf(" %.2f", b[m]) }
          if (m > 0) line = line sprintf("  %.2fx raw (%s )", med(b, m), each) }
        print line }
    }' "$1" | { IFS= read -r header; echo "$header"; sort; }
}
