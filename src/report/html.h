/* Helpers shared by the HTML page (html.c) and its topology picture (svg_topology.c). */
#ifndef GPUVET_REPORT_HTML_H
#define GPUVET_REPORT_HTML_H

#include <stdio.h>

#include "report/page.h"

/* The topology as an inline SVG drawing (no external reference). */
void svg_topology(FILE *o, const struct topo_tree *t);

#endif
