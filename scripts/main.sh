#!/usr/bin/env bash
# Builds the warpfold command and runs the main job: the whole chapter measured on this machine,
# `warpfold report`, into results/report/ (report.md, report.html, results.json, figures/).
# Only the command is built (scripts/test.sh builds and runs everything else). Without a CUDA
# device it says so and writes the CPU sections.
set -euo pipefail
source "$(dirname "$0")/common.sh"
find_cuda
install_deps
configure "$@"
build warpfold_cli
out="$WARPFOLD_ROOT/results/report"
rc=0
"$BUILD_DIR/src/warpfold" report --out "$out" || rc=$?
case "$rc" in
  0) log "report written: $out/report.md (and report.html, results.json, figures/)" ;;
  3) log "no CUDA device on this machine: the report holds the CPU sections only: $out/report.md" ;;
  *) die "warpfold report failed (exit $rc); what it finished is in $out/results.json" ;;
esac
