#pragma once
// Command-line arguments shared by the timing programs under bench/.

#include <cstdlib>
#include <cstring>

namespace warpfold_bench {

// `--rounds N` (N from lo to hi) or nothing; anything else is refused (false), so that the caller
// prints its usage and exits non-zero.
inline bool parse_rounds(int argc, char** argv, long lo, long hi, int& rounds) {
  if (argc == 1) return true;
  if (argc != 3 || std::strcmp(argv[1], "--rounds") != 0) return false;
  char* end = nullptr;
  const long n = std::strtol(argv[2], &end, 10);
  if (end == argv[2] || *end != '\0' || n < lo || n > hi) return false;
  rounds = int(n);
  return true;
}

}  // namespace warpfold_bench
