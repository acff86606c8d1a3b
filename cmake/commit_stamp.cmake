# The commit results are stamped with, read from the source tree: the first line of .commit at its
# root where there is one (a copy of the tree whose .git is missing or lags behind carries one:
# git rev-parse --short=12 HEAD > .commit), else `git rev-parse --short=12 HEAD` where the tree has
# its .git, else "unknown".
#
# Run as a script at every build,
#   cmake -DSOURCE_DIR=<tree> -DOUTPUT=<header> -P commit_stamp.cmake
# it writes OUTPUT, a header defining WARPFOLD_GIT_COMMIT, only when the commit differs from the
# one already there: an unchanged commit then rebuilds nothing.

function(warpfold_read_commit out_var source_dir)
  set(commit "")
  # .commit first: it is written (git rev-parse --short=12 HEAD > .commit) only for a copy of the
  # tree whose .git is missing or lags behind (git ignores it), where git would name the wrong
  # commit.
  if(EXISTS ${source_dir}/.commit)
    file(STRINGS ${source_dir}/.commit commit LIMIT_COUNT 1)
    string(STRIP "${commit}" commit)
  endif()
  # Asked only where the tree has its own .git: git would otherwise answer for an enclosing repository.
  if(NOT commit AND EXISTS ${source_dir}/.git)
    execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${source_dir}
                    OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endif()
  # The value lands in a C string literal: anything but a plain commit name is not trusted.
  if(NOT commit MATCHES "^[0-9A-Za-z._-]+$")
    set(commit "unknown")
  endif()
  set(${out_var} "${commit}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND OUTPUT)
  warpfold_read_commit(commit ${SOURCE_DIR})
  set(text "// Generated at build time by cmake/commit_stamp.cmake: the commit results are stamped with.\n#pragma once\n#define WARPFOLD_GIT_COMMIT \"${commit}\"\n")
  set(old "")
  if(EXISTS ${OUTPUT})
    file(READ ${OUTPUT} old)
  endif()
  if(NOT old STREQUAL text)
    file(WRITE ${OUTPUT} "${text}")
  endif()
endif()
