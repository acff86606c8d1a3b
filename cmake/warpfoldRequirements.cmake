# What warpfold requires of a build that uses it, one definition for the source tree
# (CMakeLists.txt) and the installed package (warpfoldConfig.cmake), each check ending in an error
# that names what is missing.

set(WARPFOLD_MIN_CUDA 13.0)    # the toolkit the library is tested with
set(WARPFOLD_MIN_ARCH 75)      # Turing: CUDA 13 compiles for nothing older

# The problem with the CUDA compiler, if any, in out_var (empty when there is none).
function(warpfold_cuda_compiler_problem out_var)
  set(problem "")
  if(CMAKE_CUDA_COMPILER_VERSION AND CMAKE_CUDA_COMPILER_VERSION VERSION_LESS WARPFOLD_MIN_CUDA)
    string(CONCAT problem "warpfold needs CUDA ${WARPFOLD_MIN_CUDA} or newer; the CUDA compiler "
                          "${CMAKE_CUDA_COMPILER} is ${CMAKE_CUDA_COMPILER_VERSION}")
  endif()
  set(${out_var} "${problem}" PARENT_SCOPE)
endfunction()

# The problem with CMAKE_CUDA_ARCHITECTURES (where this directory has it), if any, in out_var:
# an architecture below WARPFOLD_MIN_ARCH, or `all` / `all-major`, which include such ones.
# `native` is checked as what it stands for on this machine.
function(warpfold_architectures_problem out_var)
  set(problem "")
  set(archs "${CMAKE_CUDA_ARCHITECTURES}")
  if(archs STREQUAL "native" AND DEFINED CMAKE_CUDA_ARCHITECTURES_NATIVE)
    set(archs "${CMAKE_CUDA_ARCHITECTURES_NATIVE}")
  endif()
  set(too_old "")
  foreach(arch IN LISTS archs)
    if(arch STREQUAL "all" OR arch STREQUAL "all-major")
      list(APPEND too_old "${arch}")
    elseif(arch MATCHES "^([0-9]+)" AND CMAKE_MATCH_1 LESS WARPFOLD_MIN_ARCH)
      list(APPEND too_old "${arch}")
    endif()
  endforeach()
  if(too_old)
    list(JOIN too_old ", " too_old)
    string(CONCAT problem "warpfold needs compute capability 7.5 (Turing) or newer, and CMAKE_CUDA_ARCHITECTURES "
                          "(${CMAKE_CUDA_ARCHITECTURES}) asks for ${too_old}: name architectures from ${WARPFOLD_MIN_ARCH} up, e.g. "
                          "-DCMAKE_CUDA_ARCHITECTURES=\"75;80;86;89;90\", or native")
  endif()
  set(${out_var} "${problem}" PARENT_SCOPE)
endfunction()

macro(warpfold_check_cuda_compiler)
  warpfold_cuda_compiler_problem(_warpfold_problem)
  if(_warpfold_problem)
    message(FATAL_ERROR "${_warpfold_problem}")
  endif()
endmacro()

macro(warpfold_check_architectures)
  warpfold_architectures_problem(_warpfold_problem)
  if(_warpfold_problem)
    message(FATAL_ERROR "${_warpfold_problem}")
  endif()
endmacro()

# warpfold::distributed exists only where NCCL was found. A target that links it where it does not
# exist would meet CMake's bare "target not found" at generate time; this check, run once at the
# end of the top-level directory, says `why` (what is missing) instead.
function(warpfold_check_distributed_users why)
  set_property(GLOBAL PROPERTY WARPFOLD_DISTRIBUTED_MISSING "${why}")
  get_property(scheduled GLOBAL PROPERTY WARPFOLD_DISTRIBUTED_CHECK_SCHEDULED)
  if(NOT scheduled)
    set_property(GLOBAL PROPERTY WARPFOLD_DISTRIBUTED_CHECK_SCHEDULED ON)
    cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL _warpfold_find_distributed_users ${CMAKE_SOURCE_DIR})
  endif()
endfunction()

function(_warpfold_find_distributed_users dir)
  if(TARGET warpfold::distributed)
    return()
  endif()
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    set(links "")
    if(NOT type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(links ${target} LINK_LIBRARIES)
    endif()
    get_target_property(interface_links ${target} INTERFACE_LINK_LIBRARIES)
    if("warpfold::distributed" IN_LIST links OR "warpfold::distributed" IN_LIST interface_links)
      get_property(why GLOBAL PROPERTY WARPFOLD_DISTRIBUTED_MISSING)
      message(FATAL_ERROR "${target} links warpfold::distributed, which needs NCCL: ${why}")
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    _warpfold_find_distributed_users(${subdir})
  endforeach()
endfunction()
