# Unpacks every tests/fixtures/*/*.tar.bz2 into DST/<subdir>/ (hwloc's gathered trees keep
# their own top folder name inside).
file(GLOB_RECURSE archives ${SRC}/*.tar.bz2)
foreach(archive ${archives})
  get_filename_component(dir ${archive} DIRECTORY)
  file(RELATIVE_PATH sub ${SRC} ${dir})
  get_filename_component(stem ${archive} NAME_WE)
  set(out ${DST}/${sub})
  file(MAKE_DIRECTORY ${out})
  if(NOT EXISTS ${out}/.${stem}.done OR ${archive} IS_NEWER_THAN ${out}/.${stem}.done)
    file(ARCHIVE_EXTRACT INPUT ${archive} DESTINATION ${out})
    file(TOUCH ${out}/.${stem}.done)
  endif()
endforeach()
