# Finds cuDNN (its header and its main library) for the CUDA backend.
#
# Looks first under CUDNN_ROOT (a CMake variable or an environment variable): a directory
# holding include/cudnn.h and lib/, lib64/ or lib/x86_64-linux-gnu/ — a cuDNN tarball,
# or the package directory of NVIDIA's pip wheel (nvidia-cudnn-cu12/-cu13: nvidia/cudnn/,
# whose lib/ holds only versioned names such as libcudnn.so.9); then beside the CUDA
# toolkit, then in the system's directories (Debian's libcudnn9-dev-cuda-*).
#
# Defines CUDNN_FOUND, CUDNN_VERSION ("9.19.0"), CUDNN_INCLUDE_DIR, CUDNN_LIBRARY and the
# imported target CUDNN::cudnn. cuDNN 8 or newer is needed (CUDNN_FMA_MATH, the _v7
# algorithm queries); an older one counts as not found.
set(_cudnn_hints ${CUDNN_ROOT} $ENV{CUDNN_ROOT})
if(CUDAToolkit_LIBRARY_ROOT)
  list(APPEND _cudnn_hints "${CUDAToolkit_LIBRARY_ROOT}")
endif()
if(CUDAToolkit_INCLUDE_DIRS)
  list(APPEND _cudnn_include_hints ${CUDAToolkit_INCLUDE_DIRS})
endif()

find_path(CUDNN_INCLUDE_DIR NAMES cudnn_version.h
  HINTS ${_cudnn_hints} ${_cudnn_include_hints}
  PATH_SUFFIXES include include/x86_64-linux-gnu)
# libcudnn.so where a -dev package or tarball made the link; the wheel has only .so.9.
find_library(CUDNN_LIBRARY NAMES cudnn libcudnn.so.9 libcudnn.so.8 NAMES_PER_DIR
  HINTS ${_cudnn_hints} ${CUDAToolkit_LIBRARY_DIR}
  PATH_SUFFIXES lib64 lib lib/x86_64-linux-gnu)

set(CUDNN_VERSION "")
if(CUDNN_INCLUDE_DIR AND EXISTS "${CUDNN_INCLUDE_DIR}/cudnn_version.h")
  file(STRINGS "${CUDNN_INCLUDE_DIR}/cudnn_version.h" _cudnn_defines
       REGEX "^#define CUDNN_(MAJOR|MINOR|PATCHLEVEL) +[0-9]+")
  foreach(_part MAJOR MINOR PATCHLEVEL)
    string(REGEX MATCH "CUDNN_${_part} +([0-9]+)" _match "${_cudnn_defines}")
    set(_cudnn_${_part} "${CMAKE_MATCH_1}")
  endforeach()
  if(NOT _cudnn_MAJOR STREQUAL "")
    set(CUDNN_VERSION "${_cudnn_MAJOR}.${_cudnn_MINOR}.${_cudnn_PATCHLEVEL}")
  endif()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CUDNN
  REQUIRED_VARS CUDNN_LIBRARY CUDNN_INCLUDE_DIR CUDNN_VERSION
  VERSION_VAR CUDNN_VERSION)
if(CUDNN_FOUND AND CUDNN_VERSION VERSION_LESS 8)
  message(STATUS "Strata: cuDNN ${CUDNN_VERSION} at ${CUDNN_INCLUDE_DIR} is older than 8: not used")
  set(CUDNN_FOUND FALSE)
endif()

if(CUDNN_FOUND AND NOT TARGET CUDNN::cudnn)
  add_library(CUDNN::cudnn UNKNOWN IMPORTED)
  set_target_properties(CUDNN::cudnn PROPERTIES
    IMPORTED_LOCATION "${CUDNN_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CUDNN_INCLUDE_DIR}")
endif()
mark_as_advanced(CUDNN_INCLUDE_DIR CUDNN_LIBRARY)
