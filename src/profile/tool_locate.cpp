#include "profile/tool_locate.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace warpfold::profile {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> dirs;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t colon = path.find(':', start);
    const std::string dir = path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (!dir.empty()) dirs.push_back(dir);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return dirs;
}

// "2025.3.1.0" before "2025.3.0.0" before "2024.1.0": compares the dot-separated numbers.
bool newer_version(const std::string& a, const std::string& b) {
  auto numbers = [](const std::string& s) {
    std::vector<long> v;
    long cur = -1;
    for (char c : s) {
      if (c >= '0' && c <= '9') {
        cur = (cur < 0 ? 0 : cur * 10) + (c - '0');
      } else if (cur >= 0) {
        v.push_back(cur);
        cur = -1;
      }
    }
    if (cur >= 0) v.push_back(cur);
    return v;
  };
  return numbers(a) > numbers(b);
}

// Sub-folders of `root` whose names start with `prefix`, newest version first.
std::vector<std::string> versioned_dirs(const std::string& root, const std::string& prefix) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) == 0 && it->is_directory(ec)) names.push_back(name);
  }
  std::sort(names.begin(), names.end(), newer_version);
  for (auto& n : names) n = root + "/" + n;
  return names;
}

// $CUDA_HOME first, then the usual installation roots.
std::vector<std::string> cuda_roots_of(const ToolSearch& where) {
  std::vector<std::string> roots;
  if (!where.cuda_home.empty()) roots.push_back(where.cuda_home);
  roots.insert(roots.end(), where.install_roots.begin(), where.install_roots.end());
  return roots;
}

std::string getenv_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

ToolSearch ToolSearch::from_environment() {
  ToolSearch s;
  s.path = getenv_or_empty("PATH");
  s.cuda_home = getenv_or_empty("CUDA_HOME");
  if (s.cuda_home.empty()) s.cuda_home = getenv_or_empty("CUDA_PATH");
  return s;
}

std::vector<std::string> tool_candidates(const std::string& tool, const ToolSearch& where) {
  std::vector<std::string> out;
  for (const std::string& dir : split_path(where.path)) out.push_back(dir + "/" + tool);
  const std::vector<std::string> cuda_roots = cuda_roots_of(where);
  for (const std::string& root : cuda_roots) out.push_back(root + "/bin/" + tool);
  if (tool == "ncu") {
    for (const std::string& root : cuda_roots) {
      for (const std::string& dir : versioned_dirs(root, "nsight-compute-")) out.push_back(dir + "/ncu");
    }
    for (const std::string& root : where.nsight_compute_roots) {
      for (const std::string& dir : versioned_dirs(root, "")) out.push_back(dir + "/ncu");
    }
  }
  // The same file reached twice (PATH holding /usr/local/cuda/bin) is tried once.
  std::vector<std::string> unique;
  for (const std::string& c : out) {
    if (std::find(unique.begin(), unique.end(), c) == unique.end()) unique.push_back(c);
  }
  return unique;
}

bool is_executable_file(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::optional<std::string> locate_tool(const std::string& tool, const ToolSearch& where) {
  for (const std::string& c : tool_candidates(tool, where)) {
    if (is_executable_file(c)) return c;
  }
  return std::nullopt;
}

std::string describe_search(const std::string& tool, const ToolSearch& where) {
  std::vector<std::string> places{"PATH"};
  auto add = [&](const std::string& place) {
    if (std::find(places.begin(), places.end(), place) == places.end()) places.push_back(place);
  };
  const std::vector<std::string> cuda_roots = cuda_roots_of(where);
  for (const std::string& r : cuda_roots) add(r + "/bin");
  if (tool == "ncu") {
    for (const std::string& r : cuda_roots) add(r + "/nsight-compute-*");
    for (const std::string& r : where.nsight_compute_roots) add(r + "/*");
  }
  std::string text;
  for (const std::string& p : places) text += (text.empty() ? "" : ", ") + p;
  return text;
}

std::string self_executable() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find the warpfold executable (/proc/self/exe): " + ec.message());
  return p.string();
}

}  // namespace warpfold::profile
