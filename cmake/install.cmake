# The installed package: the library's headers (include/warpfold/, lab code excluded by living
# elsewhere), the generated <warpfold/version.hpp>, and the CMake package that find_package reads:
#   find_package(warpfold 0.2 CONFIG REQUIRED [COMPONENTS distributed])
# warpfold::warpfold always; warpfold::distributed where this build found NCCL (exported on its
# own, so that a consumer without NCCL still gets the rest).
include(CMakePackageConfigHelpers)

set(WARPFOLD_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/warpfold)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/warpfold DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/include/warpfold/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/warpfold)

install(TARGETS warpfold EXPORT warpfoldTargets)
install(EXPORT warpfoldTargets NAMESPACE warpfold:: DESTINATION ${WARPFOLD_INSTALL_CMAKEDIR})
if(TARGET warpfold_distributed)
  install(TARGETS warpfold_distributed EXPORT warpfoldDistributedTargets)
  install(EXPORT warpfoldDistributedTargets NAMESPACE warpfold:: DESTINATION ${WARPFOLD_INSTALL_CMAKEDIR})
endif()

# 0.x: a minor version may change the public API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/warpfoldConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
set(WARPFOLD_BUILT_DISTRIBUTED ${WARPFOLD_MULTIGPU})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/warpfoldConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/warpfoldConfig.cmake
                              INSTALL_DESTINATION ${WARPFOLD_INSTALL_CMAKEDIR})
install(FILES ${PROJECT_BINARY_DIR}/warpfoldConfig.cmake ${PROJECT_BINARY_DIR}/warpfoldConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/warpfoldRequirements.cmake ${PROJECT_SOURCE_DIR}/cmake/warpfoldFindNCCL.cmake
        DESTINATION ${WARPFOLD_INSTALL_CMAKEDIR})
