#include "util/jsonval.h"
#include "util/sanitize.h"

#include <math.h>
#include <stdio.h>

void json_set_real(json_t *obj, const char *key, double v)
{
    if (isfinite(v)) {
        json_object_set_new(obj, key, json_real(v));
        return;
    }
    char why_key[128];
    snprintf(why_key, sizeof why_key, "%s_unknown", key);
    json_object_set_new(obj, key, json_null());
    json_object_set_new(obj, why_key,
                        json_string(isnan(v) ? "not a number (NaN): the inputs it is computed from are out of range"
                                             : "infinite: the inputs it is computed from are out of range"));
}

json_t *json_string_or_null(const char *s)
{
    json_t *v = s ? json_text(s) : NULL; /* valid UTF-8, never dropped for a bad byte */
    return v ? v : json_null();
}
