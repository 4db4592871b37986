# Dumps the ABI probe library with abidw and compares it with the committed
# baselines (abi/baseline/nds_abi-<major>.<minor>.abi) with abidiff:
#  - the newest must match exactly (no suppressions);
#  - against every older one the dump must be a pure append: abidiff with the
#    suppressions of abi/nds.abignore passes, and abidiff's full report shows
#    nothing but fields inserted at the end of a struct (no retyped, moved,
#    renamed or removed field: libabigail 2.2's has_data_member_inserted_at
#    suppression would also hide a retyped one).
# A difference fails: an ABI change comes with a new minor and a new baseline
# (abi/conventions.md, "Releasing a minor").
# EXACT=OFF skips the first comparison (the test that the append-only rule
# catches a retyped field uses it).
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
if(NOT DEFINED EXACT OR EXACT)
  execute_process(COMMAND ${ABIDIFF} --headers-dir2 ${HEADERS} ${newest} ${OUTPUT}
                  OUTPUT_VARIABLE report RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the ABI differs from ${newest} (abidiff exit ${rc}):\n${report}\n"
                        "Within a major only appending fields at the end of a struct is allowed, "
                        "and it needs a new minor: see abi/conventions.md, 'Releasing a minor'.")
  endif()
else()
  list(APPEND baselines ${newest})
endif()

# Reads abidiff's full report of `older` against the dump line by line and
# fails on anything but the shape of an append: structs that grow, fields
# inserted at or after the old size, pointers whose pointee changed that way,
# functions added (a probe for a new struct).
function(check_append_only older report)
  string(REPLACE ";" "<semicolon>" report "${report}")
  string(REPLACE "\n" ";" lines "${report}")
  set(old_size_bits "")
  set(expect_pointee OFF)
  foreach(line IN LISTS lines)
    string(STRIP "${line}" line)
    set(bad "")
    if(expect_pointee AND NOT line MATCHES "^in pointed to type ")
      set(bad "a field's type changed (retyped)")
    elseif(line STREQUAL "" OR line MATCHES "reported earlier"
           OR line MATCHES "^(in pointed to type|in unqualified underlying type|parameter [0-9]+ of type) "
           OR line MATCHES "^underlying type 'struct [a-z0-9_]+' at .* changed:$"
           OR line MATCHES "^[0-9]+ data member (change|changes)( \\([0-9]+ filtered\\))?:$"
           OR line MATCHES "^[0-9]+ data member insertions?:$"
           OR line MATCHES "^[0-9]+ functions? with some indirect sub-type changes?:$"
           OR line MATCHES "^\\[C\\] 'function .* has some indirect sub-type changes:$"
           OR line MATCHES "^\\[A\\] 'function "
           OR line MATCHES "^[0-9]+ Added functions?:$"
           OR line MATCHES "^Variables changes summary: 0 Removed, 0 Changed"
           OR line MATCHES "^Functions changes summary: 0 Removed,")
      # the shape of an append
    elseif(line MATCHES "^type of '.*' changed:$")
      set(expect_pointee ON)
      continue()
    elseif(line STREQUAL "type size hasn't changed")
      set(old_size_bits "unchanged")
    elseif(line MATCHES "^type size changed from ([0-9]+) to ([0-9]+) \\(in bits\\)$")
      if(CMAKE_MATCH_2 LESS CMAKE_MATCH_1)
        set(bad "a struct shrank")
      endif()
      set(old_size_bits ${CMAKE_MATCH_1})
    elseif(line MATCHES "^'.*', at offset ([0-9]+) \\(in bits\\)")
      if(old_size_bits STREQUAL "unchanged" OR old_size_bits STREQUAL ""
         OR CMAKE_MATCH_1 LESS old_size_bits)
        set(bad "a field was inserted before the struct's old end")
      endif()
    else()
      set(bad "not an append")
    endif()
    set(expect_pointee OFF)
    if(bad)
      string(REPLACE "<semicolon>" ";" report "${report}")
      message(FATAL_ERROR "the ABI is not a pure append to ${older}: ${bad}, at\n  ${line}\n"
                          "abidiff's report:\n${report}\n"
                          "Within a major a field may only be appended at the end of its struct "
                          "(abi/conventions.md).")
    endif()
  endforeach()
endfunction()

# Every older baseline: a pure append. The suppressed comparison leaves out
# added functions (--no-added-syms): a minor that adds a public struct adds its
# probe, which abidiff counts as a change (exit 4); the full report below still
# shows them and check_append_only accepts nothing else of the kind.
foreach(older IN LISTS baselines)
  execute_process(COMMAND ${ABIDIFF} --no-added-syms --suppressions ${SUPPRESSIONS}
                          --headers-dir2 ${HEADERS} ${older} ${OUTPUT}
                  OUTPUT_VARIABLE report RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the ABI breaks ${older} (abidiff exit ${rc}):\n${report}")
  endif()
  execute_process(COMMAND ${ABIDIFF} --headers-dir2 ${HEADERS} ${older} ${OUTPUT}
                  OUTPUT_VARIABLE report RESULT_VARIABLE rc)
  if(NOT (rc EQUAL 0 OR rc EQUAL 4))  # 4: changed, not incompatible; 1, 2: abidiff failed
    message(FATAL_ERROR "the ABI breaks ${older} (abidiff exit ${rc}):\n${report}")
  endif()
  check_append_only(${older} "${report}")
  message(STATUS "ABI is a pure append to ${older}")
endforeach()
if(NOT DEFINED EXACT OR EXACT)
  message(STATUS "ABI matches ${newest}")
endif()
