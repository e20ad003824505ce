# strata_add_gtest_suites(<target> [LABELS label...] [ENVIRONMENT var=value...]
#                         [ENVIRONMENT_MODIFICATION var=op:value...])
#
# Registers a GoogleTest executable with CTest one GoogleTest suite per CTest test (a suite
# of more than STRATA_TESTS_PER_PROCESS tests split into shards, GoogleTest's own sharding),
# named `<target>.<Suite>` or `<target>.<Suite> [i/n]`: `ctest -R OperationCases` runs one.
#
# Why not gtest_discover_tests, one process per test: each process pays for loading the
# libraries (CUDA's alone take ~0.2 s of CPU and 230 MB) and the suite's static setup
# (golden files parsed to name the parameterized cases) before its test, which is most
# of the suite's time on two cores, and more under the sanitizers. The tests are
# discovered when CTest starts (`--gtest_list_tests`), so a rebuilt suite needs no
# reconfigure. A process whose every test skipped reports "Skipped" (tests/test_main.cc).
set(STRATA_TESTS_PER_PROCESS 40 CACHE STRING "Most GoogleTest tests CTest runs in one process")

function(strata_add_gtest_suites target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "LABELS;ENVIRONMENT;ENVIRONMENT_MODIFICATION")
  set(script "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake")
  file(GENERATE OUTPUT "${script}" CONTENT
"include(\"${CMAKE_CURRENT_FUNCTION_LIST_DIR}/GTestSuitesAdd.cmake\")
strata_ctest_add_gtest_suites(\"${target}\" \"$<TARGET_FILE:${target}>\" ${STRATA_TESTS_PER_PROCESS}
  \"${arg_LABELS}\" \"${arg_ENVIRONMENT}\" \"${arg_ENVIRONMENT_MODIFICATION}\")
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${script}")
endfunction()
