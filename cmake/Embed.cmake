# plaudit_embed(target namespace dir ext): compiles every DIR/*.EXT file into a static
# library exposing `std::span<const plaudit::EmbeddedFile> Files()` in NAMESPACE, so Lua
# scripts and SQL migrations live as plain files in the tree yet ship inside the binary.
function(plaudit_embed target ns dir ext)
  file(GLOB files CONFIGURE_DEPENDS ${dir}/*.${ext})
  list(SORT files)
  plaudit_embed_files(${target} ${ns} FILES ${files} COMMENT "Embedding ${ext} files from ${dir}")
endfunction()

# plaudit_embed_files(target namespace FILES f... [COMMENT text]): the same for a fixed list
# of files that may be generated at build time (the web bundles): they need not exist when
# CMake configures, and a rebuild of any of them re-embeds.
function(plaudit_embed_files target ns)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "COMMENT" "FILES")
  if(NOT arg_COMMENT)
    set(arg_COMMENT "Embedding files into ${target}")
  endif()
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${target}.cpp)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DNS=${ns} "-DFILES=${arg_FILES}"
            -P ${CMAKE_SOURCE_DIR}/cmake/EmbedGen.cmake
    DEPENDS ${arg_FILES} ${CMAKE_SOURCE_DIR}/cmake/EmbedGen.cmake
    COMMENT "${arg_COMMENT}"
    VERBATIM)
  add_library(${target} STATIC ${out})
  target_include_directories(${target} PUBLIC ${CMAKE_SOURCE_DIR}/src)
endfunction()
