/* SPDX-License-Identifier: Apache-2.0 */
/* nds_abi.h: what every ndsearch plugin kind shares: version, status, strings,
 * host services and the module entry. Plain C99; see abi/conventions.md. */
#ifndef NDSEARCH_NDS_ABI_H_INCLUDED
#define NDSEARCH_NDS_ABI_H_INCLUDED

#include <stddef.h> /* size_t, offsetof */
#include <stdint.h> /* fixed-width integers */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version rules ----------------------------------------------------------
 * NDS_ABI_MAJOR changes when anything is removed, retyped, reordered or given a
 * new meaning. A host refuses a module whose major differs from its own.
 * NDS_ABI_MINOR goes up whenever a field is appended to a struct, a builder key
 * is added or an interface is added. Any minor loads in both directions: every
 * struct that crosses starts with `struct_size`, and a reader only reads the
 * fields that fit inside it (NDS_HAS_FIELD). abi/CHANGELOG.md has one line per
 * minor. Version 1.0 is final (abi/CHANGELOG.md): from here on, append-only. */
#define NDS_ABI_MAJOR 1
#define NDS_ABI_MINOR 18
#define NDS_ABI_VERSION_STRING "1.18"

/* True when the struct `p` points to (of type T, as its writer saw it) is large
 * enough to hold `field`. Read an appended field only when this holds. It is
 * exact because no struct of the ABI ends in padding: sizeof(T) is the end of
 * its last field (asserted in tests/abi/), so appended fields always grow
 * sizeof; a field of 4 bytes is appended together with another, or as 8. */
#define NDS_HAS_FIELD(p, T, field) \
  ((p)->struct_size >= offsetof(T, field) + sizeof(((const T*)0)->field))

/* Symbol visibility of the one exported entry point. */
#if defined(_WIN32)
#define NDS_EXPORT __declspec(dllexport)
#elif defined(__GNUC__)
#define NDS_EXPORT __attribute__((visibility("default")))
#else
#define NDS_EXPORT
#endif

/* ---- Status ------------------------------------------------------------------
 * A failure crosses the boundary as an opaque nds_status*; NULL means success.
 * Only the host makes statuses (nds_host.make_status) and only the host frees
 * them (nds_host.release_status). A status the host hands to a plugin (from a
 * builder call, say) is either returned onward by the plugin or released. */
typedef struct nds_status nds_status;

typedef int32_t nds_status_code;
enum {
  NDS_OK = 0,
  NDS_INVALID_ARGUMENT = 1,    /* the input (a file, a field, a value) is wrong */
  NDS_NOT_FOUND = 2,           /* a named thing (file, key, device) does not exist */
  NDS_UNSUPPORTED = 3,         /* understood but not handled by this plugin */
  NDS_OUT_OF_RANGE = 4,        /* a number outside what the field allows */
  NDS_FAILED_PRECONDITION = 5, /* called in the wrong state or order */
  NDS_INTERNAL = 6,            /* a bug or an unexpected failure (an exception, say) */
  NDS_ABI_MISMATCH = 7,        /* a struct or version the reader cannot use */
  NDS_INFEASIBLE = 8           /* a candidate that is not wrong, just impossible */
};

/* ---- Strings ----------------------------------------------------------------
 * A string that comes with a length. `data` need not be NUL-terminated unless a
 * comment says so; strings the host makes always are. Like nds_curve, it has
 * no struct_size and never grows. */
typedef struct nds_str {
  const char* data;
  size_t size;
} nds_str;

/* ---- Logging levels (the values of spdlog's levels) -------------------------- */
typedef int32_t nds_log_level;
enum {
  NDS_LOG_TRACE = 0,
  NDS_LOG_DEBUG = 1,
  NDS_LOG_INFO = 2,
  NDS_LOG_WARN = 3,
  NDS_LOG_ERROR = 4,
  NDS_LOG_CRITICAL = 5,
  NDS_LOG_OFF = 6
};

/* ---- Host services ------------------------------------------------------------
 * Given to a module at init. Each module gets its own nds_host whose `context`
 * routes its log lines to the spdlog logger `plugin.<module id>`. The struct and
 * everything it points to stay valid until the module's shutdown returns.
 * Every function takes the `context` of the nds_host it came from. */
typedef struct nds_host {
  size_t struct_size;
  uint32_t abi_major; /* the host's NDS_ABI_MAJOR */
  uint32_t abi_minor; /* the host's NDS_ABI_MINOR */
  void* context;      /* opaque; pass it back to every function below */

  /* [any-thread] Writes one log line (no trailing newline needed). Never call it
   * from a [hot] function. `message` is copied before return. */
  void (*log)(void* context, nds_log_level level, const char* message, size_t message_size);

  /* [any-thread] The lowest level that is written; lets a plugin skip
   * formatting a message nobody will see. */
  nds_log_level (*log_threshold)(void* context);

  /* [any-thread] Makes a status; `message` (UTF-8, copied) should say what was
   * wrong, where (file, line, field) and how to fix it. Never returns NULL for a
   * code other than NDS_OK (out of memory yields a shared static status). For
   * NDS_OK it returns NULL. */
  nds_status* (*make_status)(void* context, nds_status_code code, const char* message,
                             size_t message_size);

  /* [any-thread] Frees a status the plugin received from the host and does not
   * return onward. NULL is allowed and does nothing. */
  void (*release_status)(void* context, nds_status* status);

  /* [any-thread] The code of a status; NULL reads as NDS_OK. */
  nds_status_code (*status_code)(void* context, const nds_status* status);

  /* [any-thread] The message of a status; NULL reads as "". NUL-terminated,
   * valid as long as the status. */
  nds_str (*status_message)(void* context, const nds_status* status);

  /* [any-thread] The value of a plugin option given on the command line (e.g.
   * key "device-file" for --device-file). Unset: {NULL, 0}. NUL-terminated.
   * Keys are documented in abi/conventions.md. Whose options: for a module
   * without NDS_MODULE_OPTIONS_PER_CALL, those of the run that called init,
   * valid and unchanged until shutdown. For a module with it, those of the run
   * on whose behalf the host makes the current call into the module (a run
   * that shares the module may have other options), valid until that call
   * returns; outside such a call, those of the run that called init. */
  nds_str (*get_option)(void* context, const char* key);

  /* [any-thread] A later service by id (e.g. "nds.host.something/1"); NULL when
   * this host does not offer it. The pointer stays valid until shutdown. */
  const void* (*get_service)(void* context, const char* service_id);
} nds_host;

/* ---- Module entry ------------------------------------------------------------
 * Every plugin library exports exactly one symbol, nds_get_module, returning a
 * static table. One module may offer several interfaces ("kinds"). */
typedef struct nds_module {
  size_t struct_size; /* sizeof(nds_module) as the plugin saw it */
  uint32_t abi_major; /* NDS_ABI_MAJOR the plugin was built with */
  uint32_t abi_minor; /* NDS_ABI_MINOR the plugin was built with */
  /* Stable id: lower-case [a-z0-9][a-z0-9._-]*; ours are short ("nvidia"),
   * others reverse-DNS ("com.example.npu"). NUL-terminated, static. */
  const char* id;
  const char* version; /* the plugin's own version, e.g. "1.2.0"; static */

  /* [once] First call into the module. `host` outlives the module; `module_path`
   * is the library's absolute path, valid during the call only. NULL = success;
   * a status means the module is unusable and is skipped (its message is shown). */
  nds_status* (*init)(const nds_host* host, const char* module_path);

  /* [once] Last call; never concurrent with anything else. May be NULL. */
  void (*shutdown)(void);

  /* [any-thread] After a successful init: the interface table for an id such as
   * "nds.hardware/1", or NULL when the module does not offer it. The table is
   * static or lives until shutdown. */
  const void* (*get_interface)(const char* interface_id);

  /* One line for `ndsearch plugins list`; NULL reads as "". Static. */
  const char* description;
  /* NDS_MODULE_* bits (since 1.2; absent reads as 0). */
  uint64_t flags;
  /* Add fields only at the end. */
} nds_module;

/* nds_module.flags: the module reads plugin options with get_option in the
 * calls that use them (get_devices, parse, compile, ...) and keeps nothing
 * derived from an option's value past that call unless keyed by the value (a
 * device table per device file, say). The host may then share one
 * initialisation between live runs with different options, each call reading
 * its own run's (get_option). Without it, a module serves one set of options
 * from init to shutdown and a run with other options is refused while another
 * holds it (E-PLUGIN-OPTIONS). */
#define NDS_MODULE_OPTIONS_PER_CALL ((uint64_t)1)

/* The name of the one exported symbol, and its type: [any-thread], returns the
 * same static table on every call, never NULL. */
#define NDS_ENTRY_SYMBOL "nds_get_module"
typedef const nds_module* (*nds_get_module_fn)(void);

/* The entry point every plugin defines (see nds_get_module_fn). */
NDS_EXPORT const nds_module* nds_get_module(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* NDSEARCH_NDS_ABI_H_INCLUDED */
