# Finds NCCL (its header and library) for the GPU all-reduce of data-parallel training.
#
# Looks first under NCCL_ROOT (a CMake variable or an environment variable): a directory
# holding include/nccl.h and lib/ — NVIDIA's tarball, or the package directory of the pip
# wheel (nvidia-nccl-cu12/-cu13: nvidia/nccl/, whose lib/ holds only libnccl.so.2); then
# beside the CUDA toolkit, then in the system's directories (libnccl-dev).
#
# Defines NCCL_FOUND, NCCL_VERSION ("2.28.9"), NCCL_INCLUDE_DIR, NCCL_LIBRARY and the
# imported target NCCL::nccl. NCCL 2.14 or newer is needed (nonblocking communicators,
# ncclCommFinalize); an older one counts as not found.
set(_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT})
if(CUDAToolkit_LIBRARY_ROOT)
  list(APPEND _nccl_hints "${CUDAToolkit_LIBRARY_ROOT}")
endif()

find_path(NCCL_INCLUDE_DIR NAMES nccl.h
  HINTS ${_nccl_hints} ${CUDAToolkit_INCLUDE_DIRS}
  PATH_SUFFIXES include)
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR
  HINTS ${_nccl_hints} ${CUDAToolkit_LIBRARY_DIR}
  PATH_SUFFIXES lib64 lib lib/x86_64-linux-gnu)

set(NCCL_VERSION "")
if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_defines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) +[0-9]+")
  foreach(_part MAJOR MINOR PATCH)
    string(REGEX MATCH "NCCL_${_part} +([0-9]+)" _match "${_nccl_defines}")
    set(_nccl_${_part} "${CMAKE_MATCH_1}")
  endforeach()
  if(NOT _nccl_MAJOR STREQUAL "")
    set(NCCL_VERSION "${_nccl_MAJOR}.${_nccl_MINOR}.${_nccl_PATCH}")
  endif()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL
  REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR NCCL_VERSION
  VERSION_VAR NCCL_VERSION)
if(NCCL_FOUND AND NCCL_VERSION VERSION_LESS 2.14)
  message(STATUS "Strata: NCCL ${NCCL_VERSION} at ${NCCL_INCLUDE_DIR} is older than 2.14: not used")
  set(NCCL_FOUND FALSE)
endif()

if(NCCL_FOUND AND NOT TARGET NCCL::nccl)
  add_library(NCCL::nccl UNKNOWN IMPORTED)
  set_target_properties(NCCL::nccl PROPERTIES
    IMPORTED_LOCATION "${NCCL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
