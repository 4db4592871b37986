# Dumps the ABI probe library with abidw and compares it with the committed
# baselines (abi/baseline/nds_abi-<major>.<minor>.abi) with abidiff: the
# newest must match exactly; older ones may differ by fields appended at the
# end of a struct only (abi/nds.abignore). A difference fails: an ABI change
# comes with a new minor and a new baseline (abi/conventions.md).
execute_process(COMMAND ${ABIDW} --no-corpus-path --headers-dir ${HEADERS} --out-file ${OUTPUT} ${PROBE}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "abidw failed (${rc}): ${err}")
endif()
file(GLOB baselines ${BASELINE_DIR}/nds_abi-*.abi)
list(SORT baselines COMPARE NATURAL)
if(NOT baselines)
  message(FATAL_ERROR "no baseline in ${BASELINE_DIR}; write one with: abidw --no-corpus-path "
                      "--headers-dir abi/include --out-file abi/baseline/nds_abi-1.0.abi "
                      "build/abi/libnds_abi_probe.so")
endif()
list(POP_BACK baselines newest)

# The newest baseline must match exactly: no suppressions. (libabigail 2.2's
# has_data_member_inserted_at suppression also hides a retyped field, so it
# cannot be the only gate.)
execute_process(COMMAND ${ABIDIFF} --headers-dir2 ${HEADERS} ${newest} ${OUTPUT}
                OUTPUT_VARIABLE report RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the ABI differs from ${newest} (abidiff exit ${rc}):\n${report}\n"
                      "Within a major only appending fields at the end of a struct is allowed, "
                      "and it needs a new minor: see abi/conventions.md, 'Releasing a minor'.")
endif()
# Every older baseline may differ by appended fields only.
foreach(older IN LISTS baselines)
  execute_process(COMMAND ${ABIDIFF} --suppressions ${SUPPRESSIONS} --headers-dir2 ${HEADERS}
                          ${older} ${OUTPUT}
                  OUTPUT_VARIABLE report RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the ABI breaks ${older} (abidiff exit ${rc}):\n${report}")
  endif()
endforeach()
message(STATUS "ABI matches ${newest}")
