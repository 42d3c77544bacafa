# round_medians FILE: the summary of bench-peers' ROUNDS and PAIRS. FILE holds one line per measured
# window, tab-separated: server, scenario, round, server CPU ns/request, 1 if other processes disturbed
# it (else 0); a later line for the same server, scenario and round replaces an earlier one (a run the
# harness redid). Prints per server and scenario the median over the rounds of its CPU per request and,
# beside raw, the median of the per-round ratios to raw, and each; disturbed windows are left out, with
# the raw window of their round. Each median comes with its interquartile range (IQR lo-hi, the middle
# half of the rounds); a ratio whose IQR reaches further than 10% from its median is marked
# "SPREAD>10%: not a result" (issue 27: such a figure cannot show a 5% change).
round_medians() {
  awk -F'\t' '
    { k = $1 " " $2; v[k, $3] = $4; bad[k, $3] = $5; names[$1] = 1; sc[$2] = 1; if ($3 > R) R = $3 }
    function med(a, m,   i, j, t) { for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
    # quantile of the sorted a[1..m] (med sorts it), linear between ranks: q = 0.25 and 0.75 for the IQR
    function qu(a, m, q,   h, l) { h = 1 + (m - 1) * q; l = int(h); return l >= m ? a[m] : a[l] + (h - l) * (a[l + 1] - a[l]) }
    END {
      print "# medians over " R " rounds (disturbed windows left out): server scenario srv_ns/req (IQR) [median of per-round ratios to raw (IQR), and each]"
      for (n in names) for (s in sc) { k = n " " s; m = 0; for (r = 1; r <= R; r++) if ((k, r) in v && !bad[k, r]) a[++m] = v[k, r]
        if (m == 0) continue
        md = med(a, m); line = sprintf("%-16s %-9s %6d (IQR %d-%d)", n, s, md, qu(a, m, 0.25), qu(a, m, 0.75)); rk = "raw " s
        if (n != "raw") { m = 0; each = ""
          for (r = 1; r <= R; r++) if ((k, r) in v && (rk, r) in v && !bad[k, r] && !bad[rk, r] && v[rk, r] > 0) {
            b[++m] = v[k, r] / v[rk, r]; each = each sprintf(" %.2f", b[m]) }
          if (m > 0) { rm = med(b, m); lo = qu(b, m, 0.25); hi = qu(b, m, 0.75)
            line = line sprintf("  %.2fx raw (IQR %.2f-%.2f;%s )", rm, lo, hi, each)
            if (hi > rm * 1.10 || lo < rm * 0.90) line = line "  SPREAD>10%: not a result" } }
        print line }
    }' "$1" | { IFS= read -r header; echo "$header"; sort; }
}
