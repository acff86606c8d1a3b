#!/bin/sh
# Stands in for ncu in the CPU tests of the ncu session (no GPU, no Nsight Compute needed).
# FAKE_NCU_MODE chooses what it does:
#   csv           print $FAKE_NCU_OUTPUT as ncu's stdout and copy $FAKE_NCU_MANIFEST to the file
#                 after --profile-pass, as the profiled warpfold would have written it (and fail
#                 unless LC_ALL is C)
#   output        print $FAKE_NCU_OUTPUT, write no manifest, exit with $FAKE_NCU_EXIT (default 1)
#   echo-args     print LC_ALL, then each argument on a line of its own
#   hang          start a child that sleeps, then sleep: the caller's time limit must end both
# `--version` prints what ncu 2025.3 prints.
if [ "$1" = "--version" ]; then
  echo "NVIDIA (R) Nsight Compute Command Line Profiler"
  echo "Copyright (c) 2018-2025 NVIDIA Corporation"
  echo "Version 2025.3.0.0 (build 36398880) (public-release)"
  exit 0
fi
case "$FAKE_NCU_MODE" in
  csv)
    # the profiler runs ncu in the C locale, so that numbers print with a '.' decimal point
    [ "$LC_ALL" = "C" ] || { echo "fake-ncu: LC_ALL is '$LC_ALL', not C" >&2; exit 3; }
    manifest=""
    while [ $# -gt 0 ]; do
      if [ "$1" = "--profile-pass" ]; then manifest="$2"; fi
      shift
    done
    [ -n "$manifest" ] && cp "$FAKE_NCU_MANIFEST" "$manifest"
    cat "$FAKE_NCU_OUTPUT"
    ;;
  output)
    cat "$FAKE_NCU_OUTPUT"
    exit "${FAKE_NCU_EXIT:-1}"
    ;;
  echo-args)
    echo "LC_ALL=$LC_ALL"
    for a in "$@"; do echo "$a"; done
    ;;
  hang)
    sleep 30 &
    sleep 30
    ;;
  *)
    echo "fake-ncu: unknown FAKE_NCU_MODE '$FAKE_NCU_MODE'" >&2
    exit 2
    ;;
esac
