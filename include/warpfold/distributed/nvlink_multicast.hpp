#pragma once
// NVLink multicast (NVLS) stays off. NCCL uses it on NVSwitch systems unless NCCL_NVLS_ENABLE=0,
// and a program that uses it can put a shared host's GPUs out of service; a one-element
// all-reduce gains nothing from it. NCCL reads its environment at its first call (and fills gaps
// from /etc/nccl.conf and ~/.nccl.conf without overriding what is set), so this must run before
// any NCCL call of the process: the communicator functions in communicators.hpp call it.
// warpfold never sets NCCL_NVLS_ENABLE to anything but 0 and never calls cuMulticastCreate.

#include <cerrno>
#include <cstdlib>
#include <string>

namespace warpfold::distributed {

enum class nvls_setting {
  set_off_here,           // NCCL_NVLS_ENABLE was unset (or empty): set to 0 now
  already_off,            // the environment already says 0
  enabled_by_environment  // the environment asks for another value: left as it is
};

namespace detail {
// True when `text` is an integer equal to 0 ("0", "00", " 0"), the way NCCL reads integer variables.
inline bool reads_as_zero(const char* text) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 0);
  if (end == text || errno != 0) return false;
  while (*end == ' ' || *end == '\t' || *end == '\n') ++end;
  return *end == '\0' && value == 0;
}
}  // namespace detail

// Sets NCCL_NVLS_ENABLE=0 unless the environment already holds a value, and says what it found.
inline nvls_setting keep_nvlink_multicast_off() {
  const char* value = std::getenv("NCCL_NVLS_ENABLE");
  if (value == nullptr || *value == '\0') {
    setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/1);
    return nvls_setting::set_off_here;
  }
  return detail::reads_as_zero(value) ? nvls_setting::already_off : nvls_setting::enabled_by_environment;
}

inline std::string describe(nvls_setting s) {
  switch (s) {
    case nvls_setting::set_off_here: return "NCCL_NVLS_ENABLE=0 (set by warpfold: NVLink multicast off)";
    case nvls_setting::already_off: return "NCCL_NVLS_ENABLE=0 (from the environment: NVLink multicast off)";
    case nvls_setting::enabled_by_environment: {
      const char* value = std::getenv("NCCL_NVLS_ENABLE");
      return std::string("NCCL_NVLS_ENABLE=") + (value ? value : "") + " (from the environment: NVLink multicast may be used)";
    }
  }
  return "?";
}

}  // namespace warpfold::distributed
