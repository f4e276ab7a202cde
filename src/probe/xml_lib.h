/* libxml2, loaded when an nvidia-smi file is read and not before: linked at start it brought ICU,
 * libstdc++, lzma and zlib into every command (13 shared objects), the whole gap between the audit's
 * start-up and lstopo's. The declarations are libxml2's own headers (build time only), so each
 * function pointer has exactly the library's type; dlopen("libxml2.so.2") finds it at run time. */
#ifndef GPUVET_PROBE_XML_LIB_H
#define GPUVET_PROBE_XML_LIB_H

#include <stdbool.h>
#include <stddef.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

struct xml_lib {
    __typeof__(xmlNewDoc) *NewDoc;
    __typeof__(xmlNewNode) *NewNode;
    __typeof__(xmlNewChild) *NewChild;
    __typeof__(xmlNewProp) *NewProp;
    __typeof__(xmlNodeAddContent) *NodeAddContent;
    __typeof__(xmlDocSetRootElement) *DocSetRootElement;
    __typeof__(xmlDocGetRootElement) *DocGetRootElement;
    __typeof__(xmlNodeGetContent) *NodeGetContent;
    __typeof__(xmlGetProp) *GetProp;
    __typeof__(xmlFreeDoc) *FreeDoc;
    __typeof__(xmlUnlinkNode) *UnlinkNode;
    __typeof__(xmlFreeNode) *FreeNode;
    __typeof__(xmlNewParserCtxt) *NewParserCtxt;
    __typeof__(xmlFreeParserCtxt) *FreeParserCtxt;
    __typeof__(xmlCtxtReadMemory) *CtxtReadMemory;
    __typeof__(xmlStopParser) *StopParser;
    __typeof__(xmlGetLastError) *GetLastError;
    __typeof__(xmlResetLastError) *ResetLastError;
    xmlFreeFunc Free; /* the library's xmlFree, for what it allocated */
};

/* The library, loaded on the first call (once per process): NULL with the reason in err when
 * libxml2.so.2 is not installed or lacks a function. */
const struct xml_lib *xml_lib_get(char *err, size_t errlen);

/* The library once xml_lib_get succeeded (NULL before): for helpers below an entry point that
 * checked. */
const struct xml_lib *xml_lib_loaded(void);

/* A call into the loaded library: XML(NewDoc)((const xmlChar *)"1.0"). */
#define XML(fn) (xml_lib_loaded()->fn)

#endif
