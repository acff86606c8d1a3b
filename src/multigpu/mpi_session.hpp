#pragma once
// This process's place in an MPI job, and the few collectives the mpi set-up needs. MPI is
// started here (MPI_Init) and finished when the session ends; a process that fails after NCCL
// started ends the whole job (abort), since its peers would otherwise wait for it for ever.

#include <mpi.h>

#include <string>
#include <vector>

namespace warpfold::multigpu {

class MpiSession {
 public:
  MpiSession();   // throws std::runtime_error when MPI cannot start
  ~MpiSession();  // MPI_Finalize
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }  // among the processes of this host
  int local_size() const { return local_size_; }

  // "Open MPI v4.1.4, …": the library's own description, first line.
  std::string library_version() const;

  void barrier() const;
  // The largest `value` over every process: every process learns whether any of them must stop.
  int max_over_ranks(int value) const;
  // `bytes` bytes at `data` copied from rank 0 to every process.
  void broadcast_from_root(void* data, int bytes) const;
  // Every process's `bytes` bytes at `data`, concatenated in rank order, on rank 0 (empty elsewhere).
  std::vector<char> gather_to_root(const void* data, int bytes) const;

  // Ends every process of the job with `code`.
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  bool finalize_ = false;
};

}  // namespace warpfold::multigpu
