# Installs kprof from the build tree into WORK_DIR/prefix, then configures, builds and runs the
# consumer project against it.
include("${CMAKE_CURRENT_LIST_DIR}/../install_and_build.cmake")
file(REMOVE_RECURSE "${WORK_DIR}")
kprof_install_into("${WORK_DIR}/prefix")
kprof_build_against("${SOURCE_DIR}/tests/consumer" "${WORK_DIR}/build" "${WORK_DIR}/prefix")
kprof_run("${WORK_DIR}/build/consumer")
