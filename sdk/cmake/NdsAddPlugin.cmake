# nds_add_plugin(<name> SOURCES <files>... [LIBS <targets>...] [OUTPUT_DIRECTORY <dir>])
#
# Builds an ndsearch plugin: a MODULE library <name>.so that exports exactly one
# symbol, nds_get_module (hidden visibility + a version script), and that links
# completely (-z defs), so a missing symbol fails the build instead of the load.
# Works in ndsearch's own tree and, after find_package(ndsearch), in a vendor's.
function(nds_add_plugin name)
  # The version script lies beside this file, in the tree and once installed.
  set(version_script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/nds_plugin.map")
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY" "SOURCES;LIBS" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "nds_add_plugin(${name}): give the plugin's SOURCES")
  endif()
  add_library(${name} MODULE ${ARG_SOURCES})
  if(TARGET ndsearch::sdk)
    target_link_libraries(${name} PRIVATE ndsearch::sdk)
  endif()
  target_link_libraries(${name} PRIVATE ${ARG_LIBS})
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS "${version_script}")
  if(NOT DEFINED CMAKE_CXX_STANDARD)
    set_target_properties(${name} PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
  endif()
  target_link_options(${name} PRIVATE
    "LINKER:--version-script=${version_script}" "LINKER:-z,defs")
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}")
  endif()
endfunction()
