# Header-only dependencies of the lab and the CLI (the library has none). Debian ships CMake
# packages for them; some distributions ship only the headers, so where the package is missing,
# the header is located and wrapped in an imported target of the same name.
#   warpfold_header_only_dependency(<package> <target> <header> <Debian package>)
function(warpfold_header_only_dependency package target header debian_package)
  find_package(${package} CONFIG QUIET)
  if(TARGET ${target})
    return()
  endif()
  find_path(WARPFOLD_${package}_INCLUDE ${header})
  if(NOT WARPFOLD_${package}_INCLUDE)
    message(FATAL_ERROR "${package} not found (${header}): install it (Debian: apt-get install ${debian_package})")
  endif()
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  target_include_directories(${target} INTERFACE ${WARPFOLD_${package}_INCLUDE})
endfunction()
