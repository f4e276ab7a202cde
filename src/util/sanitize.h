/* The one sanitiser of strings that came from a machine (DMI and PCI names, CUDA folder names,
 * NVML answers, host names, files in a fleet folder) on their way out. Every output passes them
 * through here:
 *  - text for people (terminal, text reports, Markdown, HTML, the health line, the Slurm reason):
 *    a control byte (C0 but the newline and tab a report keeps, DEL, C1) and every byte that
 *    begins no well-formed UTF-8 character is written as the four characters \xNN, so it is seen
 *    and cannot move the cursor, forge a line or garble the rest;
 *  - JSON and Prometheus label values, which must be UTF-8: a byte that begins no well-formed
 *    character becomes U+FFFD (the replacement character), so a document is never refused (and a
 *    finding never left out) for one bad byte;
 *  - host names handed to Slurm or clush as a hostlist: only letters, digits, '-', '.' and '_'.
 * Well-formed means what jansson and Prometheus accept: no overlong form, no surrogate, nothing
 * past U+10FFFF. */
#ifndef GPUVET_UTIL_SANITIZE_H
#define GPUVET_UTIL_SANITIZE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Bytes of the well-formed UTF-8 character at s (left > 0 bytes), or 0 when s[0] begins none. */
size_t utf8_char_len(const char *s, size_t left);

enum text_piece {
    TEXT_PRINTABLE, /* a well-formed character that is no control */
    TEXT_CONTROL,   /* C0 (newline and tab too: the caller decides), DEL, or C1 (two bytes) */
    TEXT_INVALID,   /* one byte that begins no well-formed UTF-8 character */
};
/* What the character at s (left > 0 bytes) is; *len its bytes, *shown the byte written as \xNN
 * when it is escaped (for C1, its second byte: U+009B is \x9b). */
enum text_piece text_piece_at(const char *s, size_t left, size_t *len, unsigned char *shown);

/* True when s (NUL-terminated) is well-formed UTF-8. */
bool text_is_utf8(const char *s);
/* s with every byte that begins no well-formed character replaced by U+FFFD; malloc'd (NULL
 * without memory; "" for NULL). */
char *text_valid_utf8(const char *s);
/* A JSON string of s made valid UTF-8 (never NULL while there is memory; "" for NULL). */
json_t *json_text(const char *s);

/* s on one line for people and other programs (the health line, the Slurm drain reason): tab as
 * a space, every other control byte and every invalid byte as \xNN, then cut to at most size - 1
 * bytes between two characters (never inside a \xNN or a UTF-8 character), trailing spaces
 * dropped. Returns true when something was escaped or cut. */
bool text_one_line(char *out, size_t size, const char *s);

/* s with tab as a space and every other control byte as \xNN, invalid bytes left for each output
 * to show its own way (JSON as U+FFFD, text as \xNN): for a finding's subject and message, which
 * are one line in every report. malloc'd (NULL without memory; "" for NULL). */
char *text_without_controls(const char *s);

/* Host names that may stand in a Slurm hostlist (`gpu[01-16]`): 1..HOSTNAME_MAX bytes of ASCII
 * letters, digits, '-', '.' and '_' (RFC 1123's alphabet, and the '_' Slurm's NodeName allows),
 * not starting with '-' or '.'. Anything else (a '[', ',' or space would make the list name other
 * nodes) is listed apart, never joined into a hostlist. */
#define HOSTNAME_MAX 253
bool hostname_is_plain(const char *s);

#endif
