// NCCL_NVLS_ENABLE: set to 0 when unset or empty, kept when 0, never overridden otherwise (the
// command then refuses to run).
#include <warpfold/distributed/nvlink_multicast.hpp>

#include "multigpu/run_common.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

using namespace warpfold;
using distributed::nvls_setting;

namespace {

// Restores NCCL_NVLS_ENABLE as the test found it.
class NvlsEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* v = std::getenv("NCCL_NVLS_ENABLE")) saved_ = v;
  }
  void TearDown() override {
    if (saved_) setenv("NCCL_NVLS_ENABLE", saved_->c_str(), 1);
    else unsetenv("NCCL_NVLS_ENABLE");
  }
  static std::string value() {
    const char* v = std::getenv("NCCL_NVLS_ENABLE");
    return v ? v : "(unset)";
  }

 private:
  std::optional<std::string> saved_;
};

}  // namespace

TEST_F(NvlsEnv, UnsetBecomesZero) {
  unsetenv("NCCL_NVLS_ENABLE");
  EXPECT_EQ(distributed::keep_nvlink_multicast_off(), nvls_setting::set_off_here);
  EXPECT_EQ(value(), "0");
  EXPECT_EQ(distributed::keep_nvlink_multicast_off(), nvls_setting::already_off);  // a second call finds it set
}

TEST_F(NvlsEnv, EmptyBecomesZero) {
  setenv("NCCL_NVLS_ENABLE", "", 1);
  EXPECT_EQ(distributed::keep_nvlink_multicast_off(), nvls_setting::set_off_here);
  EXPECT_EQ(value(), "0");
}

TEST_F(NvlsEnv, ZeroIsKept) {
  for (const char* zero : {"0", "00", " 0", "0 "}) {
    setenv("NCCL_NVLS_ENABLE", zero, 1);
    EXPECT_EQ(distributed::keep_nvlink_multicast_off(), nvls_setting::already_off) << "'" << zero << "'";
    EXPECT_EQ(value(), zero);
  }
}

TEST_F(NvlsEnv, OtherValuesAreLeftAloneAndTheCommandRefusesThem) {
  for (const char* other : {"1", "2", "yes", "0x1"}) {
    setenv("NCCL_NVLS_ENABLE", other, 1);
    EXPECT_EQ(distributed::keep_nvlink_multicast_off(), nvls_setting::enabled_by_environment) << other;
    EXPECT_EQ(value(), other);
    try {
      multigpu::require_nvlink_multicast_off();
      ADD_FAILURE() << "NCCL_NVLS_ENABLE=" << other << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("set it to 0"), std::string::npos) << e.what();
    }
  }
}

TEST_F(NvlsEnv, TheCommandSaysWhatItFound) {
  unsetenv("NCCL_NVLS_ENABLE");
  EXPECT_NE(multigpu::require_nvlink_multicast_off().find("set by warpfold"), std::string::npos);
  EXPECT_NE(multigpu::require_nvlink_multicast_off().find("from the environment"), std::string::npos);
}
