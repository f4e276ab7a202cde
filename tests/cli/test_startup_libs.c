/* libxml2 is loaded when an nvidia-smi file is read, and only then (probe/xml_lib.c): linked at start
 * it brought ICU, libstdc++, lzma and zlib into every command; libturbojpeg likewise when `bench
 * decode` runs (bench/jpeg_lib.c). The dynamic loader's own trace
 * (LD_DEBUG=files, glibc) says which objects a run opened. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define SMI_H200 GPUVET_TEST_SOURCE "/fixtures/nvidia-smi/gpuvet-h200-passthrough-drv580.xml"

Test(startup_libs, libxml2_only_when_an_xml_file_is_read)
{
    setenv("LD_DEBUG", "files", 1);
    struct run_result r = run_gpuvet("audit", "--json", "--sysroot", fixture("sysroot/32em64t-2n8c+1mic"), NULL);
    cr_assert(strstr(r.err, "file=libjansson"), "no loader trace: %.300s", r.err);
    cr_expect_null(strstr(r.err, "libxml2"), "an audit without nvidia-smi files loaded libxml2");
    cr_expect_null(strstr(r.err, "libicu"), "an audit without nvidia-smi files loaded ICU");
    cr_expect_null(strstr(r.err, "libturbojpeg"), "an audit loaded libturbojpeg (bench decode's alone)");
    run_result_free(&r);
    r = run_gpuvet("audit", "--json", "--sysroot", fixture("sysroot/32em64t-2n8c+1mic"), "--nvidia-smi", SMI_H200, NULL);
    cr_expect(strstr(r.err, "file=libxml2.so.2"), "reading nvidia-smi XML loads libxml2");
    cr_expect(strstr(r.out, "H200"), "and reads the GPU: %.300s", r.out);
    run_result_free(&r);
    unsetenv("LD_DEBUG");
}
