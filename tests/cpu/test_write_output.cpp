// report::write_output and report::output_problem: what `--out` (and `--ncu-csv`) does to the path
// it is given, and which paths are refused before a command runs.
#include "cli/ladder_command.hpp"
#include "report/table.hpp"

#include "cli_test_support.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using warpfold::report::output_problem;
using warpfold::report::write_output;

namespace {

class OutputDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("warpfold_out_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
    fs::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  fs::path dir_;
};

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode;
}

}  // namespace

TEST_F(OutputDir, NewFileIsCompleteWithTheUsualModeAndNoTemporaryLeft) {
  const mode_t mask = ::umask(022);
  write_output(path("out.json"), "{}\n");
  ::umask(mask);
  EXPECT_EQ(read_file(path("out.json")), "{}\n");
  EXPECT_EQ(mode_of(path("out.json")) & 07777, mode_t(0644));  // not mkstemp's private 0600
  EXPECT_EQ(names(), std::vector<std::string>{"out.json"});
}

TEST_F(OutputDir, ReplacedRegularFileKeepsItsMode) {
  std::ofstream(path("out.csv")) << "old, longer than the new text\n";
  fs::permissions(path("out.csv"), fs::perms(0640));
  write_output(path("out.csv"), "new\n");
  EXPECT_EQ(read_file(path("out.csv")), "new\n");
  EXPECT_EQ(mode_of(path("out.csv")) & 07777, mode_t(0640));
  EXPECT_EQ(names(), std::vector<std::string>{"out.csv"});
}

TEST_F(OutputDir, TemporaryNameIsUniqueSoAnotherRunsFileIsUntouched) {
  // The fixed name PATH.partial was shared by every run writing PATH.
  std::ofstream(path("out.csv.partial")) << "another run's output";
  write_output(path("out.csv"), "mine\n");
  EXPECT_EQ(read_file(path("out.csv")), "mine\n");
  EXPECT_EQ(read_file(path("out.csv.partial")), "another run's output");
  EXPECT_EQ(names(), (std::vector<std::string>{"out.csv", "out.csv.partial"}));
}

TEST_F(OutputDir, SymlinkStaysALinkAndItsTargetIsWritten) {
  std::ofstream(path("target.json")) << "old";
  fs::create_symlink("target.json", path("link.json"));
  write_output(path("link.json"), "through the link\n");
  EXPECT_TRUE(fs::is_symlink(path("link.json")));
  EXPECT_EQ(read_file(path("target.json")), "through the link\n");
}

TEST_F(OutputDir, HardLinkedFileIsWrittenInPlaceForEveryName) {
  std::ofstream(path("a.csv")) << "old";
  fs::create_hard_link(path("a.csv"), path("b.csv"));
  write_output(path("a.csv"), "shared\n");
  EXPECT_EQ(read_file(path("b.csv")), "shared\n");
  EXPECT_EQ(fs::hard_link_count(path("a.csv")), 2u);
}

TEST_F(OutputDir, FifoStaysAFifoAndItsReaderGetsTheText) {
  ASSERT_EQ(::mkfifo(path("pipe").c_str(), 0600), 0);
  // A reader first, so that opening the FIFO for writing does not wait; non-blocking, so that a
  // FIFO replaced by a regular file shows as missing text instead of a hang.
  const int reader = ::open(path("pipe").c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  ASSERT_FALSE(output_problem(path("pipe")).has_value());
  write_output(path("pipe"), "down the pipe\n");
  char buf[64] = {};
  const ssize_t got = ::read(reader, buf, sizeof buf - 1);
  ::close(reader);
  EXPECT_EQ(std::string(buf, got > 0 ? size_t(got) : 0), "down the pipe\n");
  EXPECT_TRUE(S_ISFIFO(mode_of(path("pipe"))));
  EXPECT_EQ(names(), std::vector<std::string>{"pipe"});
}

TEST_F(OutputDir, DeviceStaysADevice) {
  // A private copy of /dev/null: the real one must never be at stake in a test.
  if (::mknod(path("null").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) GTEST_SKIP() << "mknod not permitted here";
  write_output(path("null"), "discarded\n");
  EXPECT_TRUE(S_ISCHR(mode_of(path("null"))));
  EXPECT_EQ(names(), std::vector<std::string>{"null"});
}

TEST(OutputProblem, UnwritablePathsAreNamedBeforeAnythingRuns) {
  EXPECT_TRUE(output_problem("/proc/warpfold_no_such_file").has_value());
  EXPECT_NE(output_problem("/no/such/dir/x.json").value_or("").find("does not exist"), std::string::npos);
  EXPECT_NE(output_problem(fs::temp_directory_path().string()).value_or("").find("not a file name"), std::string::npos);
  EXPECT_NE(output_problem("").value_or("").find("not a file name"), std::string::npos);
}

TEST_F(OutputDir, ProbeLeavesNothingBehind) {
  EXPECT_FALSE(output_problem(path("new.json")).has_value());
  std::ofstream(path("old.json")) << "kept";
  EXPECT_FALSE(output_problem(path("old.json")).has_value());
  EXPECT_EQ(read_file(path("old.json")), "kept");
  EXPECT_EQ(names(), std::vector<std::string>{"old.json"});
}

TEST_F(OutputDir, ReadOnlyDirectoryIsRefused) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories";
  fs::permissions(dir_, fs::perms(0555));
  EXPECT_TRUE(output_problem(path("x.json")).has_value());
}

TEST(OutputProblem, CommandRefusesAnUnwritableOutAtParseTime) {
  // A parse error is exit 2 before the run; the directory /proc exists, so only a probe sees this.
  const std::string err = warpfold::testing::parse_lesson_error("ladder", {"--out", "/proc/warpfold_no_such_file"});
  EXPECT_NE(err.find("/proc/warpfold_no_such_file"), std::string::npos) << err;
}
