# multi-GPU (NCCL, MPI)
# NCCL combines the per-GPU partial results; MPI starts one process per GPU (and reaches other
# hosts). Both stay out of warpfold::warpfold: only warpfold::distributed links NCCL, and only the
# `warpfold multigpu --mode mpi` code links MPI.
#
# Results, for the rest of the build:
#   WARPFOLD_MULTIGPU      ON when NCCL was found: warpfold::distributed (and, with the lab,
#                          `warpfold multigpu`) are built
#   WARPFOLD_MULTIGPU_MPI  ON when MPI was found as well and the lab is built: the mpi set-up is built
# Both are cached as INTERNAL so that scripts can read them from CMakeCache.txt.

option(WARPFOLD_WITH_MULTIGPU "Build warpfold::distributed and `warpfold multigpu` (needs NCCL)" ON)

set(WARPFOLD_MULTIGPU OFF)
set(WARPFOLD_MULTIGPU_MPI OFF)

if(WARPFOLD_WITH_MULTIGPU)
  include(${CMAKE_CURRENT_LIST_DIR}/warpfoldFindNCCL.cmake)
  if(WARPFOLD_NCCL_FOUND)
    message(STATUS "multi-GPU: NCCL ${WARPFOLD_NCCL_VERSION} (${WARPFOLD_NCCL_LIBRARY}): warpfold::distributed is built")
    # Layer 1, distributed: warpfold::reduce on each GPU, NCCL across them. Header-only like the
    # rest of the library; whoever links it links NCCL.
    add_library(warpfold_distributed INTERFACE)
    add_library(warpfold::distributed ALIAS warpfold_distributed)
    set_target_properties(warpfold_distributed PROPERTIES EXPORT_NAME distributed)
    target_link_libraries(warpfold_distributed INTERFACE warpfold::warpfold warpfold::nccl)
    set(WARPFOLD_MULTIGPU ON)
  else()
    # Only the lab's own multi-GPU lesson is lost where warpfold is built for itself; as a
    # subproject, a target that links warpfold::distributed gets the error (warpfoldRequirements).
    if(WARPFOLD_BUILD_LAB)
      message(WARNING "multi-GPU: ${WARPFOLD_NCCL_NOT_FOUND_MESSAGE}: warpfold::distributed and `warpfold multigpu` are not built")
    else()
      message(STATUS "multi-GPU: ${WARPFOLD_NCCL_NOT_FOUND_MESSAGE}: warpfold::distributed is not built")
    endif()
    warpfold_check_distributed_users("${WARPFOLD_NCCL_NOT_FOUND_MESSAGE}")
  endif()

  # MPI for the lab's one-process-per-GPU set-up. Only the C API is used: skip the deprecated C++
  # bindings, which some Open MPI builds would otherwise pull into every translation unit.
  if(WARPFOLD_MULTIGPU AND WARPFOLD_BUILD_LAB)
    set(MPI_CXX_SKIP_MPICXX ON)
    find_package(MPI COMPONENTS CXX QUIET)
    if(MPI_CXX_FOUND)
      message(STATUS "multi-GPU: MPI ${MPI_CXX_VERSION} (${MPI_CXX_COMPILER}): `warpfold multigpu --mode mpi` is built")
      set(WARPFOLD_MULTIGPU_MPI ON)
    else()
      message(WARNING "multi-GPU: MPI not found (Debian/Ubuntu: apt-get install libopenmpi-dev openmpi-bin): "
                      "`warpfold multigpu` is built without its mpi set-up (--mode mpi)")
    endif()
  endif()
else()
  warpfold_check_distributed_users("WARPFOLD_WITH_MULTIGPU is OFF")
endif()

set(WARPFOLD_MULTIGPU ${WARPFOLD_MULTIGPU} CACHE INTERNAL "warpfold::distributed and warpfold multigpu are built")
set(WARPFOLD_MULTIGPU_MPI ${WARPFOLD_MULTIGPU_MPI} CACHE INTERNAL "warpfold multigpu --mode mpi is built")
