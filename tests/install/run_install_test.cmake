# Driven by CTest (see CMakeLists.txt): install -> configure consumer -> build -> run.
# Any failing step fails the test with that step's output.
foreach(var STRATA_BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR CXX_COMPILER GENERATOR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_install_test.cmake needs -D${var}=...")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
set(consumer_build "${WORK_DIR}/consumer-build")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test: ${name} failed (${rc}):\n${ARGN}\n${out}")
  endif()
  message(STATUS "install test: ${name} ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

step("install into ${prefix}"
  "${CMAKE_COMMAND}" --install "${STRATA_BUILD_DIR}" --prefix "${prefix}")

foreach(f include/strata/strata.h include/strata/core/tensor.h include/strata/core/ops.h)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "install test: ${f} is missing from the installed tree")
  endif()
endforeach()

# The installed tools start and work from the prefix: they find the installed library.
if(EXPECT_TOOLS)
  foreach(tool strata-inspect strata-predict)
    if(NOT EXISTS "${prefix}/bin/${tool}")
      message(FATAL_ERROR "install test: bin/${tool} is missing from the installed tree")
    endif()
  endforeach()
  step("run the installed strata-inspect" "${prefix}/bin/strata-inspect" "${GOLDEN_BASE}.h5")
  step("run the installed strata-predict" "${prefix}/bin/strata-predict" "${GOLDEN_BASE}.keras"
       "${GOLDEN_BASE}.input0.npy")
endif()

set(launcher_arg "")
if(CXX_COMPILER_LAUNCHER)
  set(launcher_arg "-DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_COMPILER_LAUNCHER}")
endif()
set(link_flags_arg "")
if(CONSUMER_LINK_FLAGS)
  set(link_flags_arg "-DCMAKE_EXE_LINKER_FLAGS=${CONSUMER_LINK_FLAGS}")
endif()
step("configure consumer"
  "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${consumer_build}" -G "${GENERATOR}"
  -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${prefix}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" ${launcher_arg} ${link_flags_arg})
step("build consumer" "${CMAKE_COMMAND}" --build "${consumer_build}")

set(app "${consumer_build}/strata_consumer")
if(NOT EXISTS "${app}")
  message(FATAL_ERROR "install test: the consumer built no strata_consumer executable")
endif()
step("run consumer" "${app}")
message(STATUS "${step_output}")

set(custom_op_app "${consumer_build}/strata_custom_op")
if(NOT EXISTS "${custom_op_app}")
  message(FATAL_ERROR "install test: the consumer built no strata_custom_op executable")
endif()
step("run the consumer's custom op" "${custom_op_app}")
message(STATUS "${step_output}")
