#include "util/pciaddr.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Reads 1..max_digits hex digits at *p into *value; advances *p. */
static bool hex_field(const char **p, int max_digits, uint32_t *value)
{
    uint32_t v = 0;
    int n = 0;
    while (isxdigit((unsigned char)**p)) {
        if (++n > max_digits)
            return false;
        char c = (char)tolower((unsigned char)**p);
        v = v << 4 | (uint32_t)(c <= '9' ? c - '0' : c - 'a' + 10);
        (*p)++;
    }
    *value = v;
    return n > 0;
}

bool pci_address_parse(const char *text, struct pci_address *out)
{
    if (!text)
        return false;
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    /* Two colons before the dot: the domain is given. */
    const char *dot = strchr(p, '.');
    int colons = 0;
    for (const char *q = p; *q && (!dot || q < dot); q++)
        colons += *q == ':';
    uint32_t domain = 0, bus, device, function;
    if (colons == 2 && (!hex_field(&p, 8, &domain) || *p++ != ':'))
        return false;
    if (colons < 1 || colons > 2 || !hex_field(&p, 2, &bus) || *p++ != ':' || !hex_field(&p, 2, &device) ||
        *p++ != '.' || !hex_field(&p, 1, &function))
        return false;
    while (isspace((unsigned char)*p))
        p++;
    if (*p || device > 0x1f || function > 7)
        return false;
    *out = (struct pci_address){domain, (uint8_t)bus, (uint8_t)device, (uint8_t)function};
    return true;
}

void pci_address_format(const struct pci_address *a, char out[PCI_ADDRESS_LEN])
{
    snprintf(out, PCI_ADDRESS_LEN, "%04x:%02x:%02x.%x", (unsigned)a->domain, (unsigned)a->bus, (unsigned)a->device,
             (unsigned)a->function);
}

void pci_address_format_short(const struct pci_address *a, char out[PCI_ADDRESS_LEN])
{
    if (a->domain != 0)
        pci_address_format(a, out);
    else
        snprintf(out, PCI_ADDRESS_LEN, "%02x:%02x.%x", (unsigned)a->bus, (unsigned)a->device, (unsigned)a->function);
}

void pci_address_format_nvml(const struct pci_address *a, char out[PCI_ADDRESS_LEN])
{
    snprintf(out, PCI_ADDRESS_LEN, "%08X:%02X:%02X.%X", (unsigned)a->domain, (unsigned)a->bus, (unsigned)a->device,
             (unsigned)a->function);
}

bool pci_address_normalise(const char *text, char out[PCI_ADDRESS_LEN])
{
    struct pci_address a;
    if (!pci_address_parse(text, &a))
        return false;
    pci_address_format(&a, out);
    return true;
}

bool pci_address_is_sysfs_name(const char *text)
{
    char canonical[PCI_ADDRESS_LEN];
    return pci_address_normalise(text, canonical) && !strcmp(canonical, text);
}

bool pci_address_same(const char *a, const char *b)
{
    struct pci_address x, y;
    return pci_address_parse(a, &x) && pci_address_parse(b, &y) && x.domain == y.domain && x.bus == y.bus &&
           x.device == y.device && x.function == y.function;
}
