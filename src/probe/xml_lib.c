#include "probe/xml_lib.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/dlsym.h"
#include "util/ondemand.h"

static struct xml_lib lib;
static const struct xml_lib *loaded;

static bool resolve(void *h, const char *soname, char *why, size_t whylen)
{
    DL_RESOLVE(h, lib.NewDoc, "xmlNewDoc");
    DL_RESOLVE(h, lib.NewNode, "xmlNewNode");
    DL_RESOLVE(h, lib.NewChild, "xmlNewChild");
    DL_RESOLVE(h, lib.NewProp, "xmlNewProp");
    DL_RESOLVE(h, lib.NodeAddContent, "xmlNodeAddContent");
    DL_RESOLVE(h, lib.DocSetRootElement, "xmlDocSetRootElement");
    DL_RESOLVE(h, lib.DocGetRootElement, "xmlDocGetRootElement");
    DL_RESOLVE(h, lib.NodeGetContent, "xmlNodeGetContent");
    DL_RESOLVE(h, lib.GetProp, "xmlGetProp");
    DL_RESOLVE(h, lib.FreeDoc, "xmlFreeDoc");
    DL_RESOLVE(h, lib.UnlinkNode, "xmlUnlinkNode");
    DL_RESOLVE(h, lib.FreeNode, "xmlFreeNode");
    DL_RESOLVE(h, lib.NewParserCtxt, "xmlNewParserCtxt");
    DL_RESOLVE(h, lib.FreeParserCtxt, "xmlFreeParserCtxt");
    DL_RESOLVE(h, lib.CtxtReadMemory, "xmlCtxtReadMemory");
    DL_RESOLVE(h, lib.StopParser, "xmlStopParser");
    DL_RESOLVE(h, lib.GetLastError, "xmlGetLastError");
    DL_RESOLVE(h, lib.ResetLastError, "xmlResetLastError");
    /* xmlFree is a variable; with thread-local allocators the library hands its address out through
     * __xmlFree() (libxml/globals.h). */
    xmlFreeFunc *(*free_at)(void) = NULL;
    DL_RESOLVE(h, free_at, "__xmlFree");
    xmlFreeFunc *variable = free_at ? free_at() : (xmlFreeFunc *)dlsym(h, "xmlFree");
    lib.Free = variable ? *variable : NULL;
    bool complete = lib.NewDoc && lib.NewNode && lib.NewChild && lib.NewProp && lib.NodeAddContent &&
                    lib.DocSetRootElement && lib.DocGetRootElement && lib.NodeGetContent && lib.GetProp &&
                    lib.FreeDoc && lib.NewParserCtxt && lib.FreeParserCtxt && lib.CtxtReadMemory && lib.StopParser &&
                    lib.GetLastError && lib.ResetLastError && lib.Free && lib.UnlinkNode && lib.FreeNode;
    if (!complete) {
        snprintf(why, whylen, "%s lacks a function gpuvet calls (libxml2 2.9 or later is needed)", soname);
        return false;
    }
    loaded = &lib;
    return true;
}

static const char *const sonames[] = {"libxml2.so.2", NULL};
static struct ondemand_lib libxml2 = ONDEMAND_LIB(sonames, "libxml2", resolve);

const struct xml_lib *xml_lib_get(char *err, size_t errlen)
{
    return ondemand_open(&libxml2, err, errlen) ? &lib : NULL;
}

const struct xml_lib *xml_lib_loaded(void)
{
    return loaded;
}
