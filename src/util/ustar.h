/* A small writer of POSIX ustar archives (with pax headers for long names), enough to pack a
 * recorded tree: folders, regular files and symbolic links. */
#ifndef GPUVET_UTIL_USTAR_H
#define GPUVET_UTIL_USTAR_H

#include <stddef.h>

/* Packs the tree at root into the archive path, every entry under the folder name top.
 * Returns 0, or -1 with the reason in err. */
int ustar_write_tree(const char *root, const char *top, const char *path, char *err, size_t errlen);

#endif
