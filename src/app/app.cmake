# SPDX-License-Identifier: MIT
# The app layer (src/app): the `boids` and boids-mpi programs and the libraries that the
# programs, bench and tests share. Included from the top level after the core and GPU
# targets.
#
# Each folder of src/app is one part and one static library, boids_app_FOLDER, made of the
# folder's .c files: a file's library is its folder, so moving a file moves it. A folder's
# main.c, if it has one, is a program instead (commands/main.c is `boids`, mpi/main.c is
# boids-mpi). A header is included with its folder ("sweep/sweep.h"), from src/app.
#
# What a part may use is the rule line of its README.md, beside the prose "May use:", e.g.
#   Uses: cli output src/core src/core/npy_format.h
# one line, words separated by spaces:
#   NAME            a part of src/app (src/app/NAME): linked, its headers included
#   src/NAME        a library beside src/app (target boids_NAME): linked, its functions called
#   src/NAME/FILE.h an internal header of such a library: included (with the library linked)
# The library's link line is read from that line (boids_app_part), so that the README and the
# build cannot disagree; tests/layering_test.py checks the sources against the same lines.
set(BOIDS_APP ${PROJECT_SOURCE_DIR}/src/app)

# The words of the rule line of folder (src/app/NAME or src/NAME) into out.
function(boids_part_rules folder out)
  set(readme ${PROJECT_SOURCE_DIR}/${folder}/README.md)
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${readme})
  file(STRINGS ${readme} lines REGEX "^Uses:")
  list(LENGTH lines n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "${folder}/README.md: needs exactly one rule line \"Uses: ...\"")
  endif()
  string(REGEX REPLACE "^Uses:[ \t]*" "" words "${lines}")
  separate_arguments(words UNIX_COMMAND "${words}")
  set(${out} ${words} PARENT_SCOPE)
endfunction()

# boids_app_part(NAME [EXCLUDE file.c...] [SOURCES more...] [PACKAGES target...])
# The library boids_app_NAME of src/app/NAME: every .c file of the folder but main.c and
# those excluded, linked as its rule line says, with the outside packages it needs.
function(boids_app_part name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "EXCLUDE;SOURCES;PACKAGES")
  set(dir ${BOIDS_APP}/${name})
  file(GLOB sources CONFIGURE_DEPENDS ${dir}/*.c)
  list(REMOVE_ITEM sources ${dir}/main.c)
  foreach(f IN LISTS arg_EXCLUDE)
    list(REMOVE_ITEM sources ${dir}/${f})
  endforeach()
  set(lib boids_app_${name})
  add_library(${lib} STATIC ${sources} ${arg_SOURCES})
  target_include_directories(${lib} PUBLIC ${BOIDS_APP})
  boids_part_rules(src/app/${name} words)
  foreach(w IN LISTS words)
    if(w MATCHES "^src/([a-z0-9_]+)/(.+\\.h)$")
      if(NOT EXISTS ${PROJECT_SOURCE_DIR}/${w})
        message(FATAL_ERROR "src/app/${name}/README.md: Uses: ${w}: no such header")
      endif()
      # Included as "../core/rules.h", or by name ("shaders.h") from the library's folder.
      target_include_directories(${lib} PUBLIC ${PROJECT_SOURCE_DIR}/src/${CMAKE_MATCH_1})
      target_link_libraries(${lib} PUBLIC boids_${CMAKE_MATCH_1})
      set_property(GLOBAL APPEND PROPERTY BOIDS_APP_LIBRARY_USES "${name}:${CMAKE_MATCH_1}")
    elseif(w MATCHES "^src/([a-z0-9_]+)$")
      if(NOT IS_DIRECTORY ${PROJECT_SOURCE_DIR}/${w})
        message(FATAL_ERROR "src/app/${name}/README.md: Uses: ${w}: no such library folder")
      endif()
      target_link_libraries(${lib} PUBLIC boids_${CMAKE_MATCH_1})
      set_property(GLOBAL APPEND PROPERTY BOIDS_APP_LIBRARY_USES "${name}:${CMAKE_MATCH_1}")
    elseif(w MATCHES "^[a-z0-9_]+$" AND EXISTS ${BOIDS_APP}/${w}/README.md)
      # A part that this build leaves out (the viewer's without BOIDS_BUILD_VIEWER, mpi without
      # MPI) is left off the link line; the files that need it are left out with it.
      target_link_libraries(${lib} PUBLIC $<TARGET_NAME_IF_EXISTS:boids_app_${w}>)
    else()
      message(FATAL_ERROR "src/app/${name}/README.md: Uses: '${w}' is neither a part of "
                          "src/app, src/NAME nor src/NAME/FILE.h")
    endif()
  endforeach()
  target_link_libraries(${lib} PUBLIC ${arg_PACKAGES})
  set_property(GLOBAL APPEND PROPERTY BOIDS_APP_PARTS ${name})
endfunction()

# Once every target is defined: a src/NAME of a rule line must be the target boids_NAME, not
# a name the linker would look for on its own.
function(boids_app_check_libraries)
  get_property(uses GLOBAL PROPERTY BOIDS_APP_LIBRARY_USES)
  foreach(use IN LISTS uses)
    string(REPLACE ":" ";" pair ${use})
    list(GET pair 0 part)
    list(GET pair 1 lib)
    if(NOT TARGET boids_${lib})
      message(FATAL_ERROR "src/app/${part}/README.md: Uses: src/${lib}: no target boids_${lib}")
    endif()
  endforeach()
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL boids_app_check_libraries)

# ---- the parts: built for the programs, the bench and the tests (which link them in-process).
# They set up every backend, the GPU's included, so they come with the GPU library.
if(BOIDS_BUILD_GPU AND (BOIDS_BUILD_PROGRAM OR BOIDS_BUILD_BENCH OR BOIDS_BUILD_TESTS))
  # The provenance sidecars and the trajectories (cJSON). The commit is read once, at
  # configure time: a build from a tarball says "unknown".
  set(BOIDS_GIT_COMMIT "unknown")
  if(EXISTS ${PROJECT_SOURCE_DIR}/.git)
    find_package(Git QUIET)
    if(GIT_FOUND)
      execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse HEAD
                      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                      OUTPUT_VARIABLE boids_commit OUTPUT_STRIP_TRAILING_WHITESPACE
                      RESULT_VARIABLE boids_commit_rc ERROR_QUIET)
      if(boids_commit_rc EQUAL 0 AND boids_commit)
        set(BOIDS_GIT_COMMIT ${boids_commit})
      endif()
    endif()
  endif()
  pkg_check_modules(CJSON REQUIRED IMPORTED_TARGET libcjson)

  boids_app_part(cli)
  boids_app_part(output PACKAGES PkgConfig::CJSON)
  target_compile_definitions(boids_app_output PRIVATE BOIDS_GIT_COMMIT="${BOIDS_GIT_COMMIT}")
  boids_app_part(observe PACKAGES PkgConfig::CJSON)
  boids_app_part(sweep)
  boids_app_part(verify)
  # `view` and `render` (and the replay set-up they share) are built with the viewer alone.
  set(BOIDS_VIEWER_COMMANDS cmd_view.c cmd_render.c replay.c)
  if(BOIDS_BUILD_VIEWER)
    include(${BOIDS_APP}/viewer/view.cmake)
    boids_app_part(commands PACKAGES PkgConfig::CJSON)
  else()
    boids_app_part(commands EXCLUDE ${BOIDS_VIEWER_COMMANDS} PACKAGES PkgConfig::CJSON)
  endif()
endif()

# ---- the programs ------------------------------------------------------------------------
if(BOIDS_BUILD_PROGRAM)
add_executable(boids ${BOIDS_APP}/commands/main.c)
target_link_libraries(boids PRIVATE boids_app_commands)
if(BOIDS_BUILD_VIEWER)
  target_compile_definitions(boids PRIVATE BOIDS_HAVE_VIEWER=1)
endif()

# ---- boids-mpi: one flock split over MPI ranks (sim) and a sweep's runs over them (sweep),
# built where the MPI backend is (src/mpi/mpi.cmake: when MPI, Debian's libopenmpi-dev, is found)
if(TARGET boids_mpi)
  boids_app_part(mpi PACKAGES MPI::MPI_C)
  add_executable(boids-mpi ${BOIDS_APP}/mpi/main.c)
  target_link_libraries(boids-mpi PRIVATE boids_app_mpi)
endif()
endif()
