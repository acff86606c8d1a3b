# Finds NCCL for warpfold::distributed, for the source tree (cmake/multigpu.cmake) and the
# installed package (warpfoldConfig.cmake) alike. Needs CUDAToolkit found first.
#
# Where NCCL may live: the CUDA toolkit (where the GPU images put it), a Debian/Ubuntu package
# (libnccl-dev, in the default paths), NCCL_ROOT / NCCL_HOME, or the Python wheel
# nvidia-nccl-cu13 (whose lib/ holds only libnccl.so.2, hence the second name).
#
# Results: WARPFOLD_NCCL_FOUND, WARPFOLD_NCCL_VERSION, WARPFOLD_NCCL_LIBRARY and the imported
# target warpfold::nccl (its header and library), which warpfold::distributed links.

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

set(WARPFOLD_NCCL_FOUND OFF)
set(WARPFOLD_NCCL_VERSION "")
# Checked as files, not only as set: a cache entry may name a place that does not hold NCCL.
if(EXISTS "${WARPFOLD_NCCL_INCLUDE_DIR}/nccl.h" AND EXISTS "${WARPFOLD_NCCL_LIBRARY}")
  set(WARPFOLD_NCCL_FOUND ON)
  file(STRINGS ${WARPFOLD_NCCL_INCLUDE_DIR}/nccl.h WARPFOLD_NCCL_VERSION REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  string(REGEX REPLACE "[^0-9;]" "" WARPFOLD_NCCL_VERSION "${WARPFOLD_NCCL_VERSION}")
  string(REPLACE ";" "." WARPFOLD_NCCL_VERSION "${WARPFOLD_NCCL_VERSION}")
  if(NOT TARGET warpfold::nccl)
    add_library(warpfold::nccl INTERFACE IMPORTED)
    target_include_directories(warpfold::nccl INTERFACE ${WARPFOLD_NCCL_INCLUDE_DIR})
    target_link_libraries(warpfold::nccl INTERFACE ${WARPFOLD_NCCL_LIBRARY})
  endif()
endif()

string(CONCAT WARPFOLD_NCCL_NOT_FOUND_MESSAGE
       "NCCL not found (nccl.h and libnccl in the CUDA toolkit, in the default paths (Debian/Ubuntu: "
       "apt-get install libnccl-dev), under NCCL_ROOT or NCCL_HOME, or the Python wheel nvidia-nccl-cu13)")
