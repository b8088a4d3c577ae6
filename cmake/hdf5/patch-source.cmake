# Our changes to HDF5 1.14.5, applied to the unpacked Debian source by
# ExternalProject's patch step (cmake -DSOURCE_DIR=... -P patch-source.cmake).
# Each names the text it replaces and fails the build when that text is not
# there exactly once, so a different HDF5 cannot be patched silently.
#
# 1. H5HGcache.c: a global heap collection whose free-space entry (index 0)
#    is smaller than an object header made H5HG__cache_heap_deserialize
#    loop forever (the entry's size is how far the parser moves; 0 never
#    moves). All 6 of the 9 000 campaign mutants that spun on both 1.10.8
#    and 1.14.5 spun there (perf, docs/robustness.md). A valid file never
#    has one: the free space counts its own 16-byte header, and a remainder
#    too small for a header is written without an entry.

function(replace_once file old new)
  file(READ "${SOURCE_DIR}/${file}" text)
  string(FIND "${text}" "${old}" first)
  string(FIND "${text}" "${old}" last REVERSE)
  if(first EQUAL -1 OR NOT first EQUAL last)
    message(FATAL_ERROR "patch-source.cmake: the text to replace is not in ${file} exactly once")
  endif()
  string(REPLACE "${old}" "${new}" text "${text}")
  file(WRITE "${SOURCE_DIR}/${file}" "${text}")
endfunction()

replace_once(src/H5HGcache.c
"            else
                need = heap->obj[idx].size;
"
"            else {
                need = heap->obj[idx].size;
                /* h5ad-sizer: free space counts its own header; less never advances p */
                if (need < H5HG_SIZEOF_OBJHDR(f))
                    HGOTO_ERROR(H5E_HEAP, H5E_BADVALUE, NULL, \"global heap free space smaller than its header\");
            }
")
