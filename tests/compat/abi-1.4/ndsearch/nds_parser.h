/* SPDX-License-Identifier: Apache-2.0 */
/* nds_parser.h: "nds.parser/1", a framework parser. It reads a trainer's
 * config file and fills the model through the host's builder callbacks; the
 * host owns every byte and keeps each value's provenance for error messages. */
#ifndef NDSEARCH_NDS_PARSER_H_INCLUDED
#define NDSEARCH_NDS_PARSER_H_INCLUDED

#include "nds_model.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NDS_PARSER_INTERFACE_ID "nds.parser/1"

/* ---- Provenance ----------------------------------------------------------------
 * Where a value came from. Strings are read during the call only. */
typedef struct nds_provenance {
  size_t struct_size;
  const char* file;  /* the file the value was read from; NULL for a default */
  int64_t line;      /* 1-based; NDS_UNKNOWN where the format gives none */
  const char* field; /* the field as the file spells it: "model.model_config.num_layers" */
  /* For a trainer's documented default: the trainer ("megatron"), recorded as
   * "default:megatron". NULL for a value read from a file. */
  const char* default_of;
  /* Add fields only at the end. */
} nds_provenance;

/* ---- Model builder ---------------------------------------------------------------
 * Keys are the field names of nds_model.h (abi/model-vocabulary.md lists each
 * key with its type and unit). Between begin_block and end_block the keys of
 * nds_layer_block apply to that block; elsewhere the keys of nds_model and
 * nds_training apply (a strategy key is written "stated.<key>"). Every call is
 * validated: a status names the key, the value and why it was refused; the
 * parser returns it onward (usually) or releases it with host->release_status.
 * Calls are made during parse only, from the thread that called parse;
 * strings are copied before return. */
typedef struct nds_model_builder nds_model_builder; /* the host's */

typedef struct nds_builder_v1 {
  size_t struct_size;
  nds_model_builder* builder; /* pass it back to every function below */

  /* [serialized] Opens a block of `layers` layers of one `kind` ("decoder",
   * "mtp", "encoder"), appended after the blocks already built. */
  nds_status* (*begin_block)(nds_model_builder* builder, const char* kind, int64_t layers,
                             const nds_provenance* where);
  /* [serialized] Closes the open block; a status if none is open. */
  nds_status* (*end_block)(nds_model_builder* builder);

  /* [serialized] Opens a tower beside the language model (a vision encoder):
   * blocks and model keys go to it until end_submodel. */
  nds_status* (*begin_submodel)(nds_model_builder* builder, const char* name,
                                const nds_provenance* where);
  /* [serialized] Closes the open tower; a status if none is open. */
  nds_status* (*end_submodel)(nds_model_builder* builder);

  /* [serialized] Set one value each. Integers also carry flags (0/1);
   * enumerations are strings ("swiglu", "bf16", "interleaved"); lists are
   * per-stage values. A status names the key, the value and why it is refused. */
  nds_status* (*set_int)(nds_model_builder* builder, const char* key, int64_t value,
                         const nds_provenance* where);
  nds_status* (*set_real)(nds_model_builder* builder, const char* key, double value,
                          const nds_provenance* where);
  nds_status* (*set_string)(nds_model_builder* builder, const char* key, const char* value,
                            size_t value_size, const nds_provenance* where);
  nds_status* (*set_int_list)(nds_model_builder* builder, const char* key,
                              const int64_t* values, size_t count, const nds_provenance* where);

  /* [serialized] Records that `key` is present but cannot be known without running
   * something (a positional `$3` in a script, a branch on the environment):
   * the value stays unknown and `why` becomes a warning. */
  nds_status* (*set_unknown)(nds_model_builder* builder, const char* key, const char* why,
                             const nds_provenance* where);

  /* [serialized] Reports a field of the file the parser does not understand.
   * It becomes a warning, or, under --strict, the returned status (return it
   * onward). */
  nds_status* (*unknown_field)(nds_model_builder* builder, const nds_provenance* where);
  /* Add fields only at the end. */
} nds_builder_v1;

/* ---- Interface "nds.parser/1" ------------------------------------------------------ */
typedef struct nds_parser_v1 {
  size_t struct_size;
  /* The trainer or format in words, e.g. "Megatron-LM / MindSpeed launch
   * script"; static. The parser's id for -f is its module's id. */
  const char* format;

  /* [serialized] How sure the parser is that `path` (NUL-terminated) is its
   * format, in [0, 1] (0: not mine; 1: certain). Reads at most the file; a
   * file it cannot read is confidence 0, not a status. A status is a failure
   * of the parser itself. */
  nds_status* (*probe)(const char* path, double* confidence);

  /* [serialized] Reads `path` and fills the model through `builder`. A status
   * names the file, field (and line where known), the bad value and the fix. */
  nds_status* (*parse)(const char* path, const nds_builder_v1* builder);

  /* Other names -f accepts for this parser ("mindspeed", ...): NULL-terminated
   * array of static strings, or NULL. */
  const char* const* aliases;
  /* Add fields only at the end. */
} nds_parser_v1;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* NDSEARCH_NDS_PARSER_H_INCLUDED */
