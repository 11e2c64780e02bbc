# remat as a C++ library: `cmake --install` puts the layer libraries, their headers and
# rematConfig.cmake under the prefix, so an outside project can write
#   find_package(remat REQUIRED)
#   target_link_libraries(app PRIVATE remat::remat)
# (examples/partition_joint is such a project; tests/CMakeLists.txt builds it against an
# installed tree). Each layer is also a target of its own: remat::ir, remat::partition, ...
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(REMAT_LAYERS support fxtext records ir ops passes trace models autodiff partition print io tracelog report driver)
if(REMAT_WITH_TORCH)
  list(APPEND REMAT_LAYERS exec)
endif()

set(REMAT_LAYER_TARGETS)
foreach(layer IN LISTS REMAT_LAYERS)
  set_target_properties(remat_${layer} PROPERTIES EXPORT_NAME ${layer})
  list(APPEND REMAT_LAYER_TARGETS remat_${layer})
endforeach()

# remat::remat: every layer (remat::exec, which links libtorch, only by name).
add_library(remat_all INTERFACE)
set_target_properties(remat_all PROPERTIES EXPORT_NAME remat)
foreach(layer IN LISTS REMAT_LAYERS)
  if(NOT layer STREQUAL "exec")
    target_link_libraries(remat_all INTERFACE remat_${layer})
  endif()
endforeach()
add_library(remat::remat ALIAS remat_all)

install(TARGETS ${REMAT_LAYER_TARGETS} remat_all EXPORT rematTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The headers of the installed layers: not the command line's (cli/), nor exec/ without libtorch.
set(REMAT_HEADER_EXCLUDES PATTERN cli EXCLUDE)
if(NOT REMAT_WITH_TORCH)
  list(APPEND REMAT_HEADER_EXCLUDES PATTERN exec EXCLUDE)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/remat DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" ${REMAT_HEADER_EXCLUDES})

set(REMAT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/remat)
install(EXPORT rematTargets NAMESPACE remat:: DESTINATION ${REMAT_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/rematConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/rematConfig.cmake INSTALL_DESTINATION ${REMAT_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/rematConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/rematConfig.cmake ${PROJECT_BINARY_DIR}/rematConfigVersion.cmake
        DESTINATION ${REMAT_CMAKE_DIR})
