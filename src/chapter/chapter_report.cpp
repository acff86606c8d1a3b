#include "chapter/chapter_report.hpp"

#include "harness/device_info.hpp"
#include "harness/run_context.hpp"

#include <chrono>
#include <cmath>

namespace warpfold::chapter {

using nlohmann::json;

json section_entry(const report::Report& r, bool gpu_ran, bool check_failed) {
  json e;
  e["gpu_ran"] = gpu_ran;
  e["check_failed"] = check_failed;
  e["report"] = json::parse(report::render(r, report::Format::json));
  e["markdown"] = report::render(r, report::Format::md);
  e["csv"] = report::render(r, report::Format::csv);
  e["status"] = check_failed ? "wrong" : gpu_ran ? "ok" : "cpu-only";
  return e;
}

json skipped_entry(const std::string& reason) {
  return json{{"status", "skipped"}, {"error", reason}, {"gpu_ran", false}, {"check_failed", false},
              {"report", nullptr}, {"markdown", ""}};
}

json run_sections(const std::vector<Section>& sections, const std::function<void(const std::string&)>& progress) {
  json doc;
  harness::stamp_provenance(doc["meta"]);
  if (auto reason = harness::cuda_unavailable_reason()) {
    doc["meta"]["device"] = nullptr;
    doc["meta"]["no_device_reason"] = *reason;
  } else {
    doc["meta"]["device"] = harness::query_device(0).name;
  }
  doc["lessons"] = json::array();
  for (size_t i = 0; i < sections.size(); ++i) {
    const Section& s = sections[i];
    const std::string step = "[" + std::to_string(i + 1) + "/" + std::to_string(sections.size()) + "] " + s.key;
    progress(step + ": running");
    const auto t0 = std::chrono::steady_clock::now();
    json e;
    try {
      e = s.run();
    } catch (const std::exception& ex) {
      e = json{{"status", "failed"}, {"error", ex.what()}, {"gpu_ran", false}, {"check_failed", false},
               {"report", nullptr}, {"markdown", ""}};
    }
    e["key"] = s.key;
    e["title"] = s.title;
    e["lesson"] = s.lesson;
    e["profiled"] = s.profiled;
    e["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    progress(step + ": " + e["status"].get<std::string>() + " in " +
             report::format_number(std::round(e["seconds"].get<double>() * 10) / 10) + " s");
    doc["lessons"].push_back(std::move(e));
  }
  return doc;
}

}  // namespace warpfold::chapter
