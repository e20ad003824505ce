# Run by CTest when it starts (strata_add_gtest_suites in GTestSuites.cmake): lists the
# executable's GoogleTest tests and adds a CTest test per suite, or per shard of a suite of
# more than `per_process` tests.
# The suites that take longest, slowest first (measured: ctest's cost data of the Release
# and AddressSanitizer builds, 2026-11-30: the first three take 35-55 s in Release and
# 135-160 s under ASan, of a run of 200 s and 670 s on two cores). CTest runs tests by
# cost, highest first, when it has no timings of its own yet (a fresh clone, as in CI):
# started last, one of them would finish minutes after every other test.
set(STRATA_SLOW_SUITES Resume CutMix ConcurrentPredict BadFiles CpuPaths/Winograd AugMix RandomElasticTransform
    ExecutionState)

function(strata_ctest_add_gtest_suites target executable per_process labels environment environment_modification)
  if(NOT EXISTS "${executable}")
    add_test("${target}_NOT_BUILT" "${target}_NOT_BUILT")
    return()
  endif()
  execute_process(COMMAND "${executable}" --gtest_list_tests OUTPUT_VARIABLE listing RESULT_VARIABLE status
                  TIMEOUT 60)
  if(NOT status EQUAL 0)
    add_test("${target}_LISTING_FAILED" "${target}_LISTING_FAILED")
    return()
  endif()
  string(REPLACE ";" "\\;" listing "${listing}")
  string(REPLACE "\n" ";" lines "${listing}")
  set(suites "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^([^ #][^ ]*)\\.")  # "Suite." or "Prefix/Suite/0.  # TypeParam = ..."
      set(suite "${CMAKE_MATCH_1}")
      list(APPEND suites "${suite}")
      set(count_${suite} 0)
    elseif(line MATCHES "^  [^ ]" AND NOT line MATCHES "^  DISABLED_" AND DEFINED suite)
      math(EXPR count_${suite} "${count_${suite}} + 1")
    endif()
  endforeach()
  foreach(suite IN LISTS suites)
    if(count_${suite} EQUAL 0 OR suite MATCHES "^DISABLED_")
      continue()
    endif()
    math(EXPR shards "(${count_${suite}} + ${per_process} - 1) / ${per_process}")
    foreach(shard RANGE 1 ${shards})
      set(name "${target}.${suite}")
      set(shard_environment ${environment})
      if(shards GREATER 1)
        string(APPEND name " [${shard}/${shards}]")
        math(EXPR index "${shard} - 1")
        list(APPEND shard_environment "GTEST_TOTAL_SHARDS=${shards}" "GTEST_SHARD_INDEX=${index}")
      endif()
      add_test("${name}" "${executable}" "--gtest_filter=${suite}.*")
      # tests/test_main.cc prints the marker when every test the process ran skipped.
      set_tests_properties("${name}" PROPERTIES LABELS "${labels}" ENVIRONMENT "${shard_environment}"
                           SKIP_REGULAR_EXPRESSION "\\[ STRATA: ALL SKIPPED \\]")
      if(environment_modification)
        set_tests_properties("${name}" PROPERTIES ENVIRONMENT_MODIFICATION "${environment_modification}")
      endif()
      list(FIND STRATA_SLOW_SUITES "${suite}" slow)
      if(slow GREATER -1)
        list(LENGTH STRATA_SLOW_SUITES slow_count)
        math(EXPR cost "1000 * (${slow_count} - ${slow})")
        set_tests_properties("${name}" PROPERTIES COST ${cost})
      endif()
    endforeach()
  endforeach()
endfunction()
