#include "profile/launch_manifest.hpp"

#include <fstream>
#include <stdexcept>

namespace warpfold::profile {
namespace {

// Labels and names never hold tabs or line breaks; anything that would is replaced by a space.
std::string one_field(std::string s) {
  for (char& c : s) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

}  // namespace

void LaunchManifest::add(std::string label, std::string kernel) {
  launches_.push_back({one_field(std::move(label)), one_field(std::move(kernel))});
}

void LaunchManifest::write(const std::string& path) const {
  std::ofstream f(path, std::ios::trunc);
  for (const ProfiledLaunch& l : launches_) f << l.label << '\t' << l.kernel << '\n';
  f.close();
  if (!f) throw std::runtime_error("cannot write the launch manifest '" + path + "'");
}

LaunchManifest LaunchManifest::read(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("the profiled run wrote no launch manifest ('" + path + "')");
  LaunchManifest m;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) throw std::runtime_error("malformed launch manifest line: '" + line + "'");
    m.launches_.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return m;
}

}  // namespace warpfold::profile
