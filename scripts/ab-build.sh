# Sourced by the A/B scripts: builds one program from a side source compiled twice (this tree's
# include/ as namespace ab_new, an older tree's as ab_old with -Dwarpfold=warpfold_old, so that its
# kernels and state are its own) and a main source with the harness.
#   ab_build OLD SIDE_SRC MAIN_SRC OUT_DIR   ->  OUT_DIR/ab_program
# OLD is a commit (exported with git archive) or a folder holding an older tree's include/.
# AB_NEW_TREE, a folder holding include/warpfold, stands for this tree on the new side. Builds for
# WARPFOLD_CUDA_ARCH (default 90).
ab_build() {
  local old="$1" side="$2" main="$3" out="$4"
  mkdir -p "$out"
  if [ ! -d "$old/include/warpfold" ]; then
    git -C "$WARPFOLD_ROOT" rev-parse --verify -q "$old^{commit}" >/dev/null ||
      die "$old is neither a commit nor a tree with include/warpfold"
    rm -rf "$out/old" && mkdir -p "$out/old"
    git -C "$WARPFOLD_ROOT" archive "$old" include | tar -x -C "$out/old"
    old="$out/old"
  fi
  local new="${AB_NEW_TREE:-$WARPFOLD_ROOT}"
  [ -d "$new/include/warpfold" ] || die "AB_NEW_TREE=$new holds no include/warpfold"
  local arch="${WARPFOLD_CUDA_ARCH:-90}"
  local flags=(-O3 -std=c++17 -arch="sm_$arch" -Xcompiler=-Wall)
  nvcc "${flags[@]}" -I "$new/include" -DAB_SIDE=ab_new -c "$side" -o "$out/new.o" &
  nvcc "${flags[@]}" -I "$old/include" -DAB_SIDE=ab_old -Dwarpfold=warpfold_old -c "$side" -o "$out/old.o" &
  nvcc "${flags[@]}" -I "$WARPFOLD_ROOT/include" -I "$WARPFOLD_ROOT/src" -c "$main" -o "$out/main.o" &
  nvcc "${flags[@]}" -I "$WARPFOLD_ROOT/src" -c "$WARPFOLD_ROOT/src/harness/stats.cpp" -o "$out/stats.o" &
  local job
  for job in $(jobs -p); do wait "$job" || die "building the A/B program failed"; done
  nvcc "${flags[@]}" "$out/new.o" "$out/old.o" "$out/main.o" "$out/stats.o" -o "$out/ab_program"
}
