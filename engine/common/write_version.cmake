# Writes engine/common/version.h from version.h.in at every build (cmake -P), so that the
# git commit recorded in every output file is the one the binary was built from. Taken at
# configure time instead, it stayed at the commit of the first `cmake -S . -B build` after
# any later pull and rebuild. configure_file rewrites the header only when its content
# changes, so an unchanged tree recompiles nothing.
#
# Inputs (-D): SOURCE_DIR (the repository), INPUT (version.h.in), OUTPUT (version.h),
# PROJECT_VERSION. The commit is `git rev-parse --short HEAD`, with "-dirty" when tracked
# files differ from it (untracked files do not count), or "unknown" outside a git checkout.
execute_process(COMMAND git rev-parse --short HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE CSIM_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE rev_parse_failed ERROR_QUIET)
if(rev_parse_failed OR NOT CSIM_GIT_COMMIT)
  set(CSIM_GIT_COMMIT "unknown")
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no
                  WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE changes
                  RESULT_VARIABLE status_failed ERROR_QUIET)
  if(NOT status_failed AND NOT changes STREQUAL "")
    string(APPEND CSIM_GIT_COMMIT "-dirty")
  endif()
endif()
configure_file(${INPUT} ${OUTPUT} @ONLY)
