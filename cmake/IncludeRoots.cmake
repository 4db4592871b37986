# Per-layer include roots (issue 12). No target sees the repository root:
# headers keep their repository spellings ("core/model/model.hpp",
# "hosts/cli/eval_verb.hpp", ...), but each spelling resolves only through a
# root a target states it uses, so a layering slip (the core including a CLI
# header, a plugin including a core header) fails to compile.
#
# nds_include_root(<root> <part>) makes the folder
# ${PROJECT_BINARY_DIR}/include-roots/<root>/ holding one symbolic link,
# <part> -> ${PROJECT_SOURCE_DIR}/<part>, and an INTERFACE target
# nds_root_<root> whose include directory is that folder. Links rather than
# one folder per part in the source tree: the spellings stay as they are, no
# source moves, and each root shows exactly one part of the repository.
set(NDS_INCLUDE_ROOTS_DIR ${PROJECT_BINARY_DIR}/include-roots)

function(nds_include_root root part)
  set(folder ${NDS_INCLUDE_ROOTS_DIR}/${root})
  if(NOT IS_DIRECTORY ${PROJECT_SOURCE_DIR}/${part})
    message(FATAL_ERROR "nds_include_root(${root}): ${PROJECT_SOURCE_DIR}/${part} is not a folder")
  endif()
  # Anew at each configure, so a root never keeps a link it no longer names.
  file(REMOVE_RECURSE ${folder})
  get_filename_component(parent ${folder}/${part} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${part} ${folder}/${part} SYMBOLIC)
  add_library(nds_root_${root} INTERFACE)
  target_include_directories(nds_root_${root} INTERFACE $<BUILD_INTERFACE:${folder}>)
  set(NDS_INCLUDE_ROOT_${root} ${folder} PARENT_SCOPE)
endfunction()

# The roots of the layers; each target links the ones it includes from.
nds_include_root(core core)                    # the core's internals (core/...)
nds_include_root(cli hosts/cli)                # the CLI's headers
nds_include_root(python hosts/python)          # the Python binding's headers
nds_include_root(plugins-common plugins/common) # code the shipped plugins share
nds_include_root(plugins-cp-common plugins/cp/_common) # what the CP plugins share
nds_include_root(tests tests)                  # the tests' support headers
nds_include_root(fuzz fuzz/support)            # the fuzz harnesses' support
