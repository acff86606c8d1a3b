// The profiler's dealings with other programs: running them, finding them, and reading what ncu
// says when it fails. ncu itself is played by tests/data/ncu/fake-ncu.sh.
#include "cpu/profile_test_data.hpp"
#include "profile/book_metrics.hpp"
#include "profile/ncu_run.hpp"
#include "harness/run_outcome.hpp"
#include "profile/profile_session.hpp"
#include "profile/subprocess.hpp"
#include "profile/tool_locate.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace warpfold::profile;
using warpfold::harness::RunStopped;
using warpfold::harness::Stop;
using warpfold::testing::read_test_data;
using warpfold::testing::test_data_path;

namespace {

namespace fs = std::filesystem;

// A scratch folder for the test, removed afterwards.
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("warpfold-test-" + std::to_string(::getpid()) + "-" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
  std::string file(const std::string& name, const std::string& text, bool executable = false) const {
    const fs::path p = dir / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    if (executable) ::chmod(p.c_str(), 0755);
    return p.string();
  }
};

// Sets an environment variable for the test's duration.
struct EnvVar {
  std::string name;
  EnvVar(std::string n, const std::string& value) : name(std::move(n)) { ::setenv(name.c_str(), value.c_str(), 1); }
  ~EnvVar() { ::unsetenv(name.c_str()); }
};

NcuSettings fake_ncu(double timeout = 60) {
  NcuSettings s;
  s.ncu = test_data_path("ncu/fake-ncu.sh");
  s.timeout_seconds = timeout;
  return s;
}

}  // namespace

TEST(Subprocess, CapturesBothOutputsAndTheExitCode) {
  const ProcessResult r = run_process({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_TRUE(r.started);
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.describe(), "exit code 3");
}

TEST(Subprocess, ArgumentsReachTheProgramUntouchedByAnyShell) {
  const ProcessResult r = run_process({"/bin/echo", "a b", "$(rm -rf /)", ";", "*"});
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.out, "a b $(rm -rf /) ; *\n");
}

TEST(Subprocess, EnvironmentOverridesAndStdinIsEmpty) {
  ProcessOptions o;
  o.environment = {{"LC_ALL", "C"}, {"WARPFOLD_TEST_VAR", "x y"}};
  const ProcessResult r = run_process({"/bin/sh", "-c", "echo \"$LC_ALL|$WARPFOLD_TEST_VAR\"; cat"}, o);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.out, "C|x y\n");  // cat read /dev/null: nothing, and did not wait
}

TEST(Subprocess, AProgramThatCannotStartIsSaidSo) {
  const ProcessResult missing = run_process({"/nonexistent/ncu", "--version"});
  EXPECT_FALSE(missing.started);
  EXPECT_NE(missing.start_error.find("No such file"), std::string::npos) << missing.start_error;
  EXPECT_FALSE(run_process({"ncu"}).started);  // no path: nothing is looked up
  EXPECT_FALSE(run_process({}).started);
}

TEST(Subprocess, TheTimeLimitEndsTheProgramAndWhatItStarted) {
  ProcessOptions o;
  o.timeout_seconds = 0.5;
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r = run_process({"/bin/sh", "-c", "sleep 30 & sleep 30"}, o);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(seconds, 10);  // the background sleep held the pipes too: it was killed with its group
  EXPECT_NE(r.describe(0.5).find("timed out"), std::string::npos);
}

namespace {
volatile sig_atomic_t g_test_interrupts = 0;
void count_interrupt(int) { g_test_interrupts = g_test_interrupts + 1; }
}  // namespace

TEST(Subprocess, AnInterruptEndsTheChildThenReachesTheCaller) {
  struct sigaction mine{}, old{};
  mine.sa_handler = count_interrupt;
  sigemptyset(&mine.sa_mask);
  ::sigaction(SIGINT, &mine, &old);
  g_test_interrupts = 0;
  std::thread ctrl_c([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(::getpid(), SIGINT);
  });
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r = run_process({"/bin/sh", "-c", "sleep 30"});  // no time limit
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ctrl_c.join();
  ::sigaction(SIGINT, &old, nullptr);
  EXPECT_LT(seconds, 10);
  EXPECT_FALSE(r.exited);  // killed
  EXPECT_EQ(g_test_interrupts, 1);  // and the interrupt was passed on to the caller's handler
}

TEST(Subprocess, OutputBeyondTheLimitIsDroppedNotBlocking) {
  ProcessOptions o;
  o.max_output_bytes = 1000;
  o.timeout_seconds = 30;
  const ProcessResult r = run_process({"/bin/sh", "-c", "head -c 1000000 /dev/zero"}, o);
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.out.size(), 1000u);
}

TEST(ToolLocate, SearchOrderPathThenCudaThenNsightCompute) {
  Scratch s;
  const std::string root = s.dir.string();
  s.file("opt/nsight-compute/2024.1.0/ncu", "#!/bin/sh\n", true);
  s.file("opt/nsight-compute/2025.3.1.0/ncu", "#!/bin/sh\n", true);
  s.file("cuda/nsight-compute-2025.3.0/ncu", "#!/bin/sh\n", true);
  ToolSearch where;
  where.path = root + "/bin1:" + root + "/bin2";
  where.cuda_home = root + "/cudahome";
  where.install_roots = {root + "/cuda"};
  where.nsight_compute_roots = {root + "/opt/nsight-compute"};
  const auto c = tool_candidates("ncu", where);
  const std::vector<std::string> expected{root + "/bin1/ncu",
                                          root + "/bin2/ncu",
                                          root + "/cudahome/bin/ncu",
                                          root + "/cuda/bin/ncu",
                                          root + "/cuda/nsight-compute-2025.3.0/ncu",
                                          root + "/opt/nsight-compute/2025.3.1.0/ncu",
                                          root + "/opt/nsight-compute/2024.1.0/ncu"};
  EXPECT_EQ(c, expected);
  EXPECT_EQ(*locate_tool("ncu", where), root + "/cuda/nsight-compute-2025.3.0/ncu");
  s.file("bin2/ncu", "#!/bin/sh\n", true);
  EXPECT_EQ(*locate_tool("ncu", where), root + "/bin2/ncu");
  s.file("bin1/ncu", "not executable");
  EXPECT_EQ(*locate_tool("ncu", where), root + "/bin2/ncu");  // a file that cannot run is passed over
  EXPECT_EQ(tool_candidates("cuobjdump", where).size(), 4u);  // no Nsight Compute folders for it
}

TEST(ToolLocate, NothingFoundNamesWhereItLooked) {
  ToolSearch where;
  where.path = "/nonexistent-a";
  where.install_roots = {"/nonexistent-cuda"};
  where.nsight_compute_roots = {"/nonexistent-nsight"};
  EXPECT_FALSE(locate_tool("ncu", where));
  const std::string text = describe_search("ncu", where);
  EXPECT_NE(text.find("/nonexistent-cuda/bin"), std::string::npos);
  EXPECT_NE(text.find("/nonexistent-nsight/*"), std::string::npos);
}

TEST(ToolLocate, AnExplicitPathMustBeAProgram) {
  try {
    find_ncu(std::string("/nonexistent/ncu"));
    FAIL() << "expected a RunStopped";
  } catch (const RunStopped& f) {
    EXPECT_EQ(f.kind(), Stop::tool_missing);
    EXPECT_NE(std::string(f.what()).find("/nonexistent/ncu"), std::string::npos);
  }
  EXPECT_EQ(find_ncu(test_data_path("ncu/fake-ncu.sh")), test_data_path("ncu/fake-ncu.sh"));
}

TEST(NcuFailure, PermissionDeniedNamesTheFix) {
  ProcessResult p;
  p.started = p.exited = true;
  p.exit_code = 0;
  p.out = read_test_data("ncu/err_nvgpuctrperm.txt");
  const auto f = ncu_failure(p, 0, 60);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind(), Stop::no_counter_permission);
  const std::string msg = f->what();
  EXPECT_NE(msg.find("ERR_NVGPUCTRPERM"), std::string::npos);
  EXPECT_NE(msg.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
  EXPECT_NE(msg.find("root"), std::string::npos);
}

TEST(NcuFailure, NoKernelsTimeoutAndSuccess) {
  ProcessResult p;
  p.started = p.exited = true;
  p.exit_code = 2;
  p.err = "warpfold: error: n must be at least 1\n==WARNING== No kernels were profiled.\n";
  auto f = ncu_failure(p, 0, 60);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind(), Stop::failed);
  EXPECT_NE(std::string(f->what()).find("No kernels were profiled"), std::string::npos);
  EXPECT_NE(std::string(f->what()).find("exit code 2"), std::string::npos);
  p.timed_out = true;
  f = ncu_failure(p, 0, 60);
  ASSERT_TRUE(f);
  EXPECT_NE(std::string(f->what()).find("--timeout"), std::string::npos);
  p.timed_out = false;
  EXPECT_FALSE(ncu_failure(p, 3, 60));  // a non-zero exit with results: the results stand
  ProcessResult never;
  never.start_error = "Permission denied";
  EXPECT_EQ(ncu_failure(never, 0, 60)->kind(), Stop::tool_missing);
}

TEST(NcuSession, ArgumentsAndTheCLocale) {
  EnvVar mode("FAKE_NCU_MODE", "echo-args");
  NcuSettings s = fake_ncu();
  s.clock_control = "none";
  const ProcessResult r = run_process(ncu_argv(s, {"/path/warpfold", "ladder", "--n", "1024"}), {{}, {{"LC_ALL", "C"}}});
  EXPECT_EQ(r.out,
            "LC_ALL=C\n--csv\n--target-processes\nall\n--clock-control\nnone\n--metrics\n" + ncu_metric_list(false) +
                "\n/path/warpfold\nladder\n--n\n1024\n");
  s.warp_state = true;
  const ProcessResult w = run_process(ncu_argv(s, {"/path/warpfold", "ladder"}), {{}, {{"LC_ALL", "C"}}});
  EXPECT_NE(w.out.find("--metrics\n" + ncu_metric_list(true) + "\n/path/warpfold\n"), std::string::npos) << w.out;
  EXPECT_EQ(ncu_version(s.ncu), "2025.3.0.0");
}

TEST(NcuSession, AProfiledRunIsReadBackWithItsManifest) {
  EnvVar mode("FAKE_NCU_MODE", "csv");
  EnvVar output("FAKE_NCU_OUTPUT", test_data_path("ncu/ladder_details_sample.csv"));
  EnvVar manifest("FAKE_NCU_MANIFEST", test_data_path("ncu/ladder_launches.tsv"));
  const ProfiledProgram p = profile_program(fake_ncu(), {"/path/warpfold", "ladder"});
  EXPECT_EQ(p.ncu.kernels.size(), 22u);
  ASSERT_EQ(p.launches.launches().size(), 22u);
  EXPECT_EQ(p.launches.launches()[6].label, "reduceInterleaved (book)");
  EXPECT_EQ(p.launches.launches()[6].kernel, "reduceInterleaved");
}

TEST(NcuSession, PermissionDeniedEndsTheSession) {
  EnvVar mode("FAKE_NCU_MODE", "output");
  EnvVar output("FAKE_NCU_OUTPUT", test_data_path("ncu/err_nvgpuctrperm.txt"));
  try {
    profile_program(fake_ncu(), {"/path/warpfold", "ladder"});
    FAIL() << "expected a RunStopped";
  } catch (const RunStopped& f) {
    EXPECT_EQ(f.kind(), Stop::no_counter_permission);
  }
}

TEST(NcuSession, AHungSessionIsEndedAtTheTimeLimit) {
  EnvVar mode("FAKE_NCU_MODE", "hang");
  const auto start = std::chrono::steady_clock::now();
  try {
    profile_program(fake_ncu(1), {"/path/warpfold", "ladder"});
    FAIL() << "expected a RunStopped";
  } catch (const RunStopped& f) {
    EXPECT_EQ(f.kind(), Stop::failed);
    EXPECT_NE(std::string(f.what()).find("timed out"), std::string::npos);
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10);
}

TEST(NcuSession, ResultsWithoutAManifestSayWhatTheRunPrinted) {
  Scratch s;
  const std::string out = s.file("out.txt", read_test_data("ncu/ladder_details_sample.csv") + "warpfold: CUDA error: out of memory\n");
  EnvVar mode("FAKE_NCU_MODE", "output");
  EnvVar output("FAKE_NCU_OUTPUT", out);
  try {
    profile_program(fake_ncu(), {"/path/warpfold", "ladder"});
    FAIL() << "expected a RunStopped";
  } catch (const RunStopped& f) {
    EXPECT_EQ(f.kind(), Stop::failed);
    EXPECT_NE(std::string(f.what()).find("out of memory"), std::string::npos);
  }
}
