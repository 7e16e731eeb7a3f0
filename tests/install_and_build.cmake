# Script-mode helpers for the tests that use kprof as a user would: install it from the build
# tree, then configure and build a project against the install.

# Installs the build tree BUILD_DIR into `prefix`.
function(kprof_install_into prefix)
  execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}"
                  RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "install failed: ${rc}")
  endif()
endfunction()

# Configures and builds the project in `source` into `build` against the kprof in `prefix`.
function(kprof_build_against source build prefix)
  get_filename_component(name "${source}" NAME)
  execute_process(COMMAND ${CMAKE_COMMAND} -S "${source}" -B "${build}" -G "${GENERATOR}"
                          "-DCMAKE_PREFIX_PATH=${prefix}" RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "${name}: configure failed: ${rc}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build "${build}" RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "${name}: build failed: ${rc}")
  endif()
endfunction()

# Runs `program`; fails when it exits non-zero.
function(kprof_run program)
  execute_process(COMMAND "${program}" RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "${program} exited with ${rc}")
  endif()
endfunction()
