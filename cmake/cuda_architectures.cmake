# The CUDA architectures a default build compiles for, unless CMAKE_CUDA_ARCHITECTURES (or the
# CUDAARCHS environment variable) says otherwise:
#   - the GPUs present at configure time (as nvidia-smi reports them), machine code only;
#   - without a GPU, a portable list: sm_80 machine code (A100; it also runs on sm_86 and sm_89:
#     RTX 30xx/40xx, L4, L40), sm_90 machine code (H100, H200) and compute_90 PTX, which the
#     driver compiles for newer GPUs.
# nvcc 13 compiles sm_75 and newer; older GPUs found here are left out with a warning.
function(ssum_default_cuda_architectures)
  if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
    return()
  endif()
  set(found "")
  find_program(SSUM_NVIDIA_SMI nvidia-smi)
  if(SSUM_NVIDIA_SMI)
    execute_process(COMMAND "${SSUM_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 30)
    if(rc EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" caps "${caps}")
      foreach(cap IN LISTS caps)
        string(REPLACE "." "" arch "${cap}")
        if(arch LESS 75)
          message(WARNING "ssum: the GPU of compute capability ${cap} is older than nvcc 13 supports; not built for")
        else()
          list(APPEND found "${arch}-real")
        endif()
      endforeach()
      list(REMOVE_DUPLICATES found)
    endif()
  endif()
  if(found)
    set(why "the GPUs present")
  else()
    set(found "80-real;90-real;90-virtual")
    set(why "no GPU found: portable list")
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${found}" CACHE STRING "CUDA architectures (default: ${why})")
  message(STATUS "ssum: CUDA architectures ${found} (${why})")
endfunction()
