// The commit stamped into results: cmake/commit_stamp.cmake, run at every build, and what the
// built library stamps. Needs cmake on PATH (it built this test); the git cases need git.
#include "harness/run_context.hpp"

#include <warpfold/version.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

const fs::path kScript = fs::path(WARPFOLD_TEST_DATA_DIR) / ".." / ".." / "cmake" / "commit_stamp.cmake";

std::string read_file(const fs::path& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool run(const std::string& command) { return std::system((command + " >/dev/null 2>&1").c_str()) == 0; }

// The value the header defines, or "" when it has none.
std::string stamped(const fs::path& header) {
  std::smatch m;
  const std::string text = read_file(header);
  return std::regex_search(text, m, std::regex("#define WARPFOLD_GIT_COMMIT \"([^\"]*)\"")) ? m[1].str() : "";
}

class CommitStamp : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!run("cmake --version")) GTEST_SKIP() << "cmake is not on PATH";
    tree_ = fs::temp_directory_path() /
            ("warpfold_commit_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(tree_);
    fs::create_directories(tree_);
  }
  void TearDown() override { fs::remove_all(tree_); }

  fs::path header() const { return tree_ / "out" / "warpfold_commit.h"; }
  bool stamp() const {
    return run("cmake -DSOURCE_DIR=" + tree_.string() + " -DOUTPUT=" + header().string() + " -P " + kScript.string());
  }
  bool git(const std::string& args) const {
    return run("git -C " + tree_.string() + " -c user.name=warpfold -c user.email=warpfold@localhost " + args);
  }
  std::string head() const {
    FILE* p = ::popen(("git -C " + tree_.string() + " rev-parse --short=12 HEAD 2>/dev/null").c_str(), "r");
    if (!p) return "";
    char buf[64] = {};
    const bool read = std::fgets(buf, sizeof buf, p) != nullptr;
    ::pclose(p);
    const std::string text = read ? buf : "";
    return text.substr(0, text.find('\n'));
  }
  fs::path tree_;
};

}  // namespace

TEST_F(CommitStamp, WithoutGitTheDotCommitFileElseUnknown) {
  ASSERT_TRUE(stamp());
  EXPECT_EQ(stamped(header()), "unknown");
  std::ofstream(tree_ / ".commit") << "0123456789ab\n";
  ASSERT_TRUE(stamp());
  EXPECT_EQ(stamped(header()), "0123456789ab");
}

TEST_F(CommitStamp, NotAPlainCommitNameIsUnknown) {
  std::ofstream(tree_ / ".commit") << "abc\" ; evil\n";  // would break out of the string literal
  ASSERT_TRUE(stamp());
  EXPECT_EQ(stamped(header()), "unknown");
}

TEST_F(CommitStamp, GitFollowsNewCommitsAndADotCommitFileWins) {
  if (!run("git --version")) GTEST_SKIP() << "git is not on PATH";
  ASSERT_TRUE(git("init -q"));
  ASSERT_TRUE(git("commit -q --allow-empty -m first"));
  ASSERT_TRUE(stamp());
  const std::string first = head();
  ASSERT_EQ(first.size(), 12u);
  EXPECT_EQ(stamped(header()), first);
  ASSERT_TRUE(git("commit -q --allow-empty -m second"));
  ASSERT_TRUE(stamp());  // the next build, with no configure step in between
  EXPECT_NE(head(), first);
  EXPECT_EQ(stamped(header()), head());
  // A copy whose .git lags behind carries the commit it was made from in .commit, which wins.
  std::ofstream(tree_ / ".commit") << "0123456789ab\n";
  ASSERT_TRUE(stamp());
  EXPECT_EQ(stamped(header()), "0123456789ab");
}

TEST_F(CommitStamp, UnchangedCommitLeavesTheHeaderUntouched) {
  std::ofstream(tree_ / ".commit") << "0123456789ab\n";
  ASSERT_TRUE(stamp());
  const auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(header(), old_time);
  ASSERT_TRUE(stamp());
  EXPECT_EQ(fs::last_write_time(header()), old_time);  // so nothing that includes it rebuilds
  std::ofstream(tree_ / ".commit") << "ba9876543210\n";
  ASSERT_TRUE(stamp());
  EXPECT_EQ(stamped(header()), "ba9876543210");
  EXPECT_NE(fs::last_write_time(header()), old_time);
}

// This test binary lives in <build>/tests; the build writes <build>/generated/warpfold_commit.h.
TEST(CommitStampBuild, ResultsCarryTheCommitTheBuildRead) {
  const fs::path header = fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "generated" /
                          "warpfold_commit.h";
  ASSERT_TRUE(fs::exists(header)) << header;
  warpfold::report::Report report;
  { const auto ctx = warpfold::harness::RunContext::open(report); }
  EXPECT_EQ(report.meta.value("commit", std::string()), stamped(header));
  EXPECT_EQ(report.meta.value("warpfold", std::string()), WARPFOLD_VERSION_STRING);  // project(VERSION)
}
