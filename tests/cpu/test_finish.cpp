// The end every command shares (cli/finish.hpp): each outcome, stop and exception gives its
// documented exit code (docs/cli.md) with one line on stderr saying why, and writes the report
// only when the run got as far as one.
#include "cli/finish.hpp"
#include "cpu/cli_test_support.hpp"

#include <warpfold/error.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>

using namespace warpfold;
using harness::Stop;
using warpfold::testing::CaptureStderr;

namespace {

// An outcome whose report is one preamble line.
harness::RunOutcome outcome_with_report() {
  harness::RunOutcome o;
  o.report.preamble.push_back("a report line");
  o.report.meta["no_device_reason"] = "no driver here";
  return o;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Written {
  int rc;
  std::string stderr_text;
  std::string report;
};

// finish(o) with its report written to a temporary file.
Written finish_to_file(const harness::RunOutcome& o) {
  const std::string path = ::testing::TempDir() + "warpfold_finish_test.txt";
  std::remove(path.c_str());
  cli::OutputOptions out;
  out.out = path;
  CaptureStderr err;
  const int rc = cli::finish(o, out);
  Written w{rc, err.text.str(), read_file(path)};
  std::remove(path.c_str());
  return w;
}

int run_throwing(const std::function<void()>& body, std::string& said) {
  CaptureStderr err;
  const int rc = cli::run_command({nullptr, [&] { body(); return int(cli::kExitOk); }});
  said = err.text.str();
  return rc;
}

}  // namespace

TEST(Finish, EachStopHasItsDocumentedCode) {
  EXPECT_EQ(cli::exit_code(Stop::none), cli::kExitOk);
  EXPECT_EQ(cli::exit_code(Stop::bad_request), cli::kExitUsageError);
  EXPECT_EQ(cli::exit_code(Stop::no_device), cli::kExitNoDevice);
  EXPECT_EQ(cli::exit_code(Stop::failed), cli::kExitRuntimeError);
  EXPECT_EQ(cli::exit_code(Stop::tool_missing), cli::kExitToolMissing);
  EXPECT_EQ(cli::exit_code(Stop::no_counter_permission), cli::kExitNoCounterPermission);
}

TEST(Finish, AnOutcomeGivesItsCodeAndOneLineWhy) {
  harness::RunOutcome o = outcome_with_report();
  Written w = finish_to_file(o);
  EXPECT_EQ(w.rc, cli::kExitNoDevice);
  EXPECT_NE(w.stderr_text.find("no CUDA device (no driver here)"), std::string::npos) << w.stderr_text;
  EXPECT_NE(w.report.find("a report line"), std::string::npos) << "the CPU part's report is written";

  o.gpu_ran = true;
  w = finish_to_file(o);
  EXPECT_EQ(w.rc, cli::kExitOk);
  EXPECT_EQ(w.stderr_text, "");
  EXPECT_NE(w.report.find("a report line"), std::string::npos);

  o.check_failed = true;
  w = finish_to_file(o);
  EXPECT_EQ(w.rc, cli::kExitCheckFailed);
  EXPECT_NE(w.stderr_text.find("WRONG (see the check column)"), std::string::npos) << w.stderr_text;
  EXPECT_NE(w.report.find("a report line"), std::string::npos) << "the report shows what was wrong";
  o.wrong = "2 of 9 cases failed";
  EXPECT_EQ(finish_to_file(o).stderr_text, "warpfold: 2 of 9 cases failed\n");
}

TEST(Finish, AStopWritesNoReportAndSaysWhyOnce) {
  harness::RunOutcome o = outcome_with_report();
  o.gpu_ran = true;
  o.check_failed = true;  // a stop outweighs what else the outcome says
  o.stop = Stop::bad_request;
  o.stop_reason = "error: too many GPUs";
  Written w = finish_to_file(o);
  EXPECT_EQ(w.rc, cli::kExitUsageError);
  EXPECT_EQ(w.stderr_text, "warpfold: error: too many GPUs\n");
  EXPECT_EQ(w.report, "") << "no report after a stop";
  o.stop = Stop::failed;
  o.stop_reason = "";  // another process says it
  w = finish_to_file(o);
  EXPECT_EQ(w.rc, cli::kExitRuntimeError);
  EXPECT_EQ(w.stderr_text, "");
}

TEST(Finish, WhatACommandThrowsGivesItsCode) {
  std::string said;
  EXPECT_EQ(run_throwing([] { throw harness::RunStopped(Stop::tool_missing, "ncu not found"); }, said),
            cli::kExitToolMissing);
  EXPECT_EQ(said, "warpfold: ncu not found\n");
  EXPECT_EQ(run_throwing([] { throw harness::RunStopped(Stop::no_counter_permission, "ERR_NVGPUCTRPERM"); }, said),
            cli::kExitNoCounterPermission);
  EXPECT_EQ(run_throwing([] { throw std::invalid_argument("bad --n"); }, said), cli::kExitUsageError);
  EXPECT_EQ(said, "warpfold: error: bad --n\n");
  EXPECT_EQ(run_throwing([] { throw warpfold::cuda_error(cudaErrorMemoryAllocation, "out of memory"); }, said),
            cli::kExitRuntimeError);
  EXPECT_NE(said.find("CUDA error: out of memory"), std::string::npos) << said;
  EXPECT_EQ(run_throwing([] { throw std::runtime_error("disk full"); }, said), cli::kExitRuntimeError);
  EXPECT_EQ(said, "warpfold: error: disk full\n");
  EXPECT_EQ(run_throwing([] {}, said), cli::kExitOk);
  EXPECT_EQ(said, "");
}
