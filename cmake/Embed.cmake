# plaudit_embed(target namespace dir ext): compiles every DIR/*.EXT file into a static
# library exposing `std::span<const plaudit::EmbeddedFile> Files()` in NAMESPACE, so Lua
# scripts and SQL migrations live as plain files in the tree yet ship inside the binary.
function(plaudit_embed target ns dir ext)
  file(GLOB files CONFIGURE_DEPENDS ${dir}/*.${ext})
  list(SORT files)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${target}.cpp)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DNS=${ns} "-DFILES=${files}"
            -P ${CMAKE_SOURCE_DIR}/cmake/EmbedGen.cmake
    DEPENDS ${files} ${CMAKE_SOURCE_DIR}/cmake/EmbedGen.cmake
    COMMENT "Embedding ${ext} files from ${dir}"
    VERBATIM)
  add_library(${target} STATIC ${out})
  target_include_directories(${target} PUBLIC ${CMAKE_SOURCE_DIR}/src)
endfunction()
