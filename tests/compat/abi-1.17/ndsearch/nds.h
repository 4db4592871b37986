/* SPDX-License-Identifier: Apache-2.0 */
/* nds.h: every stable header of the ndsearch plugin ABI (drafts excluded). */
#ifndef NDSEARCH_NDS_H_INCLUDED
#define NDSEARCH_NDS_H_INCLUDED

#include "nds_abi.h"
#include "nds_candidate.h"
#include "nds_cp_attention.h"
#include "nds_hardware.h"
#include "nds_memory.h"
#include "nds_model.h"
#include "nds_parser.h"
#include "nds_recompute.h"

#endif /* NDSEARCH_NDS_H_INCLUDED */
