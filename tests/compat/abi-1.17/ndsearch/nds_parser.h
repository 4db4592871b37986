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

/* ---- Writing a strategy into a config (1.5) ------------------------------------
 * What `apply` writes: one strategy with where its layers go. Valid during the
 * call only. */
typedef struct nds_applied_strategy {
  size_t struct_size;
  const nds_strategy* strategy; /* every key set (none is NDS_UNKNOWN) */
  /* Layers of the language model per virtual stage, in pipeline order (stage
   * c·pp + r is chunk c of rank r), `stage_layer_count` = pp·vpp entries; NULL
   * when the layers split evenly (the trainer's default split). */
  const int64_t* stage_layers;
  size_t stage_layer_count;
  int64_t layers;       /* decoder layers of the language model */
  int64_t devices;      /* dp·tp·pp·cp */
  int64_t global_batch; /* sequences per step: dp·mbs·mbn */
  /* 1.7: each decoder layer's nds_layer_option as the strategy was priced,
   * model order, `layer_option_count` = `layers` entries: which layers are
   * recomputed (fully or selectively), kept or offloaded, whether a
   * recompute strategy chose them or the config's per-stage counts (rescaled
   * to this pp) gave them. NULL when every layer runs the strategy's
   * recompute mode. A writer writes what its trainer can state of it (per-
   * stage counts, a uniform or block method) and refuses the rest with
   * NDS_UNSUPPORTED; a writer built before 1.7 does not see it, and the host
   * then refuses a plan that is not every layer alike. */
  const int32_t* layer_options;
  size_t layer_option_count;
  /* 1.11: the NDS_OVERLAP_* switches the strategy was priced with (the
   * config's, or what the host assumed where it states none). A writer
   * states those its trainer has a setting for (Megatron-LM's
   * --overlap-grad-reduce, --overlap-param-gather, --tp-comm-overlap) where
   * the strategy can run them; a host before 1.11 passes a shorter struct and
   * the writer leaves the config's overlap settings as they are. */
  uint64_t overlap;
  /* Add fields only at the end. */
} nds_applied_strategy;

/* Where `apply` writes its text; the host copies each piece before return. */
typedef struct nds_text_sink {
  size_t struct_size;
  void* context; /* pass it back to write */
  /* [serialized] Appends `size` bytes; a status (out of memory, say) is
   * returned onward by the parser. */
  nds_status* (*write)(void* context, const char* bytes, size_t size);
  /* Add fields only at the end. */
} nds_text_sink;

/* [serialized] Writes to `out` the text of the config at `path` (NUL-terminated)
 * with `applied` in it: the values of the keys the strategy sets changed where
 * the file states them, the keys it lacks added on lines of their own, every
 * other byte of the file unchanged (comments, order, unknown keys). `path` NULL:
 * writes the strategy alone, as the part of this format a user adds to a
 * config of their own (flags, a table); a parser that writes only into a
 * file returns NDS_FAILED_PRECONDITION then. A strategy the trainer cannot
 * express is refused with NDS_UNSUPPORTED naming the key and why; nothing
 * partial is used then. */
typedef nds_status* (*nds_apply_fn)(const char* path, const nds_applied_strategy* applied,
                                    const nds_text_sink* out);

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
  /* 1.5: writes a strategy into a config of this format (see nds_apply_fn);
   * NULL when the parser cannot. */
  nds_apply_fn apply;
  /* Add fields only at the end. */
} nds_parser_v1;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* NDSEARCH_NDS_PARSER_H_INCLUDED */
