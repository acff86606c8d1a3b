#include "profile/csv_records.hpp"

namespace warpfold::profile {
namespace {

// Parses one record starting at text[pos] (a '"'); leaves pos after its line break.
CsvRecord parse_record(std::string_view text, size_t& pos) {
  CsvRecord fields(1);
  bool quoted = false;
  while (pos < text.size()) {
    const char c = text[pos++];
    if (quoted) {
      if (c != '"') {
        fields.back() += c;
      } else if (pos < text.size() && text[pos] == '"') {
        fields.back() += '"';  // a doubled quote inside a quoted field
        ++pos;
      } else {
        quoted = false;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c == '\n') {
      break;
    } else if (c != '\r') {
      fields.back() += c;  // an unquoted field (ncu quotes all, other writers may not)
    }
  }
  return fields;
}

}  // namespace

std::vector<CsvRecord> csv_records(std::string_view text) {
  std::vector<CsvRecord> records;
  size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] == '"') {
      records.push_back(parse_record(text, pos));
      continue;
    }
    const size_t eol = text.find('\n', pos);  // not a record: the program's or the tool's own line
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
  }
  return records;
}

}  // namespace warpfold::profile
