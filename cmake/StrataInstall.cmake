# Install rules and the CMake package: `cmake --install build --prefix P` lays out
#   P/include/strata/strata.h, P/include/strata/<folder>/*.h   (headers, folders kept)
#   P/lib/libstrata.so
#   P/lib/cmake/Strata/StrataConfig.cmake (+ Version, Targets)
# so that a consumer writes find_package(Strata) and links Strata::strata.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(STRATA_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/Strata")

# The installed library finds its own dependencies (HDF5, the CUDA runtime) where they
# were found at build time, wherever it is installed.
set_target_properties(strata PROPERTIES
  EXPORT_NAME strata
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  INSTALL_RPATH_USE_LINK_PATH TRUE)

install(TARGETS strata EXPORT StrataTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Headers: every *.h of every library folder, under include/strata/<folder>/. Headers
# include each other as "core/tensor.h", which include/strata on the include path finds.
foreach(folder IN LISTS STRATA_FOLDERS)
  file(GLOB folder_headers CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/${folder}/*.h")
  if(folder_headers)
    install(FILES ${folder_headers}
      DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/strata/${folder}")
  endif()
endforeach()
install(FILES "${PROJECT_SOURCE_DIR}/strata.h" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/strata")

install(EXPORT StrataTargets
  NAMESPACE Strata::
  FILE StrataTargets.cmake
  DESTINATION "${STRATA_INSTALL_CMAKEDIR}")

configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/StrataConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/StrataConfig.cmake"
  INSTALL_DESTINATION "${STRATA_INSTALL_CMAKEDIR}")
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/StrataConfigVersion.cmake"
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/StrataConfig.cmake"
  "${PROJECT_BINARY_DIR}/StrataConfigVersion.cmake"
  DESTINATION "${STRATA_INSTALL_CMAKEDIR}")
