# Finds the CUDA toolkit (nvcc, cudart, CUPTI, NVTX) and attaches the GPU backend to a target.
#
# The library links the CUDA runtime statically and CUPTI dynamically, and never links
# libcuda: the runtime loads the driver when first used, so kprof loads and its GPU-free
# features work on a machine without a driver.

# KPROF_CUDA_FROM: where nvcc, the CUDA headers and CUPTI come from. AUTO takes a CUDA toolkit
# (CUDAToolkit_ROOT, /usr/local/cuda, nvcc on the PATH), else NVIDIA's wheels in the Python
# environment (pyproject.toml's build requirements on Linux); TOOLKIT and WHEELS take only that.
set(KPROF_CUDA_FROM AUTO CACHE STRING "Where the CUDA build tools come from: AUTO, TOOLKIT or WHEELS")
set_property(CACHE KPROF_CUDA_FROM PROPERTY STRINGS AUTO TOOLKIT WHEELS)

# The directory of NVIDIA's CUDA 13 wheels (nvidia-cuda-nvcc, -nvvm, -crt, -runtime, -cccl,
# -cupti, nvidia-nvtx), which install a toolkit's layout under site-packages/nvidia/cu13; ""
# when the Python that CMake finds (named in `python`) has none.
function(kprof_find_wheel_toolkit out python)
  set(${out} "" PARENT_SCOPE)
  find_package(Python COMPONENTS Interpreter QUIET)
  set(${python} "${Python_EXECUTABLE}" PARENT_SCOPE)
  if(NOT Python_EXECUTABLE)
    return()
  endif()
  execute_process(
    COMMAND "${Python_EXECUTABLE}" -c
            "import importlib.util as u, os\ntry:\n  s = u.find_spec('nvidia.cu13')\nexcept ImportError:\n  s = None\nfor p in (s.submodule_search_locations or []) if s else []:\n  if os.path.exists(os.path.join(p, 'bin', 'nvcc')): print(p); break"
    OUTPUT_VARIABLE dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  set(${out} "${dir}" PARENT_SCOPE)
endfunction()

# Points FindCUDAToolkit at the wheels' toolkit. Their layout differs from a toolkit's in two
# ways: libraries are in lib/, where nvcc.profile links from lib64/, and only versioned sonames
# exist (libcudart.so.13, libcupti.so.13), which find_library does not look for. The hints are
# forced: a rebuild in the same folder (pip's build environment is a new temporary one each
# time) must not keep the paths of the last one.
function(kprof_use_wheel_toolkit dir)
  foreach(part lib/libcupti.so.13 lib/libcudart_static.a include/cupti.h include/cuda_runtime.h)
    if(NOT EXISTS "${dir}/${part}")
      message(FATAL_ERROR "kprof: NVIDIA's CUDA wheels in ${dir} lack ${part}: python3 -m pip "
                          "install nvidia-cuda-runtime nvidia-cuda-cupti nvidia-cuda-cccl "
                          "nvidia-cuda-crt nvidia-nvvm (13.0)")
    endif()
  endforeach()
  if(DEFINED _KPROF_WHEEL_TOOLKIT AND NOT _KPROF_WHEEL_TOOLKIT STREQUAL dir)
    kprof_forget_wheel_toolkit()
  endif()
  set(CUDAToolkit_ROOT "${dir}" PARENT_SCOPE)
  set(CMAKE_CUDA_COMPILER "${dir}/bin/nvcc" CACHE FILEPATH "CUDA compiler" FORCE)
  kprof_forget_other_cuda_compiler("${dir}/bin/nvcc")
  set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -L${dir}/lib" PARENT_SCOPE)
  set(CUDA_CUDART "${dir}/lib/libcudart.so.13" CACHE FILEPATH "" FORCE)
  set(CUDA_cudart_static_LIBRARY "${dir}/lib/libcudart_static.a" CACHE FILEPATH "" FORCE)
  set(CUDA_cupti_LIBRARY "${dir}/lib/libcupti.so.13" CACHE FILEPATH "" FORCE)
  set(_KPROF_WHEEL_TOOLKIT "${dir}" CACHE INTERNAL "the wheels' toolkit the cache points into")
endfunction()

# Forgets every cache entry that points into the wheels' toolkit an earlier configure of this
# folder used (FindCUDAToolkit caches the compiler, include folders and each library).
function(kprof_forget_wheel_toolkit)
  get_cmake_property(names CACHE_VARIABLES)
  foreach(name IN LISTS names)
    string(FIND "$CACHE{${name}}" "${_KPROF_WHEEL_TOOLKIT}/" at)
    if(at EQUAL 0 OR "$CACHE{${name}}" STREQUAL _KPROF_WHEEL_TOOLKIT)
      unset(${name} CACHE)
    endif()
  endforeach()
  unset(_KPROF_WHEEL_TOOLKIT CACHE)
endfunction()

# A build folder configured before with another nvcc (pip builds in a new temporary environment
# each time) determines the compiler again: CMake would keep the old one's record, or delete
# the cache (and the build's -D options with it) when it notices the change.
function(kprof_forget_other_cuda_compiler nvcc)
  set(record "${CMAKE_BINARY_DIR}/CMakeFiles/${CMAKE_VERSION}/CMakeCUDACompiler.cmake")
  if(EXISTS "${record}")
    file(STRINGS "${record}" line REGEX "^set\\(CMAKE_CUDA_COMPILER \"" LIMIT_COUNT 1)
    if(NOT line STREQUAL "set(CMAKE_CUDA_COMPILER \"${nvcc}\")")
      file(REMOVE "${record}")
    endif()
  endif()
endfunction()

# A toolkit root whose nvcc and CUPTI with its range profiler (CUDA 12.6 or later) are there; ""
# otherwise: an older toolkit leaves AUTO to the wheels. With KPROF_CUDA_FROM=TOOLKIT any nvcc
# will do, so that kprof_require_range_profiler says what the toolkit lacks.
function(kprof_usable_toolkit out root)
  set(${out} "" PARENT_SCOPE)
  if(NOT root OR NOT EXISTS "${root}/bin/nvcc")
    return()
  endif()
  if(KPROF_CUDA_FROM STREQUAL "TOOLKIT" OR EXISTS "${root}/include/cupti_range_profiler.h"
     OR EXISTS "${root}/extras/CUPTI/include/cupti_range_profiler.h")
    set(${out} "${root}" PARENT_SCOPE)
  endif()
endfunction()

# Counters use CUPTI's range profiler and profiler host APIs, which came with CUDA 12.6: an
# older toolkit fails here, not halfway through the build.
function(kprof_require_range_profiler)
  foreach(dir IN LISTS CUDAToolkit_CUPTI_INCLUDE_DIR CUDAToolkit_INCLUDE_DIRS)
    if(EXISTS "${dir}/cupti_range_profiler.h")
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "kprof needs CUDA 12.6 or later (CUPTI's range profiler API); the CUDA "
                      "${CUDAToolkit_VERSION} at ${CUDAToolkit_BIN_DIR} has none. Set "
                      "CUDAToolkit_ROOT to a newer toolkit, or build from NVIDIA's wheels "
                      "(KPROF_CUDA_FROM=WHEELS)")
endfunction()

if(NOT KPROF_CUDA_FROM MATCHES "^(AUTO|TOOLKIT|WHEELS)$")
  message(FATAL_ERROR "KPROF_CUDA_FROM=${KPROF_CUDA_FROM} is not valid; valid: AUTO, TOOLKIT or "
                      "WHEELS")
endif()

# What an earlier configure of this folder found in a build environment that is gone (pip's
# temporary one), or in the wheels when a toolkit is now asked for, is looked for again.
if(DEFINED _KPROF_WHEEL_TOOLKIT
   AND (NOT EXISTS "${_KPROF_WHEEL_TOOLKIT}/bin/nvcc" OR KPROF_CUDA_FROM STREQUAL "TOOLKIT"))
  kprof_forget_wheel_toolkit()
endif()

set(KPROF_CUDA_FROM_WHEELS OFF)
if(KPROF_CUDA)
  set(_kprof_toolkit "")
  set(_kprof_wheels "")
  if(CMAKE_CUDA_COMPILER MATCHES "/nvidia/cu[0-9]+/bin/nvcc$")
    # An nvcc of the wheels, named by the user or by an earlier configure: the wheels' layout.
    get_filename_component(_kprof_wheels "${CMAKE_CUDA_COMPILER}" DIRECTORY)
    get_filename_component(_kprof_wheels "${_kprof_wheels}" DIRECTORY)
  elseif(CMAKE_CUDA_COMPILER)
    set(_kprof_toolkit "given")  # the user's compiler and CUDAToolkit_ROOT, as they are
  elseif(NOT KPROF_CUDA_FROM STREQUAL "WHEELS")
    find_program(_kprof_nvcc nvcc)
    if(_kprof_nvcc)
      get_filename_component(_kprof_path_root "${_kprof_nvcc}" DIRECTORY)
      get_filename_component(_kprof_path_root "${_kprof_path_root}" DIRECTORY)
    endif()
    # A toolkit counts only with CUPTI: a CUDA without it builds no backend, the wheels do.
    kprof_usable_toolkit(_kprof_toolkit "${CUDAToolkit_ROOT}")
    if(CUDAToolkit_ROOT AND NOT _kprof_toolkit)
      message(WARNING "kprof: CUDAToolkit_ROOT=${CUDAToolkit_ROOT} has no nvcc with CUPTI's range "
                      "profiler (CUDA 12.6 or later): looking elsewhere")
    endif()
    foreach(root IN ITEMS "${CUDAToolkit_ROOT}" /usr/local/cuda "${_kprof_path_root}")
      kprof_usable_toolkit(_kprof_toolkit "${root}")
      if(_kprof_toolkit)
        set(CUDAToolkit_ROOT "${_kprof_toolkit}")
        set(CMAKE_CUDA_COMPILER "${_kprof_toolkit}/bin/nvcc")
        kprof_forget_other_cuda_compiler("${CMAKE_CUDA_COMPILER}")
        break()
      endif()
    endforeach()
  endif()
  if(NOT _kprof_toolkit AND NOT _kprof_wheels AND NOT KPROF_CUDA_FROM STREQUAL "TOOLKIT")
    kprof_find_wheel_toolkit(_kprof_wheels _kprof_python)
    if(NOT _kprof_wheels AND KPROF_CUDA_FROM STREQUAL "WHEELS")
      message(FATAL_ERROR "KPROF_CUDA_FROM=WHEELS but the Python environment (${_kprof_python}) "
                          "has no NVIDIA CUDA wheels: python3 -m pip install nvidia-cuda-nvcc "
                          "nvidia-cuda-cccl nvidia-cuda-cupti nvidia-nvtx")
    endif()
  endif()
  if(_kprof_wheels)
    kprof_use_wheel_toolkit("${_kprof_wheels}")
    set(KPROF_CUDA_FROM_WHEELS ON)
    message(STATUS "kprof: CUDA from NVIDIA's wheels in ${_kprof_wheels}")
  endif()
endif()

set(KPROF_HAS_CUDA OFF)
if(KPROF_CUDA)
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Turing and later, as Nsight Compute, as far as this nvcc knows (Blackwell from CUDA
    # 12.8); the PTX of the newest lets newer GPUs run the demo kernels too.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --version
                      OUTPUT_VARIABLE _kprof_nvcc_version ERROR_QUIET)
      string(REGEX MATCH "release ([0-9]+\\.[0-9]+)" _kprof_nvcc_version "${_kprof_nvcc_version}")
      if(CMAKE_MATCH_1 VERSION_LESS 12.8)
        set(CMAKE_CUDA_ARCHITECTURES 75-real 80-real 86-real 89-real 90)
      else()
        set(CMAKE_CUDA_ARCHITECTURES 75-real 80-real 86-real 89-real 90-real 100-real 120)
      endif()
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    if(TARGET CUDA::cupti)
      set(KPROF_HAS_CUDA ON)
      kprof_require_range_profiler()
    endif()
  endif()
  # Without the GPU backend every profile raises NoGpuError: built only when asked for. A
  # compiler check_language found without CUPTI is not kept for the next configure.
  if(NOT KPROF_HAS_CUDA)
    unset(CMAKE_CUDA_COMPILER CACHE)
    message(FATAL_ERROR "kprof: no CUDA toolkit with CUPTI was found, nor NVIDIA's CUDA wheels in "
                        "the Python environment. Install one (python3 -m pip install "
                        "nvidia-cuda-nvcc nvidia-cuda-cccl nvidia-cuda-cupti nvidia-nvtx), set "
                        "CUDAToolkit_ROOT, or build without the GPU backend with -DKPROF_CUDA=OFF "
                        "(pip: --config-settings=cmake.define.KPROF_CUDA=OFF)")
  endif()
endif()
message(STATUS "kprof: GPU backend ${KPROF_HAS_CUDA}")

function(kprof_add_gpu_backend target)
  if(KPROF_HAS_CUDA)
    file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cuda/*/*.cpp
                                     ${PROJECT_SOURCE_DIR}/src/cuda/*/*.cu)
    target_sources(${target} PRIVATE ${srcs})
    target_compile_definitions(${target} PRIVATE KPROF_HAS_CUDA=1)
    # Line tables in kprof's own kernels (the demo's among them), so that set:source shows their
    # lines as it shows a user's -lineinfo build's; no cost in the code.
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
    target_link_libraries(${target} PRIVATE CUDA::cudart_static CUDA::cupti ${CMAKE_DL_LIBS})
    target_link_options(${target} PRIVATE "LINKER:--exclude-libs,ALL")
    if(TARGET CUDA::nvtx3)
      target_link_libraries(${target} PRIVATE CUDA::nvtx3)
    endif()
    # libcupti.so.13 is found through the toolkit unless the process already holds one
    # (PyTorch loads its own at import; the loader then reuses it: same soname).
    set_property(TARGET ${target} APPEND PROPERTY BUILD_RPATH "${CUDAToolkit_LIBRARY_DIR}")
    set_property(TARGET ${target} APPEND PROPERTY INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
  else()
    file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/nocuda/*.cpp)
    target_sources(${target} PRIVATE ${srcs})
  endif()
endfunction()
