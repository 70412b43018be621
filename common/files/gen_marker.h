/* SPDX-License-Identifier: MIT */
/* gen_marker.h - reading the preprocessor's line markers. */
#ifndef APIPROF_GEN_MARKER_H
#define APIPROF_GEN_MARKER_H

#include <stdbool.h>

#include "spec_buf.h"

/* The file a line marker `# LINE "NAME" FLAGS` enters (flag 1), in name;
 * false for any other line.  NAME is quoted as a C string. */
bool gen_marker_enters(const char *line, struct spec_buf *name);

#endif
