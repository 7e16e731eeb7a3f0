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
# exist (libcudart.so.13, libcupti.so.13), which find_library does not look for.
function(kprof_use_wheel_toolkit dir)
  set(CUDAToolkit_ROOT "${dir}" PARENT_SCOPE)
  set(CMAKE_CUDA_COMPILER "${dir}/bin/nvcc" PARENT_SCOPE)
  set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -L${dir}/lib" PARENT_SCOPE)
  set(CUDA_CUDART "${dir}/lib/libcudart.so.13" CACHE FILEPATH "")
  set(CUDA_cudart_static_LIBRARY "${dir}/lib/libcudart_static.a" CACHE FILEPATH "")
  set(CUDA_cupti_LIBRARY "${dir}/lib/libcupti.so.13" CACHE FILEPATH "")
endfunction()

set(KPROF_CUDA_FROM_WHEELS OFF)
if(NOT KPROF_CUDA STREQUAL "OFF")
  if(NOT KPROF_CUDA_FROM STREQUAL "WHEELS")
    if(NOT DEFINED CUDAToolkit_ROOT AND EXISTS /usr/local/cuda)
      set(CUDAToolkit_ROOT /usr/local/cuda)
    endif()
    if(NOT CMAKE_CUDA_COMPILER AND EXISTS "${CUDAToolkit_ROOT}/bin/nvcc")
      set(CMAKE_CUDA_COMPILER "${CUDAToolkit_ROOT}/bin/nvcc")
    endif()
    if(NOT CMAKE_CUDA_COMPILER)
      find_program(_kprof_nvcc nvcc)
      if(_kprof_nvcc)
        set(CMAKE_CUDA_COMPILER "${_kprof_nvcc}")
      endif()
    endif()
  endif()
  if(NOT CMAKE_CUDA_COMPILER AND NOT KPROF_CUDA_FROM STREQUAL "TOOLKIT")
    kprof_find_wheel_toolkit(_kprof_wheels _kprof_python)
    if(_kprof_wheels)
      kprof_use_wheel_toolkit("${_kprof_wheels}")
      set(KPROF_CUDA_FROM_WHEELS ON)
      message(STATUS "kprof: CUDA from NVIDIA's wheels in ${_kprof_wheels}")
    elseif(KPROF_CUDA_FROM STREQUAL "WHEELS")
      message(FATAL_ERROR "KPROF_CUDA_FROM=WHEELS but the Python environment (${_kprof_python}) "
                          "has no NVIDIA CUDA wheels: python3 -m pip install nvidia-cuda-nvcc "
                          "nvidia-cuda-cccl nvidia-cuda-cupti nvidia-nvtx")
    endif()
  endif()
endif()

set(KPROF_HAS_CUDA OFF)
if(NOT KPROF_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Turing and later, as Nsight Compute; the PTX of the newest lets newer GPUs run the
    # demo kernels too.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 75-real 80-real 86-real 89-real 90-real 100-real 120)
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    if(TARGET CUDA::cupti)
      set(KPROF_HAS_CUDA ON)
    endif()
  endif()
  # Without the GPU backend every profile raises NoGpuError: built only when asked for.
  if(NOT KPROF_HAS_CUDA)
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
    file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cuda/*.cpp
                                     ${PROJECT_SOURCE_DIR}/src/cuda/*.cu)
    target_sources(${target} PRIVATE ${srcs})
    target_compile_definitions(${target} PRIVATE KPROF_HAS_CUDA=1)
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
