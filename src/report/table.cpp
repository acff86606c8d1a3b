#include "report/table.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace warpfold::report {
namespace {

using nlohmann::json;

std::string cell_text(const json& v, const Column& c) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float() && c.precision >= 0) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(c.precision) << v.get<double>();
    return os.str();
  }
  return v.dump();
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

std::string md_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += '\\';
    out += ch;
  }
  return out;
}

std::string directory_of(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

// Only a regular file with one name (or a new file) is written beside and renamed over: renaming
// over a symlink, FIFO or device (`--out /dev/stdout`, `/dev/null`) would put a regular file in its
// place, and over a file with other hard links would part it from them. Those are written in place.
bool replaced_by_rename(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT;
  return S_ISREG(st.st_mode) && st.st_nlink == 1;
}

mode_t current_umask() {
  const mode_t mask = ::umask(0);  // the only way to read it; set back at once
  ::umask(mask);
  return mask;
}

bool write_all(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

// A uniquely named file beside `path` (PATH.XXXXXX.partial: the suffix that .gitignore and a
// person recognise), removed on destruction unless released, so that neither a failed run nor two
// runs writing the same path collide or leave it behind.
class TempFile {
 public:
  explicit TempFile(const std::string& path) : name_(path + ".XXXXXX.partial") {
    fd_ = ::mkstemps(name_.data(), int(std::strlen(".partial")));
    if (fd_ < 0) {
      throw std::runtime_error("cannot create a temporary file in '" + directory_of(path) +
                               "' for '" + path + "': " + std::strerror(errno));
    }
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!released_) ::unlink(name_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  int fd() const { return fd_; }
  const std::string& name() const { return name_; }
  bool close() { return ::close(std::exchange(fd_, -1)) == 0; }
  void release() { released_ = true; }

 private:
  std::string name_;
  int fd_ = -1;
  bool released_ = false;
};

void render_text(std::ostream& os, const Report& r) {
  for (const auto& line : r.preamble) os << line << "\n";
  for (const auto& t : r.tables) {
    if (!r.preamble.empty() || &t != &r.tables.front()) os << "\n";
    if (!t.title.empty()) os << t.title << "\n";
    std::vector<size_t> width(t.columns.size());
    std::vector<std::vector<std::string>> cells;
    for (size_t c = 0; c < t.columns.size(); ++c) width[c] = t.columns[c].header.size();
    for (const auto& row : t.rows) {
      cells.emplace_back();
      for (size_t c = 0; c < row.size(); ++c) {
        cells.back().push_back(cell_text(row[c], t.columns[c]));
        width[c] = std::max(width[c], cells.back().back().size());
      }
    }
    auto line = [&](const std::vector<std::string>& v, const std::vector<json>* raw) {
      for (size_t c = 0; c < v.size(); ++c) {
        // Numbers right-aligned so magnitudes line up; text left-aligned.
        const bool right = raw && (*raw)[c].is_number();
        os << (c ? "  " : "") << (right ? std::right : std::left) << std::setw(int(width[c])) << v[c];
      }
      os << "\n";
    };
    std::vector<std::string> headers;
    for (const auto& c : t.columns) headers.push_back(c.header);
    line(headers, nullptr);
    size_t total = 0;
    for (size_t w : width) total += w + 2;
    os << std::string(total > 2 ? total - 2 : 0, '-') << "\n";
    for (size_t i = 0; i < cells.size(); ++i) line(cells[i], &t.rows[i]);
    for (const auto& n : t.notes) os << "  * " << n << "\n";
  }
}

// The meta fields a CSV names in its comment lines, in this order.
constexpr const char* kCsvMetaFields[] = {"device", "date", "commit", "warpfold", "seed"};

std::string meta_text(const json& v) {
  if (v.is_object() && v.contains("name")) return meta_text(v["name"]);  // the device
  return v.is_string() ? v.get<std::string>() : v.dump();
}

void render_csv(std::ostream& os, const Report& r) {
  for (const char* field : kCsvMetaFields) {
    if (!r.meta.contains(field)) continue;
    const json& v = r.meta[field];
    const std::string text = v.is_null() && std::string(field) == "device"
                                 ? "none (" + r.meta.value("no_device_reason", std::string("no CUDA device")) + ")"
                                 : meta_text(v);
    os << "# " << field << ": " << text << "\n";
  }
  for (const auto& t : r.tables) {
    if (&t != &r.tables.front()) os << "\n";
    for (size_t c = 0; c < t.columns.size(); ++c) os << (c ? "," : "") << csv_escape(t.columns[c].key);
    os << "\n";
    for (const auto& row : t.rows) {
      for (size_t c = 0; c < row.size(); ++c) {
        // CSV keeps full precision: it is for machines.
        const std::string s = row[c].is_null() ? "" : row[c].is_string() ? row[c].get<std::string>() : row[c].dump();
        os << (c ? "," : "") << csv_escape(s);
      }
      os << "\n";
    }
  }
}

void render_json(std::ostream& os, const Report& r) {
  json doc;
  doc["meta"] = r.meta;
  doc["tables"] = json::array();
  for (const auto& t : r.tables) doc["tables"].push_back(to_json(t));
  os << doc.dump(2) << "\n";
}

void render_md(std::ostream& os, const Report& r) {
  for (const auto& line : r.preamble) os << md_escape(line) << "  \n";
  for (const auto& t : r.tables) {
    os << "\n";
    if (!t.title.empty()) os << "### " << md_escape(t.title) << "\n\n";
    os << "|";
    for (const auto& c : t.columns) os << " " << md_escape(c.header) << " |";
    os << "\n|";
    for (size_t c = 0; c < t.columns.size(); ++c) os << "---|";
    os << "\n";
    for (const auto& row : t.rows) {
      os << "|";
      for (size_t c = 0; c < row.size(); ++c) os << " " << md_escape(cell_text(row[c], t.columns[c])) << " |";
      os << "\n";
    }
    if (!t.notes.empty()) os << "\n";
    for (const auto& n : t.notes) os << "- " << md_escape(n) << "\n";
  }
}

}  // namespace

std::optional<Format> parse_format(std::string_view name) {
  if (name == "table") return Format::table;
  if (name == "csv") return Format::csv;
  if (name == "json") return Format::json;
  if (name == "md") return Format::md;
  return std::nullopt;
}

const std::vector<std::string>& format_names() {
  static const std::vector<std::string> names{"table", "csv", "json", "md"};
  return names;
}

void Table::add_row(std::vector<nlohmann::json> cells) {
  if (cells.size() != columns.size()) {
    throw std::logic_error("table '" + title + "': row has " + std::to_string(cells.size()) +
                           " cells for " + std::to_string(columns.size()) + " columns");
  }
  rows.push_back(std::move(cells));
}

json to_json(const Table& t) {
  json jt;
  jt["title"] = t.title;
  jt["columns"] = json::array();
  for (const auto& c : t.columns) jt["columns"].push_back(c.key);
  jt["rows"] = json::array();
  for (const auto& row : t.rows) {
    json jr = json::object();
    for (size_t c = 0; c < row.size(); ++c) jr[t.columns[c].key] = row[c];
    jt["rows"].push_back(std::move(jr));
  }
  jt["notes"] = t.notes;
  return jt;
}

std::string render(const Report& report, Format format) {
  std::ostringstream os;
  switch (format) {
    case Format::table: render_text(os, report); break;
    case Format::csv: render_csv(os, report); break;
    case Format::json: render_json(os, report); break;
    case Format::md: render_md(os, report); break;
  }
  return os.str();
}

std::string format_number(double value) {
  std::ostringstream os;
  os << std::setprecision(12) << value;
  return os.str();
}

std::optional<std::string> output_problem(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;  // the error_code forms: a path that cannot be examined is an answer, not a throw
  if (path.empty() || fs::is_directory(path, ec)) return "'" + path + "' is not a file name";
  const std::string dir = directory_of(path);
  if (!fs::is_directory(dir, ec)) return "directory '" + dir + "' does not exist";
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return "cannot write '" + path + "': " + std::strerror(errno);
  } else if (S_ISLNK(st.st_mode) && ::stat(path.c_str(), &st) != 0) {
    // A dangling link: writing through it creates its target, so the target's directory counts.
    const std::string target = (fs::path(dir) / fs::read_symlink(path, ec)).string();
    if (::access(directory_of(target).c_str(), W_OK | X_OK) != 0) {
      return "cannot create '" + target + "' (linked from '" + path + "'): " + std::strerror(errno);
    }
    return std::nullopt;
  } else if (::access(path.c_str(), W_OK) != 0) {
    return "cannot write '" + path + "': " + std::strerror(errno);
  }
  if (!replaced_by_rename(path)) return std::nullopt;
  // The output will go through a temporary file beside it: prove now that one can be made there.
  try {
    TempFile probe(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return std::nullopt;
}

void write_output(const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::cout << text << std::flush;
    return;
  }
  if (!replaced_by_rename(path)) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot open '" + path + "' for writing: " + std::strerror(errno));
    f << text;
    f.close();
    if (!f) throw std::runtime_error("cannot write '" + path + "'");
    return;
  }
  struct stat old {};
  const bool existed = ::stat(path.c_str(), &old) == 0;
  TempFile tmp(path);
  // mkstemps makes the file private (0600): give it the mode of the file it replaces, or the mode a
  // plain open would have given a new file.
  if (::fchmod(tmp.fd(), existed ? old.st_mode & 07777 : 0666 & ~current_umask()) != 0 ||
      !write_all(tmp.fd(), text) || !tmp.close()) {
    throw std::runtime_error("cannot write '" + path + "': " + std::strerror(errno));
  }
  if (std::rename(tmp.name().c_str(), path.c_str()) != 0) {
    throw std::runtime_error("cannot move the output into '" + path + "': " + std::strerror(errno));
  }
  tmp.release();
}

}  // namespace warpfold::report
