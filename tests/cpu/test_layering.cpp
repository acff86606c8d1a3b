// The layers, checked from the source tree (docs/architecture.md draws them): an include that
// breaks a rule fails here, whatever the build happens to compile. The build enforces the same
// order (src/CMakeLists.txt: each layer's include path holds only the folders below it).
//   * the library (include/warpfold/) includes nothing outside itself;
//   * the lab includes no CLI, and no folder of src/ includes the CLI, which sits on top;
//   * the Python extension and the examples include the library alone;
//   * the folders of src/ include one another without a cycle.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#ifndef WARPFOLD_SOURCE_DIR
#error "WARPFOLD_SOURCE_DIR must name the source tree"
#endif

namespace fs = std::filesystem;

namespace {

struct Include {
  fs::path file;
  int line;
  std::string target;  // what the directive names
  bool quoted;
};

std::string where(const Include& i) {
  return fs::relative(i.file, WARPFOLD_SOURCE_DIR).string() + ":" + std::to_string(i.line) + ": " +
         (i.quoted ? "\"" + i.target + "\"" : "<" + i.target + ">");
}

bool is_source(const fs::path& p) {
  static const std::set<std::string> kinds{".hpp", ".cpp", ".cuh", ".cu", ".h"};
  return kinds.count(p.extension().string()) > 0;
}

// Every #include of every source file below `dir`.
std::vector<Include> includes_below(const fs::path& dir) {
  static const std::regex directive(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
  std::vector<Include> out;
  if (!fs::exists(dir)) return out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file() || !is_source(entry.path())) continue;
    std::ifstream in(entry.path());
    std::string text;
    for (int line = 1; std::getline(in, text); ++line) {
      std::smatch m;
      if (std::regex_search(text, m, directive)) out.push_back({entry.path(), line, m[2].str(), m[1].str() == "\""});
    }
  }
  return out;
}

// The folders of src/, each a layer or a part of one.
std::set<std::string> src_folders() {
  std::set<std::string> out;
  for (const auto& entry : fs::directory_iterator(fs::path(WARPFOLD_SOURCE_DIR) / "src")) {
    if (entry.is_directory()) out.insert(entry.path().filename().string());
  }
  return out;
}

std::string first_component(const std::string& path) { return path.substr(0, path.find('/')); }

// The folder of src/ a file lies in.
std::string folder_of(const fs::path& file) {
  return first_component(fs::relative(file, fs::path(WARPFOLD_SOURCE_DIR) / "src").generic_string());
}

// Whether an include reaches into the project beyond the library: a folder of src/, a relative
// path, or a file of the tree that is not the library's.
bool reaches_outside_library(const Include& i, const std::set<std::string>& folders) {
  if (i.target.find("..") != std::string::npos) return true;
  if (folders.count(first_component(i.target)) && i.target.find('/') != std::string::npos) return true;
  return i.quoted;  // the library names its own headers <warpfold/...>
}

}  // namespace

TEST(Layering, TheSourceTreeIsWhereTheTestLooks) {
  EXPECT_TRUE(fs::exists(fs::path(WARPFOLD_SOURCE_DIR) / "include/warpfold/reduce.cuh"));
  for (const char* folder : {"harness", "report", "lab", "cli"}) EXPECT_TRUE(src_folders().count(folder)) << folder;
  EXPECT_FALSE(includes_below(fs::path(WARPFOLD_SOURCE_DIR) / "src").empty());
}

TEST(Layering, TheLibraryIncludesNothingOutsideItself) {
  const std::set<std::string> folders = src_folders();
  for (const Include& i : includes_below(fs::path(WARPFOLD_SOURCE_DIR) / "include")) {
    EXPECT_FALSE(reaches_outside_library(i, folders)) << where(i);
    if (first_component(i.target) == "warpfold") {
      const bool generated = i.target == "warpfold/version.hpp";  // written by CMake (cmake/version.hpp.in)
      EXPECT_TRUE(generated || fs::exists(fs::path(WARPFOLD_SOURCE_DIR) / "include" / i.target)) << where(i);
    }
  }
}

TEST(Layering, ThePythonExtensionAndTheExamplesUseTheLibraryAlone) {
  const std::set<std::string> folders = src_folders();
  for (const char* dir : {"python/src", "examples"}) {
    for (const Include& i : includes_below(fs::path(WARPFOLD_SOURCE_DIR) / dir)) {
      const bool own = i.quoted && i.target.find('/') == std::string::npos;  // a header beside the file
      EXPECT_TRUE(own || !reaches_outside_library(i, folders)) << where(i);
    }
  }
}

TEST(Layering, NoFolderIncludesTheCli) {
  for (const Include& i : includes_below(fs::path(WARPFOLD_SOURCE_DIR) / "src")) {
    if (folder_of(i.file) == "cli") continue;
    EXPECT_NE(first_component(i.target), "cli") << where(i);
    EXPECT_EQ(i.target.find(".."), std::string::npos) << where(i) << ": include through the folder's root, not ..";
  }
}

TEST(Layering, TheFoldersIncludeOneAnotherWithoutACycle) {
  const std::set<std::string> folders = src_folders();
  std::map<std::string, std::set<std::string>> edges;  // folder -> folders it includes
  std::map<std::pair<std::string, std::string>, std::string> example;
  for (const Include& i : includes_below(fs::path(WARPFOLD_SOURCE_DIR) / "src")) {
    const std::string from = folder_of(i.file), to = first_component(i.target);
    if (!i.quoted || !folders.count(to) || to == from) continue;
    edges[from].insert(to);
    example.emplace(std::make_pair(from, to), where(i));
  }
  // Depth-first search; a folder met again while still on the path closes a cycle.
  std::map<std::string, int> state;  // 0 unseen, 1 on the path, 2 done
  std::vector<std::string> path;
  std::function<void(const std::string&)> visit = [&](const std::string& f) {
    state[f] = 1;
    path.push_back(f);
    for (const std::string& to : edges[f]) {
      if (state[to] == 1) {
        std::string cycle;
        for (auto it = std::find(path.begin(), path.end(), to); it != path.end(); ++it) cycle += *it + " -> ";
        ADD_FAILURE() << "include cycle: " << cycle << to << " (e.g. " << example[{f, to}] << ")";
      } else if (state[to] == 0) {
        visit(to);
      }
    }
    path.pop_back();
    state[f] = 2;
  };
  for (const std::string& f : folders) {
    if (state[f] == 0) visit(f);
  }
  // The lab includes no CLI, said on its own, as the rule reads.
  EXPECT_EQ(edges["lab"].count("cli"), 0u);
}
