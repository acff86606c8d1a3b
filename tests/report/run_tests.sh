#!/usr/bin/env sh
# Runs the report-assembly tests with a Python that has matplotlib (as scripts/report/run_assembler.sh picks one).
here="$(dirname "$0")"
for py in "${WARPFOLD_PYTHON:-}" python3 /usr/bin/python3; do
  [ -n "$py" ] || continue
  if "$py" -c "import matplotlib" >/dev/null 2>&1; then exec "$py" "$here/test_assemble_report.py" -v; fi
done
echo "no Python with matplotlib: install python3-matplotlib (scripts/test.sh does)" >&2
exit 1
