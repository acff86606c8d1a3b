#include "multigpu/mpi_session.hpp"

#include <cstdlib>
#include <stdexcept>

namespace warpfold::multigpu {
namespace {

void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw std::runtime_error(std::string(call) + " failed: " + text);
}

}  // namespace

MpiSession::MpiSession() {
  int started = 0;
  check_mpi(MPI_Initialized(&started), "MPI_Initialized");
  if (!started) {
    check_mpi(MPI_Init(nullptr, nullptr), "MPI_Init");
    finalize_ = true;
  }
  // Errors come back as codes (and become exceptions here) instead of ending the job silently.
  check_mpi(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  // The processes that share this host's memory are the ones that share its GPUs.
  MPI_Comm host = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host), "MPI_Comm_split_type");
  check_mpi(MPI_Comm_rank(host, &local_rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(host, &local_size_), "MPI_Comm_size");
  MPI_Comm_free(&host);
}

MpiSession::~MpiSession() {
  int finished = 0;
  MPI_Finalized(&finished);
  if (finalize_ && !finished) MPI_Finalize();
}

std::string MpiSession::library_version() const {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  check_mpi(MPI_Get_library_version(text, &length), "MPI_Get_library_version");
  std::string version(text, size_t(length));
  const size_t end = version.find_first_of("\r\n");
  return end == std::string::npos ? version : version.substr(0, end);
}

void MpiSession::barrier() const { check_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

int MpiSession::max_over_ranks(int value) const {
  int result = 0;
  check_mpi(MPI_Allreduce(&value, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return result;
}

void MpiSession::broadcast_from_root(void* data, int bytes) const {
  check_mpi(MPI_Bcast(data, bytes, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
}

std::vector<char> MpiSession::gather_to_root(const void* data, int bytes) const {
  std::vector<char> all(rank_ == 0 ? size_t(bytes) * size_t(size_) : 0);
  check_mpi(MPI_Gather(data, bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Gather");
  return all;
}

void MpiSession::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);  // MPI_Abort does not return; should it, leave anyway
}

}  // namespace warpfold::multigpu
