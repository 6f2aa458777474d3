#ifndef CSYSTEMD_SHIM_H
#define CSYSTEMD_SHIM_H

// The journal's location macros wrap sd_journal_sendv() in a variadic-free but
// __FILE__-based form that would stamp this header's location on every entry;
// Swift passes its own CODE_FILE/CODE_LINE/CODE_FUNC fields instead.
#define SD_JOURNAL_SUPPRESS_LOCATION 1

#include <sys/socket.h>
#include <sys/uio.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

#endif
