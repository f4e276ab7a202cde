# Build rules for a message catalogue, shared by the main build (cmake/i18n.cmake) and the fuzz
# project (tests/fuzz/CMakeLists.txt). Needs GPUVET_MSGFMT and GPUVET_ROOT (the source tree).

# PO compiled into MO by msgfmt. --check fails the build on a translated format string whose
# conversions differ from the English (c-format).
function(gpuvet_catalogue_mo po mo)
  get_filename_component(dir ${mo} DIRECTORY)
  get_filename_component(lang ${po} NAME_WE)
  add_custom_command(OUTPUT ${mo}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${GPUVET_MSGFMT} --check -o ${mo} ${po}
    DEPENDS ${po} COMMENT "Compiling the ${lang} message catalogue" VERBATIM)
endfunction()

# MO as the C array embedded_catalogue_zh_CN in C_FILE, compiled into the binary (src/util/i18n.c).
function(gpuvet_catalogue_embedded mo c_file)
  add_custom_command(OUTPUT ${c_file}
    COMMAND ${CMAKE_COMMAND} "-DOUT=${c_file}" "-DFILES=${mo}" -DARRAY=embedded_catalogue_zh_CN
            -P ${GPUVET_ROOT}/cmake/embed_data.cmake
    DEPENDS ${mo} ${GPUVET_ROOT}/cmake/embed_data.cmake
    COMMENT "Compiling the zh_CN message catalogue into the binary" VERBATIM)
endfunction()
