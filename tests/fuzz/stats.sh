#!/bin/sh
# stats.sh NAME LOG: one tab-separated line of a libFuzzer run's final statistics
# (run with -print_final_stats=1): target, runs, seconds, executions per second,
# coverage (edges), features, corpus inputs and bytes, new units, peak RSS (MB).
# Used by `make fuzz` (stats.tsv) and tests/fuzz/smoke.sh.
name=$1; log=$2
awk -v name="$name" '
  /^#[0-9]+[ \t]+(DONE|INITED|NEW|REDUCE|pulse)/ {
    last = substr($1, 2)
    for (i = 1; i <= NF; i++) {
      if ($i == "cov:") cov = $(i + 1)
      if ($i == "ft:") ft = $(i + 1)
      if ($i == "corp:") { split($(i + 1), c, "/"); corp = c[1]; bytes = c[2] }
    }
  }
  /^stat::number_of_executed_units:/ { runs = $2 }
  /^stat::average_exec_per_sec:/ { eps = $2 }
  /^stat::new_units_added:/ { nu = $2 }
  /^stat::peak_rss_mb:/ { rss = $2 }
  /^Done [0-9]+ runs in [0-9]+ second/ { secs = $5 }
  END {
    if (runs == "") runs = last
    if (secs == "" && eps > 0) secs = int(runs / eps + 0.5)
    printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name, runs == "" ? "?" : runs, secs == "" ? "?" : secs,
           eps == "" ? "?" : eps, cov == "" ? "?" : cov, ft == "" ? "?" : ft, corp == "" ? "?" : corp,
           bytes == "" ? "?" : bytes, nu == "" ? "?" : nu, rss == "" ? "?" : rss
  }' "$log"
