#pragma once
// What the book-comparison tests share: the keys each lesson's table gives its rows.
#include "lab/divergence/divergence_registry.hpp"
#include "lab/grid_shape/block_shape.hpp"
#include "lab/ladder/registry.hpp"
#include "lab/nested/nested_kernels.hpp"
#include "lab/nested/nested_plan.hpp"

#include <set>
#include <string>

namespace book_test {

// The keys each lesson's table gives its rows, from the lesson's own registry.
inline std::set<std::string> table_keys(const std::string& lesson) {
  std::set<std::string> keys;
  if (lesson == "ladder") {
    for (const auto& k : warpfold::lab::ladder_kernels()) keys.insert(std::string(k.name));
  } else if (lesson == "divergence") {
    for (const auto& k : warpfold::lab::divergence::divergence_kernels()) keys.insert(std::string(k.name));
  } else if (lesson == "grid") {
    for (const auto& b : warpfold::lab::seed_block_shapes()) keys.insert(b.label());
  } else if (lesson == "nested") {
    keys = {"cpu", "neighbored"};
    for (warpfold::lab::NestedVariant v : warpfold::lab::kNestedVariants) keys.insert(std::string(warpfold::lab::nested_row_name(v)));
  }
  return keys;
}

}  // namespace book_test
