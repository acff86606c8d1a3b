#pragma once
// The profiler's test files (tests/data/ncu, tests/data/sass), read whole.

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#ifndef WARPFOLD_TEST_DATA_DIR
#error "WARPFOLD_TEST_DATA_DIR must name tests/data"
#endif

namespace warpfold::testing {

inline std::string test_data_path(const std::string& relative) { return std::string(WARPFOLD_TEST_DATA_DIR) + "/" + relative; }

inline std::string read_test_data(const std::string& relative) {
  std::ifstream f(test_data_path(relative), std::ios::binary);
  if (!f) throw std::runtime_error("missing test data " + test_data_path(relative));
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace warpfold::testing
