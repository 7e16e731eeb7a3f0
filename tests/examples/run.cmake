# Installs kprof from the build tree into WORK_DIR/prefix, then configures and builds every
# project under examples/cpp against it, as a user would; with RUN=ON (on a GPU) also runs
# each example and fails when one exits non-zero.
include("${CMAKE_CURRENT_LIST_DIR}/../install_and_build.cmake")
file(REMOVE_RECURSE "${WORK_DIR}")
kprof_install_into("${WORK_DIR}/prefix")
file(GLOB examples LIST_DIRECTORIES true "${SOURCE_DIR}/examples/cpp/*")
foreach(example IN LISTS examples)
  if(EXISTS "${example}/CMakeLists.txt")
    get_filename_component(name "${example}" NAME)
    kprof_build_against("${example}" "${WORK_DIR}/${name}" "${WORK_DIR}/prefix")
    if(RUN)
      message(STATUS "--- ${name}")
      kprof_run("${WORK_DIR}/${name}/${name}")
    endif()
  endif()
endforeach()
