#pragma once
// The NCCL communicators of one process, for the two set-ups:
//  * one process drives every local GPU: communicators::init_all(devices), one rank per device,
//    rank i on devices[i]; collectives over them go between ncclGroupStart and ncclGroupEnd;
//  * one process per GPU (mpirun, one host or many): rank 0 makes an id with new_unique_id(),
//    the launcher hands it to every process (MPI_Bcast), and each calls
//    communicators::init_rank(nranks, id, rank, device). ncclCommInitRank waits for all nranks
//    processes: every one of them must call it, with the same nranks and id.
// Both keep NVLink multicast off (nvlink_multicast.hpp) before NCCL's first call.

#include <warpfold/distributed/nccl_error.hpp>
#include <warpfold/distributed/nvlink_multicast.hpp>
#include <warpfold/error.hpp>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <utility>
#include <vector>

namespace warpfold::distributed {

// The id that names one communicator; made by one process, copied to the others.
inline ncclUniqueId new_unique_id() {
  keep_nvlink_multicast_off();
  ncclUniqueId id{};
  WARPFOLD_NCCL_CHECK(ncclGetUniqueId(&id));
  return id;
}

class communicators {
 public:
  // One communicator per device, all in this process.
  static communicators init_all(const std::vector<int>& devices) {
    keep_nvlink_multicast_off();
    communicators c;
    c.comms_.resize(devices.size());
    WARPFOLD_NCCL_CHECK(ncclCommInitAll(c.comms_.data(), int(devices.size()), devices.data()));
    return c;
  }

  // This process's one rank of an nranks-wide communicator, on `device` (made current).
  static communicators init_rank(int nranks, const ncclUniqueId& id, int rank, int device) {
    keep_nvlink_multicast_off();
    WARPFOLD_CUDA_CHECK(cudaSetDevice(device));
    communicators c;
    c.comms_.resize(1);
    WARPFOLD_NCCL_CHECK(ncclCommInitRank(&c.comms_[0], nranks, id, rank));
    return c;
  }

  communicators() = default;
  communicators(communicators&& o) noexcept : comms_(std::exchange(o.comms_, {})) {}
  communicators& operator=(communicators&& o) noexcept {
    if (this != &o) {
      destroy();
      comms_ = std::exchange(o.comms_, {});
    }
    return *this;
  }
  communicators(const communicators&) = delete;
  communicators& operator=(const communicators&) = delete;
  ~communicators() { destroy(); }

  size_t size() const { return comms_.size(); }
  ncclComm_t operator[](size_t i) const { return comms_[i]; }

  // Ends the communicators without waiting for peers: after a failure, when a peer may be gone.
  void abort() {
    for (ncclComm_t c : comms_) ncclCommAbort(c);
    comms_.clear();
  }

 private:
  void destroy() {
    for (ncclComm_t c : comms_) ncclCommDestroy(c);
    comms_.clear();
  }
  std::vector<ncclComm_t> comms_;
};

}  // namespace warpfold::distributed
