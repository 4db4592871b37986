// SPDX-License-Identifier: Apache-2.0
// sdk.hpp: every header of the ndsearch plugin SDK.
#ifndef NDSEARCH_SDK_HPP_INCLUDED
#define NDSEARCH_SDK_HPP_INCLUDED

#include <ndsearch/sdk/cp_attention.hpp>
#include <ndsearch/sdk/hardware.hpp>
#include <ndsearch/sdk/memory.hpp>
#include <ndsearch/sdk/parser.hpp>
#include <ndsearch/sdk/plugin.hpp>
#include <ndsearch/sdk/recompute.hpp>

#endif  // NDSEARCH_SDK_HPP_INCLUDED
