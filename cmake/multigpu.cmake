# multi-GPU (NCCL, MPI)
# NCCL combines the per-GPU partial results; MPI starts one process per GPU (and reaches other
# hosts). Both stay out of warpfold::warpfold: only warpfold::distributed links NCCL, and only the
# `warpfold multigpu --mode mpi` code links MPI.
#
# Results, for the rest of the build:
#   WARPFOLD_MULTIGPU      ON when NCCL was found: warpfold::distributed and `warpfold multigpu` are built
#   WARPFOLD_MULTIGPU_MPI  ON when MPI was found as well: the mpi set-up is built
# Both are cached as INTERNAL so that scripts can read them from CMakeCache.txt.

option(WARPFOLD_WITH_MULTIGPU "Build warpfold::distributed and `warpfold multigpu` (needs NCCL)" ON)

set(WARPFOLD_MULTIGPU OFF)
set(WARPFOLD_MULTIGPU_MPI OFF)

if(WARPFOLD_WITH_MULTIGPU)
  # Where NCCL may live: the CUDA toolkit (where the GPU images put it), a Debian/Ubuntu package
  # (libnccl-dev, in the default paths), NCCL_ROOT / NCCL_HOME, or the Python wheel nvidia-nccl-cu13
  # (whose lib/ holds only libnccl.so.2, hence the second name).
  set(_warpfold_nccl_hints ${CUDAToolkit_LIBRARY_ROOT} ${CUDAToolkit_TARGET_DIR} $ENV{NCCL_ROOT} $ENV{NCCL_HOME})
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    execute_process(COMMAND ${Python3_EXECUTABLE} -c "import nvidia.nccl as m; print(list(m.__path__)[0])"
                    OUTPUT_VARIABLE _warpfold_nccl_wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_warpfold_nccl_wheel)
      list(APPEND _warpfold_nccl_hints ${_warpfold_nccl_wheel})
    endif()
  endif()
  find_path(WARPFOLD_NCCL_INCLUDE_DIR nccl.h
            HINTS ${CUDAToolkit_INCLUDE_DIRS} ${_warpfold_nccl_hints} PATH_SUFFIXES include)
  find_library(WARPFOLD_NCCL_LIBRARY NAMES nccl libnccl.so.2
               HINTS ${CUDAToolkit_LIBRARY_DIR} ${_warpfold_nccl_hints} PATH_SUFFIXES lib64 lib)

  if(WARPFOLD_NCCL_INCLUDE_DIR AND WARPFOLD_NCCL_LIBRARY)
    file(STRINGS ${WARPFOLD_NCCL_INCLUDE_DIR}/nccl.h _warpfold_nccl_version REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
    string(REGEX REPLACE "[^0-9;]" "" _warpfold_nccl_version "${_warpfold_nccl_version}")
    string(REPLACE ";" "." _warpfold_nccl_version "${_warpfold_nccl_version}")
    message(STATUS "multi-GPU: NCCL ${_warpfold_nccl_version} (${WARPFOLD_NCCL_LIBRARY})")
    add_library(warpfold_nccl INTERFACE IMPORTED)
    target_include_directories(warpfold_nccl INTERFACE ${WARPFOLD_NCCL_INCLUDE_DIR})
    target_link_libraries(warpfold_nccl INTERFACE ${WARPFOLD_NCCL_LIBRARY})

    # Layer 1, distributed: warpfold::reduce on each GPU, NCCL across them. Header-only like the
    # rest of the library; whoever links it links NCCL.
    add_library(warpfold_distributed INTERFACE)
    add_library(warpfold::distributed ALIAS warpfold_distributed)
    target_link_libraries(warpfold_distributed INTERFACE warpfold::warpfold warpfold_nccl)
    set(WARPFOLD_MULTIGPU ON)

    # MPI for the one-process-per-GPU set-up. Only the C API is used: skip the deprecated C++
    # bindings, which some Open MPI builds would otherwise pull into every translation unit.
    set(MPI_CXX_SKIP_MPICXX ON)
    find_package(MPI COMPONENTS CXX QUIET)
    if(MPI_CXX_FOUND)
      message(STATUS "multi-GPU: MPI ${MPI_CXX_VERSION} (${MPI_CXX_COMPILER}): `warpfold multigpu --mode mpi` is built")
      set(WARPFOLD_MULTIGPU_MPI ON)
    else()
      message(WARNING "multi-GPU: MPI not found (Debian/Ubuntu: apt-get install libopenmpi-dev openmpi-bin): "
                      "`warpfold multigpu` is built without its mpi set-up (--mode mpi)")
    endif()
  else()
    message(WARNING "multi-GPU: NCCL not found (nccl.h and libnccl in the CUDA toolkit, libnccl-dev, or NCCL_ROOT): "
                    "warpfold::distributed and `warpfold multigpu` are not built")
  endif()
endif()

set(WARPFOLD_MULTIGPU ${WARPFOLD_MULTIGPU} CACHE INTERNAL "warpfold::distributed and warpfold multigpu are built")
set(WARPFOLD_MULTIGPU_MPI ${WARPFOLD_MULTIGPU_MPI} CACHE INTERNAL "warpfold multigpu --mode mpi is built")
