#!/usr/bin/env sh
# Runs assemble_report.py with a Python that has matplotlib: $WARPFOLD_PYTHON if set, else the
# first of python3 on PATH and the system's /usr/bin/python3 (Debian's python3-matplotlib goes
# there, and a python3 earlier on PATH may lack it). Without any, the figures are skipped and the
# report says so.
#   run_assembler.sh RESULTS_JSON OUT_DIR [--no-plots]
here="$(dirname "$0")"
for py in "${WARPFOLD_PYTHON:-}" python3 /usr/bin/python3; do
  [ -n "$py" ] || continue
  if "$py" -c "import matplotlib" >/dev/null 2>&1; then
    exec "$py" "$here/assemble_report.py" "$@"
  fi
done
for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null 2>&1; then
    echo "warpfold report: no Python with matplotlib found: figures skipped (install python3-matplotlib)" >&2
    exec "$py" "$here/assemble_report.py" "$@" --no-plots
  fi
done
echo "warpfold report: python3 not found: report.md and report.html not written (results.json is complete)" >&2
exit 127
