#pragma once
// Host memory for the commands that stage large inputs on the host (ladder, bench, grid): how
// much more this process may take, checked before a large allocation, and std::bad_alloc turned
// into a sentence. How much more host memory this process may take: the tightest of the address-space and data
// limits (`ulimit -v`, `ulimit -d`) less what it already holds, the memory the system has
// available (MemAvailable plus free swap) and what a container's cgroup limit leaves. Checked
// before a large allocation so that a run too big for the machine ends with a sentence naming the
// size, not std::bad_alloc halfway through (or the out-of-memory killer, for a cgroup).

#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

namespace warpfold::harness {

struct HostMemoryRoom {
  uint64_t bytes = 0;
  std::string limited_by;  // which limit is the tightest, as a person would look it up
};

namespace detail {

// Field `index` (0-based) of /proc/self/statm, in bytes; nullopt where there is no /proc.
inline std::optional<uint64_t> statm_bytes(int index) {
  std::ifstream f("/proc/self/statm");
  uint64_t pages = 0;
  for (int i = 0; i <= index; ++i) {
    if (!(f >> pages)) return std::nullopt;
  }
  return pages * uint64_t(::sysconf(_SC_PAGESIZE));
}

// MemAvailable + SwapFree from /proc/meminfo, in bytes.
inline std::optional<uint64_t> system_available_bytes() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  uint64_t kib = 0, total = 0;
  bool found = false;
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream ls(line);
    if (!(ls >> key >> kib)) continue;
    if (key == "MemAvailable:" || key == "SwapFree:") {
      total += kib * 1024;
      found |= key == "MemAvailable:";
    }
  }
  return found ? std::optional<uint64_t>(total) : std::nullopt;
}

inline void tighten(std::optional<HostMemoryRoom>& room, uint64_t bytes, const char* limited_by) {
  if (!room || bytes < room->bytes) room = HostMemoryRoom{bytes, limited_by};
}

// What the cgroup (a container's memory limit, v2) leaves; nullopt where it sets none.
inline std::optional<uint64_t> cgroup_left_bytes() {
  std::ifstream max_file("/sys/fs/cgroup/memory.max"), current_file("/sys/fs/cgroup/memory.current");
  uint64_t limit = 0, used = 0;  // "max" (no limit) does not parse as a number
  if (!(max_file >> limit && current_file >> used)) return std::nullopt;
  return limit > used ? limit - used : 0;
}

inline void tighten_rlimit(std::optional<HostMemoryRoom>& room, int resource, std::optional<uint64_t> used,
                           const char* limited_by) {
  rlimit lim{};
  if (::getrlimit(resource, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY || !used) return;
  tighten(room, lim.rlim_cur > *used ? lim.rlim_cur - *used : 0, limited_by);
}

}  // namespace detail

// nullopt where nothing limits the process or the limits cannot be read.
inline std::optional<HostMemoryRoom> host_memory_room() {
  std::optional<HostMemoryRoom> room;
  if (auto avail = detail::system_available_bytes()) detail::tighten(room, *avail, "available system memory");
  if (auto left = detail::cgroup_left_bytes()) detail::tighten(room, *left, "the container's memory limit (cgroup)");
  detail::tighten_rlimit(room, RLIMIT_AS, detail::statm_bytes(0), "the address-space limit (ulimit -v)");
  detail::tighten_rlimit(room, RLIMIT_DATA, detail::statm_bytes(5), "the data-size limit (ulimit -d)");
  return room;
}

inline std::string gib_text(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", double(bytes) / double(uint64_t(1) << 30));
  return buf;
}

// Throws std::invalid_argument naming `what`, the size and the limit when `bytes` do not fit in
// `room`; an unknown room passes (the allocation itself then decides).
inline void check_host_memory(uint64_t bytes, const std::string& what, const std::optional<HostMemoryRoom>& room) {
  if (room && bytes > room->bytes) {
    throw std::invalid_argument(what + " needs about " + gib_text(bytes) + " of host memory; " + room->limited_by +
                                " leaves " + gib_text(room->bytes));
  }
}

inline void require_host_memory(uint64_t bytes, const std::string& what) {
  check_host_memory(bytes, what, host_memory_room());
}

// Runs `allocate` (which takes about `bytes` of host memory) and turns std::bad_alloc, from a
// limit the check above cannot see or memory taken since, into std::invalid_argument naming
// `what` and the size.
template <class Allocate>
auto with_host_memory(uint64_t bytes, const std::string& what, Allocate&& allocate) -> decltype(allocate()) {
  try {
    return allocate();
  } catch (const std::bad_alloc&) {
    throw std::invalid_argument(what + " needs about " + gib_text(bytes) +
                                " of host memory, and allocating it failed: ask for a smaller size");
  }
}

}  // namespace warpfold::harness
