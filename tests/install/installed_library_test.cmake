# remat as a C++ library, end to end: install the build into a scratch prefix, build
# examples/partition_joint against it (find_package(remat), remat::remat) as an outside project
# would, and run it. Arguments: BUILD_DIR, SOURCE_DIR, SCRATCH, CXX, LAUNCHER, SAMPLE.
cmake_minimum_required(VERSION 3.25)
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

function(expect_in text needle)
  string(FIND "${text}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected \"${needle}\" in:\n${text}")
  endif()
endfunction()

file(REMOVE_RECURSE ${SCRATCH})
set(prefix ${SCRATCH}/prefix)
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(installed include/remat/partition/min_cut_partition.h include/remat/ir/graph.h lib/cmake/remat/rematConfig.cmake
                  lib/cmake/remat/rematConfigVersion.cmake lib/cmake/remat/rematTargets.cmake)
  if(NOT EXISTS ${prefix}/${installed})
    message(FATAL_ERROR "the install has no ${installed}")
  endif()
endforeach()
if(EXISTS ${prefix}/include/remat/cli)
  message(FATAL_ERROR "the command line's headers were installed")
endif()

set(launcher)
if(LAUNCHER)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
run("configuring the example" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/partition_joint -B ${SCRATCH}/build -G Ninja
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX} ${launcher} -DCMAKE_PREFIX_PATH=${prefix})
run("building the example" ${CMAKE_COMMAND} --build ${SCRATCH}/build)

# The traced GPT-2 (2 layers, each checkpointed), then a file: PyTorch 1.13's MLP joint graph,
# whose partition the partitioner tests pin (3 saved values, 7168 bytes).
run("the example on the traced GPT-2" ${SCRATCH}/build/partition_joint)
expect_in("${output}" "partition (min-cut): 29 saved values, 105984 bytes")
expect_in("${output}" "tagged PREFER_RECOMPUTE (checkpoint region 1)")
expect_in("${output}" "class GraphModule(torch.nn.Module):")
run("the example on a joint graph file" ${SCRATCH}/build/partition_joint ${SAMPLE})
expect_in("${output}" "partition (min-cut): 3 saved values, 7168 bytes")
